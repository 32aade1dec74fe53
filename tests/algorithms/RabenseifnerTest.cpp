//===- RabenseifnerTest.cpp - Rabenseifner's allreduce oracles ------------===//
//
// Thakur, Rabenseifner and Gropp (2005); Swing paper §2.3.3: at P = 8 the
// reduce-scatter halves the blocks a rank sends (4, 2, 1 of 8) and the
// allgather doubles them back (1, 2, 4), each rank sending 2(P-1)/P of the
// vector; after the halving every rank holds a different fully reduced block.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "doctest/doctest.h"

#include <set>

using namespace collplan;
using namespace collplan::test;

namespace {

std::vector<const Op *> opsOf(const Plan &P, uint32_t R, uint32_t Index,
                              OpKind Kind) {
  std::vector<const Op *> Out;
  for (const Op &O : opsAt(P, R, Index))
    if (O.Kind == Kind)
      Out.push_back(&O);
  return Out;
}

} // namespace

TEST_CASE("rabenseifner at P = 8 halves 4, 2, 1 blocks then doubles") {
  Plan P = compileFlat("rabenseifner", Collective::Allreduce, 8);
  CHECK(P.Header.Blocks == 8);
  CHECK(roundCount(P) == 6);
  const uint64_t Expected[6] = {4, 2, 1, 1, 2, 4};
  std::set<uint64_t> Reduced;
  for (uint32_t R = 0; R < 8; ++R) {
    uint64_t Total = 0;
    for (uint32_t T = 0; T < 6; ++T) {
      CAPTURE(R);
      CAPTURE(T);
      auto Sends = opsOf(P, R, T, OpKind::Send);
      auto Recvs = opsOf(P, R, T, OpKind::Recv);
      REQUIRE(Sends.size() == 1);
      REQUIRE(Recvs.size() == 1);
      CHECK(Sends[0]->Blocks.count() == Expected[T]);
      CHECK(Recvs[0]->Blocks.count() == Expected[T]);
      // One exchange partner per round, a distance of a power of two.
      uint32_t Distance = Sends[0]->Peer ^ R;
      CHECK(Recvs[0]->Peer == Sends[0]->Peer);
      CHECK(llvm::isPowerOf2_32(Distance));
      // What a rank sends and what it keeps are disjoint halves.
      CHECK_FALSE(Sends[0]->Blocks.overlaps(Recvs[0]->Blocks));
      Total += Sends[0]->Blocks.count();
      if (T == 2)
        Reduced.insert(Recvs[0]->Blocks.ranges()[0].Begin);
    }
    CHECK(Total == 2 * (8 - 1));
  }
  // After the halving each rank holds a different block.
  CHECK(Reduced.size() == 8);
  // Each partner is used once in each phase.
  for (uint32_t R = 0; R < 8; ++R) {
    std::set<uint32_t> Halving, Doubling;
    for (uint32_t T = 0; T < 3; ++T) {
      Halving.insert(opsOf(P, R, T, OpKind::Send)[0]->Peer);
      Doubling.insert(opsOf(P, R, T + 3, OpKind::Send)[0]->Peer);
    }
    CHECK(Halving == std::set<uint32_t>{R ^ 1, R ^ 2, R ^ 4});
    CHECK(Doubling == Halving);
  }
  CHECK_FALSE(P.Header.RequiresCommutative);
  expectInterpreted(P);
}

TEST_CASE("rabenseifner folds at P = 6 and 7: 2 log2 P' + 2 rounds") {
  for (uint32_t N : {6u, 7u}) {
    CAPTURE(N);
    Plan P = compileFlat("rabenseifner", Collective::Allreduce, N);
    CHECK(P.Header.Blocks == 4);
    CHECK(roundCount(P) == 6);
    uint32_t Rem = N - 4;
    for (uint32_t R = 0; R < N; ++R) {
      CAPTURE(R);
      std::vector<uint32_t> Active = activeRounds(P, R);
      if (R < 2 * Rem && R % 2 == 0) {
        CHECK(Active == std::vector<uint32_t>{0, 5});
        auto Sends = opsOf(P, R, 0, OpKind::Send);
        REQUIRE(Sends.size() == 1);
        CHECK(Sends[0]->Peer == R + 1);
        CHECK(Sends[0]->Blocks == BlockSet::range(0, 4));
      } else if (R < 2 * Rem) {
        CHECK(Active == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
      } else {
        CHECK(Active == std::vector<uint32_t>{1, 2, 3, 4});
      }
    }
    expectInterpreted(P);
  }
}

TEST_CASE("rabenseifner's reduce-scatter at P = 4 and 3: the halving, then "
          "each block to its owner") {
  // Worked by hand from the halving (nearest partner first, the lower rank
  // keeping the lower half): at P = 4 ranks 0 and 3 end with their own
  // blocks and ranks 1 and 2 with each other's (2 and 1, bit-reversed), so
  // round 2 swaps them. At P = 3 (P' = 2, rank 0 folded into rank 1) the
  // halving splits blocks 0-2 into {0} for rank 1 and {1, 2} for rank 2.
  struct Transfer {
    uint32_t Rank, Round, Peer;
    uint64_t Begin, End;
  };
  // Every send, and the receives of the last round (the others receive a
  // partner's partial, the matching sends).
  auto Check = [](const Plan &P, OpKind Kind,
                  std::initializer_list<Transfer> Want) {
    size_t Seen = 0;
    uint32_t Rounds = uint32_t(roundCount(P));
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (uint32_t T = Kind == OpKind::Recv ? Rounds - 1 : 0; T < Rounds; ++T)
        for (const Op *O : opsOf(P, R, T, Kind)) {
          ++Seen;
          CAPTURE(R);
          CAPTURE(T);
          bool Found = false;
          for (const Transfer &X : Want)
            Found |= X.Rank == R && X.Round == T && X.Peer == O->Peer &&
                     O->Blocks == BlockSet::range(X.Begin, X.End);
          CHECK(Found);
        }
    CHECK(Seen == Want.size());
  };
  Plan P4 = compileFlat("rabenseifner", Collective::ReduceScatter, 4);
  CHECK(P4.Header.Blocks == 4);
  CHECK(roundCount(P4) == 3);
  Check(P4, OpKind::Send,
        {{0, 0, 1, 2, 4},
         {1, 0, 0, 0, 2},
         {2, 0, 3, 2, 4},
         {3, 0, 2, 0, 2},
         {0, 1, 2, 1, 2},
         {2, 1, 0, 0, 1},
         {1, 1, 3, 3, 4},
         {3, 1, 1, 2, 3},
         {1, 2, 2, 2, 3},
         {2, 2, 1, 1, 2}});
  Check(P4, OpKind::Recv, {{1, 2, 2, 1, 2}, {2, 2, 1, 2, 3}});
  expectInterpreted(P4);

  Plan P3 = compileFlat("rabenseifner", Collective::ReduceScatter, 3);
  CHECK(roundCount(P3) == 3);
  Check(P3, OpKind::Send,
        {{0, 0, 1, 0, 3},
         {1, 1, 2, 1, 3},
         {2, 1, 1, 0, 1},
         {1, 2, 0, 0, 1},
         {2, 2, 1, 1, 2}});
  Check(P3, OpKind::Recv, {{0, 2, 1, 0, 1}, {1, 2, 2, 1, 2}});
  CHECK_FALSE(P3.Header.RequiresCommutative);
  expectInterpreted(P3);
}
