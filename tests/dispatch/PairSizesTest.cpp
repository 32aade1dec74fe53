//===- PairSizesTest.cpp - An alltoallv plan's pairs, seen from one rank --===//
//
// The sizes a rank's row and column get, worked out by hand from the
// weights (a pair's bytes are its weight's share of the vector when the
// counts are in proportion), and the sizes no row fits.
//
//===----------------------------------------------------------------------===//

#include "plan/dispatch/PairSizes.h"

#include <doctest/doctest.h>

using namespace collplan;

namespace {

PlanHeader personalised(uint32_t P, std::vector<uint64_t> Weights) {
  PlanHeader H;
  H.Kind = Collective::Alltoallv;
  H.Ranks = P;
  H.Topo = Topology::flat(P);
  H.Blocks = uint64_t(P) * P;
  H.Weights = std::move(Weights);
  return H;
}

} // namespace

TEST_CASE("a rank's row and column give the vector's size") {
  // README's example at P = 3: rank 0 sends 5 to rank 1 and 1 to rank 2;
  // the weights sum to 21, so twice the counts is a 42-byte matrix.
  PairSizes S(personalised(3, {0, 5, 1, 2, 0, 7, 3, 3, 0}));
  CHECK(S.size(42, 0, 1) == 10);
  CHECK(S.size(42, 1, 2) == 14);
  CHECK(S.bytesFor(0, {0, 10, 2}, {0, 4, 6}) == 42u);
  CHECK(S.bytesFor(1, {4, 0, 14}, {10, 0, 6}) == 42u);
  // One count off the proportion, or a count where the weight is 0.
  CHECK_FALSE(S.bytesFor(0, {0, 10, 3}, {0, 4, 6}));
  CHECK_FALSE(S.bytesFor(0, {1, 10, 2}, {0, 4, 6}));
  // A rank that sends and receives nothing fits only where the plan moves
  // nothing to or from it, at any size.
  CHECK(S.bytesFor(2, {0, 0, 0}, {0, 0, 0}) == std::nullopt);
  PairSizes Idle(personalised(2, {0, 0, 0, 5}));
  CHECK(Idle.bytesFor(0, {0, 0}, {0, 0}) == 0u);
  CHECK(Idle.bytesFor(1, {0, 10}, {0, 10}) == 10u);
  // The wrong number of peers.
  CHECK_FALSE(S.bytesFor(0, {0, 10}, {0, 4}));
}

TEST_CASE("equal pairs: every count alike") {
  PairSizes S(personalised(2, {}));
  CHECK(S.bytesFor(1, {3, 3}, {3, 3}) == 12u);
  CHECK_FALSE(S.bytesFor(1, {3, 4}, {3, 3}));
}
