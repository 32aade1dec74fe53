//===- BineTest.cpp - Bine trees and butterflies against the paper --------===//
//
// Oracles written out by hand from the Bine paper's definitions (De Sensi
// et al., SC'25, §3: a position's parent flips its run of equal lowest
// negabinary digits; round t flips the s - t lowest digits), not from the
// code under test:
// - the distance-halving trees of p = 8 and p = 16 from root 0, and the
//   pruned trees of p = 5 and p = 6 (windows [-1, 4) + 1 and [-2, 4));
// - the distance-doubling scatter of the bandwidth broadcast at p = 8
//   (halves of 4, 2, 1 blocks to ranks 1; 7, 2; 3, 4, 6, 5);
// - the butterfly peers of the latency allreduce at p = 8;
// - rounds and bytes per rank against the paper's cost formulas, measured
//   from the plans;
// - the p = 8 reduce-scatter's contiguous halves and remap round;
// - that the bandwidth allreduce, and reduce-scatter and allgather on other
//   P, are Swing's plans on the ring of ranks (the butterflies are Swing's).
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/BineTree.h"
#include "compiler/algorithms/SwingPeers.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// (receiving rank) -> (sending rank, round) of every whole-vector receive of
/// a broadcast plan.
std::map<uint32_t, std::pair<uint32_t, uint32_t>> parents(const Plan &P) {
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Out;
  for (uint32_t R = 0; R < P.Header.Ranks; ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Recv)
          Out[R] = {O.Peer, Rd.Index};
  return Out;
}

/// Blocks Rank sends (Send) or receives (Recv) over the whole plan.
uint64_t blocksMoved(const Plan &P, uint32_t Rank, OpKind Kind) {
  uint64_t N = 0;
  for (const Round &Rd : P.Programs[Rank].Rounds)
    for (const Op &O : Rd.Ops)
      if (O.Kind == Kind)
        N += O.Blocks.count();
  return N;
}

/// The largest number of blocks any rank sends in round Index.
uint64_t largestSend(const Plan &P, uint32_t Index) {
  uint64_t Max = 0;
  for (uint32_t R = 0; R < P.Header.Ranks; ++R) {
    uint64_t N = 0;
    for (const Op &O : opsAt(P, R, Index))
      if (O.Kind == OpKind::Send)
        N += O.Blocks.count();
    Max = std::max(Max, N);
  }
  return Max;
}

Plan binePlan(Collective Kind, uint32_t P, const char *Variant,
              std::optional<uint32_t> Root = std::nullopt) {
  std::map<std::string, std::string> Params;
  if (Variant)
    Params["variant"] = Variant;
  return compileOn("bine", Kind, Topology::flat(P), Params, Root);
}

} // namespace

TEST_CASE("negabinary digits: 3 = 111, -1 = 011, -5 = 1111, 5 = 101") {
  using bine::fromNegabinary;
  using bine::toNegabinary;
  CHECK(toNegabinary(3, 3) == 0b111);
  CHECK(toNegabinary(-1, 3) == 0b011);
  CHECK(toNegabinary(-5, 4) == 0b1111);
  CHECK(toNegabinary(5, 3) == 0b101);
  CHECK(toNegabinary(-10, 4) == 0b1010);
  for (int64_t X = -10; X <= 5; ++X)
    CHECK(fromNegabinary(toNegabinary(X, 4)) == X);
}

TEST_CASE("Bine tree p = 8: 0->3; 0->7, 3->4; 0->1, 7->6, 3->2, 4->5") {
  // Round 0 flips all three digits of 000 (0 -> 111 = 3); round 1 the two
  // lowest of the holders 000 and 111 (-> 011 = -1, 100 = 4); round 2 the
  // lowest (-> 001, 010 = -2, 110 = 2, 101 = 5). Position -k is rank 8 - k.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Expected = {
      {3, {0, 0}}, {7, {0, 1}}, {4, {3, 1}}, {1, {0, 2}},
      {6, {7, 2}}, {2, {3, 2}}, {5, {4, 2}}};
  Plan P = binePlan(Collective::Broadcast, 8, "latency", 0);
  CHECK(parents(P) == Expected);
  CHECK(roundCount(P) == 3);
  expectCorrect(P);
}

