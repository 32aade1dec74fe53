//===- DispatchTest.cpp - Which plan serves which call --------------------===//
//
// Oracles: the file-name grammar as docs/ and PlanFileNames.h state it (the
// expected names are written out here), a brute-force round trip over every
// collective, root, P and operator, and hand-built calls whose answer
// follows from the plan's block layout.
//
//===----------------------------------------------------------------------===//

#include "plan/dispatch/CallShape.h"
#include "plan/dispatch/MeasuredRules.h"
#include "plan/dispatch/PlanDirectoryRules.h"
#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/dispatch/PlanFileNames.h"
#include "plan/dispatch/PlanIndex.h"

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/CollectiveContract.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace collplan;

namespace {

DispatchRule rule(Collective Kind, uint32_t Ranks, uint64_t Min, uint64_t Max,
                  std::optional<ReduceOp> Op = std::nullopt,
                  std::optional<uint32_t> Root = std::nullopt) {
  DispatchRule R;
  R.Kind = Kind;
  R.Ranks = Ranks;
  R.MinBytes = Min;
  R.MaxBytes = Max;
  R.Op = Op;
  R.Root = Root;
  return R;
}

Plan planOf(const char *Algorithm, Collective Kind, uint32_t P,
            std::optional<uint32_t> Root = std::nullopt,
            std::vector<uint64_t> Weights = {}) {
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topology::flat(P);
  Req.Root = Root;
  Req.Weights = std::move(Weights);
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(Algorithm), Req);
  REQUIRE_MESSAGE(bool(Pl), llvm::toString(Pl.takeError()));
  return std::move(*Pl);
}

} // namespace

TEST_CASE("plan file names: written as documented, read back") {
  CHECK(planFileName(rule(Collective::Allreduce, 8, 0, 65536), "cplan") ==
        "allreduce-p8-0-65536.cplan");
  CHECK(planFileName(rule(Collective::ReduceScatter, 3, 1024, UINT64_MAX,
                          ReduceOp::Bxor),
                     "yaml") == "reduce-scatter-p3-1024-inf-bxor.yaml");
  CHECK(planFileName(
            rule(Collective::Broadcast, 8, 0, UINT64_MAX, std::nullopt, 3u),
            "cplan") == "broadcast-root3-p8-0-inf.cplan");
  // Root 0 is the default and is not spelled.
  CHECK(planFileName(rule(Collective::Reduce, 4, 8, 16, ReduceOp::Sum, 0u),
                     "json") == "reduce-p4-8-16-sum.json");

  // Every collective, root, P, range and operator round-trips.
  for (Collective C : allCollectives())
    for (uint32_t P : {1u, 2u, 7u, 4096u})
      for (uint32_t Root : {0u, 1u, P - 1})
        for (auto [Min, Max] : {std::pair<uint64_t, uint64_t>(0, 1),
                                {8, 65536},
                                {1, UINT64_MAX},
                                {UINT64_MAX - 1, UINT64_MAX}})
          for (std::optional<ReduceOp> Op :
               {std::optional<ReduceOp>(), std::optional(ReduceOp::Lxor)}) {
            if (Root >= P || (Op && !reduces(C)))
              continue;
            DispatchRule R =
                rule(C, P, Min, Max, Op,
                     hasRoot(C) && Root ? std::optional(Root) : std::nullopt);
            std::string Name = planFileName(R, "cplan");
            CAPTURE(Name);
            llvm::Expected<DispatchRule> Back = parsePlanFileName(Name);
            REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
            CHECK(Back->File == Name);
            CHECK(Back->Kind == C);
            CHECK(Back->Ranks == P);
            CHECK(Back->MinBytes == Min);
            CHECK(Back->MaxBytes == Max);
            CHECK(Back->Op == Op);
            CHECK(Back->Root == R.Root);
            CHECK_FALSE(Back->FromIndex);
          }

  auto Refusal = [](llvm::StringRef Name) {
    llvm::Expected<DispatchRule> R = parsePlanFileName(Name);
    return R ? std::string() : llvm::toString(R.takeError());
  };
  // The extensions are the plan formats', in any case.
  CHECK(Refusal("allreduce-p8-0-10.CPLAN").empty());
  CHECK(Refusal("allreduce-p8-0-10.yml").empty());
  CHECK(Refusal("allreduce-p8-0-10.xml").find("not a plan file extension") !=
        std::string::npos);
  CHECK(Refusal("allreduce-root1-p8-0-10.cplan")
            .find("not a rank of a rooted collective") != std::string::npos);
  CHECK(Refusal("broadcast-root8-p8-0-10.cplan")
            .find("not a rank of a rooted collective") != std::string::npos);
  CHECK(Refusal("allgatherv-p8-0-10-sum-x.cplan").find("expected P, min") !=
        std::string::npos);
}

