//===- NodesExecutorTest.cpp - Node-aware allreduces run on threads -------===//
//
// The runtime half of the node-aware allreduces' exactly-once check
// (tests/algorithms/NapSweepTest.cpp; Bienz, Olson, Gropp, "Node-aware
// improvements to allreduce"): nap, smp and smp-rsag plans on nodes:NxPPN,
// under block and round-robin mappings, executed over the in-process
// ThreadTransport with integer SUM (exact, whatever the combination order)
// and compared with the brute-force oracle.
//
//===----------------------------------------------------------------------===//

#include "Oracle.h"
#include "ThreadRun.h"

#include "compiler/algorithms/Algorithm.h"
#include "runtime/Executor.h"

#include <doctest/doctest.h>

#include <string>
#include <thread>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

TEST_CASE("nap, smp and smp-rsag on nodes topologies sum integers "
          "correctly") {
  struct Shape {
    uint32_t Nodes, PerNode;
  };
  struct Variant {
    const char *Algorithm;
    std::map<std::string, std::string> Params;
  };
  std::vector<Variant> Variants = {
      {"nap", {}},
      {"smp", {}},
      {"smp", {{"inter", "rabenseifner"}}},
      {"smp", {{"inter", "ring"}, {"bcast", "circulant"}}},
      {"smp-rsag", {}},
      {"smp-rsag", {{"inter", "swing"}, {"inter.ports", "all"}}}};
  size_t Runs = 0;
  for (const Variant &V : Variants)
    for (Shape S : {Shape{1, 4}, Shape{2, 2}, Shape{3, 4}, Shape{5, 2},
                    Shape{4, 4}, Shape{7, 3}, Shape{3, 5}, Shape{6, 1}})
      for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin}) {
        CompileRequest Req;
        Req.Topo = Topology::nodes(S.Nodes, S.PerNode, M);
        Req.Bytes = 1 << 12;
        Req.Params = V.Params;
        llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(V.Algorithm), Req);
        REQUIRE_MESSAGE(bool(Pl), llvm::toString(Pl.takeError()));
        for (uint64_t Count : {0, 1, 7, 100})
          for (Datatype T : {Datatype::Int32, Datatype::Int64}) {
            Case C{T, ReduceOp::Sum, Count, Count % 2 == 1};
            INFO(V.Algorithm << " nodes:" << S.Nodes << "x" << S.PerNode << " "
                             << mappingName(M).str() << " count=" << Count
                             << " " << datatypeName(T).str());
            std::string Failure = runCase(*Pl, C);
            CHECK_MESSAGE(Failure.empty(), Failure);
            ++Runs;
          }
      }
  CHECK(Runs > 0);
}