TEST_CASE("Bine tree p = 16 from root 0, by negabinary flips") {
  // Positions -10..5; -5 = 1111, 3 = 0111, -8 = 1000, -1 = 0011, 4 = 0100,
  // -4 = 1100, -9 = 1011, then every holder flips its lowest digit.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Expected = {
      {11, {0, 0}},  {3, {0, 1}},   {8, {11, 1}},  {15, {0, 2}},  {4, {3, 2}},
      {12, {11, 2}}, {7, {8, 2}},   {1, {0, 3}},   {14, {15, 3}}, {2, {3, 3}},
      {5, {4, 3}},   {10, {11, 3}}, {13, {12, 3}}, {9, {8, 3}},   {6, {7, 3}}};
  Plan P = binePlan(Collective::Broadcast, 16, "latency", 0);
  CHECK(parents(P) == Expected);
  expectCorrect(P);
  // The tree's distances 5, 3, 1, 1 (and their halves): the sum of the ring
  // distances of its edges, 5 + 3*2 + 1*4 + 1*8 = 23, against the binomial
  // tree's 8 + 4*2 + 2*4 + 1*8 = 32.
  uint32_t Sum = 0;
  for (auto &[Child, From] : Expected) {
    uint32_t D = (Child + 16 - From.first) % 16;
    Sum += std::min(D, 16 - D);
  }
  CHECK(Sum == 23);
}

TEST_CASE("Bine tree pruned to P = 5 and P = 6 (any P, ceil(log2 P) rounds)") {
  // P = 5, window [-1, 4): the tree of 8 positions without 4, 5, -2 (whose
  // parents 3, 4, -1 would still be kept, so the window is closed under
  // parents). Rank 4 is position -1.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Five = {
      {3, {0, 0}}, {4, {0, 1}}, {1, {0, 2}}, {2, {3, 2}}};
  Plan P5 = binePlan(Collective::Broadcast, 5, "latency", 0);
  CHECK(parents(P5) == Five);
  CHECK(roundCount(P5) == 3);
  expectCorrect(P5);
  CHECK(bine::BineTree(5).windowStart() == -1);
  // P = 6, window [-2, 4): ranks 4, 5 are positions -2, -1.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Six = {
      {3, {0, 0}}, {5, {0, 1}}, {1, {0, 2}}, {4, {5, 2}}, {2, {3, 2}}};
  Plan P6 = binePlan(Collective::Broadcast, 6, "latency", 0);
  CHECK(parents(P6) == Six);
  expectCorrect(P6);
  // P = 3: [-2, 1) (-2 = 10 from -1 = 11 from 0) and [-1, 2) are both closed
  // under parents; the lowest start is taken.
  CHECK(bine::BineTree(3).windowStart() == -2);
}

TEST_CASE("every P up to 4096 has a window closed under parents") {
  // Checked apart up to 2^16 (docs/algorithms/bine.md); here each kept
  // position's parent is kept and receives earlier.
  for (uint32_t P = 1; P <= 4096; ++P) {
    bine::BineTree T(P);
    REQUIRE_MESSAGE(T.valid(), "P = " << P);
    uint32_t Broken = 0;
    for (uint32_t Rel = 1; Rel < P; ++Rel) {
      int64_t X = T.positionOf(Rel), Parent = T.parent(X);
      Broken += Parent < T.windowStart() || Parent >= T.windowStart() + P ||
                *T.receiveRound(X) >= T.rounds() ||
                (Parent != 0 && *T.receiveRound(Parent) >= *T.receiveRound(X));
    }
    CHECK_MESSAGE(Broken == 0, "P = " << P);
  }
}

TEST_CASE("bandwidth broadcast p = 8: doubling scatter, then each block once") {
  Plan P = binePlan(Collective::Broadcast, 8, "bandwidth", 0);
  CHECK(P.Header.Blocks == 8);
  CHECK(roundCount(P) == 6);
  // Round 0: 0 -> 1 (half); round 1: 0 -> 7, 1 -> 2 (quarters); round 2:
  // 0 -> 3, 7 -> 4, 1 -> 6, 2 -> 5 (eighths): the butterfly's +1, -1, +3
  // from even ranks and -1, +1, -3 from odd ones.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> Scatter = {
      {1, {0, 0}}, {7, {0, 1}}, {2, {1, 1}}, {3, {0, 2}},
      {4, {7, 2}}, {6, {1, 2}}, {5, {2, 2}}};
  std::map<uint32_t, uint64_t> Size = {{0, 4}, {1, 2}, {2, 1}};
  for (auto &[To, From] : Scatter) {
    llvm::ArrayRef<Op> Ops = opsAt(P, To, From.second);
    REQUIRE(Ops.size() == 1);
    CHECK(Ops[0].Kind == OpKind::Recv);
    CHECK(Ops[0].Peer == From.first);
    CHECK(Ops[0].Blocks.count() == Size[From.second]);
  }
  // Each rank but the root receives each of the 8 blocks exactly once.
  CHECK(blocksMoved(P, 0, OpKind::Recv) == 0);
  for (uint32_t R = 1; R < 8; ++R)
    CHECK(blocksMoved(P, R, OpKind::Recv) == 8);
  expectCorrect(P);
}

