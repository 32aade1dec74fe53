//===- MscclImportTest.cpp - MSCCL XML files from RCCL and MSCCLang -------===//
//
// Oracles: the fixtures are real algorithms that nobody on this project
// wrote (tests/fixtures/msccl/README.md); the verifier and the executor on
// threads against the brute-force oracle judge the imported plans.
// Mutations of a fixture (one step dropped, an offset or a peer changed, a
// dependency cycle) must be refused, by the import or by the verifier.
//
//===----------------------------------------------------------------------===//

#include "../runtime/ThreadRun.h"

#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"
#include "plan/serialize/MscclXml.h"
#include "plan/serialize/PlanFile.h"

#include <doctest/doctest.h>
#include <tinyxml2.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace collplan;

namespace {

const std::string FixtureDir = COLLPLAN_SOURCE_DIR "/tests/fixtures/msccl/";

const char *const Fixtures[] = {
    "allgather-8n-0-1kb.xml",
    "allgather-allpairs-8n-ll.xml",
    "allgather-simplering-4r-1i-Simple.xml",
    "allreduce-1step-4n-ll-1pass.xml",
    "allreduce-allpairs-8n-Simple-1pass.xml",
    "allreduce-hier-2x4-1i-Simple-auto.xml",
    "allreduce-ring-4r-1ch-1i-Simple.xml",
    "allreduce_1step_mccl_8_2_2048_LL.xml",
    "alltoall-8n-0-1kb.xml",
};

std::string runOnThreads(const Plan &P) {
  using namespace collplan::runtime;
  using namespace collplan::runtime::test;
  for (uint64_t PerBlock : {1, 3})
    for (bool InPlace : {false, true}) {
      Case C{Datatype::Int32, ReduceOp::Sum, P.Header.Blocks * PerBlock,
             InPlace};
      std::string F = runCase(P, C);
      if (!F.empty())
        return F + (InPlace ? " (in place)" : " (out of place)");
    }
  return "";
}

/// Import + verify: "" when accepted, else the reason.
std::string rejection(const std::string &Xml) {
  llvm::Expected<Plan> P = decodeMscclXml(Xml, "mutant.xml");
  if (!P)
    return takeErrorReport(P.takeError(), ErrorKind::Usage).Message;
  VerifyResult R = verifyPlan(*P);
  if (!R.Valid)
    return "verifier: " + R.Errors.front().str();
  std::string F = runOnThreads(*P);
  return F.empty() ? "" : "executor: " + F;
}

std::string print(tinyxml2::XMLDocument &Doc) {
  tinyxml2::XMLPrinter Printer;
  Doc.Print(&Printer);
  return Printer.CStr();
}

std::vector<tinyxml2::XMLElement *> elements(tinyxml2::XMLElement *Parent,
                                             const char *Name) {
  std::vector<tinyxml2::XMLElement *> Out;
  for (auto *E = Parent->FirstChildElement(Name); E;
       E = E->NextSiblingElement(Name))
    Out.push_back(E);
  return Out;
}

/// Every step of the file, with its threadblock and gpu.
struct StepRef {
  tinyxml2::XMLElement *Gpu, *Tb, *Step;
};
std::vector<StepRef> steps(tinyxml2::XMLDocument &Doc) {
  std::vector<StepRef> Out;
  for (auto *G : elements(Doc.RootElement(), "gpu"))
    for (auto *T : elements(G, "tb"))
      for (auto *S : elements(T, "step"))
        Out.push_back({G, T, S});
  return Out;
}

/// Applies Mutate to the I-th step of a fresh copy of Xml.
std::string
mutated(const std::string &Xml, size_t I,
        const std::function<void(tinyxml2::XMLDocument &, StepRef)> &Mutate) {
  tinyxml2::XMLDocument Doc;
  REQUIRE(Doc.Parse(Xml.c_str()) == tinyxml2::XML_SUCCESS);
  std::vector<StepRef> All = steps(Doc);
  Mutate(Doc, All[I % All.size()]);
  return print(Doc);
}

std::string readFixture(const char *Name) {
  auto B = llvm::MemoryBuffer::getFile(FixtureDir + Name);
  REQUIRE(B);
  return (*B)->getBuffer().str();
}

bool isNop(const StepRef &S) {
  return std::string(S.Step->Attribute("type")) == "nop";
}

} // namespace

