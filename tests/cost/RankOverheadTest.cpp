//===- RankOverheadTest.cpp - A rank's own time per message ---------------===//
//
// CostParams::Overhead and OverheadPerByte against hand computations: a
// rank's round lasts at least the sum over its non-empty messages (sent and
// received) of o + o_B * bytes, on top of the arrivals the wire terms give.
// Numbers are round so the oracles are exact: alpha = 1, beta = 0.01 per
// byte, 100-byte messages, so a message arrives 2 after its round starts.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"

#include <doctest/doctest.h>

using namespace collplan;
using test::messagePlan;
using test::unitCosts;

TEST_CASE("without overhead a rank's messages of a round overlap") {
  Plan Exchange = messagePlan(Topology::flat(2), {{{0, 1}, {1, 0}}});
  CostReport R = evaluateCost(Exchange, 100, unitCosts());
  CHECK(R.Time == doctest::Approx(2)); // alpha + beta * 100, both ways at once
  CHECK(R.MaxRankMessages == 2);
}

TEST_CASE("a one-way message costs each end o + o_B * bytes") {
  Plan OneWay = messagePlan(Topology::flat(2), {{{0, 1}}});
  CostParams C = unitCosts();
  C.Overhead = 3;
  C.OverheadPerByte = 0.02;
  // Sender and receiver busy 3 + 0.02 * 100 = 5 > arrival 2.
  CHECK(evaluateCost(OneWay, 100, C).Time == doctest::Approx(5));
  // An overhead below the wire's time changes nothing.
  C.Overhead = 0.5;
  C.OverheadPerByte = 0;
  CHECK(evaluateCost(OneWay, 100, C).Time == doctest::Approx(2));
}

TEST_CASE("sending and receiving in one round take turns on the rank") {
  // Each rank sends one and receives one: 2 (o + o_B m) = 2 (1 + 1) = 4,
  // where the full-duplex wire alone says 2.
  Plan Exchange = messagePlan(Topology::flat(2), {{{0, 1}, {1, 0}}});
  CostParams C = unitCosts();
  C.Overhead = 1;
  C.OverheadPerByte = 0.01;
  CHECK(evaluateCost(Exchange, 100, C).Time == doctest::Approx(4));
}

TEST_CASE("a rank's several sends of a round add their overheads") {
  // Rank 0 sends to 1, 2 and 3 at once: busy 6 (o = 2 each), beyond its
  // port's 1 + 3 * 0.01 * 100 = 4 (docs/cost-model.md, "A rank's port").
  Plan Star = messagePlan(Topology::flat(4), {{{0, 1}, {0, 2}, {0, 3}}});
  CostParams C = unitCosts();
  C.Overhead = 2;
  CostReport R = evaluateCost(Star, 100, C);
  CHECK(R.Time == doctest::Approx(6));
  CHECK(R.MaxRankMessages == 3);
  CHECK(R.Rounds.at(0).MaxRankMessages == 3);
}

TEST_CASE("the overhead is on the critical path of the next round") {
  // Round 0: 0 <-> 1 (each busy 2 (1 + 1) = 4). Round 1: 1 -> 2, leaving
  // when rank 1 has finished round 0 (4) and arriving at 4 + 2 = 6; rank 1
  // is busy 1 + 1 = 2 from 4, also 6.
  Plan P = messagePlan(Topology::flat(3), {{{0, 1}, {1, 0}}, {{1, 2}}});
  CostParams C = unitCosts();
  C.Overhead = 1;
  C.OverheadPerByte = 0.01;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(6));
}

TEST_CASE("empty messages cost no overhead") {
  Plan Exchange = messagePlan(Topology::flat(2), {{{0, 1}, {1, 0}}});
  CostParams C = unitCosts();
  C.Overhead = 1;
  CHECK(evaluateCost(Exchange, 0, C).Time == 0);
}
