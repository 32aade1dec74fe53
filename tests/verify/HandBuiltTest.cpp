//===- HandBuiltTest.cpp - The verifier on small hand-built plans ---------===//
//
// Every plan here is small enough to execute by hand; the expected verdicts
// and error locations come from doing so against Plan.h's semantics.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

namespace {

const VerifyMode BothModes[] = {VerifyMode::Exact, VerifyMode::Hashed};

VerifyResult verify(const Plan &P, VerifyMode Mode = VerifyMode::Exact,
                    size_t MaxErrors = 20) {
  VerifyOptions O;
  O.Mode = Mode;
  O.MaxErrors = MaxErrors;
  return verifyPlan(P, O);
}

std::string allErrors(const VerifyResult &R) {
  std::string Out;
  for (const Diagnostic &D : R.Errors)
    Out += D.str() + "\n";
  return Out;
}

/// The plan is rejected, and its first error sits at (Rank, Round, OpIdx)
/// with a message containing Text.
void expectFirstError(const Plan &P, int64_t Rank, int64_t Round, int64_t OpIdx,
                      const std::string &Text,
                      VerifyMode Mode = VerifyMode::Exact) {
  VerifyResult R = verify(P, Mode);
  INFO(allErrors(R));
  REQUIRE_FALSE(R.Valid);
  REQUIRE_FALSE(R.Errors.empty());
  const Diagnostic &D = R.Errors.front();
  CHECK(D.Where.Rank == Rank);
  CHECK(D.Where.Round == Round);
  CHECK(D.Where.Op == OpIdx);
  CHECK(D.Message.find(Text) != std::string::npos);
}

/// P = 2 allreduce of 2 blocks: reduce-scatter then allgather, in place.
Plan twoRankAllreduce() {
  Plan P = emptyPlan(Collective::Allreduce, 2, 2);
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0, Op::send(1 - R, BlockSet::single(1 - R)));
    P.Programs[R].add(0, Op::recv(1 - R, BlockSet::single(R), Combine::Reduce));
  }
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(1, Op::send(1 - R, BlockSet::single(R)));
    P.Programs[R].add(
        1, Op::recv(1 - R, BlockSet::single(1 - R), Combine::Replace));
  }
  return P;
}

/// P = 2 allreduce through a scratch buffer: exchange everything, then add
/// the partner's copy locally.
Plan scratchAllreduce() {
  Plan P =
      emptyPlan(Collective::Allreduce, 2, 3, std::nullopt, {"data", "scratch"});
  BlockSet All = BlockSet::range(0, 3);
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0, Op::send(1 - R, All, 0));
    P.Programs[R].add(0, Op::recv(1 - R, All, Combine::Replace, 1));
    P.Programs[R].add(0, Op::local(1, 0, All, Combine::Reduce));
  }
  return P;
}

/// Binomial broadcast of 4 blocks over 4 ranks from Root (relative ranks).
Plan binomialBroadcast(uint32_t Root) {
  Plan P = emptyPlan(Collective::Broadcast, 4, 4, Root);
  BlockSet All = BlockSet::range(0, 4);
  auto Abs = [&](uint32_t Rel) { return (Rel + Root) % 4; };
  message(P, 0, Abs(0), Abs(2), All, Combine::Replace);
  P.Programs[Abs(0)].add(1, Op::send(Abs(1), All));
  P.Programs[Abs(1)].add(1, Op::recv(Abs(0), All, Combine::Replace));
  P.Programs[Abs(2)].add(1, Op::send(Abs(3), All));
  P.Programs[Abs(3)].add(1, Op::recv(Abs(2), All, Combine::Replace));
  return P;
}

/// Chain reduce 0 -> 1 -> 2 of 2 blocks, root 2.
Plan chainReduce(uint32_t Root = 2) {
  Plan P = emptyPlan(Collective::Reduce, 3, 2, Root);
  message(P, 0, 0, 1, BlockSet::range(0, 2), Combine::Reduce);
  message(P, 1, 1, 2, BlockSet::range(0, 2), Combine::Reduce);
  return P;
}

