//===- PermutationIdenticalTest.cpp - permutation r >= 1 in one tree ------===//
//
// Oracles: combine trees worked out by hand from the paper's recurrences
// (P = 3 and 5, r = 1), replayed here by a tree tracker written for this
// test from plan/ir/Plan.h's round semantics alone (TreeReplay.h); the
// verifier's identical-results verdict and the reference interpreter for every
// P <= 64 not a power of two and every r; and a mutation that re-associates one
// combine, which must leave the sums right and the trees different.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "TreeReplay.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "llvm/Support/MathExtras.h"

#include "doctest/doctest.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace collplan;

namespace {

Plan compilePermutation(const Topology &Topo, unsigned R,
                        const std::string &Order) {
  return test::compileWith(
      "permutation",
      test::requestFor(Collective::Allreduce, Topo,
                       {{"r", std::to_string(R)}, {"order", Order}}));
}

std::string leaf(uint32_t P, uint32_t B, uint32_t K) {
  return std::to_string((B + K) % P);
}
std::string join(const std::string &A, const std::string &B) {
  return test::joinText(A, B);
}

} // namespace

TEST_CASE("P = 3, r = 1: both holders of a block follow copy 0's tree") {
  // N = 3, 2 and s = 1, 1. Step 0 is odd, so q* stays x_b and q' becomes
  // x_b (+) x_{b+1}; step 1 (even) adds q' shifted by 1: block b's tree is
  // x_b (+) (x_{b+1} (+) x_{b+2}). J = 2: ranks b and b + 1 hold block b.
  // The rank-dependent form gives rank b + 1 the same tree shifted by one,
  // x_{b+1} (+) (x_{b+2} (+) x_b).
  Plan Pl = compilePermutation(Topology::flat(3), 1, "identical");
  test::expectCorrect(Pl);
  test::TreeReplay Trees(Pl);
  for (uint32_t B = 0; B < 3; ++B) {
    std::string Tree = join(leaf(3, B, 0), join(leaf(3, B, 1), leaf(3, B, 2)));
    for (uint32_t R = 0; R < 3; ++R) {
      CAPTURE(B);
      CAPTURE(R);
      CHECK(Trees.at(R, B) == Tree);
    }
  }
  Plan Dependent = compilePermutation(Topology::flat(3), 1, "rank-dependent");
  test::TreeReplay Theirs(Dependent);
  CHECK(Theirs.at(0, 0) == join("0", join("1", "2")));
  CHECK(Theirs.at(1, 0) == join("1", join("2", "0")));
  CHECK_FALSE(verifyPlan(Dependent).IdenticalResults);
  CHECK(test::roundCount(Pl) == test::roundCount(Dependent));
}

TEST_CASE("P = 5, r = 1: the tree worked out by hand") {
  // N = 5, 3, 2 and s = 2, 1, 1. Steps 0 and 1 are odd: q* stays x_b, q'
  // grows to (x_b (+) x_{b+2}) (+) (x_{b+1} (+) x_{b+3}); step 2 adds q'
  // shifted by 1: x_b (+) ((x_{b+1} (+) x_{b+3}) (+) (x_{b+2} (+) x_{b+4})).
  Plan Pl = compilePermutation(Topology::flat(5), 1, "identical");
  test::expectCorrect(Pl);
  test::TreeReplay Trees(Pl);
  for (uint32_t B = 0; B < 5; ++B) {
    std::string Tree =
        join(leaf(5, B, 0), join(join(leaf(5, B, 1), leaf(5, B, 3)),
                                 join(leaf(5, B, 2), leaf(5, B, 4))));
    for (uint32_t R = 0; R < 5; ++R) {
      CAPTURE(B);
      CAPTURE(R);
      CHECK(Trees.at(R, B) == Tree);
    }
  }
}

