//===- PermutationBench.cpp - Compile and verify times at large P ---------===//
//
// Prints wall-clock times of compiling (prepare + every buildRank), verifying
// and costing permutation plans at P = 1024, 4096, 16384 for r = 0 and r = L,
// and of choosing r with the cost model (the XOR group is skipped at
// P = 16384, see below). The figures are for the lead's bench
// tool; the assertions only check that the plans verify.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"

#include "llvm/Support/MathExtras.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>

using namespace collplan;

namespace {

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

} // namespace

TEST_CASE("permutation: compile, verify and cost times") {
  const Algorithm *A = findAlgorithm("permutation");
  REQUIRE(A != nullptr);
  std::printf("%7s %4s %7s %11s %11s %11s %10s\n", "P", "r", "group",
              "compile[s]", "verify[s]", "cost[s]", "mode");
  for (uint32_t P : {1024u, 4096u, 16384u}) {
    unsigned L = llvm::Log2_32_Ceil(P);
    for (const char *Group : {"cyclic", "xor"})
      for (unsigned R : {0u, L}) {
        // Verifying the latency-optimal plan is O(P^2 L); at P = 16384 one
        // group (about a minute) keeps this binary within its time budget.
        if (P > 4096 && llvm::StringRef(Group) == "xor")
          continue;
        CompileRequest Req;
        Req.Topo = Topology::flat(P);
        Req.Params = {{"r", std::to_string(R)}, {"group", Group}};
        auto Start = std::chrono::steady_clock::now();
        llvm::Expected<Plan> Pl = compilePlan(*A, Req);
        double Compile = secondsSince(Start);
        REQUIRE(bool(Pl));
        Start = std::chrono::steady_clock::now();
        VerifyResult V = verifyPlan(*Pl);
        double Verify = secondsSince(Start);
        CHECK(V.Valid);
        Start = std::chrono::steady_clock::now();
        evaluateCost(*Pl, Req.Bytes, Req.Cost);
        double Cost = secondsSince(Start);
        std::printf("%7u %4u %7s %11.3f %11.3f %11.3f %10s\n", P, R, Group,
                    Compile, Verify, Cost,
                    verifyModeName(V.Stats.ModeUsed).str().c_str());
      }
    CompileRequest Req;
    Req.Topo = Topology::flat(P);
    auto Start = std::chrono::steady_clock::now();
    llvm::Expected<PlanHeader> H = A->prepare(Req);
    REQUIRE(bool(H));
    std::printf("%7u: choosing r (= %s, group %s) with the cost model: "
                "%.3f s\n",
                P, H->Params.at("r").c_str(), H->Params.at("group").c_str(),
                secondsSince(Start));
    Start = std::chrono::steady_clock::now();
    A->buildRank(*H, P / 3);
    std::printf("%7u: one rank's program: %.6f s\n", P, secondsSince(Start));
  }
}
