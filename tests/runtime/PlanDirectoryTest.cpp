//===- PlanDirectoryTest.cpp - How the interposer finds its plans ---------===//

#include "runtime/interposer/PlanDirectory.h"
#include "compiler/algorithms/Algorithm.h"
#include "plan/dispatch/PlanFileNames.h"
#include "plan/dispatch/PlanIndex.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::runtime;

/// The reason a name is refused, or "" when it parses.
static std::string refusal(llvm::StringRef Name) {
  llvm::Expected<DispatchRule> K = parsePlanFileName(Name);
  return K ? std::string() : llvm::toString(K.takeError());
}

TEST_CASE("plan file names") {
  llvm::Expected<DispatchRule> K =
      parsePlanFileName("allreduce-p8-0-65536.cplan");
  REQUIRE(bool(K));
  CHECK(K->Kind == Collective::Allreduce);
  CHECK(K->Ranks == 8);
  CHECK(K->MinBytes == 0);
  CHECK(K->MaxBytes == 65536);
  CHECK(!K->Op);
  K = parsePlanFileName("reduce-scatter-p3-1024-inf-bxor.yaml");
  REQUIRE(bool(K));
  CHECK(K->Kind == Collective::ReduceScatter);
  CHECK(K->MaxBytes == UINT64_MAX);
  CHECK(K->Op == ReduceOp::Bxor);
  CHECK(refusal("allreduce-p8-0-65536.txt").find("not a plan file extension") !=
        std::string::npos);
  CHECK(refusal("allreduce-p0-0-10.cplan").find("0: not a communicator size") !=
        std::string::npos);
  CHECK(
      refusal("allreduce-p8-100-10.cplan").find("range [min, max) is empty") !=
      std::string::npos);
  CHECK(refusal("allreduce-p8-0-10-avg.cplan").find("avg: not an operator") !=
        std::string::npos);
  CHECK(refusal("allreduce-p8-0-64KiB.cplan").find("64KiB: not a byte count") !=
        std::string::npos);
  CHECK(refusal("allreduce-p8-0-inf-SUM.cplan").find("in lower case") !=
        std::string::npos);
  CHECK(refusal("scan-p8-0-10.cplan").find("collective's name") !=
        std::string::npos);
  CHECK(!refusal("README").empty());
}