TEST_CASE("every P <= 64 not a power of two, every r >= 1: identical bits") {
  // Both orders keep 2L - r rounds; the identical one either verifies with
  // identical results or is refused past its cap on partials held at once.
  unsigned Refused = 0;
  for (uint32_t P = 3; P <= 64; ++P) {
    if (llvm::isPowerOf2_32(P))
      continue;
    unsigned L = llvm::Log2_32_Ceil(P);
    for (unsigned R = 1; R <= L; ++R) {
      CAPTURE(P);
      CAPTURE(R);
      CompileRequest Req =
          test::requestFor(Collective::Allreduce, Topology::flat(P),
                           {{"r", std::to_string(R)}, {"order", "identical"}});
      llvm::Expected<Plan> Pl =
          compilePlan(test::algorithmNamed("permutation"), Req);
      if (!Pl) {
        std::string Message = llvm::toString(Pl.takeError());
        CHECK(Message.find("partials of one block at once") !=
              std::string::npos);
        ++Refused;
        continue;
      }
      test::expectCorrect(*Pl, /*Interpret=*/P <= 40);
      CHECK(verifyPlan(*Pl).IdenticalResults);
      CHECK(test::roundCount(*Pl) == 2 * L - R);
      Plan Dependent =
          compilePermutation(Topology::flat(P), R, "rank-dependent");
      CHECK_FALSE(verifyPlan(Dependent).IdenticalResults);
    }
  }
  // The cap (32 partials) bites only at large r for P past 32.
  CHECK(Refused < 40);
  MESSAGE("refused past the cap: " << Refused);
}

TEST_CASE("node shapes and tori: identical on every rank") {
  for (const Topology &T :
       {Topology::nodes(3, 4), Topology::nodes(5, 3), Topology::nodes(6, 2),
        Topology::nodes(3, 4, RankMapping::RoundRobin),
        Topology::torus({3, 5}, 1), Topology::torus({3, 2}, 2)}) {
    CAPTURE(T.str());
    unsigned L = llvm::Log2_32_Ceil(T.ranks());
    for (unsigned R = 1; R <= L; ++R) {
      CAPTURE(R);
      Plan Pl = compilePermutation(T, R, "identical");
      test::expectCorrect(Pl);
      CHECK(verifyPlan(Pl).IdenticalResults);
    }
  }
}

TEST_CASE("mutation: re-associating one combine is caught") {
  // Two combines into the same slot in one round, D (+)= A then D (+)= C,
  // become A (+)= C then D (+)= A: the same sum, (D, (A, C)) instead of
  // ((D, A), C), on one rank only. The reference interpreter still finds
  // the sums right; the verifier must see that the ranks' trees differ.
  Plan Pl = compilePermutation(Topology::flat(7), 2, "identical");
  REQUIRE(verifyPlan(Pl).IdenticalResults);
  bool Mutated = false;
  for (Round &Rd : Pl.Programs[1].Rounds) {
    for (size_t I = 0; I < Rd.Ops.size() && !Mutated; ++I)
      for (size_t K = I + 1; K < Rd.Ops.size() && !Mutated; ++K) {
        Op &First = Rd.Ops[I], &Second = Rd.Ops[K];
        if (First.Kind != OpKind::Local || Second.Kind != OpKind::Local ||
            First.Mode != Combine::Reduce || Second.Mode != Combine::Reduce ||
            First.Buffer != Second.Buffer || !(First.Blocks == Second.Blocks))
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
  CHECK(V.DifferentOrders.find("different orders") != std::string::npos);
}

TEST_CASE("the tuner offers both orders and the verdict keeps the identical") {
  const Algorithm &A = test::algorithmNamed("permutation");
  CompileRequest Req =
      test::requestFor(Collective::Allreduce, Topology::flat(7), {});
  bool Identical = false, Dependent = false;
  for (const auto &C : A.candidates(Req)) {
    auto It = C.find("order");
    if (It == C.end()) {
      CHECK(C.at("r") == "0");
      continue;
    }
    Identical |= It->second == "identical";
    Dependent |= It->second == "rank-dependent";
  }
  CHECK(Identical);
  CHECK(Dependent);
  // Default order where it applies.
  Plan Pl =
      test::compileWith(A, test::requestFor(Collective::Allreduce,
                                            Topology::flat(6), {{"r", "2"}}));
  CHECK(Pl.Header.Params.at("order") == "identical");
  CHECK(verifyPlan(Pl).IdenticalResults);
  // Bad values are refused.
  CompileRequest Bad = test::requestFor(Collective::Allreduce,
                                        Topology::flat(6), {{"order", "any"}});
  llvm::Expected<Plan> Refused = compilePlan(A, Bad);
  REQUIRE_FALSE(bool(Refused));
  CHECK(llvm::toString(Refused.takeError()).find("order=any") !=
        std::string::npos);
}
