//===- NodesExecutorTest.cpp - Node-aware allreduces run on threads -------===//
//
// The runtime half of AT-1 in the NAP spec (Bienz, Olson, Gropp, "Node-aware
// improvements to allreduce"): nap and smp plans on nodes:NxPPN topologies,
// under block and round-robin mappings, executed over the in-process
// ThreadTransport with integer SUM (exact, whatever the combination order)
// and compared with the brute-force oracle.
//
//===----------------------------------------------------------------------===//

#include "Oracle.h"
#include "ThreadTransport.h"

#include "compiler/algorithms/Algorithm.h"
#include "runtime/Executor.h"

#include <doctest/doctest.h>

#include <string>
#include <thread>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

struct Case {
  Datatype Type;
  ReduceOp Op;
  uint64_t Count;
  bool InPlace;
};

/// Runs Plan on P threads; returns the first failure, or "".
std::string runCase(const Plan &Pl, const Case &C) {
  const PlanHeader &H = Pl.Header;
  uint32_t P = H.Ranks;
  size_t ES = sizeOf(C.Type);
  Mailboxes Boxes(P);
  std::vector<std::string> Failures(P);
  std::vector<std::thread> Threads;
  for (uint32_t R = 0; R < P; ++R)
    Threads.emplace_back([&, R] {
      Executor Ex(H, Pl.Programs[R], R);
      ThreadTransport T(Boxes, R);
      std::vector<char> In = oracleInputBuffer(H, R, C.Count, C.Type, C.Op);
      std::vector<char> Out(C.Count * ES, char(0x5a));
      CallArgs A;
      A.Count = C.Count;
      A.Type = C.Type;
      A.Op = Operator::predefined(C.Op);
      A.Output = Out.data();
      A.Input = In.data();
      if (C.InPlace) {
        A.Input = nullptr;
        uint64_t Offset = 0;
        if (H.Kind == Collective::Allgather ||
            H.Kind == Collective::Allgatherv) {
          BlockLayout L(H, C.Count);
          Offset = L.begin(H.ownedBy(R).ranges()[0].Begin) * ES;
        }
        std::copy(In.begin(), In.end(), Out.begin() + Offset);
      }
      if (llvm::Error E = Ex.run(T, A)) {
        Failures[R] = llvm::toString(std::move(E));
        return;
      }
      std::vector<char> Want = oracleOutput(H, R, C.Count, C.Type, C.Op);
      Out.resize(Want.size());
      if (H.Kind == Collective::Reduce && R != *H.Root)
        return;
      for (size_t I = 0; I < Want.size(); ++I)
        if (Out[I] != Want[I]) {
          Failures[R] = "rank " + std::to_string(R) + ": byte " +
                        std::to_string(I) + " differs";
          return;
        }
    });
  for (std::thread &T : Threads)
    T.join();
  if (!Boxes.allEmpty())
    return "messages were sent that nobody received";
  for (std::string &F : Failures)
    if (!F.empty())
      return F;
  return "";
}

} // namespace

TEST_CASE("nap and smp on nodes topologies sum integers correctly") {
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
      {"smp", {{"inter", "ring"}, {"bcast", "circulant"}}}};
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
