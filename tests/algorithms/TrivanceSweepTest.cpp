//===- TrivanceSweepTest.cpp - Trivance verified over rings and tori ------===//
//
// Every trivance plan (both variants) for every collective it serves, on
// rings of P = 1..256, on tori and on node shapes (a ring of their ranks),
// must pass the verifier and, for small P, the reference interpreter. The
// requests the family refuses are listed here (expectRefused), so a shape
// that silently stops compiling, or starts compiling when it should not,
// fails the sweep.
//
//===----------------------------------------------------------------------===//

#include "tests/support/PlanChecks.h"
#include "tests/support/PlanFactory.h"

#include "compiler/algorithms/TrivanceTorus.h"

#include "doctest/doctest.h"

#include <string>

using namespace collplan;
using namespace collplan::test;

namespace {

/// The latency form is an allreduce only, and reduce-scatter and allgather
/// need every dimension of the ranks' torus a power of three.
bool expectRefused(const Topology &Topo, Collective Kind, bool Latency) {
  if (Kind == Collective::Allreduce)
    return false;
  if (Latency)
    return true;
  for (uint32_t D : rankTorus(Topo).dims())
    if (trivance::pow3Floor(D) != D)
      return true;
  return false;
}

void checkTopology(const Topology &Topo, uint32_t InterpretUpTo) {
  uint32_t P = Topo.ranks();
  for (Collective Kind : {Collective::Allreduce, Collective::ReduceScatter,
                          Collective::Allgather})
    for (const char *Variant : {"bandwidth", "latency"}) {
      bool Latency = llvm::StringRef(Variant) == "latency";
      CompileRequest Req = requestFor(Kind, Topo, {{"variant", Variant}});
      std::string What = collectiveName(Kind).str() + " " + Variant + " on " +
                         Topo.str() + " P=" + std::to_string(P);
      CAPTURE(What);
      llvm::Expected<Plan> Result =
          compilePlan(algorithmNamed("trivance"), Req);
      if (expectRefused(Topo, Kind, Latency)) {
        CHECK_MESSAGE(!Result, "expected a refusal");
        if (!Result)
          llvm::consumeError(Result.takeError());
        continue;
      }
      if (!Result) {
        FAIL_CHECK(llvm::toString(Result.takeError()));
        continue;
      }
      expectCorrect(*Result, /*Interpret=*/P <= InterpretUpTo);
    }
}

} // namespace

TEST_CASE("trivance verifies on rings of P = 1..256") {
  for (uint32_t P = 1; P <= 256; ++P)
    checkTopology(Topology::flat(P), /*InterpretUpTo=*/64);
}

TEST_CASE("trivance verifies on a x b tori, a, b in 1..10") {
  for (uint32_t A = 1; A <= 10; ++A)
    for (uint32_t B = 1; B <= 10; ++B)
      checkTopology(Topology::torus({A, B}, 1), /*InterpretUpTo=*/64);
}

TEST_CASE("trivance verifies on larger tori and node shapes") {
  for (const Topology &Topo :
       {Topology::torus({3, 9, 3}, 1), Topology::torus({9, 9}, 1),
        Topology::torus({8, 8}, 1), Topology::torus({16, 16}, 1),
        Topology::torus({27, 9}, 1), Topology::torus({4, 5, 6}, 1),
        Topology::nodes(12, 8), Topology::nodes(9, 3), Topology::nodes(7, 3)})
    checkTopology(Topo, /*InterpretUpTo=*/81);
}
