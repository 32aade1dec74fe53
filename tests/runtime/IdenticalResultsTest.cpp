//===- IdenticalResultsTest.cpp - Same bits on every rank, on threads -----===//
//
// The verifier decides whether every rank of an allreduce combines each
// block in the same tree (VerifyResult::IdenticalResults). Checked here
// against real floating-point sums run by the executor: float addition is
// commutative but not associative, so with inputs of wildly different
// magnitudes two different trees almost surely give different bits for some
// element. Where the verifier says identical, every rank's result must be
// bit for bit the same; where it says not, some element must differ.
//
//===----------------------------------------------------------------------===//

#include "FloatSums.h"
#include "compiler/algorithms/Algorithm.h"
#include "compiler/select/Tuner.h"
#include "compiler/verify/Verifier.h"

#include "llvm/Support/MathExtras.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

/// Each rank's result of a float-sum allreduce of Count elements, as bits.
std::vector<std::vector<uint32_t>> runSum(const Plan &Pl, uint64_t Count) {
  std::vector<std::vector<uint32_t>> Bits;
  for (const std::vector<float> &Out : runFloatSum(Pl, Count)) {
    Bits.emplace_back(Out.size());
    std::memcpy(Bits.back().data(), Out.data(), Out.size() * sizeof(float));
  }
  return Bits;
}

} // namespace

TEST_CASE("the verifier's identical-results verdict matches float sums") {
  struct Shape {
    const char *Algorithm;
    Topology Topo;
    std::map<std::string, std::string> Params;
  };
  std::vector<Shape> Shapes;
  for (uint32_t P = 2; P <= 9; ++P) {
    for (const char *A : {"ring", "recursive-doubling", "rabenseifner",
                          "circulant", "swing", "binomial"})
      Shapes.push_back({A, Topology::flat(P), {}});
    for (const char *R : {"0", "1", "2"})
      for (const char *Order : {"identical", "rank-dependent"})
        Shapes.push_back(
            {"permutation", Topology::flat(P), {{"r", R}, {"order", Order}}});
    for (const char *Order : {"identical", "rank-dependent"})
      Shapes.push_back({"circulant",
                        Topology::flat(P),
                        {{"variant", "census"}, {"order", Order}}});
  }
  for (auto [N, K] : {std::pair{2u, 2u}, {3u, 2u}, {2u, 3u}, {4u, 2u}})
    for (const char *A : {"nap", "smp"})
      Shapes.push_back({A, Topology::nodes(N, K), {}});
  // NAP's two orders where a step merges three or more subgroups (K >= 3),
  // the only place they differ.
  for (auto [N, K] : {std::pair{4u, 4u}, {3u, 4u}, {5u, 3u}, {3u, 3u}})
    for (const char *Order : {"identical", "rank-dependent"})
      Shapes.push_back({"nap", Topology::nodes(N, K), {{"order", Order}}});
  int Identical = 0, Different = 0;
  for (const Shape &S : Shapes) {
    const Algorithm *A = findAlgorithm(S.Algorithm);
    REQUIRE(A);
    CompileRequest Req;
    Req.Kind = Collective::Allreduce;
    Req.Topo = S.Topo;
    Req.Params = S.Params;
    llvm::Expected<Plan> Pl = compilePlan(*A, Req);
    if (!Pl) { // A shape the family does not serve (e.g. r > log P).
      llvm::consumeError(Pl.takeError());
      continue;
    }
    VerifyResult V = verifyPlan(*Pl);
    std::string What = std::string(S.Algorithm) + " on " + S.Topo.str();
    for (const auto &[K, Value] : S.Params)
      What += " " + K + "=" + Value;
    INFO(What);
    REQUIRE(V.Valid);
    auto Bits = runSum(*Pl, 64 * Pl->Header.Blocks);
    bool Same = true;
    for (uint32_t R = 0; R < Pl->Header.Ranks; ++R) {
      REQUIRE(Bits[R].size() == 64 * Pl->Header.Blocks);
      Same &= Bits[R] == Bits[0];
    }
    CHECK(Same == V.IdenticalResults);
    auto Order = S.Params.find("order");
    // NAP's printed order differs at every shape listed, the census's at
    // every P >= 3; permutation's only at r >= 1 and P not a power of two.
    if (Order != S.Params.end())
      CHECK(Same == (Order->second == "identical" || S.Topo.ranks() <= 2 ||
                     (S.Algorithm == std::string("permutation") &&
                      (S.Params.at("r") == "0" ||
                       llvm::isPowerOf2_32(S.Topo.ranks())))));
    (V.IdenticalResults ? Identical : Different)++;
    // Stopping at the first difference (the tuner's check) gives the same
    // verdict, and claims validity only when it replayed the whole plan.
    VerifyOptions Stop;
    Stop.StopAtDifferentOrders = true;
    VerifyResult Early = verifyPlan(*Pl, Stop);
    CHECK(Early.IdenticalResults == V.IdenticalResults);
    CHECK(Early.Valid == V.IdenticalResults);
  }
  // Both verdicts occur (the census's and permutation's rank-dependent
  // orders, r >= 1 at P not a power of two, combine rank-dependently; ring
  // does not).
  CHECK(Identical > 20);
  CHECK(Different > 5);
  MESSAGE("identical: " << Identical << ", rank-dependent: " << Different);
}

TEST_CASE("auto chooses plans with identical results unless allowed not to") {
  // P = 5 at 4 KiB: the fastest candidates (circulant, permutation r = 3)
  // combine rank-dependently (the reproducer).
  CompileRequest Req;
  Req.Kind = Collective::Allreduce;
  Req.Topo = Topology::flat(5);
  Req.Bytes = 4096;
  for (bool Allow : {false, true}) {
    Req.IdenticalResults = !Allow;
    llvm::Expected<Compilation> C = collplan::compile(Req);
    REQUIRE(bool(C));
    VerifyResult V = verifyPlan(C->best());
    REQUIRE(V.Valid);
    INFO("allowed: " << Allow << ", chosen: " << C->Chosen->name().str());
    CHECK(V.IdenticalResults == !Allow);
    bool PassedOver = false;
    for (const Candidate &K : C->Candidates)
      PassedOver |=
          K.Skipped.find("differ in the last bits") != std::string::npos;
    CHECK(PassedOver == !Allow);
  }
}
