//===- HostfileTest.cpp - Rank -> node maps from host names ---------------===//

#include "plan/ir/Hostfile.h"
#include "plan/ir/Error.h"

#include <doctest/doctest.h>

using namespace collplan;

static std::vector<uint32_t> nodesOk(const char *Text) {
  llvm::Expected<std::vector<uint32_t>> N = parseHostfile(Text, "hosts");
  REQUIRE_MESSAGE(bool(N), (N ? "" : llvm::toString(N.takeError())));
  return *N;
}

static std::string failure(const char *Text) {
  llvm::Expected<std::vector<uint32_t>> N = parseHostfile(Text, "hosts");
  REQUIRE(!N);
  ErrorReport R = takeErrorReport(N.takeError(), ErrorKind::Runtime);
  CHECK(R.Kind == ErrorKind::Usage);
  return R.Message;
}

TEST_CASE("one host name per rank, nodes numbered as they first appear") {
  CHECK(nodesOk("b\nb\na\nc\na\n") == std::vector<uint32_t>{0, 0, 1, 2, 1});
  // Comments, blank lines, surrounding blanks and a missing last newline.
  CHECK(nodesOk("# job 42\n\n  n1  \nn2 # second\r\nn1") ==
        std::vector<uint32_t>{0, 1, 0});
  // Open MPI's hostfile form: consecutive ranks by slot.
  CHECK(nodesOk("x slots=3\ny slots=1\nx\n") ==
        std::vector<uint32_t>{0, 0, 0, 1, 0});
  // A tab parts the name from slots=N as a space does (it used to make one
  // host named "a\tslots=4").
  CHECK(nodesOk("a\tslots=4\nb \t slots=2\n") ==
        std::vector<uint32_t>{0, 0, 0, 0, 1, 1});
}

TEST_CASE("a hostfile's irregular job is an explicit topology") {
  llvm::Expected<Topology> T =
      topologyFromHostfile("a\na\na\na\nb\nb\nc\nc\nc\n", "hosts");
  REQUIRE(bool(T));
  CHECK(T->ranks() == 9);
  CHECK(T->numNodes() == 3);
  CHECK(T->ranksPerNode() == 4);
  CHECK(T->fewestRanksOnANode() == 2);
  CHECK(T->mapping() == RankMapping::Explicit);
  CHECK(T->ranksOn(1) == 2);
  CHECK(T->nodeOf(5) == 1);
  CHECK(T->localRankOf(5) == 1);
  CHECK(T->rankAt(2, 2) == 8);
  for (uint32_t R = 0; R < 9; ++R)
    CHECK(T->rankAt(T->nodeOf(R), T->localRankOf(R)) == R);
}

TEST_CASE("bad hostfiles are usage errors naming the line") {
  CHECK(failure("").find("lists no rank") != std::string::npos);
  CHECK(failure("# only a comment\n\n").find("hosts:") == 0);
  CHECK(failure("a\nb c\n").find("hosts:2:") == 0);
  CHECK(failure("a\nb\tc\n").find("hosts:2:") == 0);
  CHECK(failure("a\nb slots=0\n").find("hosts:2:") == 0);
  CHECK(failure("a\n\nb max_slots=4\n").find("hosts:3:") == 0);
  CHECK(failure("a slots=16777217\n").find("more than") != std::string::npos);
}