/// Ring allgather of 3 ranks, one block each.
Plan ringAllgather(Collective Kind = Collective::Allgather) {
  Plan P = emptyPlan(Kind, 3, 3);
  for (uint32_t S = 0; S < 2; ++S)
    for (uint32_t R = 0; R < 3; ++R) {
      uint32_t Right = (R + 1) % 3, Left = (R + 2) % 3;
      P.Programs[R].add(S, Op::send(Right, BlockSet::single((R + 3 - S) % 3)));
      P.Programs[R].add(S, Op::recv(Left, BlockSet::single((Left + 3 - S) % 3),
                                    Combine::Replace));
    }
  return P;
}

/// Reduce-scatter of 2 ranks, 2 blocks each (rank r owns 2r, 2r+1).
Plan twoRankReduceScatter() {
  Plan P = emptyPlan(Collective::ReduceScatter, 2, 4);
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0,
                      Op::send(1 - R, BlockSet::range(2 - 2 * R, 4 - 2 * R)));
    P.Programs[R].add(
        0, Op::recv(1 - R, BlockSet::range(2 * R, 2 * R + 2), Combine::Reduce));
  }
  return P;
}

} // namespace

TEST_CASE("valid hand-built plans are accepted in both modes") {
  for (VerifyMode Mode : BothModes) {
    CAPTURE(verifyModeName(Mode).str());
    for (const Plan &P :
         {twoRankAllreduce(), scratchAllreduce(), binomialBroadcast(0),
          binomialBroadcast(1), binomialBroadcast(3), chainReduce(),
          ringAllgather(), ringAllgather(Collective::Allgatherv),
          twoRankReduceScatter(), emptyPlan(Collective::Allreduce, 1, 4),
          emptyPlan(Collective::Broadcast, 1, 2, 0u)}) {
      VerifyResult R = verify(P, Mode);
      INFO(collectiveName(P.Header.Kind).str() << ": " << allErrors(R));
      CHECK(R.Valid);
      CHECK(R.Stats.ModeUsed == Mode);
    }
  }
}

TEST_CASE("stats count rounds, messages and block transfers") {
  VerifyResult R = verify(twoRankAllreduce());
  CHECK(R.Stats.Ranks == 2);
  CHECK(R.Stats.Rounds == 2);
  CHECK(R.Stats.Blocks == 2);
  CHECK(R.Stats.Messages == 4);
  CHECK(R.Stats.BlockTransfers == 4);
  VerifyResult S = verify(scratchAllreduce());
  CHECK(S.Stats.Rounds == 1);
  CHECK(S.Stats.Messages == 2);
  CHECK(S.Stats.BlockTransfers == 6);
}

TEST_CASE("auto mode picks exact for small P and hashed for large P") {
  CHECK(verify(emptyPlan(Collective::Allreduce, 4, 4), VerifyMode::Auto)
            .Stats.ModeUsed == VerifyMode::Exact);
  CHECK(verify(emptyPlan(Collective::Allreduce, 2000, 2000), VerifyMode::Auto)
            .Stats.ModeUsed == VerifyMode::Hashed);
  CHECK(verifyModeName(VerifyMode::Hashed) == "hashed");
}

TEST_CASE("structural errors are reported before anything else") {
  Plan P = twoRankAllreduce();
  P.Programs[0].Rounds[0].Ops[0].Peer = 7;
  VerifyResult R = verify(P);
  CHECK_FALSE(R.Valid);
  REQUIRE(R.Errors.size() >= 1);
  CHECK(R.Errors[0].Message.find("peer 7") != std::string::npos);
}

TEST_CASE("block weights that are all 0 describe a plan that moves nothing") {
  // Allgatherv of two ranks: each sends its block to the other.
  Plan P = emptyPlan(Collective::Allgatherv, 2, 2);
  message(P, 0, 0, 1, BlockSet::single(0), Combine::Replace);
  message(P, 0, 1, 0, BlockSet::single(1), Combine::Replace);
  P.Header.Weights = {0, 3};
  CHECK(verify(P).Valid);
  P.Header.Weights = {0, 0};
  VerifyResult R = verify(P);
  CHECK_FALSE(R.Valid);
  REQUIRE_FALSE(R.Errors.empty());
  CHECK(R.Errors[0].Message.find("weights are all 0") != std::string::npos);
}

