//===- BaselinesSweepTest.cpp - Baselines verified for P = 1..256 ---------===//
//
// Every plan of ring, recursive-doubling, rabenseifner and binomial for every
// collective each supports, P = 1..256 (binomial from several roots), must
// pass the verifier and the brute-force simulator (which also checks the
// order of combination where a plan claims not to need commutativity), and
// take the textbook number of rounds.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include "llvm/Support/MathExtras.h"

using namespace collplan;
using namespace collplan::test;

namespace {

constexpr uint32_t MaxP = 256;

/// log2 P' plus the fold's two rounds when P is not a power of two.
uint64_t foldedLog(uint32_t N) {
  return llvm::Log2_32(N) + (llvm::isPowerOf2_32(N) ? 0 : 2);
}

} // namespace

TEST_CASE("ring verifies for P = 1..256") {
  for (uint32_t N = 1; N <= MaxP; ++N) {
    CAPTURE(N);
    for (Collective Kind : {Collective::Allreduce, Collective::ReduceScatter,
                            Collective::Allgather}) {
      CAPTURE(collectiveName(Kind).str());
      Plan P = compileFlat("ring", Kind, N);
      // The ring claims nothing about operand order, so the verifier is the
      // oracle that matters; the simulator runs where it is cheap.
      expectCorrect(P, /*Interpret=*/N <= 64);
      uint64_t Steps = Kind == Collective::Allreduce ? 2 * (N - 1) : N - 1;
      CHECK(roundCount(P) == Steps);
    }
  }
}

TEST_CASE("recursive doubling verifies for P = 1..256") {
  for (uint32_t N = 1; N <= MaxP; ++N) {
    CAPTURE(N);
    std::vector<uint64_t> Weights;
    for (uint32_t R = 0; R < N; ++R)
      // Some ranks contribute nothing, but never all (Plan.h refuses that).
      Weights.push_back((R + 1) * 7 % 5);
    for (Collective Kind : {Collective::Allreduce, Collective::Allgather,
                            Collective::Allgatherv}) {
      CAPTURE(collectiveName(Kind).str());
      Plan P = compileFlat(
          "recursive-doubling", Kind, N, std::nullopt,
          Kind == Collective::Allgatherv ? Weights : std::vector<uint64_t>{});
      expectCorrect(P);
      CHECK(roundCount(P) == foldedLog(N));
      if (llvm::isPowerOf2_32(N))
        CHECK(roundCount(P) == llvm::Log2_32_Ceil(N));
    }
  }
}

TEST_CASE("rabenseifner verifies for P = 1..256") {
  for (uint32_t N = 1; N <= MaxP; ++N) {
    CAPTURE(N);
    Plan P = compileFlat("rabenseifner", Collective::Allreduce, N);
    expectCorrect(P);
    uint64_t Levels = llvm::Log2_32(N);
    CHECK(roundCount(P) == 2 * Levels + (llvm::isPowerOf2_32(N) ? 0 : 2));
  }
}

TEST_CASE("rabenseifner's reduce-scatter verifies for P = 1..256") {
  for (uint32_t N = 1; N <= MaxP; ++N) {
    CAPTURE(N);
    Plan P = compileFlat("rabenseifner", Collective::ReduceScatter, N);
    expectCorrect(P);
    // The fold and the halving, then the round that hands the blocks over
    // (none at P = 1 and 2, where the halving leaves them in order).
    uint64_t Levels = llvm::Log2_32(N);
    CHECK(roundCount(P) ==
          Levels + (llvm::isPowerOf2_32(N) ? (N > 2 ? 1 : 0) : 2));
  }
}

TEST_CASE("binomial verifies for P = 1..256 from roots 0, 1, P/2, P-1") {
  for (uint32_t N = 1; N <= MaxP; ++N) {
    CAPTURE(N);
    for (uint32_t Root : {0u, 1u % N, N / 2, N - 1})
      for (Collective Kind : {Collective::Broadcast, Collective::Reduce}) {
        CAPTURE(Root);
        CAPTURE(collectiveName(Kind).str());
        Plan P = compileFlat("binomial", Kind, N, Root);
        expectCorrect(P);
        CHECK(roundCount(P) == llvm::Log2_32_Ceil(N));
      }
  }
}

TEST_CASE("log-round baselines stay a few intervals per rank at P = 65535") {
  // ARCHITECTURE.md rule 2: a rank's program is O(log P) rounds of interval
  // sets, whatever P; 65535 = 2^16 - 1 folds 32767 pairs.
  const uint32_t N = 65535;
  for (auto [Name, Kind] : {std::pair<llvm::StringRef, Collective>{
                                "rabenseifner", Collective::Allreduce},
                            {"rabenseifner", Collective::ReduceScatter},
                            {"recursive-doubling", Collective::Allreduce},
                            {"recursive-doubling", Collective::Allgather},
                            {"binomial", Collective::Broadcast}}) {
    CAPTURE(Name.str());
    Plan P = compileFlat(Name, Kind, N,
                         hasRoot(Kind) ? std::optional(N - 1) : std::nullopt);
    REQUIRE(P.Programs.size() == N);
    size_t MaxRounds = 0, MaxRanges = 0;
    for (const Program &Prog : P.Programs) {
      MaxRounds = std::max(MaxRounds, Prog.Rounds.size());
      for (const Round &Rd : Prog.Rounds)
        for (const Op &O : Rd.Ops)
          MaxRanges = std::max(MaxRanges, O.Blocks.ranges().size());
    }
    CHECK(MaxRounds <= 2 * 15 + 2);
    CHECK(MaxRanges <= 2);
  }
}
