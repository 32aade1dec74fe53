//===- SwingLatencyTreeTest.cpp - Swing-L in one combine tree -------------===//
//
// Oracles: the sets of ranks Swing-L's ranks hold, by brute force (whole
// vectors summed along SwingTorus::peer, one set per rank and step), their
// maximal subtrees by brute force over the key the tree is defined by (bit k
// = bit Sigma of the coordinate along step k's dimension), the P = 8 sets
// docs/algorithms/swing.md works out by hand, and the verifier's verdicts.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"

#include "compiler/algorithms/SwingLatencyTree.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <set>
#include <vector>

using namespace collplan;
using namespace collplan::swing;

namespace {

/// Every rank's held set after each step, by brute force.
std::vector<std::vector<std::set<uint32_t>>>
heldByBruteForce(const SwingTorus &T, uint32_t C) {
  llvm::SmallVector<StepDim, 32> Sched = T.schedule(C);
  std::vector<std::set<uint32_t>> Now(T.ranks());
  for (uint32_t R = 0; R < T.ranks(); ++R)
    Now[R] = {R};
  std::vector<std::vector<std::set<uint32_t>>> Out = {Now};
  for (const StepDim &At : Sched) {
    std::vector<std::set<uint32_t>> Next = Now;
    for (uint32_t R = 0; R < T.ranks(); ++R) {
      const std::set<uint32_t> &Theirs = Now[T.peer(R, At, C >= T.numDims())];
      Next[R].insert(Theirs.begin(), Theirs.end());
    }
    Out.push_back(Next);
    Now = Next;
  }
  return Out;
}

uint64_t keyOf(const SwingTorus &T, uint32_t C, uint32_t R) {
  llvm::SmallVector<StepDim, 32> Sched = T.schedule(C);
  uint64_t K = 0;
  for (uint32_t S = 0; S < Sched.size(); ++S)
    K |= uint64_t(T.coordsOf(R)[Sched[S].Dim] >> Sched[S].Sigma & 1) << S;
  return K;
}

/// The maximal aligned key intervals covering Keys, in key order.
std::vector<Subtree> maximalSubtrees(const std::set<uint64_t> &Keys) {
  std::vector<Subtree> Out;
  for (auto It = Keys.begin(); It != Keys.end();) {
    uint64_t First = *It;
    uint32_t Level = 0;
    auto Covers = [&](uint32_t L) {
      if (First % (uint64_t(1) << L))
        return false;
      for (uint64_t K = First; K < First + (uint64_t(1) << L); ++K)
        if (!Keys.count(K))
          return false;
      return true;
    };
    while (Covers(Level + 1))
      ++Level;
    Out.push_back({Level, First >> Level});
    std::advance(It, size_t(1) << Level);
  }
  return Out;
}

void checkAgainstBruteForce(llvm::ArrayRef<uint32_t> Dims) {
  SwingTorus T(Dims);
  for (uint32_t C = 0; C < 2 * T.numDims(); ++C) {
    LatencyTree Tree(T, C);
    auto Held = heldByBruteForce(T, C);
    for (uint32_t S = 0; S < Held.size(); ++S)
      for (uint32_t R = 0; R < T.ranks(); ++R) {
        CAPTURE(C);
        CAPTURE(S);
        CAPTURE(R);
        std::set<uint64_t> Keys;
        for (uint32_t X : Held[S][R])
          Keys.insert(keyOf(T, C, X));
        std::vector<Subtree> Want = maximalSubtrees(Keys);
        llvm::SmallVector<Subtree, 8> Got = Tree.held(R, S);
        CHECK(std::vector<Subtree>(Got.begin(), Got.end()) == Want);
      }
  }
}

/// The most sends of one rank in each round of Plan.
std::vector<uint32_t> mostSendsPerRound(const Plan &P) {
  std::vector<uint32_t> Most;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds) {
      if (Most.size() <= Rd.Index)
        Most.resize(Rd.Index + 1);
      uint32_t N = 0;
      for (const Op &O : Rd.Ops)
        N += O.Kind == OpKind::Send;
      Most[Rd.Index] = std::max(Most[Rd.Index], N);
    }
  return Most;
}

} // namespace

TEST_CASE("P = 8: the sets docs/algorithms/swing.md works out, as subtrees") {
  uint32_t Dims[] = {8};
  SwingTorus T(Dims);
  LatencyTree Tree(T, 0);
  // After step 1 rank 0 holds {0, 1, 6, 7}: the pairs {0,1} and {6,7}.
  CHECK(Tree.held(0, 2) ==
        llvm::SmallVector<Subtree, 8>{Subtree{1, 0}, Subtree{1, 3}});
  // Rank 1 holds {0, 1, 2, 3}: one subtree of four.
  CHECK(Tree.held(1, 2) == llvm::SmallVector<Subtree, 8>{Subtree{2, 0}});
  CHECK(Tree.held(5, 3) == llvm::SmallVector<Subtree, 8>{Subtree{3, 0}});
}

