//===- CirculantPlanTest.cpp - Plans of the circulant algorithm ----------===//
//
// Runs the plans the `circulant` algorithm emits through the reference
// interpreter (tests/support): it matches every send with its receive, tracks
// the contributions each (rank, buffer, block) holds and checks the end state
// each collective promises. Oracles besides: broadcast round tables
// worked out by hand for p = 5 and p = 6 (docs/algorithms/circulant.md, "Test
// oracles"; CirculantRoundTables.h) and the block count the cost model
// implies (its "Rounds and bytes per rank").
//
//===----------------------------------------------------------------------===//

#include "CirculantRoundTables.h"

#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::test::circulant_tables;

namespace {

const Algorithm &circulant() {
  const Algorithm *A = findAlgorithm("circulant");
  REQUIRE(A != nullptr);
  return *A;
}

unsigned ceilLog2(uint64_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

Plan compile(Collective Kind, uint32_t P, std::optional<uint32_t> Root,
             std::map<std::string, std::string> Params,
             std::vector<uint64_t> Weights = {}, uint64_t Bytes = 1 << 20) {
  CompileRequest Req = test::requestFor(
      Kind, Topology::flat(P), std::move(Params), Root, std::move(Weights));
  Req.Bytes = Bytes;
  return test::compileWith(circulant(), Req);
}

/// Contributions held by one block of one buffer: sorted rank multiset.
using Holding = std::vector<uint32_t>;

struct SimResult {
  std::string Error; ///< Empty when the run was consistent.
  uint64_t Rounds = 0;
  /// Final[r][b]: the data buffer of rank r.
  std::vector<std::vector<Holding>> Final;
  /// Blocks any rank received twice into a block it already held (Replace).
  uint64_t Duplicates = 0;
  uint64_t MaxOpsPerRound = 0;
  /// Largest weight any one message carried.
  uint64_t MaxMessageWeight = 0;
};

/// Executes a plan on the reference interpreter, per Plan.h's round
/// semantics, and collects what the tests below look at.
SimResult simulate(const Plan &Pl) {
  test::ReferenceInterpreter Interpreter(Pl);
  const test::Interpretation &Run = Interpreter.run();
  SimResult Out;
  std::vector<std::string> Problems = Run.problems();
  if (!Problems.empty())
    Out.Error = Problems.front();
  Out.Rounds = Run.RoundSpan;
  Out.Duplicates = Run.ReplacedHeld;
  Out.MaxOpsPerRound = Run.MaxOpsPerRound;
  Out.MaxMessageWeight = Run.MaxMessageWeight;
  Out.Final.resize(Pl.Header.Ranks);
  for (uint32_t R = 0; R < Pl.Header.Ranks; ++R)
    for (uint64_t Bl = 0; Bl < Pl.Header.Blocks; ++Bl) {
      Holding H = Interpreter.holding(R, DataBuffer, Bl);
      // A contribution held twice: the multiset differs from the set.
      if (Interpreter.contributionCount(R, DataBuffer, Bl) != H.size())
        H.push_back(UINT32_MAX);
      Out.Final[R].push_back(std::move(H));
    }
  return Out;
}

/// Every rank's data buffer holds, in every block, exactly Expected(block).
template <typename Fn>
void checkFinal(const SimResult &S, uint32_t P, uint64_t B, Fn Expected) {
  REQUIRE(S.Error == "");
  for (uint32_t R = 0; R < P; ++R)
    for (uint64_t Bl = 0; Bl < B; ++Bl) {
      CAPTURE(R);
      CAPTURE(Bl);
      REQUIRE(S.Final[R][Bl] == Expected(Bl));
    }
}

} // namespace

TEST_CASE("broadcast matches the hand-worked round tables at p = 5 and 6") {
  struct Case {
    uint32_t P;
    uint64_t N;
    const char *Table;
  } Cases[] = {{5, 4, RoundTables[0]}, {6, 5, RoundTables[1]}};
  for (const Case &C : Cases) {
    CAPTURE(C.P);
    Plan Pl = compile(Collective::Broadcast, C.P, 0u,
                      {{"blocks", std::to_string(C.N)}});
    auto Expected = parseRoundTable(C.Table);
    REQUIRE(Expected.size() == C.N - 1 + ceilLog2(C.P));
    std::vector<std::vector<Cell>> Got(Expected.size(), std::vector<Cell>(C.P));
    for (uint32_t R = 0; R < C.P; ++R)
      for (const Round &Rd : Pl.Programs[R].Rounds) {
        REQUIRE(Rd.Index < Got.size());
        for (const Op &O : Rd.Ops) {
          REQUIRE(O.Blocks.count() == 1);
          Cell &Into = Got[Rd.Index][R];
          if (O.Kind == OpKind::Send) {
            Into.SendBlock = int64_t(O.Blocks.ranges()[0].Begin);
            Into.To = O.Peer;
          } else {
            Into.RecvBlock = int64_t(O.Blocks.ranges()[0].Begin);
            Into.From = O.Peer;
          }
        }
      }
    for (size_t T = 0; T < Expected.size(); ++T) {
      REQUIRE(Expected[T].size() == C.P);
      for (uint32_t R = 0; R < C.P; ++R) {
        CAPTURE(T);
        CAPTURE(R);
        CHECK(Got[T][R] == Expected[T][R]);
      }
    }
  }
}

TEST_CASE("simulated broadcast from every root, P <= 64") {
  for (uint32_t P = 1; P <= 64; ++P) {
    unsigned Q = ceilLog2(P);
    std::vector<uint64_t> Ns = {1, 2, 3, Q + 1, 2 * Q + 1, 17};
    if (Q >= 2)
      Ns.push_back(Q - 1);
    if (Q >= 1)
      Ns.push_back(Q);
    for (uint64_t N : Ns)
      for (uint32_t Root = 0; Root < P; ++Root) {
        CAPTURE(P);
        CAPTURE(N);
        CAPTURE(Root);
        Plan Pl = compile(Collective::Broadcast, P, Root,
                          {{"blocks", std::to_string(N)}});
        SimResult S = simulate(Pl);
        REQUIRE(S.Error == "");
        REQUIRE(S.Rounds == (P == 1 ? 0 : N - 1 + Q));
        REQUIRE(S.Duplicates == 0);
        // One-ported: at most one send and one receive per rank and round.
        REQUIRE(S.MaxOpsPerRound <= 2);
        for (const Round &Rd : Pl.Programs[Root].Rounds)
          for (const Op &O : Rd.Ops)
            REQUIRE(O.Kind == OpKind::Send);
        checkFinal(S, P, N, [&](uint64_t) { return Holding{Root}; });
      }
  }
}

TEST_CASE("simulated regular allgather, P <= 200") {
  for (uint32_t P = 1; P <= 200; ++P) {
    CAPTURE(P);
    Plan Pl = compile(Collective::Allgather, P, std::nullopt, {});
    REQUIRE(Pl.Header.Blocks == P);
    SimResult S = simulate(Pl);
    REQUIRE(S.Rounds == ceilLog2(P));
    REQUIRE(S.Duplicates == 0);
    checkFinal(S, P, P, [&](uint64_t Bl) { return Holding{uint32_t(Bl)}; });
    // Round k moves skip[k+1] - skip[k] blocks, skip[k] = ceil(P / 2^(q-k)).
    unsigned Q = ceilLog2(P);
    for (const Round &Rd : Pl.Programs[0].Rounds) {
      uint64_t Hi =
          (P + (uint64_t(1) << (Q - Rd.Index - 1)) - 1) >> (Q - Rd.Index - 1);
      uint64_t Lo = (P + (uint64_t(1) << (Q - Rd.Index)) - 1) >> (Q - Rd.Index);
      for (const Op &O : Rd.Ops)
        REQUIRE(O.Blocks.count() == Hi - Lo);
    }
  }
}

TEST_CASE("simulated census allreduce, both orders, P <= 200") {
  for (const char *Order : {"rank-dependent", "identical"})
    for (uint32_t P = 1; P <= 200; ++P) {
      CAPTURE(Order);
      CAPTURE(P);
      Plan Pl = compile(Collective::Allreduce, P, std::nullopt,
                        {{"variant", "census"}, {"order", Order}});
      REQUIRE(Pl.Header.RequiresCommutative);
      SimResult S = simulate(Pl);
      REQUIRE(S.Rounds == ceilLog2(P));
      Holding Everyone;
      for (uint32_t R = 0; R < P; ++R)
        Everyone.push_back(R);
      checkFinal(S, P, 1, [&](uint64_t) { return Everyone; });
      // As printed, one message of the whole vector per rank and round (in
      // one tree, one per piece: CirculantCensusTreeTest.cpp).
      if (std::string(Order) == "rank-dependent")
        for (const Program &Prog : Pl.Programs)
          for (const Round &Rd : Prog.Rounds)
            REQUIRE(
                std::count_if(Rd.Ops.begin(), Rd.Ops.end(), [](const Op &O) {
                  return O.Kind == OpKind::Send;
                }) == 1);
    }
}

TEST_CASE("simulated allgatherv with uneven and empty contributions") {
  std::mt19937_64 Rng(42);
  for (uint32_t P = 1; P <= 23; ++P)
    for (uint64_t N = 1; N <= 11; ++N) {
      std::vector<uint64_t> W(P);
      for (uint64_t &X : W)
        X = Rng() % 4 == 0 ? 0 : Rng() % 40;
      // Nothing at all to gather is refused (Plan.h); nothing to check.
      if (std::all_of(W.begin(), W.end(), [](uint64_t X) { return X == 0; }))
        continue;
      CAPTURE(P);
      CAPTURE(N);
      Plan Pl = compile(Collective::Allgatherv, P, std::nullopt,
                        {{"blocks", std::to_string(N)}}, W);
      const PlanHeader &H = Pl.Header;
      REQUIRE(H.Blocks == P * N);
      REQUIRE(H.Weights.size() == P * N);
      uint64_t Bound = 0;
      for (uint32_t J = 0; J < P; ++J) {
        REQUIRE(H.ownedBy(J) == BlockSet::range(J * N, (J + 1) * N));
        uint64_t Sum = 0, Max = 0, Min = UINT64_MAX;
        for (uint64_t I = 0; I < N; ++I) {
          Sum += H.Weights[J * N + I];
          Max = std::max(Max, H.Weights[J * N + I]);
          Min = std::min(Min, H.Weights[J * N + I]);
        }
        REQUIRE(Sum == W[J]);
        REQUIRE(Max - Min <= 1);
        Bound += (W[J] + N - 1) / N;
      }
      SimResult S = simulate(Pl);
      REQUIRE(S.Rounds == (P == 1 ? 0 : N - 1 + ceilLog2(P)));
      REQUIRE(S.Duplicates == 0);
      REQUIRE(S.MaxOpsPerRound <= 2);
      REQUIRE(S.MaxMessageWeight <= Bound);
      checkFinal(S, P, P * N,
                 [&](uint64_t Bl) { return Holding{uint32_t(Bl / N)}; });
    }
}

TEST_CASE("the block count follows n* = sqrt((q-1) beta m / alpha)") {
  CompileRequest Req;
  Req.Kind = Collective::Broadcast;
  Req.Topo = Topology::flat(36);
  Req.Bytes = 1048576;
  Req.Cost.Alpha = 2e-6;
  Req.Cost.Beta = 1e-10;
  // n* = 16.19; T(16) = 179.6256 us < T(17) = 179.698 us.
  llvm::Expected<PlanHeader> H = circulant().prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Blocks == 16);
  CHECK(H->Params.at("blocks") == "16");
  CHECK_FALSE(H->RequiresCommutative);
  // Lowering alpha tenfold raises n* by sqrt(10): 51.2.
  Req.Cost.Alpha = 2e-7;
  H = circulant().prepare(Req);
  REQUIRE(bool(H));
  CHECK((H->Blocks == 51 || H->Blocks == 52));
  // p = 2: pipelining cannot help.
  Req.Topo = Topology::flat(2);
  H = circulant().prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Blocks == 1);
  // A tiny message is not cut below one byte per block.
  Req.Topo = Topology::flat(1000);
  Req.Bytes = 3;
  Req.Cost.Alpha = 1e-12;
  H = circulant().prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Blocks == 3);
}

TEST_CASE("bad requests name what is wrong") {
  CompileRequest Req;
  Req.Kind = Collective::Broadcast;
  Req.Topo = Topology::flat(8);
  Req.Params = {{"blocks", "0"}};
  auto Message = [&]() {
    llvm::Expected<Plan> Pl = compilePlan(circulant(), Req);
    REQUIRE(!Pl);
    return llvm::toString(Pl.takeError());
  };
  CHECK(Message().find("blocks") != std::string::npos);
  Req.Kind = Collective::Allgather;
  Req.Params = {{"blocks", "4"}};
  CHECK(Message().find("blocks") != std::string::npos);
  Req.Kind = Collective::ReduceScatter;
  Req.Params = {};
  CHECK(Message().find("circulant") != std::string::npos);
}