TEST_CASE("every MSCCL fixture imports, verifies and runs on threads") {
  for (const char *F : Fixtures) {
    INFO(std::string(F));
    auto Start = std::chrono::steady_clock::now();
    llvm::Expected<Plan> P = readPlanFile(FixtureDir + F);
    REQUIRE_MESSAGE(bool(P), llvm::toString(P.takeError()));
    VerifyResult R = verifyPlan(*P);
    double Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    MESSAGE(std::string(F)
            << ": P=" << P->Header.Ranks << " blocks=" << P->Header.Blocks
            << " buffers=" << P->Header.Buffers.size() << " rounds="
            << (P->Programs.empty() ? 0 : P->Programs[0].Rounds.size())
            << " import+verify " << Seconds * 1000 << " ms");
    CHECK_MESSAGE(R.Valid, (R.Errors.empty() ? "" : R.Errors.front().str()));
    CHECK_MESSAGE(runOnThreads(*P) == "", runOnThreads(*P));
  }
}

// MSCCL's alltoall: gpu g's input chunk i is its data for gpu i, its output
// chunk i gpu i's data for it; the plan names the pair (i, g) block 8 i + g.
TEST_CASE("MSCCL's alltoall imports as the (sender, receiver) matrix") {
  llvm::Expected<Plan> P = readPlanFile(FixtureDir + "alltoall-8n-0-1kb.xml");
  REQUIRE_MESSAGE(bool(P), llvm::toString(P.takeError()));
  CHECK(P->Header.Kind == Collective::Alltoall);
  CHECK(P->Header.Blocks == 64);
  // Gpu 3 receives from every other gpu exactly its block, (g, 3), and
  // sends each its own, (3, g).
  BlockSet Received, Sent;
  for (const Round &Rd : P->Programs[3].Rounds)
    for (const Op &O : Rd.Ops) {
      if (O.Kind == OpKind::Recv)
        Received.insert(O.Blocks);
      if (O.Kind == OpKind::Send)
        Sent.insert(O.Blocks);
    }
  CHECK(Received.str() == "3,11,19,35,43,51,59");
  CHECK(Sent.str() == "24-26,28-31");
  // In place, a chunk of the user's buffer would hold two blocks.
  std::string Xml = readFixture("alltoall-8n-0-1kb.xml");
  size_t At = Xml.find("inplace=\"0\" outofplace=\"1\"");
  REQUIRE(At != std::string::npos);
  Xml.replace(At, 26, "inplace=\"1\" outofplace=\"0\"");
  llvm::Expected<Plan> InPlace = decodeMscclXml(Xml, "inplace.xml");
  REQUIRE(!InPlace);
  ErrorReport R = takeErrorReport(InPlace.takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::CannotCompile);
  CHECK(R.Message.find("in-place alltoall") != std::string::npos);
}

TEST_CASE("malformed XML and unknown step types name the line") {
  ErrorReport R = takeErrorReport(
      decodeMscclXml("<algo name=\"x\"\n proto=\"LL\" <gpu>", "bad.xml")
          .takeError(),
      ErrorKind::Invalid);
  CHECK(R.Kind == ErrorKind::Usage);
  CHECK(R.Message.find("bad.xml:1: malformed XML") != std::string::npos);

  std::string Xml = readFixture("allreduce-ring-4r-1ch-1i-Simple.xml");
  std::string Unknown = mutated(
      Xml, 2, [](auto &, StepRef S) { S.Step->SetAttribute("type", "rre"); });
  R = takeErrorReport(decodeMscclXml(Unknown, "u.xml").takeError(),
                      ErrorKind::Invalid);
  CHECK(R.Kind == ErrorKind::CannotCompile);
  CHECK(R.Message.find("rre") != std::string::npos);
}

