//===- BinomialTest.cpp - Binomial tree oracles ---------------------------===//
//
// The binomial tree of Thakur, Rabenseifner and Gropp (2005) on relative
// ranks: rel's parent is rel with its lowest set bit cleared. The tables
// below spell the trees out for P = 8; the root sends to relative ranks
// 4, 2, 1 in rounds 0, 1, 2.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

struct Edge {
  uint32_t Parent, Child, Round;
};

// Root 0: the classic tree 0 -> {4, 2, 1}, 4 -> {6, 5}, 2 -> {3}, 6 -> {7}.
const Edge Root0[] = {{0, 4, 0}, {0, 2, 1}, {4, 6, 1}, {0, 1, 2},
                      {2, 3, 2}, {4, 5, 2}, {6, 7, 2}};
// Root 3: the same tree on relative ranks, real = (rel + 3) mod 8.
const Edge Root3[] = {{3, 7, 0}, {3, 5, 1}, {7, 1, 1}, {3, 4, 2},
                      {5, 6, 2}, {7, 0, 2}, {1, 2, 2}};

/// Every message of P as (sender, receiver, round).
std::vector<Edge> messages(const Plan &P) {
  std::vector<Edge> Out;
  for (uint32_t R = 0; R < P.Programs.size(); ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send)
          Out.push_back({R, O.Peer, Rd.Index});
  return Out;
}

void checkTree(const Plan &P, llvm::ArrayRef<Edge> Tree, bool Upwards) {
  std::vector<Edge> Got = messages(P);
  REQUIRE(Got.size() == Tree.size());
  for (const Edge &E : Tree) {
    CAPTURE(E.Parent);
    CAPTURE(E.Child);
    uint32_t From = Upwards ? E.Child : E.Parent;
    uint32_t To = Upwards ? E.Parent : E.Child;
    uint32_t Round = Upwards ? 2 - E.Round : E.Round;
    bool Found = false;
    for (const Edge &G : Got)
      Found |= G.Parent == From && G.Child == To && G.Round == Round;
    CHECK(Found);
  }
}

} // namespace

TEST_CASE("binomial broadcast at P = 8 from root 0 and root 3") {
  Plan P0 = compileFlat("binomial", Collective::Broadcast, 8, 0);
  Plan P3 = compileFlat("binomial", Collective::Broadcast, 8, 3);
  CHECK(roundCount(P0) == 3);
  CHECK(roundCount(P3) == 3);
  checkTree(P0, Root0, /*Upwards=*/false);
  checkTree(P3, Root3, /*Upwards=*/false);
  for (const Plan *P : {&P0, &P3})
    expectInterpreted(*P);
}

TEST_CASE("binomial reduce at P = 8 runs the tree upwards") {
  Plan P0 = compileFlat("binomial", Collective::Reduce, 8, 0);
  Plan P3 = compileFlat("binomial", Collective::Reduce, 8, 3);
  checkTree(P0, Root0, /*Upwards=*/true);
  checkTree(P3, Root3, /*Upwards=*/true);
  // Root 0 combines in rank order; other roots need a commutative operator.
  CHECK_FALSE(P0.Header.RequiresCommutative);
  CHECK(P3.Header.RequiresCommutative);
  for (const Plan *P : {&P0, &P3})
    expectInterpreted(*P);
}

TEST_CASE("binomial on a non-power of two: P = 6, root 5") {
  Plan P = compileFlat("binomial", Collective::Broadcast, 6, 5);
  CHECK(roundCount(P) == 3);
  // Relative ranks 0..5 are real 5, 0, 1, 2, 3, 4; rel 4 (real 3) is the
  // root's first child, rel 5 (real 4) hangs under it.
  std::vector<Edge> Got = messages(P);
  CHECK(Got.size() == 5);
  bool Found = false;
  for (const Edge &E : Got)
    Found |= E.Parent == 5 && E.Child == 3 && E.Round == 0;
  CHECK(Found);
  Found = false;
  for (const Edge &E : Got)
    Found |= E.Parent == 3 && E.Child == 4 && E.Round == 2;
  CHECK(Found);
  expectInterpreted(P);
}