TEST_CASE("latency allreduce p = 8: peers v + rho(t) (even), v - rho(t)") {
  Plan P = binePlan(Collective::Allreduce, 8, "latency");
  // rho = 1, -1, 3: rank 0 meets 1, 7, 3; rank 1 meets 0, 2, 6 (1 - 3);
  // rank 6 meets 7, 5, 1 (6 + 3 = 9).
  std::map<uint32_t, std::vector<uint32_t>> Peers = {
      {0, {1, 7, 3}}, {1, {0, 2, 6}}, {6, {7, 5, 1}}, {5, {4, 6, 2}}};
  for (auto &[R, Expected] : Peers)
    for (uint32_t T = 0; T < 3; ++T)
      CHECK(opsAt(P, R, T)[0].Peer == Expected[T]);
  expectCorrect(P);
}

TEST_CASE("rounds and bytes per rank meet the paper's formulas") {
  // n = B blocks. Latency: ceil(log2 p) rounds of n (broadcast, reduce);
  // log2 p rounds of n (allreduce). Bandwidth: 2 log2 p rounds moving
  // n/2, n/4, ..., n/p then back, 2 n (p-1)/p in all.
  for (uint32_t P : {8u, 16u, 64u}) {
    uint32_t L = llvm::Log2_32(P);
    for (Collective K : {Collective::Broadcast, Collective::Reduce}) {
      Plan Lat = binePlan(K, P, "latency", 0);
      CHECK(roundCount(Lat) == L);
      for (uint32_t T = 0; T < L; ++T)
        CHECK(largestSend(Lat, T) == 1);
      Plan Bw = binePlan(K, P, "bandwidth", 0);
      CHECK(roundCount(Bw) == 2 * L);
      uint64_t Critical = 0;
      for (uint32_t T = 0; T < 2 * L; ++T)
        Critical += largestSend(Bw, T);
      CHECK(Critical == 2 * (P - 1));
    }
    Plan Ar = binePlan(Collective::Allreduce, P, "latency");
    CHECK(roundCount(Ar) == L);
    Plan Bw = binePlan(Collective::Allreduce, P, "bandwidth");
    CHECK(roundCount(Bw) == 2 * L);
    uint64_t Critical = 0;
    for (uint32_t T = 0; T < 2 * L; ++T)
      Critical += largestSend(Bw, T);
    CHECK(Critical == 2 * (P - 1));
    // Reduce-scatter and allgather: L rounds of (P-1)/P n, and the remap
    // round of one block n/P that the IR's ownership asks for.
    for (Collective K : {Collective::ReduceScatter, Collective::Allgather}) {
      Plan Half = binePlan(K, P, nullptr);
      CHECK(roundCount(Half) == L + 1);
      uint64_t HalfCritical = 0;
      for (uint32_t T = 0; T <= L; ++T)
        HalfCritical += largestSend(Half, T);
      CHECK(HalfCritical == P);
      for (uint32_t R = 0; R < P; ++R)
        CHECK(blocksMoved(Half, R, OpKind::Send) <= P);
    }
  }
}

