//===- StreamingReadTest.cpp - Text plans in every style people write -----===//
//
// The streaming reader (TextPullParser, PlanFieldsStream.cpp) must read any
// YAML or JSON with a plan's structure, not only what our writers write. The
// oracles are other writers: yaml-cpp's emitter in block style, llvm::json's
// printer (which sorts keys, so the programs come before most of the
// header), and hand edits; each must read back as the plan written.
//
//===----------------------------------------------------------------------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFields.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

using namespace collplan;
using namespace collplan::test;

static Plan decoded(llvm::StringRef Text) {
  llvm::Expected<Plan> P = decodePlan(Text, "mem");
  REQUIRE_MESSAGE(bool(P), llvm::toString(P.takeError()));
  return std::move(*P);
}

static std::string errorOf(llvm::StringRef Text) {
  llvm::Expected<Plan> P = decodePlan(Text, "bad.yaml");
  REQUIRE_MESSAGE(!P, "decoded; expected an error");
  return llvm::toString(P.takeError());
}

static std::string replacedAll(std::string S, llvm::StringRef From,
                               llvm::StringRef To) {
  for (size_t At = S.find(From.str()); At != std::string::npos;
       At = S.find(From.str(), At + To.size()))
    S.replace(At, From.size(), To.str());
  return S;
}

static void setBlockStyle(YAML::Node N) {
  N.SetStyle(YAML::EmitterStyle::Block);
  if (N.IsMap())
    for (auto KV : N)
      setBlockStyle(KV.second);
  else if (N.IsSequence())
    for (auto Element : N)
      setBlockStyle(Element);
}

static std::string blockStyleYaml(const std::string &Yaml) {
  YAML::Node Root = YAML::Load(Yaml);
  setBlockStyle(Root);
  YAML::Emitter E;
  E << Root;
  return E.c_str();
}

static std::string reprintedJson(const std::string &Json, unsigned Indent) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Json);
  REQUIRE(bool(V));
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream(OS, Indent).value(*V);
  return OS.str();
}

static Plan samplePlan() {
  Plan P = compiledPlan("ring", Collective::Allreduce,
                        Topology::nodes(2, 3, RankMapping::Block));
  P.Header.Buffers.push_back("tmp");
  return P;
}

TEST_CASE("YAML in block style, as yaml-cpp writes it, reads back") {
  // (Not handBuiltPlan: re-emitting a tree drops the quotes that keep its
  // parameter "4" a string.)
  Plan P = samplePlan();
  std::string Block = blockStyleYaml(encodePlan(P, PlanFormat::Yaml));
  REQUIRE(llvm::StringRef(Block).contains("- kind: send\n"));
  checkSamePlan(P, decoded(Block));
}

TEST_CASE("JSON printed otherwise, keys sorted (programs first), reads back") {
  for (const Plan &P : {samplePlan(), handBuiltPlan()})
    for (unsigned Indent : {0u, 1u, 4u}) {
      CAPTURE(Indent);
      std::string Json = reprintedJson(encodePlan(P, PlanFormat::Json), Indent);
      REQUIRE(Json.find("\"programs\"") < Json.find("\"ranks\""));
      checkSamePlan(P, decoded(Json));
    }
}

TEST_CASE("hand-written YAML: comments, CRLF, markers, quotes, lists at "
          "their key's indentation, fields in any order") {
  Plan P = samplePlan();
  std::string Yaml = encodePlan(P, PlanFormat::Yaml);
  // Comments everywhere a person puts them, and a document marker.
  std::string Commented = "%YAML 1.2\n---\n# a ring\n" +
                          replacedAll(Yaml, "]]}\n", "]]}  # op\n\n") + "...\n";
  // The directive is beyond the streaming parser: the small file is read
  // whole. Without it, the streaming parser reads everything else.
  checkSamePlan(P, decoded(Commented));
  checkSamePlan(P, decoded(Commented.substr(Commented.find("---"),
                                            Commented.size() - 4 -
                                                Commented.find("---"))));
  checkSamePlan(P, decoded(replacedAll(Yaml, "\n", "\r\n")));
  checkSamePlan(P, decoded(replacedAll(replacedAll(Yaml, "kind: ", "'kind': "),
                                       "ranks: ", "\"ranks\"  :   ")));
  // Lists at their key's indentation ("programs:\n- rank: 0").
  std::string Flush = Yaml;
  for (auto [From, To] : {std::pair{"\n  - rank", "\n- rank"},
                          {"\n    rounds:", "\n  rounds:"},
                          {"\n      - index", "\n  - index"},
                          {"\n        ops:", "\n    ops:"},
                          {"\n          - {", "\n    - {"}})
    Flush = replacedAll(Flush, From, To);
  checkSamePlan(P, decoded(Flush));
  // The programs before the header: read in a second pass.
  size_t Programs = Yaml.find("programs:");
  std::string ProgramsFirst = Yaml.substr(Programs) + Yaml.substr(0, Programs);
  checkSamePlan(P, decoded(ProgramsFirst));
}

TEST_CASE("a text plan over the whole-tree limit is read as it is parsed") {
  Plan P = samplePlan();
  std::string Yaml = encodePlan(P, PlanFormat::Yaml);
  std::string Padding;
  while (Padding.size() <= MaxWholeTextPlanBytes)
    Padding += "# " + std::string(1000, 'x') + "\n";
  // Only the streaming parser may read this one: it must.
  checkSamePlan(P, decoded(Yaml + Padding));
  // An anchor is beyond it: a small file is read whole, a large one refused
  // with the line and column.
  std::string Anchored =
      replacedAll(Yaml, "algorithm: ring", "algorithm: &name ring");
  checkSamePlan(P, decoded(Anchored));
  std::string Message = errorOf(Anchored + Padding);
  CHECK_MESSAGE(llvm::StringRef(Message).contains(
                    "line 6, column 12: YAML anchors and aliases"),
                Message);
  CHECK_MESSAGE(llvm::StringRef(Message).contains("is read as it is parsed"),
                Message);
}

TEST_CASE("the streaming reader names duplicate keys and bad operations") {
  std::string Yaml = encodePlan(samplePlan(), PlanFormat::Yaml);
  std::string Duplicate =
      replacedAll(Yaml, "{kind: send,", "{kind: send, kind: recv,");
  std::string Message = errorOf(Duplicate);
  CHECK_MESSAGE(llvm::StringRef(Message).contains("duplicate key 'kind'"),
                Message);
  std::string Unknown = replacedAll(Yaml, "  - index: 1\n",
                                    "  - index: 1\n"
                                    "        when: 3\n");
  Message = errorOf(Unknown);
  CHECK_MESSAGE(llvm::StringRef(Message).contains(
                    "rank 0, round 1: field 'when': unknown field"),
                Message);
  // Programs past the ranks are counted, not read, for the message.
  Message = errorOf(Yaml + "  - rank: 6\n    rounds: []\n  - {}\n");
  CHECK_MESSAGE(llvm::StringRef(Message).contains(
                    "field 'programs': has 8 programs for 6 ranks"),
                Message);
}
