//===- SharedCoresTest.cpp - A node's cores shared by its ranks -----------===//
//
// CostParams::CoresPerNode against hand computations: when more of a node's
// ranks take part in a round than it has cores, each one's overhead,
// reductions and the per-byte time of its messages within the node take
// busy / cores times as long. Round numbers as in RankOverheadTest.cpp:
// alpha = 1, beta = 0.01 per byte, 100-byte messages, so a message alone
// arrives 1 + 0.01 * 100 = 2 after its round starts.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"

#include <doctest/doctest.h>

using namespace collplan;
using test::messagePlan;
using test::unitCosts;

namespace {

/// Ranks 0 <-> 1 and 2 <-> 3 exchange in one round: four busy ranks.
Plan twoExchanges(const Topology &Topo, Combine Mode = Combine::Replace) {
  return messagePlan(Topo, {{{0, 1}, {1, 0}, {2, 3}, {3, 2}}}, Mode);
}

} // namespace

TEST_CASE("four busy ranks on two cores copy at half speed") {
  CostParams C = unitCosts();
  // Without a core limit: 1 + 0.01 * 100 = 2.
  CHECK(evaluateCost(twoExchanges(Topology::nodes(1, 4)), 100, C).Time ==
        doctest::Approx(2));
  // 4 busy / 2 cores = 2: 1 + 2 * 0.01 * 100 = 3.
  C.CoresPerNode = 2;
  CostReport R = evaluateCost(twoExchanges(Topology::nodes(1, 4)), 100, C);
  CHECK(R.Time == doctest::Approx(3));
  CHECK(R.MaxCoreStretch == doctest::Approx(2));
  CHECK(R.Rounds.at(0).CoreStretch == doctest::Approx(2));
  // As many cores as ranks: nothing changes.
  C.CoresPerNode = 4;
  CHECK(evaluateCost(twoExchanges(Topology::nodes(1, 4)), 100, C).Time ==
        doctest::Approx(2));
}

TEST_CASE("only the ranks that take part in the round count") {
  // Round 0: 0 -> 1 alone, two busy ranks on two cores: 2. Round 1: both
  // exchanges, four busy ranks: rank 1 starts at 2, so 2 + 1 + 2 = 5.
  Plan P = messagePlan(Topology::nodes(1, 4),
                       {{{0, 1}}, {{0, 1}, {1, 0}, {2, 3}, {3, 2}}});
  CostParams C = unitCosts();
  C.CoresPerNode = 2;
  CostReport R = evaluateCost(P, 100, C);
  CHECK(R.Rounds.at(0).CoreStretch == doctest::Approx(1));
  CHECK(R.Rounds.at(0).Finish == doctest::Approx(2));
  CHECK(R.Time == doctest::Approx(5));
}

TEST_CASE("three busy ranks on two cores: a stretch of 1.5") {
  // Rank 0 sends to 1 and 2 at once: its port carries both, each at
  // 1.5 * 0.01 * 100 = 1.5, so both arrive at 1 + 3 = 4 (3 unstretched).
  Plan Star = messagePlan(Topology::nodes(1, 3), {{{0, 1}, {0, 2}}});
  CostParams C = unitCosts();
  CHECK(evaluateCost(Star, 100, C).Time == doctest::Approx(3));
  C.CoresPerNode = 2;
  CostReport R = evaluateCost(Star, 100, C);
  CHECK(R.MaxCoreStretch == doctest::Approx(1.5));
  CHECK(R.Time == doctest::Approx(4));
}

TEST_CASE("a rank's overhead and reductions are stretched too") {
  // Each rank sends one and receives one (o = 1 each) and reduces 100
  // bytes (gamma = 0.01 per byte). Unlimited: busy 2 >= arrival 2, then
  // + 1 of reduction = 3. On two cores (stretch 2): busy 2 * 2 = 4 >=
  // arrival 3, then + 2 * 1 = 6.
  CostParams C = unitCosts();
  C.Overhead = 1;
  C.Gamma = 0.01;
  Plan P = twoExchanges(Topology::nodes(1, 4), Combine::Reduce);
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(3));
  C.CoresPerNode = 2;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(6));
}

TEST_CASE("messages between nodes keep their wire time") {
  // Nodes of two ranks, one core each; 0 -> 2 and 1 -> 3 cross nodes, so
  // each node has two busy ranks (stretch 2). The wire is not the ranks'
  // work: 1 + 0.01 * 100 = 2. An overhead of 1.5 is: 2 * 1.5 = 3 > 2.
  Plan P = messagePlan(Topology::nodes(2, 2), {{{0, 2}, {1, 3}}});
  CostParams C = unitCosts();
  C.CoresPerNode = 1;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(2));
  C.Overhead = 1.5;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(3));
  // One rank per node (a flat topology) never shares a core.
  Plan Flat =
      messagePlan(Topology::flat(4), {{{0, 1}, {1, 0}, {2, 3}, {3, 2}}});
  C.Overhead = 0;
  CHECK(evaluateCost(Flat, 100, C).Time == doctest::Approx(2));
}