TEST_CASE("the most specific matching plan wins") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collplan-plans", Dir));
  auto Write = [&](const char *Name, const char *Algorithm, uint32_t P,
                   bool Stamped = true) {
    CompileRequest Req;
    Req.Topo = Topology::flat(P);
    llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(Algorithm), Req);
    REQUIRE(bool(Pl));
    if (Stamped) // As compile does once the verifier accepts the plan.
      Pl->Header.Stamp = stampFor(*Pl, true, false, "collplan test");
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    REQUIRE(!writePlanFile(*Pl, Path, *formatForPath(Path)));
  };
  Write("allreduce-p4-0-inf.cplan", "ring", 4);
  Write("allreduce-p4-0-4096.json", "recursive-doubling", 4);
  Write("allreduce-p4-0-inf-max.yaml", "rabenseifner", 4);
  Write("allreduce-p5-0-inf.cplan", "ring", 4);   // Lies about its P.
  Write("allreduce-p3-0-inf.cplan", "ring", 2);   // Lies about its P.
  Write("allreduce-p4-0-64KiB.cplan", "ring", 4); // Misnamed: reported.
  Write("allreduce-p6-0-inf.cplan", "ring", 6, /*Stamped=*/false);
  llvm::Expected<PlanDirectory> D = PlanDirectory::open(Dir.str().str());
  REQUIRE(bool(D));
  CHECK(D->size() == 6);
  REQUIRE(D->misnamed().size() == 1);
  CHECK(D->misnamed()[0].find("allreduce-p4-0-64KiB.cplan: 64KiB: not a byte "
                              "count") != std::string::npos);
  std::vector<std::string> Warnings;
  auto Warn = [&](const std::string &W) { Warnings.push_back(W); };
  auto Allreduce = [](uint32_t P, uint64_t Bytes, std::optional<ReduceOp> Op) {
    CallShape C;
    C.Ranks = P;
    C.Bytes = Bytes;
    C.Op = Op;
    return C;
  };
  auto Algo = [&](uint64_t Bytes, std::optional<ReduceOp> Op, uint32_t P) {
    std::optional<FoundPlan> F = D->find(Allreduce(P, Bytes, Op), P - 1, Warn);
    return F ? F->Slice->Header.Algorithm : std::string("none");
  };
  CHECK(Algo(100, ReduceOp::Sum, 4) == "recursive-doubling");
  CHECK(Algo(4096, ReduceOp::Sum, 4) == "ring");
  CHECK(Algo(100, ReduceOp::Max, 4) == "rabenseifner");
  CHECK(Algo(100, ReduceOp::Sum, 8) == "none");
  CHECK(Warnings.empty());
  // The name says P = 5, the plan has 4 ranks: rank 4 has no program...
  CHECK(Algo(100, ReduceOp::Sum, 5) == "none");
  REQUIRE(Warnings.size() == 1);
  CHECK_MESSAGE(Warnings[0].find("rank 4 is not one of the plan's 4 ranks") !=
                    std::string::npos,
                Warnings[0]);
  // ... and rank 2 of a "P = 3" plan of 2 ranks neither; rank 0 has one.
  std::optional<FoundPlan> Liar =
      D->find(Allreduce(3, 10, ReduceOp::Sum), 0, Warn);
  CHECK(!Liar);
  REQUIRE(Warnings.size() == 2);
  CHECK_MESSAGE(Warnings[1].find("not what its name says") != std::string::npos,
                Warnings[1]);
  // A plan without a verification stamp is skipped, saying how to stamp it.
  CHECK(Algo(100, ReduceOp::Sum, 6) == "none");
  REQUIRE(Warnings.size() == 3);
  CHECK_MESSAGE(Warnings[2].find("no verification stamp") != std::string::npos,
                Warnings[2]);
  CHECK_MESSAGE(Warnings[2].find("collplan verify --stamp") !=
                    std::string::npos,
                Warnings[2]);
  // Trusted on request (a fresh directory: the first one remembers the
  // failure).
  llvm::Expected<PlanDirectory> Trusting = PlanDirectory::open(Dir.str().str());
  REQUIRE(bool(Trusting));
  Trusting->TrustUnverified = true;
  std::optional<FoundPlan> Unstamped =
      Trusting->find(Allreduce(6, 100, ReduceOp::Sum), 5, Warn);
  REQUIRE(bool(Unstamped));
  CHECK(Unstamped->Slice->Header.Algorithm == "ring");

  // Each rank gets its own program, all with the whole plan's hash; each
  // slice is read once.
  llvm::Expected<Plan> Whole = readPlanFile(
      (Dir + llvm::sys::path::get_separator() + "allreduce-p4-0-inf.cplan")
          .str());
  REQUIRE(bool(Whole));
  for (uint32_t R : {2u, 0u, 3u}) {
    std::optional<FoundPlan> F =
        D->find(Allreduce(4, 4096, ReduceOp::Sum), R, Warn);
    REQUIRE(F);
    CHECK(F->Slice->Rank == R);
    CHECK(F->Slice->Prog.Rounds.size() == Whole->Programs[R].Rounds.size());
    CHECK(F->Slice->Prog.Rounds[0].Ops[0] ==
          Whole->Programs[R].Rounds[0].Ops[0]);
    CHECK(F->Slice->Hash == planHash(*Whole));
    // Rank 3's was read above, by Algo.
    CHECK(F->Entry->Slices.size() == (R == 2 ? 2u : 3u));
  }
  CHECK(Warnings.size() == 3);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("the index lists plans for roots and counts a name cannot say") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collplan-index", Dir));
  auto PathOf = [&](const char *Name) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    return Path.str().str();
  };
  auto Write = [&](const char *Name, CompileRequest Req, const char *Algo) {
    llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(Algo), Req);
    REQUIRE(bool(Pl));
    Pl->Header.Stamp = stampFor(*Pl, true, false, "collplan test");
    REQUIRE(!writePlanFile(*Pl, PathOf(Name), PlanFormat::Binary));
    return Pl->Header;
  };
  CompileRequest Bcast;
  Bcast.Kind = Collective::Broadcast;
  Bcast.Topo = Topology::flat(4);
  PlanIndex Index;
  for (uint32_t Root : {0u, 3u}) {
    Bcast.Root = Root;
    std::string Name = "bcast-root" + std::to_string(Root) + ".cplan";
    PlanHeader H = Write(Name.c_str(), Bcast, "binomial");
    Index.put(ruleFor(H, Name, 0, UINT64_MAX, std::nullopt));
  }
  // A file whose index entry claims root 2 but whose plan has root 3.
  Bcast.Root = 3;
  PlanHeader Liar = Write("bcast-liar.cplan", Bcast, "binomial");
  DispatchRule Lie = ruleFor(Liar, "bcast-liar.cplan", 0, 100, std::nullopt);
  Lie.Root = 2;
  Index.put(Lie);
  // Allgatherv for counts 1:2:1:0.
  CompileRequest Gatherv;
  Gatherv.Kind = Collective::Allgatherv;
  Gatherv.Topo = Topology::flat(4);
  Gatherv.Weights = {1, 2, 1, 0};
  PlanHeader G = Write("gatherv.cplan", Gatherv, "recursive-doubling");
  Index.put(ruleFor(G, "gatherv.cplan", 0, UINT64_MAX, std::nullopt));
  // An entry the directory reports and skips.
  Index.put(ruleFor(G, "gone.cplan", 0, 10, std::nullopt));
  REQUIRE(!writePlanIndex(Dir, Index));

  // What was written reads back as it was.
  llvm::Expected<PlanIndex> Back = readPlanIndex(Dir);
  REQUIRE(bool(Back));
  REQUIRE(Back->Plans.size() == Index.Plans.size());
  CHECK(Back->Plans[1].Root == 3u);
  CHECK(Back->Plans[3].Counts == std::vector<uint64_t>{1, 2, 1, 0});
  CHECK(Back->Plans[2].MaxBytes == 100);
  CHECK(Back->Plans[0].MaxBytes == UINT64_MAX);

  llvm::Expected<PlanDirectory> D = PlanDirectory::open(Dir.str().str());
  REQUIRE(bool(D));
  REQUIRE(D->misnamed().size() == 1);
  CHECK(D->misnamed()[0].find("gone.cplan: no such file") != std::string::npos);
  std::vector<std::string> Warnings;
  auto Warn = [&](const std::string &W) { Warnings.push_back(W); };
  auto FileFor = [&](Collective Kind, uint64_t Bytes,
                     std::optional<uint32_t> Root,
                     llvm::ArrayRef<uint64_t> Counts) {
    CallShape C;
    C.Kind = Kind;
    C.Ranks = 4;
    C.Bytes = Bytes;
    C.Root = Root;
    C.Counts = Counts.vec();
    std::optional<FoundPlan> F = D->find(C, 1, Warn);
    return F ? std::string(llvm::sys::path::filename(F->Entry->Path))
             : std::string("none");
  };
  CHECK(FileFor(Collective::Broadcast, 1000, 0u, {}) == "bcast-root0.cplan");
  CHECK(FileFor(Collective::Broadcast, 1000, 3u, {}) == "bcast-root3.cplan");
  CHECK(FileFor(Collective::Broadcast, 1000, 1u, {}) == "none");
  CHECK(Warnings.empty());
  // Root 2 below 100 bytes: the index's entry, contradicted by the plan.
  CHECK(FileFor(Collective::Broadcast, 10, 2u, {}) == "none");
  REQUIRE(Warnings.size() == 1);
  CHECK_MESSAGE(Warnings[0].find("not what its index entry says") !=
                    std::string::npos,
                Warnings[0]);
  // Counts proportional to 1:2:1:0 at any size; others not.
  CHECK(FileFor(Collective::Allgatherv, 400, std::nullopt,
                {100, 200, 100, 0}) == "gatherv.cplan");
  CHECK(FileFor(Collective::Allgatherv, 4, std::nullopt, {1, 2, 1, 0}) ==
        "gatherv.cplan");
  CHECK(FileFor(Collective::Allgatherv, 400, std::nullopt,
                {100, 100, 100, 100}) == "none");
  CHECK(Warnings.size() == 1);

  // Bad indexes are refused with the entry named.
  auto Refusal = [](const char *Text) {
    llvm::Expected<PlanIndex> I = parsePlanIndex(Text, "plans.index");
    return I ? std::string() : llvm::toString(I.takeError());
  };
  CHECK(Refusal("version: 1\nplans: []\n").empty());
  CHECK(Refusal("plans: []\n").find("version: 1") != std::string::npos);
  CHECK(Refusal("version: 1\nplans:\n  - file: a.cplan\n    collective: "
                "scan\n    ranks: 2\n    min_bytes: 0\n    max_bytes: inf\n")
            .find("plan 1: 'scan' is not a collective") != std::string::npos);
  CHECK(Refusal("version: 1\nplans:\n  - file: ../a.cplan\n    collective: "
                "allreduce\n    ranks: 2\n    min_bytes: 0\n    max_bytes: "
                "inf\n")
            .find("in the index's directory") != std::string::npos);
  CHECK(Refusal("version: 1\nplans:\n  - file: a.cplan\n    collective: "
                "allreduce\n    ranks: 2\n    min_bytes: 10\n    max_bytes: "
                "10\n")
            .find("is empty") != std::string::npos);
  CHECK(Refusal("version: 1\nplans:\n  - file: a.cplan\n    collective: "
                "allgatherv\n    ranks: 2\n    min_bytes: 0\n    max_bytes: "
                "inf\n    counts: [1, 2, 3]\n")
            .find("one weight per rank") != std::string::npos);
  // An operator is one of the operators, as everywhere else.
  CHECK(Refusal("version: 1\nplans:\n  - file: a.cplan\n    collective: "
                "allreduce\n    ranks: 2\n    min_bytes: 0\n    max_bytes: "
                "inf\n    op: avg\n")
            .find("plan 1: 'avg' is not an operator") != std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("an index that is a FIFO or a device is skipped, not waited on") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collplan-plans", Dir));
  std::string Index = planIndexPath(Dir);
  for (bool Fifo : {true, false}) {
    CAPTURE(Fifo);
    // A FIFO nobody writes used to hang every rank at its first collective;
    // a link to /dev/zero made every rank abort.
    if (Fifo)
      REQUIRE(::mkfifo(Index.c_str(), 0600) == 0);
    else
      REQUIRE(!llvm::sys::fs::create_link("/dev/zero", Index));
    llvm::Expected<PlanDirectory> D = PlanDirectory::open(Dir.str().str());
    REQUIRE(bool(D));
    REQUIRE(D->misnamed().size() == 1);
    CHECK_MESSAGE(D->misnamed()[0].find("not a regular file") !=
                      std::string::npos,
                  D->misnamed()[0]);
    ::unlink(Index.c_str()); // fs::remove leaves FIFOs alone.
  }
  llvm::sys::fs::remove_directories(Dir);
}