TEST_CASE("held() is the brute force's maximal subtrees on rings and tori") {
  for (uint32_t P : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
    uint32_t Dims[] = {P};
    checkAgainstBruteForce(Dims);
  }
  for (std::vector<uint32_t> Dims : std::vector<std::vector<uint32_t>>{
           {4, 4}, {8, 8}, {2, 8}, {4, 16}, {16, 4}, {4, 4, 4}, {2, 4, 8}})
    checkAgainstBruteForce(Dims);
}

TEST_CASE("order=identical: one tree on every rank, the rounds of the paper") {
  struct Case {
    Topology Topo;
    const char *Ports;
  };
  for (const Case &K :
       std::vector<Case>{{Topology::flat(8), "1"},
                         {Topology::flat(12), "1"},
                         {Topology::torus({8, 8}, 1), "1"},
                         {Topology::torus({8, 8}, 1), "all"},
                         {Topology::torus({12, 8}, 1), "all"}}) {
    CAPTURE(K.Topo.str());
    std::string Ports = K.Ports;
    CAPTURE(Ports);
    Plan Identical = test::compileOn(
        "swing", Collective::Allreduce, K.Topo,
        {{"variant", "latency"}, {"ports", K.Ports}, {"order", "identical"}});
    Plan Printed = test::compileOn("swing", Collective::Allreduce, K.Topo,
                                   {{"variant", "latency"},
                                    {"ports", K.Ports},
                                    {"order", "rank-dependent"}});
    test::expectCorrect(Identical);
    VerifyResult V = verifyPlan(Identical);
    CHECK(V.IdenticalResults);
    CHECK_FALSE(verifyPlan(Printed).IdenticalResults);
    CHECK(test::roundsOf(Identical) == test::roundsOf(Printed));
  }
}

TEST_CASE("order=identical on a ring of 2^k follows the canonical tree") {
  for (uint32_t P : {2u, 4u, 8u, 16u, 32u}) {
    CAPTURE(P);
    Plan Pl = test::compileOn("swing", Collective::Allreduce, Topology::flat(P),
                              {{"variant", "latency"}});
    CHECK(verifyPlan(Pl).Reproducible);
  }
}

TEST_CASE("a message carries one vector per subtree held: 8x8 and P = 8") {
  // Rank 0 of P = 8 holds 1, 1, 2 subtrees before its three steps.
  Plan Ring = test::compileOn("swing", Collective::Allreduce, Topology::flat(8),
                              {{"variant", "latency"}});
  CHECK(mostSendsPerRound(Ring) == std::vector<uint32_t>{1, 1, 2});
  // On 8x8 (ports=1) the brute force above gives at most 1, 1, 1, 2, 4, 4
  // subtrees before the six steps.
  Plan Torus = test::compileOn("swing", Collective::Allreduce,
                               Topology::torus({8, 8}, 1),
                               {{"variant", "latency"}, {"ports", "1"}});
  CHECK(mostSendsPerRound(Torus) == std::vector<uint32_t>{1, 1, 1, 2, 4, 4});
}

TEST_CASE("order is Swing-L's alone, and names one of two orders") {
  CompileRequest Req;
  Req.Kind = Collective::Allreduce;
  Req.Topo = Topology::flat(8);
  Req.Params = {{"variant", "bandwidth"}, {"order", "identical"}};
  llvm::Expected<PlanHeader> H = findAlgorithm("swing")->prepare(Req);
  REQUIRE_FALSE(bool(H));
  CHECK(llvm::toString(H.takeError()).find("variant=latency") !=
        std::string::npos);
  Req.Params = {{"variant", "latency"}, {"order", "sorted"}};
  H = findAlgorithm("swing")->prepare(Req);
  REQUIRE_FALSE(bool(H));
  CHECK(llvm::toString(H.takeError()).find("'sorted'") != std::string::npos);
  // 64x64 would hold 120 partials at once: refused, Swing-B serves.
  Req.Topo = Topology::torus({64, 64}, 1);
  Req.Params = {{"variant", "latency"}};
  H = findAlgorithm("swing")->prepare(Req);
  REQUIRE_FALSE(bool(H));
  CHECK(llvm::toString(H.takeError()).find("at most 32") != std::string::npos);
}
