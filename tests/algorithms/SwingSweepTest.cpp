//===- SwingSweepTest.cpp - Swing and bucket verified over many tori ------===//
//
// Every swing plan (both variants, both port settings, Swing-L in both
// orders) and every bucket plan (both port settings) for every collective
// each supports, on rings of
// P = 1..256, on a x b tori for a, b in 1..12 and on a few 3-D and 4-D tori,
// must pass checkStructure, the verifier and, for small P, the brute-force
// simulator. Requests the families refuse are listed here explicitly
// (expectRefused), so a shape that silently stops compiling, or starts
// compiling when it should not, fails the sweep. Swing-L in its identical
// order must give every rank the same bits (the verifier's verdict).
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

struct Config {
  const char *Algorithm;
  const char *Variant; ///< Swing only; null for bucket.
  const char *Ports;
  const char *Order = nullptr; ///< Swing-L only.
};

constexpr Config Configs[] = {
    {"swing", "bandwidth", "1"},
    {"swing", "bandwidth", "all"},
    {"swing", "latency", "1", "identical"},
    {"swing", "latency", "all", "identical"},
    {"swing", "latency", "1", "rank-dependent"},
    {"swing", "latency", "all", "rank-dependent"},
    {"bucket", nullptr, "1"},
    {"bucket", nullptr, "all"},
};

constexpr Collective Kinds[] = {
    Collective::Allreduce, Collective::ReduceScatter, Collective::Allgather};

/// The requests the families refuse by design: Swing-L is an allreduce only
/// (it exchanges whole vectors), and swing reduce-scatter / allgather need
/// every dimension of a multi-dimensional torus even or 1 (odd ones are
/// folded, which only allreduce can undo; an odd ring has §3.2's odd node).
/// Swing-L in one tree holds more than 32 partials at once on the swept
/// 4x6x10 (folded to 4x4x8) with all ports: 36. Bucket serves every shape.
bool expectRefused(const Config &C, Collective Kind,
                   llvm::ArrayRef<uint32_t> Dims) {
  if (llvm::StringRef(C.Algorithm) != "swing")
    return false;
  if (Kind == Collective::Allreduce)
    return C.Order && llvm::StringRef(C.Order) == "identical" &&
           llvm::StringRef(C.Ports) == "all" &&
           Dims == llvm::ArrayRef<uint32_t>({4, 6, 10});
  if (llvm::StringRef(C.Variant) == "latency")
    return true;
  if (Dims.size() == 1)
    return false;
  for (uint32_t D : Dims)
    if (D > 1 && D % 2)
      return true;
  return false;
}

void checkShape(llvm::ArrayRef<uint32_t> Dims, bool Flat, uint32_t SimulateUpTo,
                bool WithBucket = true) {
  uint32_t P = 1;
  for (uint32_t D : Dims)
    P *= D;
  for (const Config &C : Configs)
    for (Collective Kind : Kinds) {
      if (!WithBucket && llvm::StringRef(C.Algorithm) == "bucket")
        continue;
      CompileRequest Req;
      Req.Kind = Kind;
      Req.Topo = Flat ? Topology::flat(P) : Topology::torus(Dims, 1);
      if (C.Variant)
        Req.Params["variant"] = C.Variant;
      Req.Params["ports"] = C.Ports;
      if (C.Order)
        Req.Params["order"] = C.Order;
      std::string What = std::string(C.Algorithm) + " " +
                         (C.Variant ? C.Variant : "") + " ports=" + C.Ports +
                         (C.Order ? std::string(" order=") + C.Order : "") +
                         " " + collectiveName(Kind).str() + " on " +
                         Req.Topo.str() + " P=" + std::to_string(P);
      CAPTURE(What);
      llvm::Expected<Plan> Result =
          compilePlan(*findAlgorithm(C.Algorithm), Req);
      if (expectRefused(C, Kind, Dims)) {
        CHECK_MESSAGE(!Result, "expected a refusal");
        if (!Result)
          llvm::consumeError(Result.takeError());
        continue;
      }
      if (!Result) {
        FAIL_CHECK(llvm::toString(Result.takeError()));
        continue;
      }
      expectCorrect(*Result, /*Interpret=*/P <= SimulateUpTo);
      if (C.Order && llvm::StringRef(C.Order) == "identical")
        CHECK(verifyPlan(*Result).IdenticalResults);
    }
}

} // namespace

TEST_CASE("swing verifies on rings of P = 1..256, bucket on a sample") {
  // Bucket on a ring is a (bidirectional) ring allreduce, P^2 operations per
  // plan: every P up to 96, then a few larger sizes, keep the sweep short.
  for (uint32_t P = 1; P <= 256; ++P) {
    uint32_t Dims[] = {P};
    bool Bucket = P <= 96 || P == 127 || P == 128 || P == 255 || P == 256;
    checkShape(Dims, /*Flat=*/true, /*SimulateUpTo=*/48, Bucket);
  }
}

TEST_CASE("swing and bucket verify on a x b tori, a, b in 1..12") {
  for (uint32_t A = 1; A <= 12; ++A)
    for (uint32_t B = 1; B <= 12; ++B) {
      uint32_t Dims[] = {A, B};
      checkShape(Dims, /*Flat=*/false, /*SimulateUpTo=*/64);
    }
}

TEST_CASE("swing and bucket verify on 3-D and 4-D tori") {
  const std::vector<std::vector<uint32_t>> Shapes = {
      {2, 2, 2, 2}, {4, 4, 4}, {3, 5, 2}, {6, 6, 2}, {4, 6, 10}};
  for (const std::vector<uint32_t> &Dims : Shapes)
    checkShape(Dims, /*Flat=*/false, /*SimulateUpTo=*/64);
}
