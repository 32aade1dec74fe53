//===- MscclRoundTripTest.cpp - Plans through MSCCL XML and back ----------===//
//
// Every registered algorithm's plan for every collective MSCCL has, at
// P <= 16, exported to MSCCL XML (both dialects, one and two channels),
// imported back: the verifier accepts the import and, on threads, both the
// original and the imported plan give the brute-force oracle's results. An
// export refused names the runtime limit it would break.
//
//===----------------------------------------------------------------------===//

#include "../runtime/ThreadRun.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"
#include "plan/serialize/MscclXml.h"

#include <doctest/doctest.h>

#include <string>

using namespace collplan;

namespace {

CompileRequest requestFor(Collective K, uint32_t P, uint32_t Variant) {
  CompileRequest Req;
  Req.Kind = K;
  Req.Topo = Topology::flat(P);
  Req.Bytes = 1 << 16;
  if (hasRoot(K))
    Req.Root = Variant % P;
  return Req;
}

std::string run(const Plan &P, uint32_t Variant) {
  using namespace collplan::runtime;
  using namespace collplan::runtime::test;
  Case C{Datatype::Int32, ReduceOp::Sum, P.Header.Blocks * 2 + Variant % 3,
         Variant % 2 == 0};
  return runCase(P, C);
}

} // namespace

TEST_CASE("every algorithm's plan round-trips through MSCCL XML") {
  size_t Exported = 0, Refused = 0, Variant = 0;
  for (const Algorithm *A : allAlgorithms())
    for (Collective K : A->collectives()) {
      if (K == Collective::Allgatherv)
        continue; // MSCCL's chunks are all one size.
      if (isPersonalised(K))
        continue; // Exporting alltoall is not implemented.
      for (uint32_t P = 1; P <= 16; ++P) {
        ++Variant;
        llvm::Expected<Plan> Original =
            compilePlan(*A, requestFor(K, P, uint32_t(Variant)));
        if (!Original) {
          llvm::consumeError(Original.takeError());
          continue;
        }
        MscclExportOptions O;
        O.Dialect = Variant % 2 ? "msccl" : "rccl";
        O.Channels = 1 + Variant % 2;
        INFO(A->name().str() << " " << collectiveName(K).str() << " P=" << P
                             << " " << O.Dialect << " channels " << O.Channels);
        llvm::Expected<std::string> Xml = encodeMscclXml(*Original, O);
        if (!Xml) {
          ErrorReport R = takeErrorReport(Xml.takeError(), ErrorKind::Usage);
          CHECK(R.Kind == ErrorKind::CannotCompile);
          bool NamesLimit = R.Message.find("limit") != std::string::npos ||
                            R.Message.find("16 bits") != std::string::npos;
          CHECK_MESSAGE(NamesLimit, R.Message);
          ++Refused;
          continue;
        }
        ++Exported;
        llvm::Expected<Plan> Back = decodeMscclXml(*Xml, "exported.xml");
        REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
        CHECK(Back->Header.Kind == K);
        CHECK(Back->Header.Root == Original->Header.Root);
        VerifyResult V = verifyPlan(*Back);
        CHECK_MESSAGE(V.Valid, (V.Errors.empty() ? "" : V.Errors[0].str()));
        std::string Before = run(*Original, uint32_t(Variant));
        std::string After = run(*Back, uint32_t(Variant));
        CHECK_MESSAGE(Before == "", Before);
        CHECK_MESSAGE(After == "", After);
      }
    }
  MESSAGE(Exported << " plans round-tripped, " << Refused
                   << " refused for MSCCL's limits");
  CHECK(Exported > 100);
}

TEST_CASE("the two dialects name reduce-scatter differently") {
  const Algorithm *Ring = findAlgorithm("ring");
  REQUIRE(Ring);
  llvm::Expected<Plan> P =
      compilePlan(*Ring, requestFor(Collective::ReduceScatter, 4, 0));
  REQUIRE(bool(P));
  MscclExportOptions O;
  O.Dialect = "msccl";
  O.Protocol = "LL128";
  llvm::Expected<std::string> Old = encodeMscclXml(*P, O);
  REQUIRE(bool(Old));
  CHECK(Old->find("coll=\"reduce_scatter\"") != std::string::npos);
  CHECK(Old->find("minBytes") == std::string::npos);
  CHECK(Old->find("proto=\"LL128\"") != std::string::npos);
  O.Dialect = "rccl";
  llvm::Expected<std::string> New = encodeMscclXml(*P, O);
  REQUIRE(bool(New));
  CHECK(New->find("coll=\"reducescatter\"") != std::string::npos);
  CHECK(New->find("outofplace=\"0\" minBytes=\"0\"") != std::string::npos);
  O.Dialect = "nccl";
  ErrorReport R =
      takeErrorReport(encodeMscclXml(*P, O).takeError(), ErrorKind::Invalid);
  CHECK(R.Kind == ErrorKind::Usage);
}

TEST_CASE("limits are checked and named") {
  const Algorithm *Ring = findAlgorithm("ring");
  REQUIRE(Ring);
  llvm::Expected<Plan> P =
      compilePlan(*Ring, requestFor(Collective::Allreduce, 16, 0));
  REQUIRE(bool(P));
  MscclExportOptions O;
  O.Limits.StepsPerThreadblock = 8; // The ring needs 30 per threadblock.
  ErrorReport R =
      takeErrorReport(encodeMscclXml(*P, O).takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::CannotCompile);
  CHECK(R.Message.find("steps per threadblock") != std::string::npos);
  O = MscclExportOptions();
  O.Limits.ThreadblocksPerChannel = 1;
  R = takeErrorReport(encodeMscclXml(*P, O).takeError(), ErrorKind::Usage);
  CHECK(R.Message.find("threadblocks on channel 0") != std::string::npos);
  O = MscclExportOptions();
  O.Limits.MaxOffset = 7; // 16 blocks.
  R = takeErrorReport(encodeMscclXml(*P, O).takeError(), ErrorKind::Usage);
  CHECK(R.Message.find("16 bits") != std::string::npos);
}
