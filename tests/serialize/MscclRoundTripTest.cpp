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
#include "plan/serialize/MscclXmlModel.h"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
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
      // MSCCL's chunks are all one size; alltoallv of equal counts comes
      // back as the alltoall it is.
      if (K == Collective::Allgatherv || K == Collective::Alltoallv)
        continue;
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

namespace {

/// Every gpu's steps as (gpu, peer, type, buffers, offsets, count), in no
/// order: what a file moves where, whatever its threadblocks and channels.
std::multiset<std::string> stepsOf(const msccl::Algorithm &A) {
  std::multiset<std::string> Out;
  for (const msccl::Gpu &G : A.GpuList)
    for (const msccl::Threadblock &Tb : G.Tbs)
      for (const msccl::Step &S : Tb.Steps) {
        if (S.Type == msccl::StepType::Nop)
          continue;
        int64_t Peer = msccl::hasSend(S.Type)   ? Tb.SendPeer
                       : msccl::hasRecv(S.Type) ? Tb.RecvPeer
                                                : -1;
        Out.insert(std::to_string(G.Id) + " " + std::to_string(Peer) + " " +
                   msccl::stepTypeName(S.Type).str() + " " + S.SrcBuf +
                   std::to_string(S.SrcOff) + " " + S.DstBuf +
                   std::to_string(S.DstOff) + " " + std::to_string(S.Count));
      }
  return Out;
}

} // namespace

TEST_CASE("an exported direct alltoall has the steps of MSCCL's own file") {
  // alltoall-8n-0-1kb.xml is MSCCL's direct exchange on 8 gpus: each sends
  // its i chunk d to gpu d, which receives it into its o chunk s, and copies
  // its own from i to o. Bruck of radix P with all ports is that exchange.
  std::ifstream In(COLLPLAN_SOURCE_DIR
                   "/tests/fixtures/msccl/alltoall-8n-0-1kb.xml");
  std::string Fixture((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
  llvm::Expected<msccl::Algorithm> Theirs =
      msccl::parseAlgorithm(Fixture, "fixture");
  REQUIRE_MESSAGE(bool(Theirs), llvm::toString(Theirs.takeError()));

  CompileRequest Req = requestFor(Collective::Alltoall, 8, 0);
  Req.Params = {{"radix", "8"}, {"ports", "all"}};
  llvm::Expected<Plan> Direct = compilePlan(*findAlgorithm("bruck"), Req);
  REQUIRE_MESSAGE(bool(Direct), llvm::toString(Direct.takeError()));
  llvm::Expected<std::string> Xml = encodeMscclXml(*Direct, {});
  REQUIRE_MESSAGE(bool(Xml), llvm::toString(Xml.takeError()));
  llvm::Expected<msccl::Algorithm> Ours = msccl::parseAlgorithm(*Xml, "ours");
  REQUIRE_MESSAGE(bool(Ours), llvm::toString(Ours.takeError()));

  CHECK(Ours->CollName == "alltoall");
  CHECK_FALSE(Ours->InPlace);
  CHECK(Ours->ChunksPerLoop == Theirs->ChunksPerLoop);
  for (const msccl::Gpu &G : Ours->GpuList) {
    CHECK(G.InputChunks == 8);
    CHECK(G.OutputChunks == 8);
    CHECK(G.ScratchChunks == 0);
  }
  CHECK(stepsOf(*Ours) == stepsOf(*Theirs));
}

TEST_CASE("a forwarded alltoall keeps its blocks in scratch on the way") {
  // Bruck radix 2 on 4 gpus: block (0, 3) reaches gpu 3 through gpu 1, where
  // it is neither in the row nor in the column: a scratch chunk.
  CompileRequest Req = requestFor(Collective::Alltoall, 4, 0);
  Req.Params = {{"radix", "2"}, {"ports", "1"}};
  llvm::Expected<Plan> Bruck = compilePlan(*findAlgorithm("bruck"), Req);
  REQUIRE(bool(Bruck));
  llvm::Expected<std::string> Xml = encodeMscclXml(*Bruck, {});
  REQUIRE_MESSAGE(bool(Xml), llvm::toString(Xml.takeError()));
  llvm::Expected<msccl::Algorithm> A = msccl::parseAlgorithm(*Xml, "bruck");
  REQUIRE(bool(A));
  for (const msccl::Gpu &G : A->GpuList)
    CHECK(G.ScratchChunks > 0);
  llvm::Expected<Plan> Back = decodeMscclXml(*Xml, "bruck.xml");
  REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
  VerifyResult V = verifyPlan(*Back);
  CHECK_MESSAGE(V.Valid, (V.Errors.empty() ? "" : V.Errors[0].str()));
  CHECK(run(*Back, 0) == "");
}
