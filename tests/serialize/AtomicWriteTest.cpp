//===- AtomicWriteTest.cpp - writePlanFile writes all or nothing ----------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

#include <csignal>
#include <sys/resource.h>

using namespace collplan;
using namespace collplan::test;
namespace fs = llvm::sys::fs;

namespace {

/// A fresh directory, removed with its contents at the end of the test.
struct ScratchDir {
  llvm::SmallString<128> Path;
  ScratchDir() {
    REQUIRE(!fs::createUniqueDirectory("collplan-serialize", Path));
  }
  ~ScratchDir() { fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> Out;
    std::error_code EC;
    for (fs::directory_iterator It(Path, EC), End; It != End && !EC;
         It.increment(EC))
      Out.push_back(llvm::sys::path::filename(It->path()).str());
    std::sort(Out.begin(), Out.end());
    return Out;
  }
};

std::string contents(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(Buffer);
  return (*Buffer)->getBuffer().str();
}

} // namespace

TEST_CASE("writePlanFile writes every format and readPlanFile reads it") {
  ScratchDir Dir;
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(5));
  for (const char *Name : {"p.yaml", "p.json", "p.cplan"}) {
    CAPTURE(Name);
    std::string Path = Dir.file(Name);
    REQUIRE(!writePlanFile(P, Path, *formatForPath(Path)));
    CHECK(contents(Path) == encodePlan(P, *formatForPath(Path)));
    llvm::Expected<Plan> Back = readPlanFile(Path);
    REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
    checkSamePlan(P, *Back);
  }
  // Overwriting replaces the file; no temporary is left behind.
  Plan Q = compiledPlan("ring", Collective::Allgather, Topology::flat(3));
  REQUIRE(!writePlanFile(Q, Dir.file("p.yaml"), PlanFormat::Yaml));
  CHECK(contents(Dir.file("p.yaml")) == encodePlan(Q, PlanFormat::Yaml));
  CHECK(Dir.entries() ==
        std::vector<std::string>{"p.cplan", "p.json", "p.yaml"});
}

TEST_CASE("a write that fails midway leaves the old file and no temporary") {
  ScratchDir Dir;
  std::string Path = Dir.file("plan.json");
  Plan Small = compiledPlan("ring", Collective::Allreduce, Topology::flat(2));
  REQUIRE(!writePlanFile(Small, Path, PlanFormat::Json));
  std::string Before = contents(Path);

  // Cap the size of any file this process writes below the new plan's size:
  // write() then fails with EFBIG partway through.
  Plan Large = compiledPlan("ring", Collective::Allreduce, Topology::flat(64));
  REQUIRE(encodePlan(Large, PlanFormat::Json).size() > 4 * Before.size());
  struct rlimit Old;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &Old) == 0);
  struct rlimit Capped = Old;
  Capped.rlim_cur = 2 * Before.size();
  auto OldHandler = std::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(setrlimit(RLIMIT_FSIZE, &Capped) == 0);
  llvm::Error E = writePlanFile(Large, Path, PlanFormat::Json);
  setrlimit(RLIMIT_FSIZE, &Old);
  std::signal(SIGXFSZ, OldHandler);

  REQUIRE(bool(E));
  std::string Message = llvm::toString(std::move(E));
  CHECK_MESSAGE(Message.find(Path) != std::string::npos, Message);
  CHECK(contents(Path) == Before);
  CHECK(Dir.entries() == std::vector<std::string>{"plan.json"});
}

TEST_CASE("a write that cannot be renamed into place cleans up") {
  ScratchDir Dir;
  // The target is a non-empty directory: rename() must fail.
  std::string Target = Dir.file("plan.yaml");
  REQUIRE(!fs::create_directory(Target));
  REQUIRE(!writePlanFile(handBuiltPlan(), Target + "/inner.yaml",
                         PlanFormat::Yaml));
  llvm::Error E = writePlanFile(handBuiltPlan(), Target, PlanFormat::Yaml);
  REQUIRE(bool(E));
  std::string Message = llvm::toString(std::move(E));
  CHECK_MESSAGE(Message.find(Target) != std::string::npos, Message);
  CHECK(fs::is_directory(Target));
  CHECK(Dir.entries() == std::vector<std::string>{"plan.yaml"});
}

TEST_CASE("a write into a missing directory names the path") {
  llvm::Error E = writePlanFile(handBuiltPlan(), "/nonexistent-dir/p.cplan",
                                PlanFormat::Binary);
  REQUIRE(bool(E));
  std::string Message = llvm::toString(std::move(E));
  CHECK_MESSAGE(Message.find("/nonexistent-dir/p.cplan") != std::string::npos,
                Message);
}
