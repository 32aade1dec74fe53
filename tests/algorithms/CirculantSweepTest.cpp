//===- CirculantSweepTest.cpp - Verifier sweep of the circulant plans -----===//
//
// Every collective of the `circulant` algorithm for P = 1..256, checked by
// the verifier (which executes plans symbolically and never calls algorithm
// code); the census in one tree also by every rank's combine tree replayed
// as text (TreeReplay.h) against the canonical tree's, up to P = 64, and
// the reduce-broadcast allreduce also by the reference interpreter,
// on every P up to 256 and on tori and node shapes (the family runs on the
// circulant graph of the ranks whatever the topology, so these check that
// the topology changes nothing but the header).
//
//===----------------------------------------------------------------------===//

#include "TreeReplay.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/PlanFactory.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

using namespace collplan;

namespace {

constexpr uint32_t MaxP = 256;

unsigned ceilLog2(uint64_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

/// Compiles and verifies; returns the number of rounds of a valid plan.
uint64_t compileAndVerify(const CompileRequest &Req) {
  const Algorithm *A = findAlgorithm("circulant");
  REQUIRE(A != nullptr);
  llvm::Expected<Plan> Pl = compilePlan(*A, Req);
  if (!Pl) {
    std::string Message = llvm::toString(Pl.takeError());
    FAIL(Message);
  }
  VerifyResult V = verifyPlan(*Pl);
  if (!V.Valid) {
    std::string Message = V.Errors.empty() ? "invalid" : V.Errors[0].str();
    FAIL(Message);
  }
  return V.Stats.Rounds;
}

CompileRequest request(Collective Kind, uint32_t P) {
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topology::flat(P);
  return Req;
}

} // namespace

// The reduce is the broadcast run backwards (ReversedBroadcast.h): the same
// n - 1 + q rounds, the paper's count for both.
TEST_CASE("circulant broadcast and reduce verify for P = 1..256, three roots, "
          "in n - 1 + q rounds") {
  for (Collective Kind : {Collective::Broadcast, Collective::Reduce})
    for (uint32_t P = 1; P <= MaxP; ++P) {
      unsigned Q = ceilLog2(P);
      for (uint64_t N : {uint64_t(1), uint64_t(2), uint64_t(Q + 1),
                         uint64_t(2 * Q + 1), uint64_t(17)})
        for (uint32_t Root : {0u, P / 2, P - 1}) {
          CAPTURE(collectiveName(Kind));
          CAPTURE(P);
          CAPTURE(N);
          CAPTURE(Root);
          CompileRequest Req = request(Kind, P);
          Req.Root = Root;
          Req.Params = {{"blocks", std::to_string(N)}};
          CHECK(compileAndVerify(Req) == (P == 1 ? 0 : N - 1 + Q));
        }
    }
}

TEST_CASE("circulant allgather and census allreduce verify for P = 1..256") {
  for (uint32_t P = 1; P <= MaxP; ++P) {
    CAPTURE(P);
    CHECK(compileAndVerify(request(Collective::Allgather, P)) == ceilLog2(P));
    CompileRequest Census = request(Collective::Allreduce, P);
    Census.Params = {{"variant", "census"}, {"order", "rank-dependent"}};
    CHECK(compileAndVerify(Census) == ceilLog2(P));
  }
}

namespace {

/// The census in one tree on Topo: valid, in q rounds, every rank with the
/// same bits in the canonical tree; with Replay, each rank's tree replayed
/// as text and the reference interpreter.
void checkCensusTree(const Topology &Topo, bool Replay) {
  uint32_t P = Topo.ranks();
  CompileRequest Req = request(Collective::Allreduce, P);
  Req.Topo = Topo;
  Req.Params = {{"variant", "census"}, {"order", "identical"}};
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("circulant"), Req);
  REQUIRE(bool(Pl));
  VerifyResult V = verifyPlan(*Pl);
  REQUIRE(V.Valid);
  CHECK(V.Stats.Rounds == ceilLog2(P));
  CHECK(V.IdenticalResults);
  CHECK(V.Reproducible);
  if (!Replay)
    return;
  test::expectInterpreted(*Pl);
  if (P < 2)
    return;
  test::TreeReplay Trees(*Pl);
  std::string Tree = test::canonicalTreeText(P);
  for (uint32_t R = 0; R < P; ++R) {
    CAPTURE(R);
    CHECK(Trees.at(R, 0) == Tree);
  }
}

} // namespace

