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

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
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

/// S as yaml-cpp writes a string scalar for us: double-quoted if
/// needsQuotes, else as yaml-cpp decides.
void emitString(YAML::Emitter &E, StringRef S) {
  if (needsQuotes(S))
    E << YAML::DoubleQuoted;
  E << S.str();
}

/// Writes through yaml-cpp's emitter up to the programs, and the programs
/// itself: they are nearly all of a plan, the emitter writes about 2 MB/s,
/// and their layout is fixed (yaml-cpp's, indent 2: block maps and lists,
/// one flow operation per line). yaml-cpp still renders each distinct
/// string, once. The golden plans hold the bytes to the emitter's.
class YamlFieldWriter final : public FieldWriter {
public:
  YamlFieldWriter() { E.SetIndent(2); }

  void beginMap(Style S) override { begin(S, /*IsMap=*/true); }
  void beginList(Style S) override { begin(S, /*IsMap=*/false); }
  void endMap() override { end(/*IsMap=*/true); }
  void endList() override { end(/*IsMap=*/false); }

  void key(StringRef K) override {
    if (!Direct) {
      // The programs come last: from here on, write them directly.
      if (Depth == 1 && K == "programs") {
        Out.assign(E.c_str(), E.size());
        Out += "\nprograms:";
        Direct = true;
        Stack.push_back({/*IsMap=*/true, /*Flow=*/false, 0, 1});
        return;
      }
      E << YAML::Key;
      emitString(E, K);
      E << YAML::Value;
      return;
    }
    Container &C = Stack.back();
    if (C.Flow) {
      Out += C.Count++ ? ", " : "";
    } else if (C.Count++ || !C.FirstInline) {
      Out += '\n';
      Out.append(C.Indent, ' ');
    }
    Out += K; // The plan's own field names: plain words.
    Out += C.Flow ? ": " : ":";
  }

  void value(uint64_t V) override {
    if (!Direct) {
      E << static_cast<unsigned long long>(V);
      return;
    }
    beforeValue();
    Out += std::to_string(V);
  }
  void value(StringRef V) override {
    if (!Direct) {
      emitString(E, V);
      return;
    }
    bool Flow = Stack.back().Flow;
    beforeValue();
    Out += rendered(V, Flow);
  }
  void value(bool V) override {
    if (!Direct) {
      E << (V ? "true" : "false");
      return;
    }
    beforeValue();
    Out += V ? "true" : "false";
  }

  std::string take() {
    if (!Direct)
      Out.assign(E.c_str(), E.size());
    return std::move(Out);
  }

private:
  struct Container {
    bool IsMap;
    bool Flow;
    size_t Indent;
    uint64_t Count = 0;
    bool FirstInline = false;
  };

  void begin(Style S, bool IsMap) {
    if (!Direct) {
      ++Depth;
      E << (S == Style::Flow ? YAML::Flow : YAML::Block)
        << (IsMap ? YAML::BeginMap : YAML::BeginSeq);
      return;
    }
    Container &Parent = Stack.back();
    if (S == Style::Flow || Parent.Flow) {
      beforeValue();
      Out += IsMap ? '{' : '[';
      Stack.push_back({IsMap, true, 0});
      return;
    }
    Container C{IsMap, false, Parent.Indent + 2};
    if (!Parent.IsMap) {
      entry(Parent);
      C.FirstInline = true;
    }
    Stack.push_back(C);
  }

  void end(bool IsMap) {
    if (!Direct) {
      --Depth;
      E << (IsMap ? YAML::EndMap : YAML::EndSeq);
      return;
    }
    // The programs closed: the root map's end writes nothing.
    if (Stack.empty())
      return;
    Container C = Stack.pop_back_val();
    if (C.Flow) {
      Out += C.IsMap ? '}' : ']';
    } else if (C.Count == 0) {
      // yaml-cpp writes an empty block collection in flow style, on a line
      // of its own.
      Out += '\n';
      Out.append(C.Indent, ' ');
      Out += C.IsMap ? "{}" : "[]";
    }
    if (Stack.size() == 1)
      Stack.clear();
  }

  /// A block list's "- ".
  void entry(Container &List) {
    ++List.Count;
    Out += '\n';
    Out.append(List.Indent, ' ');
    Out += "- ";
  }

  void beforeValue() {
    Container &C = Stack.back();
    if (C.Flow) {
      if (!C.IsMap)
        Out += C.Count++ ? ", " : "";
    } else if (C.IsMap) {
      Out += ' ';
    } else {
      entry(C);
    }
  }

  /// S as the emitter would write it in a flow or block collection.
  const std::string &rendered(StringRef S, bool Flow) {
    auto [It, New] = (Flow ? FlowStrings : BlockStrings).try_emplace(S);
    if (New) {
      YAML::Emitter T;
      if (Flow) {
        T << YAML::Flow << YAML::BeginSeq;
        emitString(T, S);
        T << YAML::EndSeq;
        It->second = StringRef(T.c_str(), T.size()).drop_front().drop_back();
      } else {
        T << YAML::BeginMap << YAML::Key << "k" << YAML::Value;
        emitString(T, S);
        T << YAML::EndMap;
        It->second = StringRef(T.c_str(), T.size()).drop_front(3);
      }
    }
    return It->second;
  }

  YAML::Emitter E;
  unsigned Depth = 0;
  bool Direct = false;
  std::string Out;
  llvm::SmallVector<Container, 8> Stack;
  llvm::StringMap<std::string> FlowStrings, BlockStrings;
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
  YamlFieldWriter W;
  writePlanFields(P, W);
  return W.take() + "\n";
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
