//===- NodeLinkBacklogTest.cpp - A node's link across rounds --------------===//
//
// docs/cost-model.md, "A node's link across rounds", against hand
// computations: with an injection limit R_N, a node's uplink and downlink
// carry their rounds' bytes in turn, so a message that leaves while earlier
// rounds' bytes are still on its node's link waits for them. alpha = 1,
// beta = 0.01 per byte (R_b = 100 B/s), R_N = 100 B/s, 100-byte messages:
// one message alone takes 1 + 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"

#include <doctest/doctest.h>

using namespace collplan;
using test::messagePlan;

namespace {

CostParams limited() {
  CostParams C = test::unitCosts();
  C.AlphaIntra = 0.5;
  C.BetaIntra = 0.001;
  C.InjectionBandwidth = 100;
  return C;
}

} // namespace

TEST_CASE("two rounds' messages on one uplink at once") {
  // nodes:2x2. Round 0: 0 -> 2; round 1: 1 -> 3, whose ranks are idle in
  // round 0 and leave at 0 too. Node 0's uplink carries 100 B of round 0
  // until 1, then round 1's 100 B until 2: 1 -> 3 arrives at 2 + 1 = 3, as
  // two flows sharing the link from 0 would. Round 0's message keeps
  // 1 + 1 = 2.
  Plan P = messagePlan(Topology::nodes(2, 2), {{{0, 2}}, {{1, 3}}});
  CostReport R = evaluateCost(P, 100, limited());
  CHECK(R.Time == doctest::Approx(3));
  REQUIRE(R.Rounds.size() == 2);
  CHECK(R.Rounds[0].Finish == doctest::Approx(2));
  CHECK(R.Rounds[0].LinkBacklog == 0);
  CHECK(R.Rounds[1].LinkBacklog == doctest::Approx(1));
  // Without the injection limit the rounds do not meet: 2.
  CostParams Off = limited();
  Off.InjectionBandwidth = 0;
  CHECK(evaluateCost(P, 100, Off).Time == doctest::Approx(2));
}

TEST_CASE("a link drained before the message leaves costs nothing more") {
  // Ranks 0 and 2 exchange twice (the exchanges wait, so nothing lingers):
  // round 1 leaves at 2, after both links drained round 0 (at 1): 2 + 2.
  Plan P =
      messagePlan(Topology::nodes(2, 2), {{{0, 2}, {2, 0}}, {{0, 2}, {2, 0}}});
  CHECK(evaluateCost(P, 100, limited()).Time == doctest::Approx(4));
}

TEST_CASE("two rounds' messages into one downlink") {
  // nodes:3x2 (node 0 = ranks 0, 1). Round 0: 2 -> 0; round 1: 4 -> 1.
  // Different uplinks, one downlink: node 0's downlink drains round 0 at 1,
  // round 1 at 2, so 4 -> 1 arrives at 3.
  Plan P = messagePlan(Topology::nodes(3, 2), {{{2, 0}}, {{4, 1}}});
  CHECK(evaluateCost(P, 100, limited()).Time == doctest::Approx(3));
}

TEST_CASE("a round's bytes drain at a R_b when few ranks send") {
  // R_N = 300 > R_b: one sender cannot fill the link, so round 0's 100 B
  // drain at R_b = 100 (by 1) and round 1's message, leaving at 0, arrives
  // at 1 + 1 + 1 = 3, as in the first case.
  Plan P = messagePlan(Topology::nodes(2, 2), {{{0, 2}}, {{1, 3}}});
  CostParams C = limited();
  C.InjectionBandwidth = 300;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(3));
}