TEST_CASE("reduce-scatter p = 8: contiguous halves, then the remap round") {
  // Swing's labels of p = 8 (SwingPeers.h, worked by hand): psi = 0, 4, 6,
  // 1, 3, 7, 5, 2 for ranks 0..7. Rank 1 halves [0, 8) to [4, 8), [4, 6),
  // {4}: it sends [0, 4) to rank 0, [6, 8) to 2 (psi 6), {5} to 6 (psi 5),
  // then label 4 to rank 4 and takes block 1 from rank 3 (psi(3) = 1).
  Plan P = binePlan(Collective::ReduceScatter, 8, nullptr);
  auto SentBy1 = [&](uint32_t Round) {
    for (const Op &O : opsAt(P, 1, Round))
      if (O.Kind == OpKind::Send)
        return std::make_pair(O.Peer, O.Blocks.str());
    return std::make_pair(uint32_t(99), std::string());
  };
  CHECK(SentBy1(0) == std::make_pair(0u, std::string("0-3")));
  CHECK(SentBy1(1) == std::make_pair(2u, std::string("6-7")));
  CHECK(SentBy1(2) == std::make_pair(6u, std::string("5")));
  CHECK(SentBy1(3) == std::make_pair(4u, std::string("4")));
  bool FromThree = false;
  for (const Op &O : opsAt(P, 1, 3))
    FromThree |= O.Kind == OpKind::Recv && O.Peer == 3 && O.Blocks.str() == "1";
  CHECK(FromThree);
  // Rank 0 (psi 0) keeps its block: no remap round.
  CHECK(opsAt(P, 0, 3).empty());
  expectCorrect(P);
  expectCorrect(binePlan(Collective::Allgather, 8, nullptr));
}

TEST_CASE("Swing's labels invert: rankOfPsi(psi(r)) = r") {
  for (std::vector<uint32_t> Dims : {std::vector<uint32_t>{2},
                                     {8},
                                     {64},
                                     {1024},
                                     {4, 4},
                                     {2, 8},
                                     {8, 4, 2}}) {
    swing::SwingTorus T(Dims);
    for (uint32_t C = 0; C < 2 * T.numDims(); ++C)
      for (uint32_t R = 0; R < T.ranks(); ++R)
        REQUIRE(T.rankOfPsi(T.psi(R, C), C) == R);
  }
}

TEST_CASE("the butterflies are Swing's plans on the ring of ranks") {
  // Allreduce at any P; reduce-scatter and allgather where P is not a power
  // of two (on powers of two they take the remap round above).
  for (uint32_t P : {6u, 7u, 8u, 12u}) {
    for (Collective K : {Collective::Allreduce, Collective::ReduceScatter,
                         Collective::Allgather}) {
      if (K != Collective::Allreduce && llvm::isPowerOf2_32(P))
        continue;
      std::map<std::string, std::string> Params;
      if (K == Collective::Allreduce)
        Params["variant"] = "bandwidth";
      Plan B = compileOn("bine", K,
                         P % 2 ? Topology::nodes(1, P)
                               : Topology::torus({P / 2, 2}, 1),
                         Params);
      Plan S = compileOn("swing", K, Topology::flat(P),
                         {{"variant", "bandwidth"}, {"ports", "1"}});
      CHECK(B.Header.Algorithm == "bine");
      REQUIRE(B.Programs.size() == S.Programs.size());
      for (uint32_t R = 0; R < P; ++R)
        CHECK(B.Programs[R].Rounds.size() == S.Programs[R].Rounds.size());
      bool Same = true;
      for (uint32_t R = 0; R < P; ++R)
        for (size_t I = 0; I < B.Programs[R].Rounds.size(); ++I)
          Same &= B.Programs[R].Rounds[I].Ops == S.Programs[R].Rounds[I].Ops;
      CHECK(Same);
      expectCorrect(B);
    }
  }
}

TEST_CASE("allreduce: the verifier's identical-results verdict") {
  // The bandwidth form reduces each block at one rank and gathers it: the
  // same bits everywhere. The latency butterfly cannot: after round 1 rank 0
  // has combined {0, 1} with {14, 15} and rank 14 {12, 13} with {14, 15}, so
  // the ranks' combine trees differ whatever the order of operands.
  VerifyResult Lat = verifyPlan(binePlan(Collective::Allreduce, 16, "latency"));
  VerifyResult Bw =
      verifyPlan(binePlan(Collective::Allreduce, 16, "bandwidth"));
  CHECK(Lat.Valid);
  CHECK(Bw.Valid);
  CHECK_FALSE(Lat.IdenticalResults);
  CHECK(Bw.IdenticalResults);
  for (uint32_t P : {6u, 12u, 13u})
    CHECK(verifyPlan(binePlan(Collective::Allreduce, P, "bandwidth"))
              .IdenticalResults);
}
