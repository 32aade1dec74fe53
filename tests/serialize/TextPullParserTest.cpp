//===- TextPullParserTest.cpp - The pull parser against yaml-cpp ----------===//
//
// yaml-cpp is the oracle: wherever both it and TextPullParser read a
// document, they must read the same tree. Hand-picked YAML people write, and
// random edits of a written plan; the parser may decline what it does not
// read, never read it differently.
//
//===----------------------------------------------------------------------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/TextPullParser.h"

#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <random>

using namespace collplan;
using namespace collplan::test;
using Event = TextPullParser::Event;
using EventKind = TextPullParser::EventKind;

/// One line of canonical text per scalar, typed as both readers type them.
static std::string scalarText(llvm::StringRef Text, bool Quoted) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << typedScalar(Text, Quoted);
  return OS.str();
}

static void canonical(const YAML::Node &N, std::string &Out) {
  switch (N.Type()) {
  case YAML::NodeType::Map:
    Out += "{";
    for (const auto &KV : N) {
      Out += KV.first.Scalar() + ":";
      canonical(KV.second, Out);
      Out += ",";
    }
    Out += "}";
    return;
  case YAML::NodeType::Sequence:
    Out += "[";
    for (const YAML::Node &E : N) {
      canonical(E, Out);
      Out += ",";
    }
    Out += "]";
    return;
  case YAML::NodeType::Scalar:
    Out += scalarText(N.Scalar(), N.Tag() != "?");
    return;
  default:
    Out += "null";
  }
}

/// yaml-cpp's reading of Text, or nothing if it refuses it.
static std::optional<std::string> oracle(const std::string &Text) {
  try {
    std::vector<YAML::Node> Docs = YAML::LoadAll(Text);
    if (Docs.size() != 1)
      return std::nullopt;
    std::string Out;
    canonical(Docs.front(), Out);
    return Out;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

/// The value starting with First, in canonical text; false if the parser
/// stops.
static bool pulledValue(TextPullParser &Parser, const Event &First,
                        std::string &Out) {
  Event E;
  if (First.Kind == EventKind::MapBegin || First.Kind == EventKind::ListBegin) {
    bool IsMap = First.Kind == EventKind::MapBegin;
    Out += IsMap ? "{" : "[";
    while (true) {
      if (!Parser.next(E))
        return false;
      if (E.Kind == EventKind::MapEnd || E.Kind == EventKind::ListEnd)
        break;
      if (IsMap) {
        Out += E.Text.str() + ":";
        if (!Parser.next(E))
          return false;
      }
      if (!pulledValue(Parser, E, Out))
        return false;
      Out += ",";
    }
    Out += IsMap ? "}" : "]";
    return true;
  }
  if (First.Kind != EventKind::Scalar)
    return false;
  Out += scalarText(First.Text, First.Quoted);
  return true;
}

/// The parser's reading, or nothing if it declines (Malformed: if it
/// refuses outright).
static std::optional<std::string> pulled(const std::string &Text,
                                         bool &Malformed) {
  TextPullParser Parser(Text, TextPullParser::Syntax::Yaml);
  std::string Out;
  Event E;
  if (Parser.next(E) && pulledValue(Parser, E, Out) && Parser.next(E)) {
    REQUIRE(E.Kind == EventKind::End);
    return Out;
  }
  Malformed = !Parser.declined();
  return std::nullopt;
}

/// Both read Text the same way, or the parser declines it. Strict: yaml-cpp
/// reads whatever the parser reads. Returns whether the parser read it.
static bool agrees(const std::string &Text, bool Strict = true) {
  CAPTURE(Text);
  bool Malformed = false;
  std::optional<std::string> Mine = pulled(Text, Malformed);
  std::optional<std::string> Theirs = oracle(Text);
  if (Mine && Theirs)
    CHECK(*Mine == *Theirs);
  if (Mine && Strict)
    CHECK_MESSAGE(Theirs.has_value(), "yaml-cpp refuses: " << *Mine);
  return Mine.has_value();
}

TEST_CASE("YAML people write reads as yaml-cpp reads it") {
  const char *Read[] = {
      "a: 1\nb: [x, 'y', \"z\"]\n",
      "a:\n  b: c\n  d:\n    - 1\n    - - 2\n      - 3\n",
      "a:\n- 1\n- 2\nb: 3\n",
      "- a: 1\n  b: 2\n- c\n-\n- {d: [], e: {}}\n",
      "a: # comment\n  1\n# comment\nb: 'it''s' # c\n",
      "a:\nb: ~\nc: null\nd: true\ne: -12\nf: 1.5\ng: yes\n",
      "url: http://x/y#z\nkey with spaces: v w\n",
      "\"quoted key\": \"esc\\u00e9\\n\\t\"\n",
      "a: {b: 1, c}\n",
      "a: [1,\n  2, # two\n  3]\n",
      "---\na: 1\n",
      "a: 1\r\nb:\r\n  - 2\r\n",
      "a: -x\nb: :y\nc: ?z\n",
  };
  for (const char *Text : Read)
    CHECK_MESSAGE(agrees(Text), "declined: " << Text);
  // Beyond the parser: declined, never misread.
  const char *Declined[] = {
      "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  text\n",
      "a: b\n  c\n",      "? a\n: b\n",   "a: 1\n---\nb: 2\n",
      "a: 'x\n  y'\n",    "{a: 1}: b\n",  "a: [1, 2,]\n",
      "a: [b: c]\n",      "\ta: 1\n",     "a: \"\\x41\"\n",
  };
  for (const char *Text : Declined)
    CHECK_MESSAGE(!agrees(Text), "read: " << Text);
}

TEST_CASE("random edits of a plan read as yaml-cpp reads them, or decline") {
  std::string Yaml =
      encodePlan(compiledPlan("ring", Collective::Allreduce,
                              Topology::nodes(2, 2, RankMapping::Block)),
                 PlanFormat::Yaml);
  std::mt19937_64 Rng(20261123);
  const char Interesting[] = "[]{}-:,\"'#&*!|>?% \n\t\\";
  unsigned Read = 0;
  for (int Iteration = 0; Iteration < 3000; ++Iteration) {
    std::string S = Yaml;
    for (int E = 1 + int(Rng() % 3); E > 0 && !S.empty(); --E) {
      size_t At = Rng() % S.size();
      char C = Interesting[Rng() % (sizeof(Interesting) - 1)];
      switch (Rng() % 4) {
      case 0:
        S[At] = C;
        break;
      case 1:
        S.insert(At, 1, C);
        break;
      case 2:
        S.erase(At, 1 + Rng() % 8);
        break;
      case 3:
        S.insert(At, S.substr(Rng() % S.size(), 1 + Rng() % 24));
        break;
      }
    }
    // yaml-cpp refuses some valid plain scalars in flow ("ki?d",
    // "blo%cks"): only where both read must they agree.
    Read += agrees(S, /*Strict=*/false);
  }
  MESSAGE(Read << " of 3000 edits read by the pull parser");
}
