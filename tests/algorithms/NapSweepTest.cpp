//===- NapSweepTest.cpp - NAP and SMP verified over many shapes -----------===//
//
// The exactly-once property of the node-aware allreduce (Bienz, Olson,
// Gropp, "Node-aware improvements to allreduce"; docs/algorithms/nap.md):
// every rank ends with every input exactly once, for node counts
// n = 1..300 and ppn = 2..8, and for ppn = 9..16 every n <= 64, every third
// n, n > 290 and the powers of ppn +-1 (block mapping), checked by the
// verifier; both mappings on a subset; the brute-force simulator on small
// cases; and the hierarchical SMP allreduce with every algorithm that serves
// allreduce among the leaders.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

/// The node counts swept for PerNode: all of 1..300 up to ppn 8; above, to
/// keep the sweep within minutes, 1..64, every third count, the last ten,
/// and the powers of ppn and their neighbours.
bool swept(uint32_t N, uint32_t PerNode) {
  if (PerNode <= 8 || N <= 64 || N % 3 == 0 || N > 290)
    return true;
  for (uint32_t Power = PerNode; Power <= 301; Power *= PerNode)
    if (N + 1 >= Power && N <= Power + 1)
      return true;
  return false;
}

TEST_CASE("nap is exactly-once for n = 1..300, ppn = 2..16") {
  for (uint32_t PerNode = 2; PerNode <= 16; ++PerNode)
    for (uint32_t N = 1; N <= 300; ++N) {
      if (!swept(N, PerNode))
        continue;
      CAPTURE(N);
      CAPTURE(PerNode);
      Plan P = compileNodes("nap", N, PerNode, RankMapping::Block);
      expectCorrect(P, /*Interpret=*/N * PerNode <= 48);
    }
}

TEST_CASE("nap is exactly-once under round-robin mapping") {
  for (uint32_t PerNode = 2; PerNode <= 8; ++PerNode)
    for (uint32_t N = 1; N <= 40; ++N) {
      CAPTURE(N);
      CAPTURE(PerNode);
      expectCorrect(compileNodes("nap", N, PerNode, RankMapping::RoundRobin),
                    /*Interpret=*/N * PerNode <= 48);
    }
}

TEST_CASE("smp with every inter algorithm that serves allreduce") {
  for (const Algorithm *Inter : allAlgorithms()) {
    if (!Inter->supports(Collective::Allreduce) || Inter->name() == "smp")
      continue;
    // The leaders of nodes:NxK form no torus, which trivance needs.
    if (llvm::any_of(Inter->restrictions(), [](const Restriction &R) {
          return R.Needs == Requirement::Torus;
        }))
      continue;
    CAPTURE(Inter->name().str());
    for (auto [N, PerNode] : {std::pair{1u, 4u},
                              {2u, 3u},
                              {3u, 4u},
                              {5u, 2u},
                              {6u, 5u},
                              {8u, 1u},
                              {7u, 3u}})
      for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin})
        for (const char *Bcast : {"binomial", "circulant"}) {
          CAPTURE(N);
          CAPTURE(PerNode);
          CAPTURE(Bcast);
          Plan P =
              compileNodes("smp", N, PerNode, M,
                           {{"inter", Inter->name().str()}, {"bcast", Bcast}});
          expectCorrect(P);
        }
  }
}
