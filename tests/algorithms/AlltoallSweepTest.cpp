//===- AlltoallSweepTest.cpp - Alltoall families verified for P = 1..64+ --===//
//
// Every pairwise and Bruck plan for P = 1..64 and a few larger P (radix 2,
// 3, 4 and P; one port and all ports) passes the verifier and the reference
// interpreter, and takes the textbook rounds and bytes, counted here from
// the plan and computed apart from the families:
//   - pairwise: P - 1 rounds, P - 1 blocks sent per rank;
//   - Bruck radix k: ceil(log_k P) phases of one round each (all ports) or
//     one round per message (one port); each rank sends, per phase x, the
//     slots j < P whose base-k digit x is not 0.
//   - dimension-pairwise on a torus d_0 x d_1 x ...: sum(d_i - 1) rounds,
//     sum (d_i - 1) P / d_i blocks sent per rank.
// A sample of alltoallv plans with uneven pair counts verifies too.
//
//===----------------------------------------------------------------------===//

#include "tests/support/PlanChecks.h"
#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <set>

using namespace collplan;
using namespace collplan::test;

namespace {

std::vector<uint32_t> sweptRanks() {
  std::vector<uint32_t> Out;
  for (uint32_t P = 1; P <= 64; ++P)
    Out.push_back(P);
  for (uint32_t P : {65u, 81u, 96u, 100u, 127u, 128u})
    Out.push_back(P);
  return Out;
}

/// Distinct rounds in which any rank sends, and the most blocks one rank
/// sends over the whole plan.
std::pair<uint64_t, uint64_t> roundsAndBlocks(const Plan &P) {
  std::set<uint32_t> Rounds;
  uint64_t MostBlocks = 0;
  for (const Program &Prog : P.Programs) {
    uint64_t Blocks = 0;
    for (const Round &Rd : Prog.Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send) {
          Rounds.insert(Rd.Index);
          Blocks += O.Blocks.count();
        }
    MostBlocks = std::max(MostBlocks, Blocks);
  }
  return {Rounds.size(), MostBlocks};
}

/// Bruck's count for radix K: the phases, the messages of each, and the
/// slots j < P with a non-zero digit per phase, by brute force on digits.
struct BruckCount {
  uint64_t Phases = 0, Messages = 0, Blocks = 0;
};
BruckCount bruckCount(uint32_t P, uint32_t K) {
  BruckCount C;
  for (uint64_t Power = 1; Power < P; Power *= K) {
    ++C.Phases;
    std::set<uint64_t> Digits;
    for (uint64_t J = 0; J < P; ++J)
      if (uint64_t D = J / Power % K) {
        Digits.insert(D);
        ++C.Blocks;
      }
    C.Messages += Digits.size();
  }
  return C;
}

/// The interpreter holds P^3 cells per buffer: skip it past this P.
constexpr uint32_t InterpretUpTo = 64;

} // namespace

TEST_CASE("pairwise alltoall verifies with P - 1 rounds of one block") {
  for (uint32_t P : sweptRanks()) {
    CAPTURE(P);
    Plan Pl = compileFlat("pairwise", Collective::Alltoall, P);
    expectCorrect(Pl, P <= InterpretUpTo);
    auto [Rounds, Blocks] = roundsAndBlocks(Pl);
    CHECK(Rounds == P - 1);
    CHECK(Blocks == P - 1);
    if (P > 1 && (P & (P - 1)) == 0) { // XOR by default; shift works too.
      Plan Shift = compileOn("pairwise", Collective::Alltoall,
                             Topology::flat(P), {{"pairing", "shift"}});
      expectCorrect(Shift, false);
    }
  }
}

TEST_CASE("bruck alltoall verifies with ceil(log_k P) phases") {
  for (uint32_t P : sweptRanks()) {
    CAPTURE(P);
    std::set<uint32_t> Radices = {2, 3, 4, std::max(P, 2u)};
    for (uint32_t K : Radices) {
      if (K > std::max(P, 2u))
        continue;
      BruckCount Want = bruckCount(P, K);
      for (const char *Ports : {"1", "all"}) {
        CAPTURE(K);
        CAPTURE(Ports);
        Plan Pl = compileOn("bruck", Collective::Alltoall, Topology::flat(P),
                            {{"radix", std::to_string(K)}, {"ports", Ports}});
        expectCorrect(Pl, P <= InterpretUpTo && K <= 4);
        auto [Rounds, Blocks] = roundsAndBlocks(Pl);
        CHECK(Rounds == (Ports[0] == '1' ? Want.Messages : Want.Phases));
        CHECK(Blocks == Want.Blocks);
      }
    }
  }
}

TEST_CASE("dimension-pairwise verifies on tori with sum(d_i - 1) rounds") {
  std::vector<std::vector<uint32_t>> Shapes = {
      {2, 2}, {3, 3}, {4, 4}, {2, 3, 4}, {5, 3}, {8, 8}, {3, 3, 3}, {16, 4}};
  for (uint32_t P = 1; P <= 20; ++P)
    Shapes.push_back({P}); // A ring: pairwise's shift form.
  for (const std::vector<uint32_t> &Dims : Shapes) {
    Topology T = Topology::torus(Dims, 1);
    uint32_t P = T.ranks();
    CAPTURE(T.str());
    Plan Pl = compileOn("dimension-pairwise", Collective::Alltoall, T);
    expectCorrect(Pl, P <= InterpretUpTo);
    uint64_t WantRounds = 0, WantBlocks = 0;
    for (uint32_t D : Dims) {
      WantRounds += D - 1;
      WantBlocks += uint64_t(D - 1) * (P / D);
    }
    auto [Rounds, Blocks] = roundsAndBlocks(Pl);
    CHECK(Rounds == WantRounds);
    CHECK(Blocks == WantBlocks);
  }
}

TEST_CASE("alltoallv with uneven pair counts verifies") {
  for (uint32_t P : {2u, 3u, 5u, 8u, 13u, 16u}) {
    CAPTURE(P);
    std::vector<uint64_t> Counts;
    for (uint64_t I = 0; I < uint64_t(P) * P; ++I)
      Counts.push_back(I * 7919 % 5); // Some pairs send nothing.
    for (const char *Family : {"pairwise", "bruck", "dimension-pairwise"}) {
      CAPTURE(Family);
      expectCorrect(
          compileFlat(Family, Collective::Alltoallv, P, std::nullopt, Counts));
    }
  }
}
