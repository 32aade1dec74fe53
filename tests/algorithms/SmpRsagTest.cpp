//===- SmpRsagTest.cpp - Reduce-scatter, allreduce per part, allgather ----===//
//
// smp-rsag on nodes x ppn and on tori with several ranks per node
// (docs/algorithms/ smp-rsag.md: a node-local reduce-scatter, ppn allreduces
// across the nodes each on 1/ppn of the vector, a node-local allgather).
// Oracles: the textbook volumes and round counts of the stages (a ring
// reduce-scatter or allgather over k ranks sends (k-1)/k of the vector in k-1
// rounds, Rabenseifner over a power of two n sends 2(n-1)/n of it in 2 log2 n
// rounds), the reference interpreter for the end state, and the verifier.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

/// Blocks Rank sends to other nodes and inside its node.
struct Volume {
  uint64_t Inter = 0, Intra = 0;
};
Volume volumeOf(const Plan &P, uint32_t Rank) {
  const Topology &T = P.Header.Topo;
  Volume V;
  for (const Round &Rd : P.Programs[Rank].Rounds)
    for (const Op &O : Rd.Ops)
      if (O.Kind == OpKind::Send)
        (T.nodeOf(O.Peer) == T.nodeOf(Rank) ? V.Intra : V.Inter) +=
            O.Blocks.count();
  return V;
}

} // namespace

TEST_CASE("smp-rsag: each local rank works on its own part across nodes") {
  struct Shape {
    Topology Topo;
    std::map<std::string, std::string> Params;
  };
  for (const Shape &S :
       {Shape{Topology::nodes(4, 4), {}},
        Shape{Topology::nodes(8, 3, RankMapping::RoundRobin), {}},
        Shape{Topology::torus({4, 4}, 2), {{"inter", "swing"}}},
        Shape{Topology::torus({2, 4}, 4, RankMapping::RoundRobin),
              {{"inter", "swing"}, {"inter.ports", "all"}}}}) {
    CAPTURE(S.Topo.str());
    Plan P = compileOn("smp-rsag", Collective::Allreduce, S.Topo, S.Params);
    expectCorrect(P);
    const Topology &T = P.Header.Topo;
    uint64_t K = T.ranksPerNode(), Part = P.Header.Blocks / K;
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        for (const Op &O : Rd.Ops)
          if (O.Kind != OpKind::Local && T.nodeOf(O.Peer) != T.nodeOf(R)) {
            uint64_t L = T.localRankOf(R);
            CHECK(T.localRankOf(O.Peer) == L);
            CHECK(BlockSet::range(L * Part, (L + 1) * Part)
                      .containsAll(O.Blocks));
          }
  }
}

TEST_CASE("smp-rsag: ring inside nodes, Rabenseifner among them") {
  // n nodes of k ranks: k-1 + 2 log2 n + k-1 rounds; each rank sends
  // (k-1)/k of the vector twice inside its node and 2(n-1)/n of its 1/k
  // part across nodes.
  for (auto [N, K] : {std::pair{4u, 4u}, {8u, 2u}, {2u, 5u}, {16u, 3u}}) {
    CAPTURE(N);
    CAPTURE(K);
    Plan P = compileNodes(
        "smp-rsag", N, K, RankMapping::Block,
        {{"rs", "ring"}, {"inter", "rabenseifner"}, {"ag", "ring"}});
    expectCorrect(P);
    uint32_t Log = 0;
    while ((1u << Log) < N)
      ++Log;
    uint32_t Rounds = 0;
    for (const Program &Prog : P.Programs)
      if (!Prog.Rounds.empty())
        Rounds = std::max(Rounds, Prog.Rounds.back().Index + 1);
    CHECK(Rounds == 2 * (K - 1) + 2 * Log);
    uint64_t B = P.Header.Blocks;
    for (uint32_t R = 0; R < N * K; ++R) {
      CAPTURE(R);
      Volume V = volumeOf(P, R);
      CHECK(V.Intra * K == 2 * (K - 1) * B);
      CHECK(V.Inter * N * K == 2 * (N - 1) * B);
    }
  }
}

TEST_CASE("smp-rsag with every allreduce family among the nodes") {
  for (const Algorithm *Inter : allAlgorithms()) {
    if (!Inter->supports(Collective::Allreduce) || Inter->name() == "smp-rsag")
      continue;
    // A family that runs on tori only (trivance) is checked on the tori
    // below: the nodes of nodes:NxK form no torus.
    if (llvm::any_of(Inter->restrictions(), [](const Restriction &R) {
          return R.Needs == Requirement::Torus;
        }))
      continue;
    CAPTURE(Inter->name().str());
    for (auto [N, K] : {std::pair{1u, 4u}, {3u, 3u}, {5u, 2u}, {4u, 1u}})
      for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin}) {
        CAPTURE(N);
        CAPTURE(K);
        expectCorrect(compileNodes("smp-rsag", N, K, M,
                                   {{"inter", Inter->name().str()},
                                    {"rs", "permutation"},
                                    {"ag", "circulant"}}));
      }
  }
  for (const char *Inter : {"swing", "bucket", "trivance"})
    for (const Topology &T :
         {Topology::torus({4, 4}, 4), Topology::torus({2, 3}, 3),
          Topology::torus({2, 2, 2}, 2, RankMapping::RoundRobin)}) {
      CAPTURE(Inter);
      CAPTURE(T.str());
      expectCorrect(
          compileOn("smp-rsag", Collective::Allreduce, T, {{"inter", Inter}}));
    }
}

TEST_CASE("swing and bucket with several ranks per node point to smp-rsag") {
  for (const char *Name : {"swing", "bucket"}) {
    CompileRequest Req;
    Req.Topo = Topology::torus({4, 4}, 2);
    llvm::Expected<Plan> P = compilePlan(*findAlgorithm(Name), Req);
    REQUIRE(!P);
    CHECK(llvm::toString(P.takeError()).find("smp-rsag") != std::string::npos);
  }
}