TEST_CASE("a rule covers calls by bytes, operator, root and counts") {
  CallShape C;
  C.Kind = Collective::Allreduce;
  C.Ranks = 4;
  C.Op = ReduceOp::Max;
  DispatchRule R = rule(Collective::Allreduce, 4, 64, 128);
  for (auto [Bytes, Covered] : {std::pair(uint64_t(63), false),
                                {64, true},
                                {127, true},
                                {128, false}}) {
    C.Bytes = Bytes;
    CHECK(R.covers(C) == Covered);
  }
  C.Bytes = 64;
  R.Op = ReduceOp::Sum;
  CHECK_FALSE(R.covers(C));
  R.Op = ReduceOp::Max;
  CHECK(R.covers(C));
  C.Ranks = 5;
  CHECK_FALSE(R.covers(C));

  CallShape B;
  B.Kind = Collective::Broadcast;
  B.Ranks = 4;
  B.Root = 2;
  CHECK(rule(Collective::Broadcast, 4, 0, UINT64_MAX).covers(B));
  CHECK(rule(Collective::Broadcast, 4, 0, UINT64_MAX, std::nullopt, 2u)
            .covers(B));
  CHECK_FALSE(rule(Collective::Broadcast, 4, 0, UINT64_MAX, std::nullopt, 0u)
                  .covers(B));

  CallShape V;
  V.Kind = Collective::Allgatherv;
  V.Ranks = 4;
  DispatchRule W = rule(Collective::Allgatherv, 4, 0, UINT64_MAX);
  W.Counts = std::vector<uint64_t>{1, 2, 1, 0};
  V.Counts = {100, 200, 100, 0};
  CHECK(W.covers(V));
  V.Counts = {100, 200, 100, 1};
  CHECK_FALSE(W.covers(V));
  W.Counts = std::vector<uint64_t>{}; // Equal counts.
  CHECK_FALSE(W.covers(V));
  V.Counts = {5, 5, 5, 5};
  CHECK(W.covers(V));
}

TEST_CASE("precedence: operator, root, counts, narrowest range, name") {
  std::vector<DispatchRule> Expected;
  auto Add = [&](DispatchRule R, const char *File) {
    R.File = File;
    Expected.push_back(R);
  };
  Add(rule(Collective::Reduce, 4, 0, 10, ReduceOp::Sum, 1u), "a");
  Add(rule(Collective::Reduce, 4, 0, UINT64_MAX, ReduceOp::Sum, 1u), "b");
  Add(rule(Collective::Reduce, 4, 0, 10, ReduceOp::Sum), "c");
  DispatchRule Counted = rule(Collective::Reduce, 4, 0, 100);
  Counted.Root = 1;
  Counted.Counts = std::vector<uint64_t>{};
  Add(Counted, "d");
  Add(rule(Collective::Reduce, 4, 0, 5, std::nullopt, 1u), "e");
  Add(rule(Collective::Reduce, 4, 0, 5), "f");
  Add(rule(Collective::Reduce, 4, 0, 5), "g");
  Add(rule(Collective::Reduce, 4, 0, UINT64_MAX), "h");
  std::vector<DispatchRule> Shuffled = Expected;
  std::mt19937 Random(7);
  for (int Trial = 0; Trial < 20; ++Trial) {
    std::shuffle(Shuffled.begin(), Shuffled.end(), Random);
    std::sort(Shuffled.begin(), Shuffled.end(), ruleOrder);
    std::string Order;
    for (const DispatchRule &R : Shuffled)
      Order += R.File;
    CHECK(Order == "abcdefgh");
  }
}

