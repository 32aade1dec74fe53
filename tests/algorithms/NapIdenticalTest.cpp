//===- NapIdenticalTest.cpp - NAP's identical order, tree by tree ---------===//
//
// order=identical (the default; docs/algorithms/nap.md, "Identical
// results"): every node combines the subgroups' partials in one tree, so
// every rank ends with the same tree. Oracles: the trees of small jobs
// worked out by hand below (written as sums of sums), compared with a tiny
// replay that records each buffer's tree as an expression and shares no
// code with the verifier or the family; then a sweep over node shapes and
// both mappings asserting the verifier's identical-results verdict, the
// reference interpreter's sum, and that the identical order takes the same
// rounds and the same inter-node messages as the printed order.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"

#include "compiler/verify/Verifier.h"
#include "plan/ir/Hostfile.h"

#include "doctest/doctest.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// A combine tree as text, operands sorted so that a (+) b and b (+) a are
/// one tree (floating-point addition is commutative bit for bit).
std::string sum(const std::string &A, const std::string &B) {
  return A < B ? "(" + A + "+" + B + ")" : "(" + B + "+" + A + ")";
}
std::string x(uint32_t Rank) { return "x" + std::to_string(Rank); }
/// The recursive-doubling tree over 4 consecutive values from First.
std::string quad(uint32_t First) {
  return sum(sum(x(First), x(First + 1)), sum(x(First + 2), x(First + 3)));
}

/// Each rank's data buffer at the end of a one-block plan, as a tree:
/// rounds replayed per plan/ir/Plan.h (sends read the round's start,
/// receives land or combine, local operations then run in order).
std::vector<std::string> finalTrees(const Plan &P) {
  uint32_t N = P.Header.Ranks;
  REQUIRE(P.Header.Blocks == 1);
  std::vector<std::vector<std::string>> State(
      N, std::vector<std::string>(P.Header.Buffers.size()));
  for (uint32_t R = 0; R < N; ++R)
    State[R][DataBuffer] = x(R);
  std::set<uint32_t> Indices;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      Indices.insert(Rd.Index);
  auto Apply = [](std::string &To, const std::string &From, Combine Mode) {
    REQUIRE(!From.empty());
    To = Mode == Combine::Replace ? From : sum(To, From);
  };
  for (uint32_t Index : Indices) {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::string>> Mail;
    for (uint32_t R = 0; R < N; ++R)
      for (const Op &O : opsAt(P, R, Index))
        if (O.Kind == OpKind::Send)
          Mail[{R, O.Peer}].push_back(State[R][O.Buffer]);
    for (uint32_t R = 0; R < N; ++R) {
      for (const Op &O : opsAt(P, R, Index))
        if (O.Kind == OpKind::Recv) {
          std::vector<std::string> &Box = Mail[{O.Peer, R}];
          REQUIRE(!Box.empty());
          Apply(State[R][O.Buffer], Box.front(), O.Mode);
          Box.erase(Box.begin());
        }
      for (const Op &O : opsAt(P, R, Index))
        if (O.Kind == OpKind::Local)
          Apply(State[R][O.Buffer], State[R][O.Source], O.Mode);
    }
  }
  std::vector<std::string> Out;
  for (uint32_t R = 0; R < N; ++R)
    Out.push_back(State[R][DataBuffer]);
  return Out;
}

Plan napOf(uint32_t Nodes, uint32_t PerNode, const char *Order,
           RankMapping M = RankMapping::Block) {
  return compileNodes("nap", Nodes, PerNode, M, {{"order", Order}});
}

/// Per round, the inter-node sends (from, to) of the plan.
std::map<uint32_t, std::set<std::pair<uint32_t, uint32_t>>>
interNodeSends(const Plan &P) {
  std::map<uint32_t, std::set<std::pair<uint32_t, uint32_t>>> Out;
  const Topology &T = P.Header.Topo;
  for (uint32_t R = 0; R < P.Header.Ranks; ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send && T.nodeOf(R) != T.nodeOf(O.Peer))
          Out[Rd.Index].insert({R, O.Peer});
  return Out;
}

} // namespace

TEST_CASE("4 x 4 by hand: one tree in the identical order, four in the "
          "printed one") {
  // Intra-node recursive doubling (XOR 1, then XOR 2) leaves node m with
  // N_m = ((x4m + x4m+1) + (x4m+2 + x4m+3)) on all four ranks. L = 1, K = 4:
  // local rank r of node m holds N_r afterwards (fetched from node r, or its
  // own partial when r = m). Recursive doubling over the slots gives every
  // rank (N0 + N1) + (N2 + N3).
  std::string N[4] = {quad(0), quad(4), quad(8), quad(12)};
  std::string All = sum(sum(N[0], N[1]), sum(N[2], N[3]));
  for (const std::string &T : finalTrees(napOf(4, 4, "identical")))
    CHECK(T == All);
  // As printed, node m allreduces the three others' partials in their slots
  // (slot m empty) and adds its own last: node 0 ends N0 + (N1 + (N2 + N3)),
  // node 3 ends N3 + ((N0 + N1) + N2).
  std::vector<std::string> Printed = finalTrees(napOf(4, 4, "rank-dependent"));
  std::string Node0 = sum(N[0], sum(N[1], sum(N[2], N[3])));
  std::string Node1 = sum(N[1], sum(N[0], sum(N[2], N[3])));
  std::string Node2 = sum(N[2], sum(sum(N[0], N[1]), N[3]));
  std::string Node3 = sum(N[3], sum(sum(N[0], N[1]), N[2]));
  std::string Expected[4] = {Node0, Node1, Node2, Node3};
  for (uint32_t R = 0; R < 16; ++R)
    CHECK(Printed[R] == Expected[R / 4]);
  CHECK(verifyPlan(napOf(4, 4, "identical")).IdenticalResults);
  CHECK_FALSE(verifyPlan(napOf(4, 4, "rank-dependent")).IdenticalResults);
}

