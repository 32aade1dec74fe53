//===- RankSliceTest.cpp - Reading one rank of a plan ---------------------===//
//
// The oracle is the whole-plan reader: a rank slice must hold exactly the
// header and the program a whole read gives for that rank, and the hash
// planHash gives for the whole plan, whatever the format.
//
//===----------------------------------------------------------------------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/Support/FileSystem.h"

#include <doctest/doctest.h>

#include <cstdio>

using namespace collplan;
using namespace collplan::test;

/// The one-program plan of rank R: what a slice must equal.
static Plan rankOf(const Plan &P, uint32_t R) {
  return Plan{P.Header, {P.Programs[R]}};
}

static std::string sliceError(llvm::StringRef Bytes, uint32_t Rank) {
  llvm::Expected<RankSlice> S = decodeRankSlice(Bytes, "s.plan", Rank);
  if (S) {
    FAIL_CHECK("decoded; expected an error");
    return "";
  }
  return llvm::toString(S.takeError());
}

TEST_CASE("a slice is the whole plan's header and that rank's program") {
  const Plan Plans[] = {
      handBuiltPlan(),
      compiledPlan("ring", Collective::Allreduce, Topology::flat(7)),
      compiledPlan("rabenseifner", Collective::Allreduce, Topology::flat(12)),
      compiledPlan("swing", Collective::ReduceScatter, Topology::flat(6)),
  };
  for (const Plan &P : Plans) {
    CAPTURE(P.Header.Algorithm);
    uint64_t Hash = planHash(P);
    for (PlanFormat F :
         {PlanFormat::Binary, PlanFormat::Yaml, PlanFormat::Json}) {
      CAPTURE(formatName(F));
      std::string Bytes = encodePlan(P, F);
      for (uint32_t R = 0; R < P.Header.Ranks; ++R) {
        CAPTURE(R);
        llvm::Expected<RankSlice> S = decodeRankSlice(Bytes, "s.plan", R);
        REQUIRE_MESSAGE(bool(S), llvm::toString(S.takeError()));
        CHECK(S->Rank == R);
        CHECK(S->Hash == Hash);
        checkSamePlan(rankOf(P, R), Plan{S->Header, {S->Prog}});
      }
    }
  }
}

TEST_CASE("a binary slice reads only its own rank's bytes") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(4));
  uint64_t Hash = planHash(P);
  std::string Broken = encodePlan(P, PlanFormat::Binary);
  // The last byte belongs to the last rank's program: an unfinished LEB128
  // integer there breaks that program alone.
  Broken.back() = '\xff';
  llvm::Expected<Plan> Whole = decodePlan(Broken, "s.plan");
  REQUIRE(!Whole);
  llvm::consumeError(Whole.takeError());
  for (uint32_t R = 0; R < 3; ++R) {
    CAPTURE(R);
    llvm::Expected<RankSlice> S = decodeRankSlice(Broken, "s.plan", R);
    REQUIRE_MESSAGE(bool(S), llvm::toString(S.takeError()));
    checkSamePlan(rankOf(P, R), Plan{S->Header, {S->Prog}});
    // The stored hash, taken as it is: the whole plan's.
    CHECK(S->Hash == Hash);
  }
  CHECK(llvm::StringRef(sliceError(Broken, 3)).startswith("s.plan: byte "));
}

TEST_CASE("a slice gets checkStructure's checks for its rank") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(4));
  P.Programs[1].Rounds[0].Ops[0].Peer = 1;            // Itself.
  P.Programs[2].Rounds[1].Ops[0].Blocks = BlockSet(); // Moves nothing.
  for (PlanFormat F :
       {PlanFormat::Binary, PlanFormat::Yaml, PlanFormat::Json}) {
    CAPTURE(formatName(F));
    std::string Bytes = encodePlan(P, F);
    if (F == PlanFormat::Binary) {
      // Only the rank read is checked: ranks 0 and 3 are well formed.
      CHECK(bool(decodeRankSlice(Bytes, "s.plan", 0)));
      CHECK(sliceError(Bytes, 1) == "s.plan: rank 1, round 0, op 0: a rank "
                                    "cannot send to or receive from itself");
      CHECK(sliceError(Bytes, 2) ==
            "s.plan: rank 2, round 1, op 0: the operation moves no blocks");
    } else {
      // Text is decoded whole, and checked whole, whichever rank is wanted.
      CHECK(sliceError(Bytes, 0) ==
            "s.plan: rank 1, round 0, op 0: a rank cannot send to or receive "
            "from itself (and further problems)");
    }
  }
}

TEST_CASE("a rank outside the plan is refused by name") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(4));
  for (PlanFormat F :
       {PlanFormat::Binary, PlanFormat::Yaml, PlanFormat::Json}) {
    CAPTURE(formatName(F));
    CHECK(sliceError(encodePlan(P, F), 4) ==
          "s.plan: rank 4 is not one of the plan's 4 ranks");
  }
}

TEST_CASE("readRankSlice reads files with readPlanFile's file checks") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(5));
  std::string Path = "rank-slice-test.cplan";
  REQUIRE(!writePlanFile(P, Path, PlanFormat::Binary));
  llvm::Expected<RankSlice> S = readRankSlice(Path, 2);
  REQUIRE_MESSAGE(bool(S), llvm::toString(S.takeError()));
  checkSamePlan(rankOf(P, 2), Plan{S->Header, {S->Prog}});
  CHECK(S->Hash == planHash(P));
  std::remove(Path.c_str());

  llvm::Expected<RankSlice> Dir = readRankSlice(".", 0);
  REQUIRE(!Dir);
  CHECK(llvm::toString(Dir.takeError()) ==
        "cannot read plan file '.': not a regular file");
}
