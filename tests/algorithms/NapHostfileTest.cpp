//===- NapHostfileTest.cpp - NAP on jobs a hostfile describes -------------===//
//
// A hostfile gives each rank's node explicitly. Oracles: a hostfile that
// lists a regular job in block or round-robin order must give exactly the
// plan of that mapping (the mappings' formulas are independent of the map);
// an irregular job's plan must verify and compute the sum under the
// reference interpreter, and keep its inter-node traffic to the ranks NAP
// proper runs on (the smallest node's count of local ranks).
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"
#include "plan/ir/Hostfile.h"

#include "doctest/doctest.h"

#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// One line per rank: "node<N>" for the node of each rank in turn.
std::string hostfileOf(const std::vector<uint32_t> &NodeOfRank) {
  std::string Text;
  for (uint32_t Node : NodeOfRank)
    Text += "node" + std::to_string(Node) + "\n";
  return Text;
}

Topology hostfileTopology(const std::string &Text) {
  llvm::Expected<Topology> T = topologyFromHostfile(Text, "test");
  REQUIRE_MESSAGE(bool(T), (T ? "" : llvm::toString(T.takeError())));
  return *T;
}

/// Nodes of the given sizes, ranks filling node 0 first.
Topology unevenNodes(const std::vector<uint32_t> &Sizes) {
  std::vector<uint32_t> NodeOf;
  for (uint32_t Node = 0; Node < Sizes.size(); ++Node)
    NodeOf.insert(NodeOf.end(), Sizes[Node], Node);
  return hostfileTopology(hostfileOf(NodeOf));
}

void checkCorrect(const Plan &P) {
  VerifyResult V = verifyPlan(P);
  for (const Diagnostic &D : V.Errors)
    FAIL_CHECK(D.str());
  CHECK(V.Valid);
  Interpretation I = interpret(P);
  CHECK_MESSAGE(!I.Broken, I.Why);
}

} // namespace

TEST_CASE("a hostfile listing a regular job gives that mapping's plan") {
  for (auto [N, PerNode] : {std::pair{4u, 4u}, {5u, 2u}, {3u, 3u}}) {
    CAPTURE(N);
    CAPTURE(PerNode);
    for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin}) {
      Topology Regular = Topology::nodes(N, PerNode, M);
      std::vector<uint32_t> NodeOf;
      for (uint32_t R = 0; R < Regular.ranks(); ++R)
        NodeOf.push_back(Regular.nodeOf(R));
      Plan Want = compileOn("nap", Collective::Allreduce, Regular);
      Plan Got = compileOn("nap", Collective::Allreduce,
                           hostfileTopology(hostfileOf(NodeOf)));
      REQUIRE(Got.Programs.size() == Want.Programs.size());
      for (uint32_t R = 0; R < Regular.ranks(); ++R) {
        CAPTURE(R);
        REQUIRE(Got.Programs[R].Rounds.size() ==
                Want.Programs[R].Rounds.size());
        for (size_t I = 0; I < Want.Programs[R].Rounds.size(); ++I)
          CHECK(Got.Programs[R].Rounds[I].Ops ==
                Want.Programs[R].Rounds[I].Ops);
      }
    }
  }
}

TEST_CASE("nap on nodes of 4, 2 and 3 ranks") {
  Topology T = unevenNodes({4, 2, 3});
  CHECK(T.ranks() == 9);
  CHECK(T.numNodes() == 3);
  CHECK_FALSE(T.isRegular());
  CHECK(T.fewestRanksOnANode() == 2);
  Plan P = compileOn("nap", Collective::Allreduce, T);
  checkCorrect(P);
  // Only local ranks 0 and 1 (the smallest node's two) cross nodes; the
  // others fold into them and take the result back from them.
  for (uint32_t R = 0; R < T.ranks(); ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind != OpKind::Local && T.nodeOf(O.Peer) != T.nodeOf(R)) {
          CHECK(T.localRankOf(R) < 2);
          CHECK(T.localRankOf(O.Peer) < 2);
        }
  // Local rank 2 of node 0 (rank 2) folds into local rank 0 (rank 0) in the
  // first round and gets the result from it in the last.
  const Program &Extra = P.Programs[2];
  REQUIRE(Extra.Rounds.size() == 2);
  CHECK(Extra.Rounds[0].Index == 0);
  CHECK(Extra.Rounds[0].Ops[0].Peer == 0);
  CHECK(Extra.Rounds[0].Ops[0].Kind == OpKind::Send);
  CHECK(Extra.Rounds[1].Ops[0].Kind == OpKind::Recv);
}

TEST_CASE("nap on every job of up to four nodes of 2 to 5 ranks") {
  uint32_t Jobs = 0;
  for (uint32_t Nodes = 1; Nodes <= 4; ++Nodes) {
    std::vector<uint32_t> Sizes(Nodes, 2);
    while (true) {
      CAPTURE(Sizes);
      checkCorrect(compileOn("nap", Collective::Allreduce, unevenNodes(Sizes)));
      ++Jobs;
      size_t I = 0;
      while (I < Sizes.size() && Sizes[I] == 5)
        Sizes[I++] = 2;
      if (I == Sizes.size())
        break;
      ++Sizes[I];
    }
  }
  CHECK(Jobs == 4 + 16 + 64 + 256);
}

TEST_CASE("a job whose nodes differ is refused where it cannot be served") {
  const Algorithm *Smp = findAlgorithm("smp");
  REQUIRE(Smp != nullptr);
  CompileRequest Req;
  Req.Topo = unevenNodes({4, 2, 3});
  llvm::Expected<Plan> P = compilePlan(*Smp, Req);
  REQUIRE(!P);
  ErrorReport R = takeErrorReport(P.takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::CannotCompile);
  CHECK(R.Message.find("use nap") != std::string::npos);

  // A node of one rank leaves nap nothing node-aware to do.
  Req.Topo = unevenNodes({3, 1});
  P = compilePlan(*findAlgorithm("nap"), Req);
  REQUIRE(!P);
  R = takeErrorReport(P.takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::CannotCompile);
  CHECK(R.Message.find("recursive-doubling") != std::string::npos);

  // The other families ignore the nodes and still verify.
  for (const char *Name : {"ring", "rabenseifner", "recursive-doubling"}) {
    CAPTURE(Name);
    checkCorrect(
        compileOn(Name, Collective::Allreduce, unevenNodes({4, 2, 3})));
  }
}