TEST_CASE("2 x 2 and 4 x 2 by hand: with two subgroups both orders agree") {
  // ppn = 2 splits every group into K <= 2 subgroups, and a + b is b + a:
  // the printed order is already identical, and so is the new one.
  // 2 x 2: N0 = x0 + x1, N1 = x2 + x3, one step: N0 + N1 everywhere.
  std::string Two = sum(sum(x(0), x(1)), sum(x(2), x(3)));
  // 4 x 2: step 0 pairs nodes {0, 1} and {2, 3}, step 1 the two pairs.
  std::string Four = sum(sum(sum(x(0), x(1)), sum(x(2), x(3))),
                         sum(sum(x(4), x(5)), sum(x(6), x(7))));
  for (const char *Order : {"identical", "rank-dependent"}) {
    CAPTURE(Order);
    for (const std::string &T : finalTrees(napOf(2, 2, Order)))
      CHECK(T == Two);
    for (const std::string &T : finalTrees(napOf(4, 2, Order)))
      CHECK(T == Four);
  }
}

TEST_CASE("3 x 4 and 2 x 3 by hand: an empty slot and MPICH's fold") {
  // 3 x 4: K = 3 subgroups of one node; slots 0..2 hold N0..N2 and slot 3
  // nothing, so level 0 gives N0 + N1 (slot 3 copies N2) and level 1
  // (N0 + N1) + N2, on every rank.
  std::string Three = sum(sum(quad(0), quad(4)), quad(8));
  for (const std::string &T : finalTrees(napOf(3, 4, "identical")))
    CHECK(T == Three);
  // 2 x 3: the fold hands local rank 0 to 1, recursive doubling runs on
  // local ranks 1 and 2: N_m = ((x3m + x3m+1) + x3m+2). The inter-node
  // step has K = 2: local rank J = m keeps N_m, the other slot (< 2)
  // fetches N_(1-m), and the folded allreduce over the slots gives N0 + N1.
  auto Tri = [](uint32_t F) { return sum(sum(x(F), x(F + 1)), x(F + 2)); };
  std::string Six = sum(Tri(0), Tri(3));
  for (const std::string &T : finalTrees(napOf(2, 3, "identical")))
    CHECK(T == Six);
}

TEST_CASE("identical order: same trees on every rank, same inter-node "
          "messages and rounds as the printed order") {
  // Every n <= 40 for ppn 2..8 under both mappings, then larger n sampled.
  std::vector<std::pair<uint32_t, uint32_t>> Shapes;
  for (uint32_t PerNode = 2; PerNode <= 8; ++PerNode)
    for (uint32_t N = 1; N <= 40; ++N)
      Shapes.push_back({N, PerNode});
  for (auto [N, PerNode] : {std::pair{16u, 16u},
                            {17u, 16u},
                            {64u, 4u},
                            {65u, 4u},
                            {100u, 3u},
                            {27u, 3u},
                            {28u, 3u},
                            {9u, 12u},
                            {33u, 6u}})
    Shapes.push_back({N, PerNode});
  for (auto [N, PerNode] : Shapes)
    for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin}) {
      if (M == RankMapping::RoundRobin && N > 40)
        continue;
      CAPTURE(N);
      CAPTURE(PerNode);
      CAPTURE(M == RankMapping::Block);
      Plan P = napOf(N, PerNode, "identical", M);
      VerifyResult V = verifyPlan(P);
      for (const Diagnostic &D : V.Errors)
        FAIL_CHECK(D.str());
      REQUIRE(V.Valid);
      CHECK_MESSAGE(V.IdenticalResults, V.DifferentOrders);
      if (N * PerNode <= 48)
        expectInterpreted(P);
      Plan Printed = napOf(N, PerNode, "rank-dependent", M);
      CHECK(roundsOf(P) == roundsOf(Printed));
      CHECK(interNodeSends(P) == interNodeSends(Printed));
    }
}

TEST_CASE("identical order on nodes of different sizes (a hostfile's job)") {
  // Nodes of 4, 3 and 5 ranks: NAP proper on 3 local ranks, the rest fold.
  std::vector<uint32_t> NodeOf = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2,
                                  2, 2, 3, 3, 3, 4, 4, 4, 4};
  std::string Text;
  for (uint32_t Node : NodeOf)
    Text += "node" + std::to_string(Node) + "\n";
  llvm::Expected<Topology> T = topologyFromHostfile(Text, "test");
  REQUIRE(bool(T));
  Plan P = compileOn("nap", Collective::Allreduce, *T, {});
  VerifyResult V = verifyPlan(P);
  REQUIRE(V.Valid);
  CHECK(V.IdenticalResults);
  expectInterpreted(P);
  CHECK_FALSE(verifyPlan(compileOn("nap", Collective::Allreduce, *T,
                                   {{"order", "rank-dependent"}}))
                  .IdenticalResults);
}
