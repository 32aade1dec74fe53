//===- LargeMessageTest.cpp - Messages above a size priced apart ----------===//
//
// CostParams::LargeMessageBytes, AlphaLarge and BetaLarge against hand
// computations (and MediumMessageBytes, its range below): a message of more
// than the threshold costs alpha_L + beta_L * bytes, one of at most the
// threshold alpha + beta * bytes, and a rank's port carries each of its
// messages at its own rate. Round numbers: alpha = 1, beta = 0.01 per byte
// (test::unitCosts), and above 100 bytes alpha_L = 5, beta_L = 0.002.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"

#include <doctest/doctest.h>

#include <array>

using namespace collplan;
using test::messagePlan;
using test::unitCosts;

namespace {

CostParams largeCosts() {
  CostParams C = unitCosts();
  C.LargeMessageBytes = 100;
  C.AlphaLarge = 5;
  C.BetaLarge = 0.002;
  return C;
}

/// A plan of Blocks equal blocks on a flat topology whose rounds are lists
/// of messages (from, to, first block, end block).
Plan blockPlan(
    uint32_t Ranks, uint64_t Blocks,
    const std::vector<std::vector<std::array<uint32_t, 4>>> &Rounds) {
  Plan P;
  P.Header.Kind = Collective::Allreduce;
  P.Header.Ranks = Ranks;
  P.Header.Topo = Topology::flat(Ranks);
  P.Header.Blocks = Blocks;
  P.Programs.resize(Ranks);
  for (uint32_t K = 0; K < Rounds.size(); ++K) {
    for (auto [From, To, Begin, End] : Rounds[K])
      P.Programs[From].add(K, Op::send(To, BlockSet::range(Begin, End)));
    for (auto [From, To, Begin, End] : Rounds[K])
      P.Programs[To].add(
          K, Op::recv(From, BlockSet::range(Begin, End), Combine::Replace));
  }
  return P;
}

} // namespace

TEST_CASE("a message at the threshold is small, one above it large") {
  Plan OneWay = messagePlan(Topology::flat(2), {{{0, 1}}});
  CostParams C = largeCosts();
  // 100 B is not above 100: 1 + 0.01 * 100.
  CostReport Small = evaluateCost(OneWay, 100, C);
  CHECK(Small.Time == doctest::Approx(2));
  CHECK(Small.LargeMessages == 0);
  // 200 B: 5 + 0.002 * 200.
  CostReport Large = evaluateCost(OneWay, 200, C);
  CHECK(Large.Time == doctest::Approx(5.4));
  CHECK(Large.LargeMessages == 1);
  // Only beta given: alpha stays 1 above the threshold, 1 + 0.4.
  C.AlphaLarge = -1;
  CHECK(evaluateCost(OneWay, 200, C).Time == doctest::Approx(1.4));
}

TEST_CASE("unset, the split changes nothing") {
  Plan P = messagePlan(Topology::flat(3), {{{0, 1}, {1, 0}}, {{1, 2}}});
  double Plain = evaluateCost(P, 1000, unitCosts()).Time;
  CHECK(Plain == doctest::Approx(2 * (1 + 10)));
  // A threshold of 0 is off, whatever alpha_L and beta_L say.
  CostParams Off = largeCosts();
  Off.LargeMessageBytes = 0;
  CHECK(evaluateCost(P, 1000, Off).Time == Plain);
  CHECK(evaluateCost(P, 1000, Off).LargeMessages == 0);
  // A threshold without alpha_L and beta_L prices as alpha and beta.
  CostParams Bare = unitCosts();
  Bare.LargeMessageBytes = 100;
  CHECK(evaluateCost(P, 1000, Bare).Time == Plain);
}

TEST_CASE("a round mixing small and large messages") {
  // Four blocks of 100 B (a 400-byte vector). Round 0: 0 -> 1 one block
  // (100 B, small: arrives 1 + 1 = 2) and 2 -> 3 three blocks (300 B,
  // large: 5 + 0.6 = 5.6). Round 1: 1 -> 3 one block, leaving when both
  // have finished round 0 (5.6) and arriving 2 later: 7.6. Without the
  // split round 0's large message takes 1 + 3 = 4 and the plan 6.
  Plan P = blockPlan(4, 4, {{{0, 1, 0, 1}, {2, 3, 0, 3}}, {{1, 3, 0, 1}}});
  CostReport R = evaluateCost(P, 400, largeCosts());
  CHECK(R.Time == doctest::Approx(7.6));
  CHECK(R.LargeMessages == 1);
  REQUIRE(R.Rounds.size() == 2);
  CHECK(R.Rounds[0].Finish == doctest::Approx(5.6));
  CHECK(evaluateCost(P, 400, unitCosts()).Time == doctest::Approx(6));
}

TEST_CASE("one port carries a small and a large message, each at its rate") {
  // Rank 0 sends 100 B to rank 1 and 300 B to rank 2 in one round: its port
  // takes 0.01 * 100 + 0.002 * 300 = 1.6 (docs/cost-model.md, "A rank's
  // port within a round"). The small one arrives at 1 + 1.6 = 2.6, the
  // large one at 5 + 1.6 = 6.6.
  Plan P = blockPlan(3, 4, {{{0, 1, 0, 1}, {0, 2, 1, 4}}});
  CostReport R = evaluateCost(P, 400, largeCosts());
  CHECK(R.Time == doctest::Approx(6.6));
  CHECK(R.LargeMessages == 1);
}

TEST_CASE("three size ranges, each message priced by its own") {
  // Above 100 B alpha 5, beta 0.002; above 1000 B alpha 20, beta 0.001.
  Plan OneWay = messagePlan(Topology::flat(2), {{{0, 1}}});
  CostParams C = unitCosts();
  C.MediumMessageBytes = 100;
  C.AlphaMedium = 5;
  C.BetaMedium = 0.002;
  C.LargeMessageBytes = 1000;
  C.AlphaLarge = 20;
  C.BetaLarge = 0.001;
  CHECK(evaluateCost(OneWay, 100, C).Time == doctest::Approx(2));
  CHECK(evaluateCost(OneWay, 500, C).Time == doctest::Approx(6));
  CostReport Large = evaluateCost(OneWay, 2000, C);
  CHECK(Large.Time == doctest::Approx(22));
  CHECK(Large.MediumMessages == 1); // above both thresholds
  CHECK(Large.LargeMessages == 1);
  // A large range without its own alpha takes the medium one: 5 + 2.
  C.AlphaLarge = -1;
  CHECK(evaluateCost(OneWay, 2000, C).Time == doctest::Approx(7));
}

TEST_CASE("the lower bound takes the cheaper alpha and beta") {
  // Allreduce on 2 ranks moves m once each way: min(1, 5) + 1000 * 0.002
  // with the split, 1 + 1000 * 0.01 without.
  Plan P = messagePlan(Topology::flat(2), {{{0, 1}, {1, 0}}});
  CHECK(evaluateCost(P, 1000, largeCosts()).LowerBound == doctest::Approx(3));
  CHECK(evaluateCost(P, 1000, unitCosts()).LowerBound == doctest::Approx(11));
  CHECK(lowerBound(Collective::Allreduce, 2, 1000, largeCosts()) ==
        doctest::Approx(3));
}
