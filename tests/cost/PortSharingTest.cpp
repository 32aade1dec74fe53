//===- PortSharingTest.cpp - A rank's messages of a round share its port -===//
//
// docs/cost-model.md, "A rank's port within a round": off a torus a rank
// has one port each way; its messages of one round overlap their latencies
// but share the port's bandwidth, as a link's flows do. Oracles by hand: alpha
// = 1, beta = 0.01 per byte, so a 100-byte message alone arrives 2 after its
// round starts.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "tests/cost/MessagePlan.h"
#include "tests/support/PlanFactory.h"

#include <doctest/doctest.h>

using namespace collplan;
using test::messagePlan;
using test::unitCosts;

TEST_CASE("a rank's sends of one round share its port") {
  // Rank 0 sends 100 B to each of 1, 2, 3 at once: 300 B through its port,
  // one latency: every message is in at 1 + 3.
  Plan Star = messagePlan(Topology::flat(4), {{{0, 1}, {0, 2}, {0, 3}}});
  CHECK(evaluateCost(Star, 100, unitCosts()).Time == doctest::Approx(4));
  // The same three messages one a round, each too large to linger past its
  // round (LingerLimitBytes; 100,000 B at beta = 1e-5 is 1): 3 (1 + 1).
  Plan Chain = messagePlan(Topology::flat(4), {{{0, 1}}, {{0, 2}}, {{0, 3}}});
  CostParams C = unitCosts();
  C.Beta = 1e-5;
  CHECK(evaluateCost(Chain, 100000, C).Time == doctest::Approx(6));
  // At 100 B they linger, and are in flight together as the star's are
  // (RankPortTest.cpp).
  CHECK(evaluateCost(Chain, 100, unitCosts()).Time == doctest::Approx(4));
}

TEST_CASE("a rank's receives of one round share its port") {
  Plan Gather = messagePlan(Topology::flat(4), {{{1, 0}, {2, 0}, {3, 0}}});
  CHECK(evaluateCost(Gather, 100, unitCosts()).Time == doctest::Approx(4));
}

TEST_CASE("a port is full duplex: an exchange costs one message") {
  Plan Exchange = messagePlan(Topology::flat(2), {{{0, 1}, {1, 0}}});
  CHECK(evaluateCost(Exchange, 100, unitCosts()).Time == doctest::Approx(2));
}

TEST_CASE("messages within the node and to other nodes share the port") {
  // Nodes of 2: rank 0 sends to rank 1 (its node) and to rank 2 (the other)
  // in one round: its port takes 100 * 0.002 + 100 * 0.01 = 1.2, so rank 2
  // has its message at 1 + 1.2 and rank 1 at 0.5 + 1.2.
  CostParams C = unitCosts();
  C.AlphaIntra = 0.5;
  C.BetaIntra = 0.002;
  Plan Both = messagePlan(Topology::nodes(2, 2), {{{0, 1}, {0, 2}}});
  CHECK(evaluateCost(Both, 100, C).Time == doctest::Approx(2.2));
  // Two messages within the node: 0.5 + 200 * 0.002.
  Plan Intra = messagePlan(Topology::nodes(1, 3), {{{0, 1}, {0, 2}}});
  CHECK(evaluateCost(Intra, 100, C).Time == doctest::Approx(0.9));
}

TEST_CASE("on a torus a rank's messages on different links do not share") {
  // A ring of 4: 0 -> 1 leaves on the + link, 0 -> 3 on the - link.
  Plan TwoWays = messagePlan(Topology::torus({4}, 1), {{{0, 1}, {0, 3}}});
  CHECK(evaluateCost(TwoWays, 100, unitCosts()).Time == doctest::Approx(2));
}

TEST_CASE("a node's NIC carries all its ranks' messages of a round") {
  // Nodes of 2, R_N = 100 B per unit of time: ranks 0 and 1 each send 100 B
  // to both ranks of the other node. a = 2 senders give the old term
  // 2 * 100 / 100 = 2; the NIC carries 400 B: 4, plus alpha.
  CostParams C = unitCosts();
  C.InjectionBandwidth = 100;
  Plan Cross =
      messagePlan(Topology::nodes(2, 2), {{{0, 2}, {0, 3}, {1, 2}, {1, 3}}});
  CHECK(evaluateCost(Cross, 100, C).Time == doctest::Approx(5));
  // One message per sender: the old term, 1 + 2.
  Plan Pairs = messagePlan(Topology::nodes(2, 2), {{{0, 2}, {1, 3}}});
  CHECK(evaluateCost(Pairs, 100, C).Time == doctest::Approx(3));
}

TEST_CASE("alltoall on a flat switch: the direct exchange costs pairwise's "
          "bytes in one latency") {
  // P = 5, m = 100 B a pair (the matrix 2500 B): pairwise 4 (1 + 1) = 8;
  // the direct exchange (Bruck radix P, all ports) 1 + 4 * 100 * 0.01 = 5;
  // the bound alpha + (P - 1) m beta is also 5.
  uint64_t Matrix = 25 * 100;
  Plan Pairwise = test::compileFlat("pairwise", Collective::Alltoall, 5);
  Plan Direct =
      test::compileOn("bruck", Collective::Alltoall, Topology::flat(5),
                      {{"radix", "5"}, {"ports", "all"}});
  CostReport P = evaluateCost(Pairwise, Matrix, unitCosts());
  CostReport D = evaluateCost(Direct, Matrix, unitCosts());
  CHECK(P.Time == doctest::Approx(8));
  CHECK(D.Time == doctest::Approx(5));
  CHECK(D.LowerBound == doctest::Approx(5));
  // Bruck radix 2 with all ports: 3 rounds of one message; a rank's blocks
  // at distances with digit x set: 2, 2 and 1 of them (slots 1-4), so
  // 3 + (2 + 2 + 1) * 100 * 0.01 = 8.
  Plan Radix2 =
      test::compileOn("bruck", Collective::Alltoall, Topology::flat(5),
                      {{"radix", "2"}, {"ports", "all"}});
  CHECK(evaluateCost(Radix2, Matrix, unitCosts()).Time == doctest::Approx(8));
}
