//===- CirculantCensusTreeTest.cpp - The census allreduce in one tree -----===//
//
// Oracles: the canonical tree for P written out here as text from its
// definition (docs/reproducibility.md: fold the first 2 (P - P') ranks in
// pairs, then pair neighbours level by level), compared with every rank's
// combine tree as TreeReplay.h replays it from the round semantics alone;
// the P = 6 schedule worked out by hand from the census's runs; the peers of
// the printed census (order=rank-dependent), which the one-tree form must
// keep round for round; the verifier's verdicts and the reference
// interpreter; and a mutation that re-associates one combine.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "TreeReplay.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/select/Tuner.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <set>
#include <string>
#include <vector>

using namespace collplan;

namespace {

Plan census(uint32_t P, const std::string &Order) {
  return test::compileWith(
      "circulant", test::requestFor(Collective::Allreduce, Topology::flat(P),
                                    {{"variant", "census"}, {"order", Order}}));
}

unsigned ceilLog2(uint32_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

/// Per round, the set of (peer sent to, peer received from) of Rank.
std::vector<std::set<std::pair<uint32_t, bool>>> peersOf(const Plan &Pl,
                                                         uint32_t Rank) {
  std::vector<std::set<std::pair<uint32_t, bool>>> Out;
  for (const Round &Rd : Pl.Programs[Rank].Rounds) {
    Out.resize(Rd.Index + 1);
    for (const Op &O : Rd.Ops)
      if (O.Kind != OpKind::Local)
        Out[Rd.Index].insert({O.Peer, O.Kind == OpKind::Send});
  }
  return Out;
}

} // namespace

TEST_CASE("P = 6: the schedule and the tree worked out by hand") {
  // Skips 1, 2, 3, 6: round 0 even, round 1 odd (3 < 4), round 2 even. The
  // canonical tree is ((0,1),(2,3)),(4,5). Before round 2 rank r holds
  // r .. r + 2, its own value joined (no odd round is left), as maximal
  // subtrees: rank 0 (0,1) and 2; rank 1 1 and (2,3); rank 3 3 and (4,5);
  // rank 5 5 and (0,1) (the run wraps): two vectors each, to r - 3.
  Plan Pl = census(6, "identical");
  test::expectCorrect(Pl);
  CHECK(test::roundsOf(Pl).size() == 3);
  test::TreeReplay Trees(Pl);
  std::string Tree = "(((0,1),(2,3)),(4,5))";
  REQUIRE(test::canonicalTreeText(6) == Tree);
  for (uint32_t R = 0; R < 6; ++R) {
    CAPTURE(R);
    CHECK(Trees.at(R, 0) == Tree);
    unsigned SentIn[3] = {0, 0, 0};
    for (const Round &Rd : Pl.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send) {
          ++SentIn[Rd.Index];
          // Round 1 is odd: W alone goes to r - skip[1] + 1 = r - 1.
          uint32_t Shift = Rd.Index == 0 ? 1 : Rd.Index == 1 ? 1 : 3;
          CHECK(O.Peer == (R + 6 - Shift) % 6);
        }
    CHECK(SentIn[0] == 1);
    CHECK(SentIn[1] == 1);
    CHECK(SentIn[2] == 2);
  }
  VerifyResult V = verifyPlan(Pl);
  CHECK(V.IdenticalResults);
  CHECK(V.Reproducible);
  // The printed order: rank r sums r, r + 1, ... in its own order.
  CHECK_FALSE(verifyPlan(census(6, "rank-dependent")).IdenticalResults);
}

TEST_CASE("every P <= 24: the canonical tree on every rank, in q rounds, on "
          "the printed census's peers") {
  for (uint32_t P = 1; P <= 24; ++P) {
    CAPTURE(P);
    Plan Pl = census(P, "identical");
    test::expectCorrect(Pl);
    CHECK(test::roundsOf(Pl).size() == ceilLog2(P));
    VerifyResult V = verifyPlan(Pl);
    CHECK(V.IdenticalResults);
    CHECK(V.Reproducible);
    if (P < 2)
      continue;
    test::TreeReplay Trees(Pl);
    std::string Tree = test::canonicalTreeText(P);
    Plan Printed = census(P, "rank-dependent");
    for (uint32_t R = 0; R < P; ++R) {
      CAPTURE(R);
      CHECK(Trees.at(R, 0) == Tree);
      CHECK(peersOf(Pl, R) == peersOf(Printed, R));
    }
    if (P >= 3)
      CHECK_FALSE(verifyPlan(Printed).IdenticalResults);
  }
}

TEST_CASE("mutation: re-associating one combine is caught") {
  // Two combines into one buffer in a round, D (+)= A then D (+)= C, become
  // A (+)= C then D (+)= A on one rank: the same sum, (D, (A, C)) for
  // ((D, A), C). The reference interpreter still finds the sums right; the
  // verifier must see that this rank leaves the tree the others follow.
  Plan Pl = census(13, "identical");
  REQUIRE(verifyPlan(Pl).Reproducible);
  bool Mutated = false;
  for (uint32_t Rank = 0; Rank < 13 && !Mutated; ++Rank)
    for (Round &Rd : Pl.Programs[Rank].Rounds) {
      for (size_t I = 0; I < Rd.Ops.size() && !Mutated; ++I)
        for (size_t K = I + 1; K < Rd.Ops.size() && !Mutated; ++K) {
          Op &First = Rd.Ops[I], &Second = Rd.Ops[K];
          if (First.Kind != OpKind::Local || Second.Kind != OpKind::Local ||
              First.Mode != Combine::Reduce || Second.Mode != Combine::Reduce ||
              First.Buffer != Second.Buffer || First.Source == Second.Source)
            continue;
          uint16_t D = First.Buffer, A = First.Source, C = Second.Source;
          First = Op::local(C, A, First.Blocks, Combine::Reduce);
          Second = Op::local(A, D, Second.Blocks, Combine::Reduce);
          Mutated = true;
        }
      if (Mutated)
        break;
    }
  REQUIRE(Mutated);
  test::Interpretation Run = test::interpret(Pl);
  CHECK_FALSE(Run.Broken);
  VerifyResult V = verifyPlan(Pl);
  CHECK(V.Valid);
  CHECK_FALSE(V.IdenticalResults);
  CHECK_FALSE(V.Reproducible);
  CHECK(V.NonCanonical.find("canonical") != std::string::npos);
}

TEST_CASE("the tuner takes the census in one tree where it wins") {
  // 32 B on 17 flat ranks (the default cost parameters): the census's 5
  // rounds beat every other identical plan, and of its two orders only the
  // one tree keeps the default's promise.
  CompileRequest Req =
      test::requestFor(Collective::Allreduce, Topology::flat(17), {});
  Req.Bytes = 32;
  llvm::Expected<Compilation> C = collplan::compile(Req);
  REQUIRE(bool(C));
  CHECK(C->Chosen->name() == "circulant");
  CHECK(C->best().Header.Params.at("order") == "identical");
  CHECK(test::roundsOf(C->best()).size() == 5);
  // --reproducible at P = 48: 6 rounds in the canonical tree, where
  // recursive doubling's fold takes 7.
  Req = test::requestFor(Collective::Allreduce, Topology::flat(48), {});
  Req.Bytes = 32;
  Req.Reproducible = true;
  C = collplan::compile(Req);
  REQUIRE(bool(C));
  CHECK(C->Chosen->name() == "circulant");
  CHECK(test::roundsOf(C->best()).size() == 6);
  CHECK(verifyPlan(C->best()).Reproducible);
}

TEST_CASE("order applies to the census only, and past its cap it is refused") {
  const Algorithm &A = test::algorithmNamed("circulant");
  CompileRequest Req = test::requestFor(
      Collective::Allreduce, Topology::flat(8),
      {{"variant", "reduce-broadcast"}, {"order", "identical"}});
  llvm::Expected<Plan> Refused = compilePlan(A, Req);
  REQUIRE_FALSE(bool(Refused));
  CHECK(llvm::toString(Refused.takeError()).find("variant=census only") !=
        std::string::npos);
  Req = test::requestFor(Collective::Allreduce, Topology::flat(5000),
                         {{"variant", "census"}, {"order", "identical"}});
  llvm::Expected<PlanHeader> H = A.prepare(Req);
  REQUIRE_FALSE(bool(H));
  CHECK(llvm::toString(H.takeError()).find("up to P = 4096") !=
        std::string::npos);
  // Without order, past the cap the census is the printed one.
  Req.Params = {{"variant", "census"}};
  H = A.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("order") == "rank-dependent");
}
