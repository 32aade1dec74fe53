//===- YamlPlan.cpp - Plans as YAML ---------------------------------------===//
//
// The fields of PlanFields.h as YAML, written with yaml-cpp's emitter (one
// operation per line, in flow style) and read as it is parsed
// (readTextPlan). Small documents beyond the streaming parser are read whole
// by converting yaml-cpp's node tree into the llvm::json tree
// readPlanFields() reads, so every form shares every check. yaml-cpp throws
// and recurses: exceptions are caught here, and nesting is bounded by a scan
// before parsing.
//
//===----------------------------------------------------------------------===//

#include "plan/ir/Error.h"
#include "plan/serialize/PlanCodecs.h"
#include "plan/serialize/PlanFields.h"
#include "plan/serialize/TextPullParser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <yaml-cpp/yaml.h>

#include <exception>

namespace collplan {

namespace json = llvm::json;
using llvm::StringRef;

namespace {

/// Whether a plain scalar S would read back as something other than the
/// string S, under our reader or a YAML 1.1 one (PyYAML, which the schema
/// test uses): numbers, booleans, null, timestamps and the like.
bool needsQuotes(StringRef S) {
  if (S.empty())
    return true;
  char First = S.front();
  if (llvm::isDigit(First) || First == '-' || First == '+' || First == '.' ||
      First == '~' || First == '=' || First == '<')
    return true;
  std::string Lower = S.lower();
  for (StringRef Word :
       {"true", "false", "yes", "no", "on", "off", "y", "n", "null"})
    if (Lower == Word)
      return true;
  return false;
}

class YamlFieldWriter final : public FieldWriter {
public:
  explicit YamlFieldWriter(YAML::Emitter &E) : E(E) {}

