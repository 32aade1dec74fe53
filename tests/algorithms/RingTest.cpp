//===- RingTest.cpp - Ring against its worked example at P = 4 ------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "doctest/doctest.h"

#include <cstdio>

using namespace collplan;
using namespace collplan::test;

namespace {

// The worked P = 4 example of docs/algorithms/ring.md: "i->j:cX" is
// rank i sending chunk X to rank j; three reduce-scatter steps, then three
// allgather steps.
const char *const RingTable[6] = {
    "0->3:c1 1->0:c2 2->1:c3 3->2:c0", "0->3:c2 1->0:c3 2->1:c0 3->2:c1",
    "0->3:c3 1->0:c0 2->1:c1 3->2:c2", "0->3:c0 1->0:c1 2->1:c2 3->2:c3",
    "0->3:c1 1->0:c2 2->1:c3 3->2:c0", "0->3:c2 1->0:c3 2->1:c0 3->2:c1",
};

struct Transfer {
  unsigned From, To, Chunk;
};

std::vector<Transfer> parseStep(const char *Text) {
  std::vector<Transfer> Out;
  Transfer T;
  int Used = 0;
  while (std::sscanf(Text, "%u->%u:c%u%n", &T.From, &T.To, &T.Chunk, &Used) ==
         3) {
    Out.push_back(T);
    Text += Used;
  }
  return Out;
}

} // namespace

TEST_CASE("ring allreduce at P = 4 follows the worked example send by send") {
  Plan P = compileFlat("ring", Collective::Allreduce, 4);
  REQUIRE(P.Programs.size() == 4);
  CHECK(P.Header.Blocks == 4);
  for (uint32_t Step = 0; Step < 6; ++Step) {
    std::vector<Transfer> Table = parseStep(RingTable[Step]);
    REQUIRE(Table.size() == 4);
    Combine Mode = Step < 3 ? Combine::Reduce : Combine::Replace;
    for (const Transfer &T : Table) {
      CAPTURE(Step);
      CAPTURE(T.From);
      // The sender's only send, and the receiver's only receive, carry it.
      llvm::ArrayRef<Op> From = opsAt(P, T.From, Step);
      llvm::ArrayRef<Op> To = opsAt(P, T.To, Step);
      std::vector<Op> Sends, Recvs;
      for (const Op &O : From)
        if (O.Kind == OpKind::Send)
          Sends.push_back(O);
      for (const Op &O : To)
        if (O.Kind == OpKind::Recv)
          Recvs.push_back(O);
      REQUIRE(Sends.size() == 1);
      REQUIRE(Recvs.size() == 1);
      CHECK(Sends[0].Peer == T.To);
      CHECK(Sends[0].Blocks == BlockSet::single(T.Chunk));
      CHECK(Recvs[0].Peer == T.From);
      CHECK(Recvs[0].Blocks == BlockSet::single(T.Chunk));
      CHECK(Recvs[0].Mode == Mode);
    }
  }
  CHECK(roundCount(P) == 6);
  expectInterpreted(P);
}

TEST_CASE("ring reduce-scatter and allgather are the worked example's halves") {
  Plan RS = compileFlat("ring", Collective::ReduceScatter, 4);
  Plan AG = compileFlat("ring", Collective::Allgather, 4);
  for (uint32_t Step = 0; Step < 3; ++Step)
    for (const Transfer &T : parseStep(RingTable[Step])) {
      llvm::ArrayRef<Op> Ops = opsAt(RS, T.From, Step);
      REQUIRE(!Ops.empty());
      CHECK(Ops[0].Blocks == BlockSet::single(T.Chunk));
    }
  for (uint32_t Step = 0; Step < 3; ++Step)
    for (const Transfer &T : parseStep(RingTable[Step + 3])) {
      llvm::ArrayRef<Op> Ops = opsAt(AG, T.From, Step);
      REQUIRE(!Ops.empty());
      CHECK(Ops[0].Blocks == BlockSet::single(T.Chunk));
    }
  CHECK(interpret(RS).problems().empty());
  CHECK(interpret(AG).problems().empty());
}

TEST_CASE("a plan too large to hold is refused before it is built") {
  // Ring allreduce at P = 100000 has 4e10 operations: building it exhausted
  // memory without a word. compilePlan now estimates from rank 0 and fails.
  CompileRequest Req;
  Req.Topo = Topology::flat(100000);
  llvm::Expected<Plan> Result = compilePlan(*findAlgorithm("ring"), Req);
  REQUIRE_FALSE(Result);
  std::string Message = llvm::toString(Result.takeError());
  CHECK(Message.find("operations") != std::string::npos);
  CHECK(Message.find("P = 100000") != std::string::npos);
}

TEST_CASE("weights a plan file cannot hold are refused") {
  // Their prefix sums overflowed: the plan was written, costed at nonsense
  // and refused by every reader.
  CompileRequest Req;
  Req.Kind = Collective::Allgatherv;
  Req.Topo = Topology::flat(3);
  Req.Weights = {UINT64_MAX, UINT64_MAX, 1};
  for (const char *Name : {"recursive-doubling", "circulant"}) {
    llvm::Expected<Plan> Result = compilePlan(*findAlgorithm(Name), Req);
    REQUIRE_FALSE(Result);
    CHECK(llvm::toString(Result.takeError()).find("too large") !=
          std::string::npos);
  }
  // A circulant block rounded up past the bound is caught after prepare().
  Req.Weights = {maxBlockWeight(3), 1, 1};
  Req.Params["blocks"] = "7";
  llvm::Expected<Plan> Result = compilePlan(*findAlgorithm("circulant"), Req);
  REQUIRE_FALSE(Result);
  CHECK(llvm::toString(Result.takeError()).find("too large") !=
        std::string::npos);
}
