//===- TrivanceSweepTest.cpp - Trivance verified over rings and tori ------===//
//
// Every trivance plan (bandwidth with sizes=steps and sizes=fold, latency;
// ports=1 and all) for every collective it serves, on rings of P = 1..256 and
// on tori, and its allreduce through smp-rsag on tori of several ranks per
// node, must pass the verifier and, for small P, the reference interpreter. The requests the family refuses are
// listed here (expectRefused), so a shape that silently stops compiling, or
// starts compiling when it should not, fails the sweep.
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

/// A ring of P ranks: the 1-D torus, whose nodes have the two ports
/// Trivance uses.
Topology ring(uint32_t P) {
  uint32_t Dims[] = {P};
  return Topology::torus(Dims, 1);
}

struct Config {
  const char *Variant;
  const char *Sizes;
  const char *Ports;
};

constexpr Config Configs[] = {
    {"bandwidth", "steps", "1"}, {"bandwidth", "steps", "all"},
    {"bandwidth", "fold", "1"},  {"bandwidth", "fold", "all"},
    {"latency", "fold", "1"},    {"latency", "fold", "all"}};

/// The latency form is an allreduce only, and folding serves allreduce only
/// (where a dimension is not a power of three; elsewhere it is no fold).
bool expectRefused(const Topology &Topo, Collective Kind, const Config &C) {
  if (Kind == Collective::Allreduce)
    return false;
  if (llvm::StringRef(C.Variant) == "latency")
    return true;
  if (llvm::StringRef(C.Sizes) == "steps")
    return false;
  for (uint32_t D : rankTorus(Topo).dims())
    if (trivance::pow3Floor(D) != D)
      return true;
  return false;
}

void checkTopology(const Topology &Topo, uint32_t InterpretUpTo) {
  uint32_t P = Topo.ranks();
  for (Collective Kind : {Collective::Allreduce, Collective::ReduceScatter,
                          Collective::Allgather})
    for (const Config &C : Configs) {
      CompileRequest Req =
          requestFor(Kind, Topo, {{"variant", C.Variant}, {"sizes", C.Sizes}});
      std::string What = collectiveName(Kind).str() + " " + C.Variant + " " +
                         C.Sizes + " ports=" + C.Ports + " on " + Topo.str() +
                         " P=" + std::to_string(P);
      CAPTURE(What);
      llvm::Expected<Plan> Result =
          compilePlan(algorithmNamed("trivance"), Req);
      if (expectRefused(Topo, Kind, C)) {
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
    checkTopology(ring(P), /*InterpretUpTo=*/64);
}

TEST_CASE("trivance verifies on a x b tori, a, b in 1..10") {
  for (uint32_t A = 1; A <= 10; ++A)
    for (uint32_t B = 1; B <= 10; ++B)
      checkTopology(Topology::torus({A, B}, 1), /*InterpretUpTo=*/64);
}

TEST_CASE("trivance verifies on larger tori") {
  for (const Topology &Topo :
       {Topology::torus({3, 9, 3}, 1), Topology::torus({9, 9}, 1),
        Topology::torus({8, 8}, 1), Topology::torus({16, 16}, 1),
        Topology::torus({27, 9}, 1), Topology::torus({4, 5, 6}, 1)})
    checkTopology(Topo, /*InterpretUpTo=*/81);
}

TEST_CASE("node shapes: refused alone, served through smp-rsag on a torus") {
  // A flat topology of nodes promises one port per node (restriction
  // torus); several ranks per torus node run trivance among the nodes on
  // each local rank's part.
  for (const Topology &Topo :
       {Topology::flat(9), Topology::nodes(12, 8), Topology::nodes(9, 3)}) {
    CAPTURE(Topo.str());
    llvm::Expected<Plan> R = compilePlan(
        algorithmNamed("trivance"), requestFor(Collective::Allreduce, Topo));
    REQUIRE_FALSE(R);
    CHECK(llvm::toString(R.takeError()).find("restriction torus") !=
          std::string::npos);
  }
  for (const Topology &Topo :
       {Topology::torus({3, 3}, 4), Topology::torus({4, 4}, 2),
        Topology::torus({9, 2}, 3), Topology::torus({8}, 3)})
    for (const char *Variant : {"bandwidth", "latency"}) {
      CAPTURE(Topo.str());
      CAPTURE(Variant);
      Plan P = compileOn("smp-rsag", Collective::Allreduce, Topo,
                         {{"inter", "trivance"}, {"inter.variant", Variant}});
      expectCorrect(P, /*Interpret=*/Topo.ranks() <= 64);
    }
}
