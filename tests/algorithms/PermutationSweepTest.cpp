//===- PermutationSweepTest.cpp - Verifier sweep of the permutation family ===//
//
// Every P in 1..256 and every r (both groups where P is a power of two) for
// allreduce, and reduce-scatter / allgather for every P, checked by the
// verifier (spec §8 item 7). Small P are also run through the reference
// interpreter of tests/support/ReferenceInterpreter.h.
//
//===----------------------------------------------------------------------===//

#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"

#include "llvm/Support/MathExtras.h"

#include <doctest/doctest.h>

#include <string>

using namespace collplan;

namespace {

constexpr uint32_t MaxP = 256;
constexpr uint32_t SimulatedUpTo = 64;

const Algorithm &algo() {
  const Algorithm *A = findAlgorithm("permutation");
  REQUIRE(A != nullptr);
  return *A;
}

void check(Collective Kind, uint32_t P,
           std::map<std::string, std::string> Params) {
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topology::flat(P);
  Req.Params = Params;
  llvm::Expected<Plan> Pl = compilePlan(algo(), Req);
  REQUIRE(bool(Pl));
  CHECK(checkStructure(*Pl).empty());
  VerifyResult V = verifyPlan(*Pl);
  if (!V.Valid) {
    std::string First = V.Errors.empty() ? "" : V.Errors.front().str();
    FAIL_CHECK(collectiveName(Kind).str()
               << " P = " << P << " r = " << Params["r"]
               << " group = " << Params["group"] << ": " << First);
  }
  if (P <= SimulatedUpTo) {
    test::ReferenceInterpreter Sim(*Pl);
    CHECK(Sim.run().firstError() == "");
    CHECK(Sim.run().firstEndError() == "");
  }
}

} // namespace

TEST_CASE("allreduce: every P in 1..256, every r, every group") {
  for (uint32_t P = 1; P <= MaxP; ++P) {
    unsigned L = P == 1 ? 0 : llvm::Log2_32_Ceil(P);
    for (unsigned R = 0; R <= L; ++R) {
      check(Collective::Allreduce, P,
            {{"r", std::to_string(R)}, {"group", "cyclic"}});
      if (llvm::isPowerOf2_32(P))
        check(Collective::Allreduce, P,
              {{"r", std::to_string(R)}, {"group", "xor"}});
    }
  }
}

TEST_CASE("reduce-scatter and allgather: every P in 1..256") {
  for (uint32_t P = 1; P <= MaxP; ++P)
    for (Collective C : {Collective::ReduceScatter, Collective::Allgather}) {
      check(C, P, {{"group", "cyclic"}});
      if (llvm::isPowerOf2_32(P))
        check(C, P, {{"group", "xor"}});
    }
}

TEST_CASE("the rank-0 search above the exact limit agrees with evaluateCost") {
  // P * (L + 1) = 2048 * 12 is above the limit where prepare() prices every
  // full plan, so it prices rank 0's rounds; with P | m that is exact.
  for (uint32_t P : {2047u, 2048u}) {
    unsigned L = llvm::Log2_32_Ceil(P);
    for (uint64_t Bytes :
         {uint64_t(P) * 4, uint64_t(P) * 256, uint64_t(P) * 16384}) {
      CompileRequest Req;
      Req.Topo = Topology::flat(P);
      Req.Bytes = Bytes;
      Req.Cost.Alpha = 3e-5;
      Req.Cost.Beta = 1e-8;
      Req.Cost.Gamma = 2e-10;
      llvm::Expected<PlanHeader> H = algo().prepare(Req);
      REQUIRE(bool(H));
      unsigned Best = 0;
      double BestTime = 0;
      for (unsigned R = 0; R <= L; ++R) {
        CompileRequest Fixed = Req;
        Fixed.Params["r"] = std::to_string(R);
        llvm::Expected<Plan> Pl = compilePlan(algo(), Fixed);
        REQUIRE(bool(Pl));
        double T = evaluateCost(*Pl, Bytes, Req.Cost).Time;
        if (R == 0 || T < BestTime)
          Best = R, BestTime = T;
      }
      INFO("P = ", P, ", m = ", Bytes);
      CHECK(H->Params.at("r") == std::to_string(Best));
    }
  }
}