TEST_CASE("unmatched sends and receives") {
  for (VerifyMode Mode : BothModes) {
    Plan NoRecv = twoRankAllreduce();
    NoRecv.Programs[1].Rounds[0].Ops.erase(
        NoRecv.Programs[1].Rounds[0].Ops.begin() + 1);
    expectFirstError(NoRecv, 0, 0, 0, "which posts no receive from rank 0",
                     Mode);

    Plan NoSend = twoRankAllreduce();
    NoSend.Programs[0].Rounds[1].Ops.erase(
        NoSend.Programs[0].Rounds[1].Ops.begin());
    expectFirstError(NoSend, 1, 1, 1, "which posts no send to rank 1", Mode);

    // The matching receive sits one round later: both ends are unmatched.
    Plan Late = emptyPlan(Collective::Broadcast, 2, 1, 0u);
    Late.Programs[0].add(0, Op::send(1, BlockSet::single(0)));
    Late.Programs[1].add(1, Op::recv(0, BlockSet::single(0), Combine::Replace));
    VerifyResult R = verify(Late, Mode);
    REQUIRE(R.Errors.size() == 2);
    CHECK(R.Errors[0].str() == "rank 0, round 0, op 0: sends blocks 0 of data "
                               "to rank 1, which posts no receive from rank 0 "
                               "in round 0");
    CHECK(R.Errors[1].str() == "rank 1, round 1, op 0: receives blocks 0 of "
                               "data from rank 0, which posts no send to rank "
                               "1 in round 1");
  }
}

TEST_CASE("the i-th send matches the i-th receive") {
  // Two messages from 0 to 1 in one round, received in swapped order: the
  // FIFO rule pairs them by position, so the blocks differ.
  Plan P = emptyPlan(Collective::Broadcast, 2, 2, 0u);
  P.Programs[0].add(0, Op::send(1, BlockSet::single(0)));
  P.Programs[0].add(0, Op::send(1, BlockSet::single(1)));
  P.Programs[1].add(0, Op::recv(0, BlockSet::single(1), Combine::Replace));
  P.Programs[1].add(0, Op::recv(0, BlockSet::single(0), Combine::Replace));
  expectFirstError(P, 1, 0, 0,
                   "receives blocks 1 from rank 0, whose matching send (op 0) "
                   "carries blocks 0");
  // In the sent order the plan is valid.
  std::swap(P.Programs[1].Rounds[0].Ops[0], P.Programs[1].Rounds[0].Ops[1]);
  CHECK(verify(P).Valid);
}

TEST_CASE("mismatched blocks") {
  Plan P = scratchAllreduce();
  P.Programs[1].Rounds[0].Ops[1].Blocks = BlockSet::range(0, 2);
  expectFirstError(P, 1, 0, 1,
                   "receives blocks 0-1 from rank 0, whose matching send (op "
                   "0) carries blocks 0-2");
}

TEST_CASE("receives may not overlap each other or the round's sends") {
  // Receive into the block the rank sends in the same round.
  Plan P = twoRankAllreduce();
  P.Programs[0].Rounds[0].Ops[1].Blocks = BlockSet::range(0, 2);
  P.Programs[1].Rounds[0].Ops[0].Blocks = BlockSet::range(0, 2);
  expectFirstError(P, 0, 0, 1,
                   "receives into blocks 1 of data, which op 0 "
                   "sends in the same round");

  // Two receives into the same block from two peers.
  Plan Q = emptyPlan(Collective::Reduce, 3, 1, 0u);
  message(Q, 0, 1, 0, BlockSet::single(0), Combine::Reduce);
  message(Q, 0, 2, 0, BlockSet::single(0), Combine::Reduce);
  expectFirstError(Q, 0, 0, 1, "which op 0 also receives into");

  // Different buffers do not overlap.
  Plan S = scratchAllreduce();
  CHECK(verify(S).Valid);
}

