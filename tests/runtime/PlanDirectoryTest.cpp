//===- PlanDirectoryTest.cpp - How the interposer finds its plans ---------===//

#include "runtime/interposer/PlanDirectory.h"
#include "compiler/algorithms/Algorithm.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::runtime;

/// The reason a name is refused, or "" when it parses.
static std::string refusal(llvm::StringRef Name) {
  llvm::Expected<PlanKey> K = parsePlanFileName(Name);
  return K ? std::string() : llvm::toString(K.takeError());
}

TEST_CASE("plan file names") {
  llvm::Expected<PlanKey> K = parsePlanFileName("allreduce-p8-0-65536.cplan");
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
  auto Write = [&](const char *Name, const char *Algorithm, uint32_t P) {
    CompileRequest Req;
    Req.Topo = Topology::flat(P);
    llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(Algorithm), Req);
    REQUIRE(bool(Pl));
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    REQUIRE(!writePlanFile(*Pl, Path, *formatForPath(Path)));
  };
  Write("allreduce-p4-0-inf.cplan", "ring", 4);
  Write("allreduce-p4-0-4096.json", "recursive-doubling", 4);
  Write("allreduce-p4-0-inf-max.yaml", "rabenseifner", 4);
  Write("allreduce-p5-0-inf.cplan", "ring", 4);   // Lies about its P.
  Write("allreduce-p4-0-64KiB.cplan", "ring", 4); // Misnamed: reported.
  llvm::Expected<PlanDirectory> D = PlanDirectory::open(Dir.str().str());
  REQUIRE(bool(D));
  CHECK(D->size() == 4);
  REQUIRE(D->misnamed().size() == 1);
  CHECK(D->misnamed()[0].find("allreduce-p4-0-64KiB.cplan: 64KiB: not a byte "
                              "count") != std::string::npos);
  std::vector<std::string> Warnings;
  auto Warn = [&](const std::string &W) { Warnings.push_back(W); };
  auto Any = [](const Plan &) { return true; };
  auto Algo = [&](uint64_t Bytes, std::optional<ReduceOp> Op, uint32_t P) {
    PlanEntry *E = D->find(Collective::Allreduce, P, Bytes, Op, Any, Warn);
    return E ? E->Loaded->Header.Algorithm : std::string("none");
  };
  CHECK(Algo(100, ReduceOp::Sum, 4) == "recursive-doubling");
  CHECK(Algo(4096, ReduceOp::Sum, 4) == "ring");
  CHECK(Algo(100, ReduceOp::Max, 4) == "rabenseifner");
  CHECK(Algo(100, ReduceOp::Sum, 8) == "none");
  CHECK(Warnings.empty());
  CHECK(Algo(100, ReduceOp::Sum, 5) == "none");
  REQUIRE(Warnings.size() == 1);
  CHECK(Warnings[0].find("not what its name says") != std::string::npos);
  PlanEntry *E =
      D->find(Collective::Allreduce, 4, 10, ReduceOp::Sum, Any, Warn);
  REQUIRE(E);
  CHECK(E->Hash == planHash(*E->Loaded));
  llvm::sys::fs::remove_directories(Dir);
}
