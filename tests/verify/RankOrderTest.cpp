//===- RankOrderTest.cpp - Operand order in plans that claim it -----------===//
//
// Plans that claim requires_commutative: false must combine every block as
// x_0 (+) x_1 (+) ... (+) x_{P-1} under Plan.h's rule destination =
// destination (+) incoming. The verdicts below come from writing out, by
// hand, the sequence each block's partial combines.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

namespace {

/// Reduce to root 0 along a chain: rank r + 1 sends its partial of ranks
/// r + 1..P-1 to rank r, which reduces it into its own x_r: in order.
Plan chainToZero(uint32_t Ranks) {
  Plan P = emptyPlan(Collective::Reduce, Ranks, 2, 0u);
  P.Header.RequiresCommutative = false;
  for (uint32_t R = Ranks - 1; R > 0; --R)
    message(P, Ranks - 1 - R, R, R - 1, BlockSet::range(0, 2), Combine::Reduce);
  return P;
}

/// The same chain the other way, to root P - 1: rank r + 1 reduces x_0..x_r
/// into its own x_{r+1}, which reverses the operands.
Plan chainToLast(uint32_t Ranks) {
  Plan P = emptyPlan(Collective::Reduce, Ranks, 2, Ranks - 1);
  P.Header.RequiresCommutative = false;
  for (uint32_t R = 0; R + 1 < Ranks; ++R)
    message(P, R, R, R + 1, BlockSet::range(0, 2), Combine::Reduce);
  return P;
}

/// Verifies P in the exact mode, the hashed mode and streamed one block at a
/// time; all three must agree, and their first diagnostics too.
VerifyResult verifyAllWays(const Plan &P) {
  std::vector<VerifyResult> Results;
  for (VerifyMode Mode : {VerifyMode::Exact, VerifyMode::Hashed})
    for (uint64_t Budget : {uint64_t(512) << 20, uint64_t(1)}) {
      VerifyOptions O;
      O.Mode = Mode;
      O.MemoryBudget = Budget;
      Results.push_back(verifyPlan(P, O));
    }
  for (const VerifyResult &R : Results) {
    CHECK(R.Valid == Results[0].Valid);
    if (!R.Valid && !Results[0].Valid)
      CHECK(R.Errors.front().str() == Results[0].Errors.front().str());
  }
  return Results[0];
}

void expectOrderError(const Plan &P, int64_t Rank, int64_t Round, int64_t OpIdx,
                      const std::string &Text) {
  VerifyResult R = verifyAllWays(P);
  REQUIRE_FALSE(R.Valid);
  const Diagnostic &D = R.Errors.front();
  INFO(D.str());
  CHECK(D.Where.Rank == Rank);
  CHECK(D.Where.Round == Round);
  CHECK(D.Where.Op == OpIdx);
  CHECK(D.Message.find(Text) != std::string::npos);
  CHECK(D.Message.find("requires_commutative: false") != std::string::npos);
}

} // namespace

TEST_CASE("a chain that appends higher ranks keeps rank order") {
  for (uint32_t Ranks : {2u, 3u, 7u})
    CHECK(verifyAllWays(chainToZero(Ranks)).Valid);
}

TEST_CASE("reversed operands are rejected only when the plan claims order") {
  Plan P = chainToLast(4);
  // Round 0: rank 1 reduces x_0 into x_1.
  expectOrderError(P, 1, 0, 0,
                   "reduces rank 0 into block 0 of data, which holds rank 1: "
                   "the operands are reversed");
  P.Header.RequiresCommutative = true;
  CHECK(verifyAllWays(P).Valid);
}

TEST_CASE("a partial that skips a rank is not adjacent") {
  // Allreduce on 3 ranks, one block: rank 0 takes x_2 before x_1.
  Plan P = emptyPlan(Collective::Allreduce, 3, 1);
  P.Header.RequiresCommutative = false;
  message(P, 0, 2, 0, BlockSet::single(0), Combine::Reduce);
  message(P, 1, 1, 0, BlockSet::single(0), Combine::Reduce);
  for (uint32_t R = 1; R < 3; ++R)
    message(P, 2 + R, 0, R, BlockSet::single(0), Combine::Replace);
  // Rank 0 round 0: the receive is its only op.
  VerifyResult V = verifyAllWays(P);
  REQUIRE_FALSE(V.Valid);
  const Diagnostic &D = V.Errors.front();
  CHECK(D.Where.Rank == 0);
  CHECK(D.Where.Round == 0);
  CHECK(D.Message.find("reduces rank 2 into block 0 of data, which holds "
                       "rank 0: not adjacent in rank order") !=
        std::string::npos);
  P.Header.RequiresCommutative = true;
  CHECK(verifyAllWays(P).Valid);
}

TEST_CASE("local reduces follow the same rule, and copies carry the order") {
  // P = 2 allreduce: each rank receives the other's x into scratch and
  // combines data and scratch into the buffer whose contents come first.
  Plan P =
      emptyPlan(Collective::Allreduce, 2, 1, std::nullopt, {"data", "scratch"});
  P.Header.RequiresCommutative = false;
  message(P, 0, 0, 1, BlockSet::single(0), Combine::Replace, 0, 1);
  message(P, 0, 1, 0, BlockSet::single(0), Combine::Replace, 0, 1);
  // Rank 0: data = x0 (+) x1. Rank 1: scratch = x0 (+) x1, copied to data.
  P.Programs[0].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  P.Programs[1].add(0, Op::local(0, 1, BlockSet::single(0), Combine::Reduce));
  P.Programs[1].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Replace));
  CHECK(verifyAllWays(P).Valid);

  // Swapping rank 1's operands (op 2, after its receive and send) computes
  // x1 (+) x0 in data; the copy then has nothing to do.
  Plan Swapped = P;
  Op &Reduce = Swapped.Programs[1].Rounds[0].Ops[2];
  std::swap(Reduce.Source, Reduce.Buffer);
  Swapped.Programs[1].Rounds[0].Ops.pop_back();
  expectOrderError(Swapped, 1, 0, 2,
                   "reduces rank 0 into block 0 of data, which holds rank 1: "
                   "the operands are reversed");
}

TEST_CASE("a collective that does not reduce has no order to check") {
  Plan P = emptyPlan(Collective::Broadcast, 3, 1, 2u);
  P.Header.RequiresCommutative = false;
  message(P, 0, 2, 0, BlockSet::single(0), Combine::Replace);
  message(P, 1, 0, 1, BlockSet::single(0), Combine::Replace);
  CHECK(verifyAllWays(P).Valid);
}