TEST_CASE("a contribution combined twice names the rank") {
  for (VerifyMode Mode : BothModes) {
    Plan P = emptyPlan(Collective::Allreduce, 2, 1);
    message(P, 0, 1, 0, BlockSet::single(0), Combine::Reduce);
    message(P, 1, 1, 0, BlockSet::single(0), Combine::Reduce);
    // The exact mode names the reduce; the hashed mode only sees the count
    // at the end.
    if (Mode == VerifyMode::Exact)
      expectFirstError(P, 0, 1, 0,
                       "would hold rank 1's contribution twice, and rank 0 "
                       "ends with the result in block 0 of data",
                       Mode);
    else
      expectFirstError(P, 0, -1, -1,
                       "holds 3 contributions (a contribution is combined "
                       "twice)",
                       Mode);
  }
  // Locally: scratch already holds {1}; adding it to data twice.
  Plan L = scratchAllreduce();
  L.Programs[0].Rounds[0].Ops.push_back(
      Op::local(1, 0, BlockSet::range(1, 3), Combine::Reduce));
  expectFirstError(L, 0, 0, 3,
                   "combining block 1 of data with scratch would hold rank "
                   "1's contribution twice");
}

TEST_CASE("a double count that is overwritten changes nothing, in both "
          "modes") {
  // P = 4 allreduce of one block on a ring of whole-vector reduces into
  // scratch, so rank 0 can double a partial on the side: its scratch takes
  // x0 + x0, which is never sent and is overwritten before the end.
  auto Build = [](bool Overwrite) {
    Plan P = emptyPlan(Collective::Allreduce, 4, 1, std::nullopt,
                       {"data", "scratch"});
    BlockSet B = BlockSet::single(0);
    P.Programs[0].add(0, Op::local(0, 1, B, Combine::Replace));
    P.Programs[0].add(0, Op::local(0, 1, B, Combine::Reduce)); // x0 twice.
    // Reduce to rank 3 along the chain, then broadcast back.
    for (uint32_t R = 0; R < 3; ++R)
      message(P, 1 + R, R, R + 1, B, Combine::Reduce);
    for (uint32_t R = 0; R < 3; ++R)
      message(P, 4, 3, R, B, Combine::Replace);
    if (Overwrite)
      P.Programs[0].add(5, Op::local(0, 1, B, Combine::Replace));
    else
      P.Programs[0].add(5, Op::local(1, 0, B, Combine::Replace));
    return P;
  };
  for (VerifyMode Mode : BothModes) {
    CAPTURE(verifyModeName(Mode).str());
    VerifyResult Kept = verify(Build(true), Mode);
    INFO(allErrors(Kept));
    CHECK(Kept.Valid);
    // Copying the doubled scratch into data instead reaches the end.
    VerifyResult Reached = verify(Build(false), Mode);
    CHECK_FALSE(Reached.Valid);
  }
  expectFirstError(Build(false), 0, 0, 1,
                   "combining block 0 of scratch with data would hold rank "
                   "0's contribution twice, and rank 0 ends with the result "
                   "in block 0 of data");
}

TEST_CASE("reducing with or into uninitialised data") {
  for (VerifyMode Mode : BothModes) {
    // Local reduce from a spare buffer nothing wrote.
    Plan P =
        emptyPlan(Collective::Allreduce, 1, 3, std::nullopt, {"data", "spare"});
    P.Programs[0].add(0,
                      Op::local(1, 0, BlockSet::range(1, 3), Combine::Reduce));
    expectFirstError(P, 0, 0, 0,
                     "reduces with block 1 of spare, which holds "
                     "no data",
                     Mode);

    // Receive-reduce into an empty scratch buffer.
    Plan Q = emptyPlan(Collective::Allreduce, 2, 1, std::nullopt,
                       {"data", "scratch"});
    message(Q, 0, 1, 0, BlockSet::single(0), Combine::Reduce, 0, 1);
    expectFirstError(Q, 0, 0, 0,
                     "reduces into block 0 of scratch, which holds "
                     "no data",
                     Mode);
  }
}

