//===- PersonalisedReplayTest.cpp - The replay of an alltoall's places ----===//
//
// PersonalisedReplay.h keeps where each block is rather than what every
// slot holds. The plans here forward blocks through other ranks and scratch
// buffers, read a block where it was before, and lose one; the verdicts come
// from executing them by hand against Plan.h's semantics and from the
// reference interpreter (tests/support), which runs them on real data.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"
#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

namespace {

VerifyResult verifyWith(const Plan &P, VerifyMode Mode, uint64_t Budget = 0) {
  VerifyOptions O;
  O.Mode = Mode;
  if (Budget)
    O.MemoryBudget = Budget;
  return verifyPlan(P, O);
}

std::string firstError(const VerifyResult &R) {
  return R.Errors.empty() ? "(none)" : R.Errors.front().str();
}

/// P = 3, one block per pair (block s*3 + d). Every pair but (0, 2) goes
/// direct in round 0; (0, 2), block 2, goes 0 -> 1 (data) in round 1, is
/// copied into rank 1's scratch buffer, and leaves from there for 2 in
/// round 2.
Plan forwardedThroughScratch() {
  Plan P = emptyPlan(Collective::Alltoall, 3, 9, std::nullopt, {"data", "tmp"});
  for (uint32_t S = 0; S < 3; ++S)
    for (uint32_t D = 0; D < 3; ++D)
      if (S != D && !(S == 0 && D == 2))
        message(P, 0, S, D, BlockSet::single(S * 3 + D), Combine::Replace);
  message(P, 1, 0, 1, BlockSet::single(2), Combine::Replace);
  P.Programs[1].add(1, Op::local(0, 1, BlockSet::single(2), Combine::Replace));
  message(P, 2, 1, 2, BlockSet::single(2), Combine::Replace, 1, 0);
  return P;
}

} // namespace

TEST_CASE("a block forwarded through another rank and a scratch buffer") {
  Plan P = forwardedThroughScratch();
  CHECK_FALSE(interpret(P).Broken);
  for (VerifyMode Mode : {VerifyMode::Exact, VerifyMode::Hashed}) {
    VerifyResult R = verifyWith(P, Mode);
    CHECK_MESSAGE(R.Valid, firstError(R));
    // The places are exact whatever the mode asked.
    CHECK(R.Stats.ModeUsed == VerifyMode::Exact);
  }
}

TEST_CASE("a block read again where it was before") {
  // Rank 1 moves block 2 on to its scratch buffer, then sends it from
  // `data`, which still holds it: the replay must find the place it left.
  Plan P = forwardedThroughScratch();
  P.Programs[1].Rounds.back().Ops.back().Buffer = 0;
  CHECK_FALSE(interpret(P).Broken);
  VerifyResult R = verifyWith(P, VerifyMode::Exact);
  CHECK_MESSAGE(R.Valid, firstError(R));
}

TEST_CASE("forwarding a block before it arrives") {
  // Rank 1 sends block 2 from its scratch buffer in round 1, before the copy
  // that fills it (a Local runs after the round's messages).
  Plan P = emptyPlan(Collective::Alltoall, 3, 9, std::nullopt, {"data", "tmp"});
  for (uint32_t S = 0; S < 3; ++S)
    for (uint32_t D = 0; D < 3; ++D)
      if (S != D && !(S == 0 && D == 2))
        message(P, 0, S, D, BlockSet::single(S * 3 + D), Combine::Replace);
  message(P, 0, 0, 1, BlockSet::single(2), Combine::Replace);
  message(P, 1, 1, 2, BlockSet::single(2), Combine::Replace, 1, 0);
  P.Programs[1].add(1, Op::local(0, 1, BlockSet::single(2), Combine::Replace));
  CHECK(interpret(P).Broken);
  VerifyResult R = verifyWith(P, VerifyMode::Exact);
  REQUIRE_FALSE(R.Valid);
  CHECK(firstError(R).find("rank 1, round 1, op 0") != std::string::npos);
  CHECK(firstError(R).find("sends block 2 of tmp (rank 0's for rank 2), "
                           "which holds no data") != std::string::npos);
  // And rank 2 never gets it.
  CHECK(R.Errors.back().str().find("at the end, block 2 of data") !=
        std::string::npos);
}

TEST_CASE("a block left at an intermediate rank never arrives") {
  Plan P = forwardedThroughScratch();
  P.Programs[1].Rounds.pop_back();
  P.Programs[2].Rounds.pop_back();
  CHECK_FALSE(interpret(P).EndErrors.empty());
  VerifyResult R = verifyWith(P, VerifyMode::Exact);
  REQUIRE_FALSE(R.Valid);
  CHECK(firstError(R) == "rank 2: at the end, block 2 of data (rank 0's for "
                         "rank 2) holds no data; it should hold only rank "
                         "0's contribution");
}

TEST_CASE("chunks of one block judge as the whole vector does") {
  // A budget of one byte cuts the vector into one chunk per block.
  for (const char *Family : {"pairwise", "bruck"}) {
    CAPTURE(Family);
    Plan P = compileFlat(Family, Collective::Alltoall, 6);
    CHECK(verifyWith(P, VerifyMode::Exact, 1).Valid);
    // Drop one rank's last receive and its sender's send.
    Plan Q = P;
    Op Lost = Q.Programs[3].Rounds.back().Ops.back();
    REQUIRE(Lost.Kind == OpKind::Recv);
    Q.Programs[3].Rounds.back().Ops.pop_back();
    auto &Peer = Q.Programs[Lost.Peer].Rounds;
    for (Round &Rd : Peer)
      if (Rd.Index == Q.Programs[3].Rounds.back().Index)
        llvm::erase_if(Rd.Ops, [&](const Op &O) {
          return O.Kind == OpKind::Send && O.Peer == 3;
        });
    CHECK(interpret(Q).Broken);
    VerifyResult Whole = verifyWith(Q, VerifyMode::Exact);
    VerifyResult Chunked = verifyWith(Q, VerifyMode::Exact, 1);
    REQUIRE_FALSE(Whole.Valid);
    CHECK(firstError(Whole) == firstError(Chunked));
  }
}
