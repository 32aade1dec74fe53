//===- CanonicalTreeTest.cpp - The reproducible verdict by hand -----------===//
//
// Small plans whose combine trees are worked out by hand against Plan.h's
// semantics, beside the canonical tree's definition (docs/reproducibility.md:
// the first 2 (P - P') ranks fold in pairs (2i, 2i + 1), then neighbours
// pair level by level). Each breaks, or keeps, the tree in one place.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

namespace {

const VerifyMode BothModes[] = {VerifyMode::Exact, VerifyMode::Hashed};

VerifyResult verify(const Plan &P, VerifyMode Mode) {
  VerifyOptions O;
  O.Mode = Mode;
  return verifyPlan(P, O);
}

/// In round Round, ranks A and B swap their data through scratch (a rank
/// may not receive into what it sends in the same round) and each adds
/// the other's: both then hold the sum of their partials.
void exchange(Plan &P, uint32_t Round, uint32_t A, uint32_t B) {
  BlockSet Block = BlockSet::range(0, 1);
  for (auto [From, To] : {std::pair{A, B}, std::pair{B, A}}) {
    message(P, Round, From, To, Block, Combine::Replace, 0, 1);
    P.Programs[To].add(Round, Op::local(1, 0, Block, Combine::Reduce));
  }
}

/// Recursive doubling on 4 ranks, one block, exchanging with distance
/// First then the other: First = 1 gives ((x0 + x1) + (x2 + x3)) on every
/// rank, the canonical tree; First = 2 gives ((x0 + x2) + (x1 + x3)), the
/// same on every rank but another tree.
Plan doubling4(uint32_t First) {
  Plan P =
      emptyPlan(Collective::Allreduce, 4, 1, std::nullopt, {"data", "scratch"});
  uint32_t Distances[] = {First, First == 1 ? 2u : 1u};
  for (uint32_t Round = 0; Round < 2; ++Round)
    for (uint32_t R = 0; R < 4; ++R)
      if (R < (R ^ Distances[Round]))
        exchange(P, Round, R, R ^ Distances[Round]);
  return P;
}

/// Allreduce on 3 ranks, one block: Lone's data is sent to its neighbour
/// Into, which exchanges sums with the third rank, and hands the result
/// back. Lone = 0, Into = 1 is the canonical fold: (x0 + x1) + x2.
Plan fold3(uint32_t Lone, uint32_t Into) {
  uint32_t Other = 3 - Lone - Into;
  Plan P =
      emptyPlan(Collective::Allreduce, 3, 1, std::nullopt, {"data", "scratch"});
  BlockSet B = BlockSet::range(0, 1);
  message(P, 0, Lone, Into, B, Combine::Reduce);
  exchange(P, 1, Into, Other);
  message(P, 2, Into, Lone, B, Combine::Replace);
  return P;
}

/// Reduce to rank 0 on 3 ranks, one block, the others' data arriving in
/// rounds 0 and 1 in the order given.
Plan reduce3(uint32_t FirstIn, uint32_t SecondIn) {
  Plan P = emptyPlan(Collective::Reduce, 3, 1, 0u);
  message(P, 0, FirstIn, 0, BlockSet::range(0, 1), Combine::Reduce);
  message(P, 1, SecondIn, 0, BlockSet::range(0, 1), Combine::Reduce);
  return P;
}

} // namespace

TEST_CASE("plans that follow the canonical tree are reproducible") {
  for (VerifyMode Mode : BothModes)
    for (const Plan &P : {doubling4(1), fold3(0, 1), reduce3(1, 2)}) {
      VerifyResult R = verify(P, Mode);
      INFO(collectiveName(P.Header.Kind).str() << " P = " << P.Header.Ranks);
      CHECK(R.Valid);
      CHECK(R.IdenticalResults);
      CHECK(R.Reproducible);
      CHECK(R.NonCanonical.empty());
    }
}

TEST_CASE("another tree, the same on every rank, is not reproducible") {
  for (VerifyMode Mode : BothModes) {
    VerifyResult R = verify(doubling4(2), Mode);
    CHECK(R.Valid);
    CHECK(R.IdenticalResults);
    CHECK_FALSE(R.Reproducible);
    CHECK(R.NonCanonical ==
          "rank 0 combines block 0 of data in another tree than the "
          "canonical one");
    // The fold of rank 2 into rank 1 first: (x1 + x2) + x0.
    R = verify(fold3(2, 1), Mode);
    CHECK(R.Valid);
    CHECK(R.IdenticalResults);
    CHECK_FALSE(R.Reproducible);
    // A reduce, where only the root holds a result: (x0 + x2) + x1.
    R = verify(reduce3(2, 1), Mode);
    CHECK(R.Valid);
    CHECK_FALSE(R.Reproducible);
    CHECK(R.NonCanonical.find("rank 0 combines block 0") != std::string::npos);
  }
}

TEST_CASE("a collective that does not reduce is trivially reproducible") {
  Plan P = emptyPlan(Collective::Broadcast, 2, 1, 0u);
  message(P, 0, 0, 1, BlockSet::range(0, 1), Combine::Replace);
  VerifyResult R = verify(P, VerifyMode::Exact);
  CHECK(R.Valid);
  CHECK(R.Reproducible);
}