TEST_CASE("sending a block that holds no data") {
  for (VerifyMode Mode : BothModes) {
    // Allgather: rank 0 forwards block 1, which it has not received yet.
    Plan P = emptyPlan(Collective::Allgather, 2, 2);
    message(P, 0, 0, 1, BlockSet::single(1), Combine::Replace);
    expectFirstError(P, 0, 0, 0, "sends block 1 of data, which holds no data",
                     Mode);
    // Broadcast: rank 1 forwards before it has received from the root.
    Plan B = emptyPlan(Collective::Broadcast, 3, 1, 0u);
    message(B, 0, 1, 2, BlockSet::single(0), Combine::Replace);
    message(B, 1, 0, 1, BlockSet::single(0), Combine::Replace);
    expectFirstError(B, 1, 0, 0, "sends block 0 of data, which holds no data",
                     Mode);
    // A local copy of an empty buffer.
    Plan C = emptyPlan(Collective::Broadcast, 1, 1, 0u, {"data", "tmp"});
    C.Programs[0].add(0,
                      Op::local(1, 0, BlockSet::single(0), Combine::Replace));
    expectFirstError(C, 0, 0, 0, "copies block 0 of tmp, which holds no data",
                     Mode);
  }
}

TEST_CASE("a collective that does not reduce contains no reduce") {
  Plan P = binomialBroadcast(0);
  P.Programs[2].Rounds[0].Ops[0].Mode = Combine::Reduce;
  expectFirstError(P, 2, 0, 0,
                   "reduces, but a broadcast combines no "
                   "contributions");
  Plan A = ringAllgather();
  A.Programs[1].Rounds[1].Ops[1].Mode = Combine::Reduce;
  expectFirstError(A, 1, 1, 1, "but a allgather combines");
}

TEST_CASE("wrong end states, collective by collective") {
  for (VerifyMode Mode : BothModes) {
    CAPTURE(verifyModeName(Mode).str());
    bool Exact = Mode == VerifyMode::Exact;

    // Allreduce with no communication: each rank lacks the others.
    expectFirstError(emptyPlan(Collective::Allreduce, 3, 1), 0, -1, -1,
                     Exact ? "at the end, block 0 of data lacks the "
                             "contributions of ranks 1, 2"
                           : "lacks 2 of the 3 contributions",
                     Mode);
    // Reduce-scatter: the owner's blocks, not others, must be complete.
    Plan RS = twoRankReduceScatter();
    RS.Programs[1].Rounds[0].Ops[1].Mode = Combine::Replace;
    expectFirstError(RS, 1, -1, -1,
                     Exact ? "block 2 of data lacks rank 1's contribution"
                           : "block 2 of data lacks 1 of the 2",
                     Mode);
    // Allgather(v): a block never delivered.
    for (Collective C : {Collective::Allgather, Collective::Allgatherv}) {
      Plan AG = ringAllgather(C);
      AG.Programs[0].Rounds.pop_back();
      AG.Programs[1].Rounds.pop_back();
      AG.Programs[2].Rounds.pop_back();
      expectFirstError(AG, 0, -1, -1,
                       "block 1 of data holds no data; it should hold only "
                       "rank 1's contribution",
                       Mode);
    }
    // Broadcast: the last leaf never receives.
    Plan BC = binomialBroadcast(1);
    BC.Programs[0].Rounds.clear(); // Relative rank 3.
    BC.Programs[3].Rounds.pop_back();
    expectFirstError(BC, 0, -1, -1,
                     "block 0 of data holds no data; it should hold only rank "
                     "1's contribution",
                     Mode);
    // Reduce: complete at rank 2, so a header naming root 1 is wrong, and
    // the non-roots' state does not matter otherwise.
    expectFirstError(chainReduce(1), 1, -1, -1,
                     Exact ? "lacks rank 2's contribution" : "lacks 1 of the 3",
                     Mode);
    CHECK(verify(chainReduce(2), Mode).Valid);
  }
}

