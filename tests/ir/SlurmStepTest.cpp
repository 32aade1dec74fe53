//===- SlurmStepTest.cpp - Rank -> node maps of Slurm job steps -----------===//
//
// Expected maps follow srun(1)'s -m; the {3, 2} cases are what Slurm 22.05's
// `srun -O -N 2 -n 5 -m M -l printenv SLURMD_NODENAME` printed.
//
//===----------------------------------------------------------------------===//

#include "plan/ir/SlurmStep.h"
#include "plan/ir/Error.h"

#include <doctest/doctest.h>

using namespace collplan;

template <typename T> static T ok(llvm::Expected<T> V) {
  REQUIRE_MESSAGE(bool(V), (V ? "" : llvm::toString(V.takeError())));
  return std::move(*V);
}

template <typename T> static std::string failure(llvm::Expected<T> V) {
  REQUIRE(!V);
  ErrorReport R = takeErrorReport(V.takeError(), ErrorKind::Runtime);
  CHECK(R.Kind == ErrorKind::Usage);
  return R.Message;
}

using Names = std::vector<std::string>;
using Nodes = std::vector<uint32_t>;

TEST_CASE("host lists expand as Slurm writes them") {
  CHECK(ok(expandSlurmHostlist("n1")) == Names{"n1"});
  CHECK(ok(expandSlurmHostlist("n[1-3]")) == Names{"n1", "n2", "n3"});
  CHECK(ok(expandSlurmHostlist("n[1-2,5],login,gpu[08-10]")) ==
        Names{"n1", "n2", "n5", "login", "gpu08", "gpu09", "gpu10"});
  CHECK(ok(expandSlurmHostlist("r[1-2]-ib")) == Names{"r1-ib", "r2-ib"});
  CHECK(failure(expandSlurmHostlist("")).find("no host") != std::string::npos);
  CHECK(failure(expandSlurmHostlist("n[1-3")).find("without its ']'") !=
        std::string::npos);
  CHECK(failure(expandSlurmHostlist("n[3-1]")).find("ranges") !=
        std::string::npos);
  CHECK(failure(expandSlurmHostlist("n[a-b]")).find("ranges") !=
        std::string::npos);
  CHECK(failure(expandSlurmHostlist("r[1-2]n[1-2]")).find("more than one") !=
        std::string::npos);
  CHECK(failure(expandSlurmHostlist("n1,,n2")).find("empty") !=
        std::string::npos);
  CHECK(failure(expandSlurmHostlist("n[0-99999999]")).find("more than") !=
        std::string::npos);
}

TEST_CASE("tasks per node") {
  CHECK(ok(parseSlurmTasksPerNode("4")) == std::vector<uint64_t>{4});
  CHECK(ok(parseSlurmTasksPerNode("2(x3),1")) ==
        std::vector<uint64_t>{2, 2, 2, 1});
  for (const char *Bad : {"", "0", "2(x0)", "2(3)", "2(x3", "x", "2,,1", "-1"})
    CHECK(failure(parseSlurmTasksPerNode(Bad)).find("tasks per node") !=
          std::string::npos);
}

TEST_CASE("srun's own layouts of 3 + 2 tasks") {
  CHECK(ok(slurmNodeOfRank({3, 2}, "block")) == Nodes{0, 0, 0, 1, 1});
  CHECK(ok(slurmNodeOfRank({3, 2}, "cyclic")) == Nodes{0, 1, 0, 1, 0});
  CHECK(ok(slurmNodeOfRank({3, 2}, "plane", 2)) == Nodes{0, 0, 1, 1, 0});
}

TEST_CASE("block, cyclic and plane distributions") {
  std::vector<uint64_t> Tasks = {3, 3, 2};
  Nodes Block = {0, 0, 0, 1, 1, 1, 2, 2};
  CHECK(ok(slurmNodeOfRank(Tasks, "")) == Block);
  CHECK(ok(slurmNodeOfRank(Tasks, "block")) == Block);
  CHECK(ok(slurmNodeOfRank(Tasks, "block:cyclic")) == Block);
  CHECK(ok(slurmNodeOfRank(Tasks, "cyclic")) == Nodes{0, 1, 2, 0, 1, 2, 0, 1});
  // A full node is passed over.
  CHECK(ok(slurmNodeOfRank({3, 1}, "cyclic:block")) == Nodes{0, 1, 0, 0});
  CHECK(ok(slurmNodeOfRank(Tasks, "plane", 2)) ==
        Nodes{0, 0, 1, 1, 2, 2, 0, 1});
  CHECK(ok(slurmNodeOfRank(Tasks, "plane=2")) == Nodes{0, 0, 1, 1, 2, 2, 0, 1});
  CHECK(failure(slurmNodeOfRank(Tasks, "plane")).find("plane size") !=
        std::string::npos);
  CHECK(failure(slurmNodeOfRank(Tasks, "arbitrary")).find("arbitrary") !=
        std::string::npos);
}