TEST_CASE("the census in one tree: the canonical tree on every rank in q "
          "rounds, P = 1..256, tori and node shapes") {
  for (uint32_t P = 1; P <= MaxP; ++P) {
    CAPTURE(P);
    checkCensusTree(Topology::flat(P), P <= 64);
  }
  for (const Topology &T :
       {Topology::torus({8, 8}, 1), Topology::torus({3, 5, 2}, 1),
        Topology::torus({4, 4}, 2), Topology::nodes(12, 8),
        Topology::nodes(7, 3),
        Topology::nodes(5, 4, RankMapping::RoundRobin)}) {
    CAPTURE(T.str());
    checkCensusTree(T, true);
  }
}

namespace {

/// The reduce-broadcast allreduce on Topo for several n: correct by the
/// verifier and (up to InterpretUpTo ranks) the reference interpreter, in
/// 2(n - 1 + q) rounds, every rank ending with rank 0's bits.
void checkReduceBroadcast(const Topology &Topo, uint32_t InterpretUpTo) {
  uint32_t P = Topo.ranks();
  unsigned Q = ceilLog2(P);
  for (uint64_t N : {uint64_t(1), uint64_t(2), uint64_t(Q + 1),
                     uint64_t(2 * Q + 1), uint64_t(17)}) {
    CAPTURE(Topo.str());
    CAPTURE(N);
    CompileRequest Req = test::requestFor(
        Collective::Allreduce, Topo,
        {{"variant", "reduce-broadcast"}, {"blocks", std::to_string(N)}});
    llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("circulant"), Req);
    if (!Pl) {
      FAIL_CHECK(llvm::toString(Pl.takeError()));
      continue;
    }
    test::expectCorrect(*Pl, /*Interpret=*/P <= InterpretUpTo);
    VerifyResult V = verifyPlan(*Pl);
    CHECK(V.Stats.Rounds == (P == 1 ? 0 : 2 * (N - 1 + Q)));
    CHECK(V.IdenticalResults);
  }
}

} // namespace

TEST_CASE("circulant reduce-broadcast allreduce is correct for P = 1..256, "
          "five block counts, in 2(n - 1 + q) rounds with identical results") {
  for (uint32_t P = 1; P <= MaxP; ++P)
    checkReduceBroadcast(Topology::flat(P), /*InterpretUpTo=*/MaxP);
}

TEST_CASE("circulant reduce-broadcast allreduce on tori and node shapes") {
  checkReduceBroadcast(Topology::torus({8, 8}, 1), MaxP);
  checkReduceBroadcast(Topology::torus({4, 6}, 1), MaxP);
  checkReduceBroadcast(Topology::torus({3, 5, 2}, 1), MaxP);
  checkReduceBroadcast(Topology::torus({4, 4}, 2), MaxP);
  checkReduceBroadcast(Topology::nodes(12, 8), MaxP);
  checkReduceBroadcast(Topology::nodes(7, 3), MaxP);
  checkReduceBroadcast(Topology::nodes(16, 16), MaxP);
  checkReduceBroadcast(Topology::nodes(5, 4, RankMapping::RoundRobin), MaxP);
}

TEST_CASE("circulant allgatherv verifies for P = 1..256") {
  std::mt19937_64 Rng(7);
  for (uint32_t P = 1; P <= MaxP; ++P) {
    for (uint64_t N : {1, 3}) {
      CAPTURE(P);
      CAPTURE(N);
      CompileRequest Req = request(Collective::Allgatherv, P);
      Req.Params = {{"blocks", std::to_string(N)}};
      Req.Weights.resize(P);
      for (uint64_t &W : Req.Weights)
        W = Rng() % 5 == 0 ? 0 : 1 + Rng() % 1000;
      // Nothing at all to gather is refused (Plan.h); nothing to check.
      if (std::all_of(Req.Weights.begin(), Req.Weights.end(),
                      [](uint64_t W) { return W == 0; }))
        continue;
      CHECK(compileAndVerify(Req) == (P == 1 ? 0 : N - 1 + ceilLog2(P)));
    }
  }
}

TEST_CASE("the verifier rejects a circulant broadcast missing one receive") {
  // Guards the sweep against a vacuous verifier: drop rank 3's last receive.
  const Algorithm *A = findAlgorithm("circulant");
  CompileRequest Req = request(Collective::Broadcast, 12);
  Req.Params = {{"blocks", "5"}};
  llvm::Expected<Plan> Pl = compilePlan(*A, Req);
  REQUIRE(bool(Pl));
  REQUIRE(verifyPlan(*Pl).Valid);
  auto &Rounds = Pl->Programs[3].Rounds;
  for (auto It = Rounds.rbegin(); It != Rounds.rend(); ++It) {
    auto Recv = std::find_if(It->Ops.begin(), It->Ops.end(), [](const Op &O) {
      return O.Kind == OpKind::Recv;
    });
    if (Recv != It->Ops.end()) {
      It->Ops.erase(Recv);
      break;
    }
  }
  CHECK_FALSE(verifyPlan(*Pl).Valid);
}