TEST_CASE("fit: root, parts by block layout, identical bits") {
  Plan Bcast = planOf("binomial", Collective::Broadcast, 4, 2u);
  CallShape B;
  B.Kind = Collective::Broadcast;
  B.Ranks = 4;
  B.Bytes = 1000;
  B.Root = 2;
  CHECK(fit(Bcast.Header, B) == Fit::Serves);
  B.Root = 0;
  CHECK(fit(Bcast.Header, B) == Fit::OtherCall);
  B.Root = 2;
  B.Ranks = 5;
  CHECK(fit(Bcast.Header, B) == Fit::OtherCall);

  // Weights 1:2:1:0 over 400 bytes give 100, 200, 100 and 0 bytes.
  Plan Gatherv = planOf("recursive-doubling", Collective::Allgatherv, 4,
                        std::nullopt, {1, 2, 1, 0});
  CallShape V;
  V.Kind = Collective::Allgatherv;
  V.Ranks = 4;
  V.Bytes = 400;
  V.Counts = {100, 200, 100, 0};
  CHECK(fit(Gatherv.Header, V) == Fit::Serves);
  V.Counts = {200, 100, 100, 0};
  CHECK(fit(Gatherv.Header, V) == Fit::OtherCall);
  // An allgather call asks for equal parts: weighted plans do not serve it.
  CallShape G;
  G.Kind = Collective::Allgather;
  G.Ranks = 4;
  G.Bytes = 400;
  CHECK(fit(planOf("ring", Collective::Allgather, 4).Header, G) == Fit::Serves);

  // A floating-point sum needs a stamp promising identical results.
  Plan Sum = planOf("ring", Collective::Allreduce, 4);
  CallShape A;
  A.Ranks = 4;
  A.Bytes = 64;
  A.Op = ReduceOp::Sum;
  A.Type = Datatype::Double;
  CHECK(fit(Sum.Header, A) == Fit::RankDependentRounding);
  CHECK(fit(Sum.Header, A, Rounding::RankDependent) == Fit::Serves);
  CHECK(fit(Sum.Header, A, Rounding::Reproducible) == Fit::NotReproducible);
  Sum.Header.Stamp = stampFor(Sum, /*IdenticalResults=*/false,
                              /*Reproducible=*/false, "test");
  CHECK(fit(Sum.Header, A) == Fit::RankDependentRounding);
  Sum.Header.Stamp = stampFor(Sum, /*IdenticalResults=*/true,
                              /*Reproducible=*/false, "test");
  CHECK(fit(Sum.Header, A) == Fit::Serves);
  // Asked for the same bits at every size, only a stamp saying so serves.
  CHECK(fit(Sum.Header, A, Rounding::Reproducible) == Fit::NotReproducible);
  Sum.Header.Stamp = stampFor(Sum, true, /*Reproducible=*/true, "test");
  CHECK(fit(Sum.Header, A, Rounding::Reproducible) == Fit::Serves);
  // So for a reduce: its stamp's identical verdict is trivially true.
  Plan Red = planOf("binomial", Collective::Reduce, 4);
  Red.Header.Stamp = stampFor(Red, true, false, "test");
  CallShape R = A;
  R.Kind = Collective::Reduce;
  R.Root = 0;
  CHECK(fit(Red.Header, R) == Fit::Serves);
  CHECK(fit(Red.Header, R, Rounding::Reproducible) == Fit::NotReproducible);
  Sum.Header.Stamp.reset();
  for (auto [Type, Op] : {std::pair(Datatype::Int32, ReduceOp::Sum),
                          {Datatype::Float, ReduceOp::Max}}) {
    A.Type = Type;
    A.Op = Op;
    CHECK(fit(Sum.Header, A) == Fit::Serves);
    CHECK(fit(Sum.Header, A, Rounding::Reproducible) == Fit::Serves);
  }
}