TEST_CASE("at most MaxErrors diagnostics, ordered by round") {
  Plan P = emptyPlan(Collective::Allreduce, 8, 8);
  VerifyResult All = verify(P, VerifyMode::Exact, 100);
  CHECK(All.Errors.size() == 8); // The first bad block of each rank.
  VerifyResult Few = verify(P, VerifyMode::Exact, 3);
  CHECK(Few.Errors.size() == 3);
  CHECK_FALSE(Few.Valid);

  Plan Q = twoRankAllreduce();
  Q.Programs[1].Rounds[1].Ops.clear();
  Q.Programs[0].Rounds[0].Ops[1].Blocks = BlockSet::range(0, 2);
  VerifyResult R = verify(Q, VerifyMode::Exact, 100);
  REQUIRE(R.Errors.size() >= 2);
  for (size_t I = 1; I < R.Errors.size(); ++I)
    CHECK(uint64_t(R.Errors[I - 1].Where.Round) <=
          uint64_t(R.Errors[I].Where.Round));
}

TEST_CASE("a tiny memory budget streams one block at a time") {
  for (VerifyMode Mode : BothModes) {
    VerifyOptions O;
    O.Mode = Mode;
    O.MemoryBudget = 1;
    CHECK(verifyPlan(twoRankReduceScatter(), O).Valid);
    CHECK(verifyPlan(scratchAllreduce(), O).Valid);
    Plan RS = twoRankReduceScatter();
    RS.Programs[1].Rounds[0].Ops[1].Blocks = BlockSet::single(3);
    RS.Programs[0].Rounds[0].Ops[0].Blocks = BlockSet::single(3);
    VerifyResult R = verifyPlan(RS, O);
    REQUIRE_FALSE(R.Valid);
    CHECK(R.Errors[0].str().find("rank 1: at the end, block 2 of data") == 0);
  }
}

TEST_CASE("a plan moving blocks in ranges is judged block by block") {
  // P = 2 allreduce of 8 blocks in halves; rank 0 returns only blocks 0-2 of
  // its half, so rank 1 ends with block 3 lacking rank 0's contribution.
  for (VerifyMode Mode : BothModes) {
    CAPTURE(verifyModeName(Mode).str());
    Plan P = emptyPlan(Collective::Allreduce, 2, 8);
    auto Half = [](uint32_t R) { return BlockSet::range(4 * R, 4 * R + 4); };
    for (uint32_t R = 0; R < 2; ++R) {
      P.Programs[R].add(0, Op::send(1 - R, Half(1 - R)));
      P.Programs[R].add(0, Op::recv(1 - R, Half(R), Combine::Reduce));
      P.Programs[R].add(1, Op::send(1 - R, Half(R)));
      P.Programs[R].add(1, Op::recv(1 - R, Half(1 - R), Combine::Replace));
    }
    CHECK(verify(P, Mode).Valid);
    P.Programs[0].Rounds[1].Ops[0].Blocks = BlockSet::range(0, 3);
    P.Programs[1].Rounds[1].Ops[1].Blocks = BlockSet::range(0, 3);
    expectFirstError(P, 1, -1, -1,
                     Mode == VerifyMode::Exact
                         ? "at the end, block 3 of data lacks rank 0's "
                           "contribution"
                         : "at the end, block 3 of data lacks 1 of the 2",
                     Mode);
  }
}

TEST_CASE("a range spanning two ranks' inputs is not one atom") {
  // P = 2 allgather: rank 0 sends blocks 0-1 although it holds only block 0.
  for (VerifyMode Mode : BothModes) {
    CAPTURE(verifyModeName(Mode).str());
    Plan P = emptyPlan(Collective::Allgather, 2, 2);
    message(P, 0, 0, 1, BlockSet::range(0, 2), Combine::Replace);
    expectFirstError(P, 0, 0, 0, "sends block 1 of data, which holds no data",
                     Mode);
  }
}