TEST_CASE("a dependency cycle and an unmatched receive are deadlocks") {
  std::string Xml = readFixture("allgather-simplering-4r-1i-Simple.xml");
  // gpu 0: threadblock 0's copy waits for threadblock 2's send, which
  // already waits for the copy.
  tinyxml2::XMLDocument Doc;
  REQUIRE(Doc.Parse(Xml.c_str()) == tinyxml2::XML_SUCCESS);
  auto *Gpu0 = Doc.RootElement()->FirstChildElement("gpu");
  auto *Copy = Gpu0->FirstChildElement("tb")->FirstChildElement("step");
  Copy->SetAttribute("depid", 2);
  Copy->SetAttribute("deps", 0);
  ErrorReport R = takeErrorReport(
      decodeMscclXml(print(Doc), "cycle.xml").takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::Invalid);
  CHECK(R.Message.find("deadlock") != std::string::npos);
  CHECK(R.Message.find("gpu 0, threadblock 0, step 0") != std::string::npos);

  // A receive on a channel nobody sends on.
  std::string Lonely =
      mutated(Xml, 1, [](auto &, StepRef S) { S.Tb->SetAttribute("chan", 3); });
  R = takeErrorReport(decodeMscclXml(Lonely, "lonely.xml").takeError(),
                      ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::Invalid);
  CHECK(R.Message.find("no send provides") != std::string::npos);
}

TEST_CASE("single-step mutations of every fixture are refused") {
  size_t Tried = 0;
  std::map<std::string, size_t> ByReason;
  for (const char *F : Fixtures) {
    std::string Xml = readFixture(F);
    tinyxml2::XMLDocument Doc;
    REQUIRE(Doc.Parse(Xml.c_str()) == tinyxml2::XML_SUCCESS);
    size_t Steps = steps(Doc).size();
    // A handful of positions spread over the file.
    for (size_t K = 0; K < 6; ++K) {
      size_t I = (K * 7919 + 13) % Steps;
      std::vector<std::pair<const char *, std::string>> Mutants;
      if (isNop(steps(Doc)[I]))
        continue;
      Mutants.push_back({"drop", mutated(Xml, I, [](auto &, StepRef S) {
                           // Later steps move up; dependencies on them keep
                           // their numbers, so renumber the steps.
                           S.Tb->DeleteChild(S.Step);
                           int N = 0;
                           for (auto *St : elements(S.Tb, "step"))
                             St->SetAttribute("s", N++);
                         })});
      Mutants.push_back({"offset", mutated(Xml, I, [](auto &, StepRef S) {
                           std::string T = S.Step->Attribute("type");
                           const char *A = (T == "s" || T == "re" ||
                                            T == "cpy" || T == "rrs")
                                               ? "srcoff"
                                               : "dstoff";
                           int64_t Off = S.Step->Int64Attribute(A);
                           S.Step->SetAttribute(A, Off > 0 ? Off - 1 : Off + 1);
                         })});
      Mutants.push_back({"peer", mutated(Xml, I, [](auto &Doc, StepRef S) {
                           int64_t Gpus =
                               Doc.RootElement()->Int64Attribute("ngpus");
                           const char *A = S.Tb->Int64Attribute("send") >= 0
                                               ? "send"
                                               : "recv";
                           int64_t Me = S.Gpu->Int64Attribute("id");
                           int64_t Peer = S.Tb->Int64Attribute(A);
                           if (Peer < 0)
                             return;
                           int64_t New = (Peer + 1) % Gpus;
                           if (New == Me)
                             New = (New + 1) % Gpus;
                           S.Tb->SetAttribute(A, New);
                         })});
      for (auto &[Kind, Text] : Mutants) {
        if (Text == print(Doc))
          continue; // The mutation did not apply here.
        ++Tried;
        INFO(std::string(F) << ": " << Kind << " at step " << I);
        std::string Why = rejection(Text);
        CHECK(Why != "");
        ++ByReason[Why.rfind("verifier", 0) == 0   ? "verifier"
                   : Why.rfind("executor", 0) == 0 ? "executor"
                                                   : "import"];
      }
    }
  }
  // A dependency cycle: gpu 0's first threadblock starts after the second
  // one ends, and the second starts after the first ends.
  for (const char *F : Fixtures) {
    tinyxml2::XMLDocument Doc;
    REQUIRE(Doc.Parse(readFixture(F).c_str()) == tinyxml2::XML_SUCCESS);
    auto Tbs = elements(Doc.RootElement()->FirstChildElement("gpu"), "tb");
    if (Tbs.size() < 2)
      continue;
    for (int K = 0; K < 2; ++K) {
      auto Own = elements(Tbs[K], "step"), Other = elements(Tbs[1 - K], "step");
      Own.front()->SetAttribute("depid", Tbs[1 - K]->Int64Attribute("id"));
      Own.front()->SetAttribute("deps", int64_t(Other.size() - 1));
    }
    ++Tried;
    INFO(std::string(F) << ": cycle");
    std::string Why = rejection(print(Doc));
    CHECK(Why.find("deadlock") != std::string::npos);
    ++ByReason["import"];
  }
  MESSAGE(Tried << " mutants refused: " << ByReason["import"]
                << " by the import, " << ByReason["verifier"]
                << " by the verifier, " << ByReason["executor"]
                << " by the executor only");
  CHECK(Tried > 20);
}