TEST_CASE("the index records the rounding its plans were chosen by") {
  PlanIndex Index;
  llvm::Expected<PlanIndex> None =
      parsePlanIndex(planIndexText(Index, ""), "plans.index");
  REQUIRE(bool(None));
  CHECK_FALSE(None->ChosenRounding);
  for (Rounding R :
       {Rounding::RankDependent, Rounding::Identical, Rounding::Reproducible}) {
    Index.ChosenRounding = R;
    std::string Text = planIndexText(Index, "");
    CHECK(Text.find("rounding: " + roundingName(R).str()) != std::string::npos);
    llvm::Expected<PlanIndex> Back = parsePlanIndex(Text, "plans.index");
    REQUIRE(bool(Back));
    CHECK(Back->ChosenRounding == R);
  }
  llvm::Expected<PlanIndex> Bad =
      parsePlanIndex("version: 1\nrounding: exact\nplans: []\n", "x.index");
  REQUIRE_FALSE(bool(Bad));
  CHECK(llvm::toString(Bad.takeError()) ==
        "x.index: 'rounding' is identical, rank-dependent or reproducible");
}

TEST_CASE("the directory writer: stale plans refused, index merged") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collplan-dispatch", Dir));
  auto Exists = [&](const char *Name) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    return llvm::sys::fs::exists(Path);
  };
  Plan Ring = planOf("ring", Collective::Allreduce, 4);
  Ring.Header.Stamp = stampFor(Ring, true, false, "test");
  auto NewPlanFor = [&](uint64_t Min, uint64_t Max) {
    NewPlan N;
    N.Rule = rule(Collective::Allreduce, 4, Min, Max);
    N.Rule.File = planFileName(N.Rule, "cplan");
    N.Build = [&Ring, Min, Max](DispatchRule &R, std::string &Bytes) {
      Bytes = encodePlan(Ring, PlanFormat::Binary);
      R = ruleFor(Ring.Header, R.File, Min, Max, std::nullopt);
      R.Why = "test";
      return llvm::Error::success();
    };
    return N;
  };

  PlanDirectoryUpdate First;
  First.Plans.push_back(NewPlanFor(0, 64));
  First.Plans.push_back(NewPlanFor(64, UINT64_MAX));
  First.Preamble = "first";
  First.ChosenRounding = Rounding::Reproducible;
  llvm::Expected<PlanIndex> Index = updatePlanDirectory(Dir, std::move(First));
  REQUIRE_MESSAGE(bool(Index), llvm::toString(Index.takeError()));
  CHECK(Index->Plans.size() == 2);
  CHECK(Index->ChosenRounding == Rounding::Reproducible);
  CHECK(Exists("allreduce-p4-0-64.cplan"));
  CHECK(Exists("allreduce-p4-64-inf.cplan"));

  // Another table for the same calls would mix with the first: refused,
  // and nothing is written.
  PlanDirectoryUpdate Second;
  Second.Plans.push_back(NewPlanFor(0, 128));
  Second.Plans.push_back(NewPlanFor(128, UINT64_MAX));
  CHECK(stalePlans(Dir, Second.Plans).size() == 2);
  Index = updatePlanDirectory(Dir, std::move(Second));
  REQUIRE_FALSE(bool(Index));
  CHECK(llvm::toString(Index.takeError()).find("allreduce-p4-0-64.cplan") !=
        std::string::npos);
  CHECK_FALSE(Exists("allreduce-p4-0-128.cplan"));

  // Re-listing a file keeps its why; removing one leaves the file.
  PlanDirectoryUpdate Relist;
  Relist.Rules.push_back(
      ruleFor(Ring.Header, "allreduce-p4-0-64.cplan", 0, 32, ReduceOp::Min));
  Relist.Removed.push_back("allreduce-p4-64-inf.cplan");
  Index = updatePlanDirectory(Dir, std::move(Relist));
  REQUIRE(bool(Index));
  REQUIRE(Index->Plans.size() == 1);
  // An update that says nothing of rounding keeps the index's.
  CHECK(Index->ChosenRounding == Rounding::Reproducible);
  CHECK(Index->Plans[0].Why == "test");
  CHECK(Index->Plans[0].MaxBytes == 32);
  CHECK(Index->Plans[0].Op == ReduceOp::Min);
  CHECK(Exists("allreduce-p4-64-inf.cplan"));

  // The directory's rules: the index's entry first (operator-specific),
  // then the unlisted file by its name.
  llvm::Expected<PlanDirectoryRules> Rules = readPlanDirectoryRules(Dir);
  REQUIRE(bool(Rules));
  CHECK(Rules->Problems.empty());
  CHECK(Rules->ChosenRounding == Rounding::Reproducible);
  REQUIRE(Rules->Rules.size() == 2);
  CHECK(Rules->Rules[0].FromIndex);
  CHECK(Rules->Rules[0].Op == ReduceOp::Min);
  CHECK(Rules->Rules[1].File == "allreduce-p4-64-inf.cplan");
  CHECK_FALSE(Rules->Rules[1].FromIndex);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("measured rules: ranges, the fastest contender, noise band, "
          "evidence") {
  // The model's plan and a runner-up from tune --candidates.
  DispatchRule Model = rule(Collective::Allreduce, 4, 0, UINT64_MAX);
  Model.File = "allreduce-p4-0-inf.cplan";
  DispatchRule Runner = rule(Collective::Allreduce, 4, 0, 4096);
  Runner.File = "candidates/allreduce-p4-ring-3.cplan";
  // Powers of 4: each size speaks for calls from half to twice itself.
  // Microseconds: model, runner-up, library.
  std::vector<SizeMeasurement> M;
  for (auto [Bytes, ModelUs, RunnerUs, LibraryUs] :
       {std::tuple(uint64_t(16), 1.0, 0.8, 0.9),
        {64, 1.0, 1.2, 1.04},
        {256, 1.0, 1.5, 1.06},
        {1024, 2.0, 3.0, 1.0}}) {
    SizeMeasurement S;
    S.Bytes = Bytes;
    S.Plans = {{Model, ModelUs * 1e-6}, {Runner, RunnerUs * 1e-6}};
    S.LibrarySeconds = LibraryUs * 1e-6;
    M.push_back(S);
  }
  CHECK(measuredRange(M, 0) == std::pair<uint64_t, uint64_t>(0, 32));
  CHECK(measuredRange(M, 1) == std::pair<uint64_t, uint64_t>(32, 128));
  CHECK(measuredRange(M, 2) == std::pair<uint64_t, uint64_t>(128, 512));
  CHECK(measuredRange(M, 3) == std::pair<uint64_t, uint64_t>(512, UINT64_MAX));
  // 16 B: the runner-up is faster than the library by more than 5 %; 64 B:
  // the library is 4 % slower than the fastest plan, inside a 5 % band;
  // 256 B: 6 % slower, outside; 1024 B: the library is fastest.
  std::vector<DispatchRule> Rules =
      measuredRules(Collective::Allreduce, 4, std::nullopt, M, 0.05);
  REQUIRE(Rules.size() == 4);
  CHECK(Rules[0].File == Runner.File);
  CHECK_FALSE(Rules[0].Library);
  CHECK(Rules[0].MaxBytes == 32);
  CHECK(Rules[1].Library);
  CHECK(Rules[1].File.empty());
  CHECK(Rules[1].MinBytes == 32);
  CHECK(Rules[2].File == Model.File);
  CHECK(Rules[3].Library);
  CHECK(Rules[3].MinBytes == 512);
  CHECK(Rules[3].MaxBytes == UINT64_MAX);
  for (const DispatchRule &R : Rules) {
    CHECK(R.measured());
    CHECK(R.Measured.size() == 3); // Every contender's time.
    CHECK(R.Measured.count("library"));
    CHECK(R.Measured.count(Model.File));
    CHECK(R.Measured.count(Runner.File));
  }
  CHECK(Rules[3].Measured.at("library") == doctest::Approx(1e-6));
  CHECK(Rules[0].Measured.at(Runner.File) == doctest::Approx(0.8e-6));
  // Without a noise band the library keeps only what it measured fastest.
  std::vector<DispatchRule> Exact =
      measuredRules(Collective::Allreduce, 4, std::nullopt, M, 0);
  CHECK_FALSE(Exact[1].Library);
  CHECK(Exact[1].File == Model.File);
  CHECK(Exact[3].Library);

  // A measured rule outranks any rule the model wrote, however narrow, and
  // the index keeps every measured rule and its evidence, several for one
  // file included.
  DispatchRule Plan = rule(Collective::Allreduce, 4, 0, 64, ReduceOp::Sum);
  Plan.File = "a.cplan";
  CHECK(ruleOrder(Rules[1], Plan));
  CHECK(ruleOrder(Rules[2], Plan));
  CHECK_FALSE(ruleOrder(Plan, Rules[2]));
  PlanIndex Index;
  Index.put(Plan);
  Index.put(Model);
  for (const DispatchRule &R : Exact)
    Index.put(R);
  for (const DispatchRule &R : Rules)
    Index.put(R); // Replaces: same table, same first size.
  CHECK(Index.Plans.size() == 6);
  llvm::Expected<PlanIndex> Back =
      parsePlanIndex(planIndexText(Index, ""), "plans.index");
  REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
  REQUIRE(Back->Plans.size() == 6);
  CHECK(Back->Plans[2].File == Runner.File);
  CHECK(Back->Plans[3].Library);
  CHECK(Back->Plans[4].File == Model.File);
  CHECK(Back->Plans[5].Library);
  CHECK(Back->Plans[5].MinBytes == 512);
  CHECK(Back->Plans[5].MeasuredBytes == 1024);
  CHECK(Back->Plans[5].Measured == Rules[3].Measured);
  // The model's own rule for a file stays one.
  llvm::Expected<PlanIndex> Twice =
      parsePlanIndex("version: 1\nplans:\n  - file: a.cplan\n    collective: "
                     "allreduce\n    ranks: 2\n    min_bytes: 0\n    "
                     "max_bytes: 64\n  - file: a.cplan\n    collective: "
                     "allreduce\n    ranks: 2\n    min_bytes: 64\n    "
                     "max_bytes: inf\n",
                     "plans.index");
  REQUIRE_FALSE(bool(Twice));
  CHECK(llvm::toString(Twice.takeError()).find("listed twice") !=
        std::string::npos);
  // A file inside the directory, in a folder or not; never outside it.
  for (auto [File, Inside] : {std::pair("candidates/a.cplan", true),
                              {"a.cplan", true},
                              {"../a.cplan", false},
                              {"/tmp/a.cplan", false},
                              {"candidates/../../a.cplan", false},
                              {"./a.cplan", false}}) {
    llvm::Expected<PlanIndex> I = parsePlanIndex(
        std::string("version: 1\nplans:\n  - file: \"") + File +
            "\"\n    collective: allreduce\n    ranks: 2\n    min_bytes: "
            "0\n    max_bytes: inf\n",
        "plans.index");
    CHECK_MESSAGE(bool(I) == Inside, File);
    if (!I)
      llvm::consumeError(I.takeError());
  }
  // A library rule names no file.
  llvm::Expected<PlanIndex> Both =
      parsePlanIndex("version: 1\nplans:\n  - library: true\n    file: "
                     "a.cplan\n    collective: allreduce\n    ranks: 2\n    "
                     "min_bytes: 0\n    max_bytes: inf\n",
                     "plans.index");
  REQUIRE_FALSE(bool(Both));
  CHECK(llvm::toString(Both.takeError()).find("instead of a 'file'") !=
        std::string::npos);
}
