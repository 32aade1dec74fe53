//===- TextPlanSizeTest.cpp - The size floor against the writers ----------===//
//
// textPlanBytesAtLeast() models the YAML and JSON writers' layout; the
// writers themselves are the oracle: never more than they write, and short
// only by the quotes and escapes of strings.
//
//===----------------------------------------------------------------------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/TextPlanSize.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

static void checkFloor(const Plan &P, uint64_t Slack) {
  for (PlanFormat F : {PlanFormat::Yaml, PlanFormat::Json}) {
    CAPTURE(formatName(F));
    uint64_t Actual = encodePlan(P, F).size();
    uint64_t Floor = textPlanBytesAtLeast(P, F);
    CHECK(Floor <= Actual);
    CHECK(Actual - Floor <= Slack);
  }
}

TEST_CASE("the floor is the writers' size, short only of strings' quoting") {
  for (uint32_t N : {1u, 2u, 5u, 16u}) {
    CAPTURE(N);
    for (Collective C : {Collective::Allreduce, Collective::Allgather})
      // Only the ring's name and its parameters' values may be quoted.
      checkFloor(compiledPlan("ring", C, Topology::flat(N)), 8);
  }
  checkFloor(compiledPlan("ring", Collective::Allreduce,
                          Topology::nodes(4, 3, RankMapping::RoundRobin)),
             8);
  // Quoted and escaped parameters, weights, a root, local operations.
  checkFloor(handBuiltPlan(), 64);
}