namespace {

/// A ring reduce-scatter on 3 gpus, out of place, written by hand: gpu r
/// sends its input chunk r+2, reduces the incoming chunk r+1 with its own
/// and passes it on (rrs), and reduces chunk r into its output (rrc).
std::string ringReduceScatter(const std::string &Coll,
                              const std::string &Extra) {
  std::string X = "<algo name=\"rs_ring\" proto=\"Simple\" nchannels=\"1\" "
                  "nchunksperloop=\"3\" ngpus=\"3\" coll=\"" +
                  Coll + "\" inplace=\"0\"" + Extra + ">\n";
  for (int R = 0; R < 3; ++R) {
    std::string Id = std::to_string(R);
    auto Chunk = [&](int D) { return std::to_string((R + D) % 3); };
    auto Step = [&](int S, const char *Type, const std::string &Src,
                    const std::string &SrcOff, const std::string &Dst,
                    const std::string &DstOff) {
      return "<step s=\"" + std::to_string(S) + "\" type=\"" + Type +
             "\" srcbuf=\"" + Src + "\" srcoff=\"" + SrcOff + "\" dstbuf=\"" +
             Dst + "\" dstoff=\"" + DstOff +
             "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    };
    X += "<gpu id=\"" + Id +
         "\" i_chunks=\"3\" o_chunks=\"1\" s_chunks=\"0\">\n<tb id=\"0\" "
         "send=\"" +
         std::to_string((R + 1) % 3) + "\" recv=\"" +
         std::to_string((R + 2) % 3) + "\" chan=\"0\">\n";
    X += Step(0, "s", "i", Chunk(2), "i", Chunk(2));
    X += Step(1, "rrs", "i", Chunk(1), "i", Chunk(1));
    X += Step(2, "rrc", "i", Chunk(0), "o", "0");
    X += "</tb>\n</gpu>\n";
  }
  return X + "</algo>\n";
}

} // namespace

TEST_CASE("both reduce-scatter dialects, out of place, with and without "
          "the newer attributes") {
  for (const char *Coll : {"reduce_scatter", "reducescatter"})
    for (const char *Extra :
         {"", " outofplace=\"1\" minBytes=\"0\" maxBytes=\"65536\""}) {
      INFO(Coll << Extra);
      llvm::Expected<Plan> P =
          decodeMscclXml(ringReduceScatter(Coll, Extra), "rs.xml");
      REQUIRE_MESSAGE(bool(P), llvm::toString(P.takeError()));
      CHECK(P->Header.Kind == Collective::ReduceScatter);
      CHECK(P->Header.Buffers.size() == 3); // data, out, rrs's own buffer
      VerifyResult R = verifyPlan(*P);
      CHECK_MESSAGE(R.Valid, (R.Errors.empty() ? "" : R.Errors[0].str()));
      CHECK(runOnThreads(*P) == "");
    }
  // inplace="1" outofplace="1" contradict each other.
  ErrorReport R = takeErrorReport(
      decodeMscclXml(ringReduceScatter("reducescatter", " outofplace=\"0\""),
                     "rs.xml")
          .takeError(),
      ErrorKind::Invalid);
  CHECK(R.Kind == ErrorKind::Usage);
}

TEST_CASE("malformed attributes are usage errors naming the line") {
  std::string Xml = readFixture("allreduce-ring-4r-1ch-1i-Simple.xml");
  struct Bad {
    const char *What;
    std::function<void(tinyxml2::XMLDocument &, StepRef)> Mutate;
  };
  const Bad Cases[] = {
      {"missing attribute 'cnt'",
       [](auto &, StepRef S) { S.Step->DeleteAttribute("cnt"); }},
      {"is not a buffer",
       [](auto &, StepRef S) { S.Step->SetAttribute("srcbuf", "x"); }},
      {"outside its 4 chunks",
       [](auto &, StepRef S) { S.Step->SetAttribute("srcoff", 9); }},
      {"does not exist",
       [](auto &, StepRef S) {
         S.Step->SetAttribute("depid", 7);
         S.Step->SetAttribute("deps", 0);
       }},
      {"out of order", [](auto &, StepRef S) { S.Step->SetAttribute("s", 5); }},
      {"not an integer",
       [](auto &, StepRef S) { S.Step->SetAttribute("cnt", "two"); }},
      {"past ngpus", [](auto &, StepRef S) { S.Tb->SetAttribute("send", 4); }},
  };
  for (const Bad &B : Cases) {
    INFO(B.What);
    llvm::Expected<Plan> P = decodeMscclXml(mutated(Xml, 2, B.Mutate), "m.xml");
    REQUIRE(!P);
    ErrorReport R = takeErrorReport(P.takeError(), ErrorKind::Invalid);
    CHECK(R.Kind == ErrorKind::Usage);
    CHECK_MESSAGE(R.Message.find(B.What) != std::string::npos, R.Message);
    CHECK_MESSAGE(R.Message.find("m.xml:") == 0, R.Message);
  }
}

TEST_CASE("a missing dependency is a race, named with both steps") {
  // gpu 0's first reduction waits (depid 2, deps 1) for the receive that
  // fills the scratch chunk it reads; without it the two race.
  std::string Xml = readFixture("allreduce-1step-4n-ll-1pass.xml");
  tinyxml2::XMLDocument Doc;
  REQUIRE(Doc.Parse(Xml.c_str()) == tinyxml2::XML_SUCCESS);
  auto *Tb0 =
      Doc.RootElement()->FirstChildElement("gpu")->FirstChildElement("tb");
  tinyxml2::XMLElement *Re = elements(Tb0, "step")[4];
  REQUIRE(std::string(Re->Attribute("type")) == "re");
  REQUIRE(Re->Int64Attribute("depid") == 2);
  Re->SetAttribute("depid", -1);
  Re->SetAttribute("deps", -1);
  ErrorReport R = takeErrorReport(
      decodeMscclXml(print(Doc), "race.xml").takeError(), ErrorKind::Usage);
  CHECK(R.Kind == ErrorKind::Invalid);
  CHECK_MESSAGE(R.Message.find("gpu 0, threadblock 0, step 4 (re): races "
                               "with threadblock 2 step 1 (r") !=
                    std::string::npos,
                R.Message);
}
