//===- RankPortTest.cpp - A rank's sends in flight share its port ---------===//
//
// docs/cost-model.md, "A rank's sends in flight together", against hand
// computations: off a torus a rank has one port, and the sends it has in flight
// together (one round's, and lingering sends of consecutive rounds: plan/ir/
// LingeringSends.h) share it, each delivered when the batch has drained.
// alpha = 1, beta = 0.01 per byte, 100-byte messages: u = beta * 100 = 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"

#include <doctest/doctest.h>

using namespace collplan;
using test::messagePlan;
using test::unitCosts;

TEST_CASE("on a torus a rank's sends leave by different links") {
  // torus:2x2: 0 -> 1 and 0 -> 2 take different links, each alone: 1 + u.
  Plan Star = messagePlan(Topology::torus({2, 2}, 1), {{{0, 1}, {0, 2}}});
  CHECK(evaluateCost(Star, 100, unitCosts()).Time == doctest::Approx(2));
}

TEST_CASE("lingering sends of consecutive rounds share the port") {
  // Nothing writes the vector at rank 0 after it sends: it posts its three
  // sends of rounds 0-2 at once (the executor does not wait for them), so
  // all arrive at 1 + 3u = 4, not one after another at 2, 4, 6.
  Plan Star = messagePlan(Topology::flat(4), {{{0, 1}}, {{0, 2}}, {{0, 3}}});
  CostReport R = evaluateCost(Star, 100, unitCosts());
  CHECK(R.Time == doctest::Approx(4));
  CHECK(R.MaxSendsInFlight == 3);
  REQUIRE(R.Rounds.size() == 3);
  for (const RoundCost &RC : R.Rounds)
    CHECK(RC.Finish == doctest::Approx(4));
}

TEST_CASE("a binomial broadcast with lingering sends, by hand") {
  // Round 0: 0 -> 2; round 1: 0 -> 1 and 2 -> 3. Rank 0's two sends share
  // its port: 2 and 1 have the vector at 1 + 2u = 3; rank 2 then sends to
  // 3: 3 + 1 + u = 5 (sequential sends would give 2 (1 + u) = 4).
  Plan Bcast = messagePlan(Topology::flat(4), {{{0, 2}}, {{0, 1}, {2, 3}}});
  CHECK(evaluateCost(Bcast, 100, unitCosts()).Time == doctest::Approx(5));
}

TEST_CASE("a send whose blocks are written later holds its sender") {
  // Rank 0 receives the vector back in round 2, so its sends of rounds 0
  // and 1 cannot linger: 0 -> 1 arrives at 2, 0 -> 2 leaves at 2 and
  // arrives at 4, 3 -> 0 leaves at 4 and arrives at 6.
  Plan P = messagePlan(Topology::flat(4), {{{0, 1}}, {{0, 2}}, {{3, 0}}});
  CostReport R = evaluateCost(P, 100, unitCosts());
  CHECK(R.Time == doctest::Approx(6));
  CHECK(R.MaxSendsInFlight == 1);
}

TEST_CASE("the port time counts each message at its own rate") {
  // nodes:2x2: rank 0 sends to 1 (same node, beta_l = 0.001) and to 2
  // (beta = 0.01) at once: the port carries 0.1 + 1, so both arrive at
  // 1.1 after their latency: rank 1 at 0.5 + 1.1, rank 2 at 1 + 1.1.
  Plan P = messagePlan(Topology::nodes(2, 2), {{{0, 1}, {0, 2}}});
  CostParams C = unitCosts();
  C.AlphaIntra = 0.5;
  C.BetaIntra = 0.001;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(2.1));
}

TEST_CASE("a later send to a busy receiver leaves when it is ready") {
  // Round 0: 0 -> 1 and 3 -> 2; round 1: 0 -> 2. Rank 0 does not wait in
  // round 0, but rank 2 is busy receiving then, so 0 -> 2 is not in flight
  // beside 0 -> 1 (a pipeline's sends are paced by their receivers): 0 -> 1
  // arrives at 1 + u = 2, not 1 + 2u; 0 -> 2 leaves when rank 2 is ready, at
  // 2, and arrives at 4.
  Plan P = messagePlan(Topology::flat(4), {{{0, 1}, {3, 2}}, {{0, 2}}});
  CostReport R = evaluateCost(P, 100, unitCosts());
  REQUIRE(R.Rounds.size() == 2);
  CHECK(R.Rounds[0].Finish == doctest::Approx(2));
  CHECK(R.Time == doctest::Approx(4));
  CHECK(R.MaxSendsInFlight == 1);
}