  void beginMap(Style S) override {
    E << (S == Style::Flow ? YAML::Flow : YAML::Block) << YAML::BeginMap;
  }
  void endMap() override { E << YAML::EndMap; }
  void beginList(Style S) override {
    E << (S == Style::Flow ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
  }
  void endList() override { E << YAML::EndSeq; }
  void key(StringRef K) override {
    E << YAML::Key;
    string(K);
    E << YAML::Value;
  }
  void value(uint64_t V) override { E << static_cast<unsigned long long>(V); }
  void value(StringRef V) override { string(V); }
  void value(bool V) override { E << (V ? "true" : "false"); }

private:
  void string(StringRef S) {
    if (needsQuotes(S))
      E << YAML::DoubleQuoted;
    E << S.str();
  }

  YAML::Emitter &E;
};

llvm::Error failAt(StringRef Name, const YAML::Mark &M,
                   const llvm::Twine &Why) {
  return makeError(ErrorKind::Usage,
                   Name + ": line " + llvm::Twine(M.line + 1) + ", column " +
                       llvm::Twine(M.column + 1) + ": " + Why);
}

/// yaml-cpp recurses once per nesting level, in block style (indentation)
/// as in flow style (brackets). A cheap scan bounds both before parsing: it
/// over-estimates (a bracket inside a plain scalar counts), which only matters
/// for files no plan writer produces.
llvm::Error checkYamlNesting(StringRef Text, StringRef Name) {
  unsigned Flow = 0;
  size_t Line = 1;
  auto Fail = [&](const char *What) {
    return makeError(
        ErrorKind::Usage,
        "%s: line %zu: %s nesting deeper than %u levels; not a plan",
        Name.str().c_str(), Line, What, MaxTextNesting);
  };
  for (size_t I = 0; I < Text.size(); ++Line) {
    size_t Eol = Text.find('\n', I);
    StringRef L = Text.slice(I, Eol);
    I = Eol == StringRef::npos ? Text.size() : Eol + 1;
    // Block nesting needs indentation: spaces, or "- ", "? ", ": " indicators.
    size_t Column = 0;
    while (Column < L.size()) {
      if (L[Column] == ' ')
        ++Column;
      else if (Column + 1 < L.size() && StringRef("-?:").contains(L[Column]) &&
               L[Column + 1] == ' ')
        Column += 2;
      else
        break;
    }
    if (Column > 2 * MaxTextNesting)
      return Fail("block");
    char Quote = 0;
    for (size_t C = Column; C < L.size(); ++C) {
      char Ch = L[C];
      if (Quote) {
        if (Ch == '\\' && Quote == '"')
          ++C;
        else if (Ch == Quote)
          Quote = 0;
      } else if (Ch == '"' || Ch == '\'') {
        Quote = Ch;
      } else if (Ch == '#' && (C == 0 || L[C - 1] == ' ')) {
        break;
      } else if (Ch == '[' || Ch == '{') {
        if (++Flow > MaxTextNesting)
          return Fail("flow");
      } else if ((Ch == ']' || Ch == '}') && Flow > 0) {
        --Flow;
      }
    }
  }
  return llvm::Error::success();
}

/// Converts yaml-cpp's tree into llvm::json's. Budget bounds the nodes
/// visited, so aliases cannot expand a small file into a huge tree.
llvm::Expected<json::Value> toTree(const YAML::Node &N, unsigned Depth,
                                   size_t &Budget, StringRef Name) {
  if (Depth > MaxTextNesting)
    return failAt(Name, N.Mark(), "nesting too deep");
  if (Budget == 0)
    return failAt(Name, N.Mark(),
                  "the document expands to more nodes than its size allows "
                  "(aliases?)");
  --Budget;
  switch (N.Type()) {
  case YAML::NodeType::Undefined:
  case YAML::NodeType::Null:
    return nullptr;
  case YAML::NodeType::Scalar:
    // Escapes in quoted scalars can spell bytes that are not UTF-8.
    if (!json::isUTF8(N.Scalar()))
      return failAt(Name, N.Mark(), "a string is not valid UTF-8");
    if (N.Tag() == "?") {
      json::Value V = typedScalar(N.Scalar(), /*Quoted=*/false);
      if (V.kind() != json::Value::String)
        return V;
    }
    return json::Value(N.Scalar()); // A copy: the node tree goes first.
  case YAML::NodeType::Sequence: {
    json::Array A;
    A.reserve(N.size());
    for (const YAML::Node &Element : N) {
      auto V = toTree(Element, Depth + 1, Budget, Name);
      if (!V)
        return V.takeError();
      A.push_back(std::move(*V));
    }
    return json::Value(std::move(A));
  }
  case YAML::NodeType::Map: {
    json::Object O;
    for (const auto &KV : N) {
      if (!KV.first.IsScalar())
        return failAt(Name, KV.first.Mark(), "a map key must be a string");
      const std::string &Key = KV.first.Scalar();
      if (!json::isUTF8(Key))
        return failAt(Name, KV.first.Mark(), "a key is not valid UTF-8");
      auto V = toTree(KV.second, Depth + 1, Budget, Name);
      if (!V)
        return V.takeError();
      if (!O.try_emplace(Key, std::move(*V)).second)
        return failAt(Name, KV.first.Mark(), "duplicate key '" + Key + "'");
    }
    return json::Value(std::move(O));
  }
  }
  return nullptr;
}

} // namespace

std::string encodeYamlPlan(const Plan &P) {
  YAML::Emitter E;
  E.SetIndent(2);
  YamlFieldWriter W(E);
  writePlanFields(P, W);
  return std::string(E.c_str(), E.size()) + "\n";
}

namespace {

/// The whole document as a yaml-cpp tree, converted.
llvm::Expected<Plan> decodeYamlTree(StringRef Text, StringRef Name) {
  if (llvm::Error Err = checkYamlNesting(Text, Name))
    return Err;
  json::Value Root = nullptr;
  try {
    std::vector<YAML::Node> Documents = YAML::LoadAll(Text.str());
    if (Documents.size() > 1)
      return makeError(ErrorKind::Usage,
                       "%s: holds %zu YAML documents; a plan file holds one",
                       Name.str().c_str(), Documents.size());
    if (!Documents.empty()) {
      size_t Budget = 2 * Text.size() + 16;
      auto Tree = toTree(Documents.front(), 0, Budget, Name);
      if (!Tree)
        return Tree.takeError();
      Root = std::move(*Tree);
    }
  } catch (const YAML::Exception &E) {
    return failAt(Name, E.mark, "invalid YAML: " + E.msg);
  } catch (const std::exception &E) {
    return makeError(ErrorKind::Usage, "%s: invalid YAML: %s",
                     Name.str().c_str(), E.what());
  }
  return readPlanFields(Root, Name);
}

} // namespace

llvm::Expected<Plan> decodeYamlPlan(StringRef Text, StringRef Name) {
  return readTextPlan(Text, Name, /*Json=*/false,
                      [&] { return decodeYamlTree(Text, Name); });
}

} // namespace collplan
