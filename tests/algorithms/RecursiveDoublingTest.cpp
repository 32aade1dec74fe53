//===- RecursiveDoublingTest.cpp - Recursive doubling oracles -------------===//
//
// The textbook structure (Thakur, Rabenseifner and Gropp 2005; Swing paper
// §2.3.2): at P = 8 round k pairs r with r XOR 2^k; allreduce exchanges the
// whole vector, allgather the 2^k blocks of r's aligned group. Non-powers of
// two fold MPICH's way: the even ranks below 2*rem idle between rounds 0 and
// last.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

const Op *findOp(llvm::ArrayRef<Op> Ops, OpKind Kind) {
  for (const Op &O : Ops)
    if (O.Kind == Kind)
      return &O;
  return nullptr;
}

} // namespace

TEST_CASE("recursive doubling allreduce at P = 8 pairs r with r XOR 2^k") {
  Plan P = compileFlat("recursive-doubling", Collective::Allreduce, 8);
  CHECK(P.Header.Blocks == 1);
  CHECK(roundCount(P) == 3);
  for (uint32_t R = 0; R < 8; ++R)
    for (uint32_t K = 0; K < 3; ++K) {
      CAPTURE(R);
      CAPTURE(K);
      llvm::ArrayRef<Op> Ops = opsAt(P, R, K);
      const Op *Send = findOp(Ops, OpKind::Send);
      const Op *Recv = findOp(Ops, OpKind::Recv);
      REQUIRE(Send);
      REQUIRE(Recv);
      CHECK(Send->Peer == (R ^ (1u << K)));
      CHECK(Recv->Peer == (R ^ (1u << K)));
      CHECK(Send->Blocks == BlockSet::single(0));
      CHECK(Recv->Blocks == BlockSet::single(0));
    }
  CHECK_FALSE(P.Header.RequiresCommutative);
  expectInterpreted(P);
}

TEST_CASE("recursive doubling allgather at P = 8 doubles the blocks") {
  Plan P = compileFlat("recursive-doubling", Collective::Allgather, 8);
  CHECK(P.Header.Blocks == 8);
  CHECK(roundCount(P) == 3);
  for (uint32_t R = 0; R < 8; ++R)
    for (uint32_t K = 0; K < 3; ++K) {
      CAPTURE(R);
      CAPTURE(K);
      uint32_t Size = 1u << K, Peer = R ^ Size;
      llvm::ArrayRef<Op> Ops = opsAt(P, R, K);
      const Op *Send = findOp(Ops, OpKind::Send);
      const Op *Recv = findOp(Ops, OpKind::Recv);
      REQUIRE(Send);
      REQUIRE(Recv);
      CHECK(Send->Peer == Peer);
      CHECK(Send->Blocks.count() == Size);
      CHECK(Send->Blocks ==
            BlockSet::range(R / Size * Size, R / Size * Size + Size));
      CHECK(Recv->Blocks ==
            BlockSet::range(Peer / Size * Size, Peer / Size * Size + Size));
      CHECK(Recv->Mode == Combine::Replace);
    }
  expectInterpreted(P);
}

TEST_CASE("recursive doubling folds ranks 0, 2 at P = 6 and 0, 2, 4 at P = 7") {
  for (Collective Kind : {Collective::Allreduce, Collective::Allgather})
    for (uint32_t N : {6u, 7u}) {
      CAPTURE(N);
      Plan P = compileFlat("recursive-doubling", Kind, N);
      // P' = 4: two exchange rounds plus the fold and the unfold.
      CHECK(roundCount(P) == 4);
      uint32_t Rem = N - 4;
      for (uint32_t R = 0; R < N; ++R) {
        CAPTURE(R);
        bool Idle = R < 2 * Rem && R % 2 == 0;
        std::vector<uint32_t> Active = activeRounds(P, R);
        if (Idle) {
          CHECK(Active == std::vector<uint32_t>{0, 3});
          const Op *Send = findOp(opsAt(P, R, 0), OpKind::Send);
          const Op *Recv = findOp(opsAt(P, R, 3), OpKind::Recv);
          REQUIRE(Send);
          REQUIRE(Recv);
          CHECK(Send->Peer == R + 1);
          CHECK(Recv->Peer == R + 1);
          if (Kind == Collective::Allgather) {
            CHECK(Send->Blocks == BlockSet::single(R));
            CHECK(Recv->Blocks.count() == N - 1);
          }
        } else if (R < 2 * Rem) {
          CHECK(Active == std::vector<uint32_t>{0, 1, 2, 3});
        } else {
          CHECK(Active == std::vector<uint32_t>{1, 2});
        }
      }
      expectInterpreted(P);
    }
}

TEST_CASE("recursive doubling allgather on a folded P sends two blocks for "
          "a pair") {
  // P = 6: virtual ranks 0, 1 act for real pairs {0,1} and {2,3}; in round
  // 1 real rank 1 (virtual 0) sends blocks 0-1 to real rank 3 (virtual 1).
  Plan P = compileFlat("recursive-doubling", Collective::Allgather, 6);
  const Op *Send = findOp(opsAt(P, 1, 1), OpKind::Send);
  REQUIRE(Send);
  CHECK(Send->Peer == 3);
  CHECK(Send->Blocks == BlockSet::range(0, 2));
  // Round 2: real rank 1 exchanges blocks 0-3 with virtual 2 = real 4.
  Send = findOp(opsAt(P, 1, 2), OpKind::Send);
  REQUIRE(Send);
  CHECK(Send->Peer == 4);
  CHECK(Send->Blocks == BlockSet::range(0, 4));
  // Unfold: rank 1 hands rank 0 every block but its own: two intervals.
  Send = findOp(opsAt(P, 1, 3), OpKind::Send);
  REQUIRE(Send);
  CHECK(Send->Blocks.str() == "1-5");
  Send = findOp(opsAt(P, 3, 3), OpKind::Send);
  REQUIRE(Send);
  CHECK(Send->Blocks.ranges().size() == 2);
  CHECK(Send->Blocks.count() == 5);
}
