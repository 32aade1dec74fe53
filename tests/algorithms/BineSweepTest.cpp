//===- BineSweepTest.cpp - Bine verified on every P up to 256 -------------===//
//
// Every bine plan (both variants where they apply, every collective; roots
// 0, P/2 and P-1 for broadcast and reduce) on P = 1..256 ranks, and on a few
// tori and node shapes (the family runs on the ring of ranks whatever the
// topology, so these check that the topology changes nothing but the header),
// must pass checkStructure, the verifier and, up to P = 64, the reference
// interpreter. Bine refuses none of these requests.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"

#include "doctest/doctest.h"

#include <set>
#include <string>

using namespace collplan;
using namespace collplan::test;

namespace {

void checkTopology(const Topology &Topo, uint32_t InterpretUpTo) {
  uint32_t P = Topo.ranks();
  const Collective Kinds[] = {Collective::Broadcast, Collective::Reduce,
                              Collective::Allreduce, Collective::ReduceScatter,
                              Collective::Allgather};
  for (Collective Kind : Kinds) {
    bool HasVariant = Kind == Collective::Broadcast ||
                      Kind == Collective::Reduce ||
                      Kind == Collective::Allreduce;
    bool Rooted = Kind == Collective::Broadcast || Kind == Collective::Reduce;
    std::set<uint32_t> Roots = {0};
    if (Rooted)
      Roots = {0, P / 2, P - 1};
    for (const char *Variant : {"bandwidth", "latency"}) {
      if (!HasVariant && llvm::StringRef(Variant) == "latency")
        continue;
      for (uint32_t Root : Roots) {
        std::map<std::string, std::string> Params;
        if (HasVariant)
          Params["variant"] = Variant;
        CompileRequest Req =
            requestFor(Kind, Topo, Params,
                       Rooted ? std::optional<uint32_t>(Root) : std::nullopt);
        CAPTURE(Topo.str());
        CAPTURE(P);
        CAPTURE(collectiveName(Kind).str());
        CAPTURE(Variant);
        CAPTURE(Root);
        llvm::Expected<Plan> Result = compilePlan(*findAlgorithm("bine"), Req);
        if (!Result) {
          FAIL_CHECK(llvm::toString(Result.takeError()));
          continue;
        }
        expectCorrect(*Result, /*Interpret=*/P <= InterpretUpTo);
      }
    }
  }
}

} // namespace

TEST_CASE("bine verifies on P = 1..256 ranks, every collective and variant") {
  for (uint32_t P = 1; P <= 256; ++P)
    checkTopology(Topology::flat(P), /*InterpretUpTo=*/64);
}

TEST_CASE("bine verifies on tori and node shapes") {
  checkTopology(Topology::torus({8, 8}, 1), 64);
  checkTopology(Topology::torus({4, 6}, 1), 64);
  checkTopology(Topology::torus({3, 5, 2}, 1), 64);
  checkTopology(Topology::torus({4, 4}, 2), 64);
  checkTopology(Topology::nodes(12, 8), 64);
  checkTopology(Topology::nodes(7, 3), 64);
  checkTopology(Topology::nodes(16, 16), 64);
}
