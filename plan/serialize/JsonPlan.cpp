//===- JsonPlan.cpp - Plans as JSON ---------------------------------------===//
//
// The fields of PlanFields.h as JSON: pretty-printed, except that each
// operation is written compactly on one line, as YAML writes it in flow
// style, so a plan of many ranks stays readable and diffable. Read as it is
// parsed (readTextPlan); small documents that parser declines are read whole
// with llvm::json, whose messages are the ones JSON users know.
//
//===----------------------------------------------------------------------===//

#include "plan/ir/Error.h"
#include "plan/serialize/PlanCodecs.h"
#include "plan/serialize/PlanFields.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace collplan {

namespace json = llvm::json;

namespace {

/// Writes Block containers through a pretty-printing stream and each
/// outermost Flow container through a compact one, inserted as a raw value.
class JsonFieldWriter final : public FieldWriter {
public:
  explicit JsonFieldWriter(llvm::raw_ostream &OS) : Pretty(OS, 2) {}

  void beginMap(Style S) override {
    begin(S);
    out().objectBegin();
    IsMap.push_back(true);
  }
  void endMap() override {
    IsMap.pop_back();
    out().objectEnd();
    end();
  }
  void beginList(Style S) override {
    begin(S);
    out().arrayBegin();
    IsMap.push_back(false);
  }
  void endList() override {
    IsMap.pop_back();
    out().arrayEnd();
    end();
  }
  void key(llvm::StringRef K) override { out().attributeBegin(K); }
  void value(uint64_t V) override { scalar(json::Value(V)); }
  void value(llvm::StringRef V) override { scalar(json::Value(V)); }
  void value(bool V) override { scalar(json::Value(V)); }

private:
  json::OStream &out() { return Compact ? *Compact : Pretty; }

  void begin(Style S) {
    if (S == Style::Flow || Compact) {
      if (!Compact) {
        CompactText.clear();
        CompactOS.emplace(CompactText);
        Compact.emplace(*CompactOS, 0);
      }
      ++CompactDepth;
    }
  }

  void end() {
    if (Compact && --CompactDepth == 0) {
      Compact.reset();
      CompactOS->flush();
      CompactOS.reset();
      Pretty.rawValue(CompactText);
    }
    valueDone();
  }

  void scalar(const json::Value &V) {
    out().value(V);
    valueDone();
  }

  /// A value completes its map entry, if it is one.
  void valueDone() {
    if (!IsMap.empty() && IsMap.back())
      out().attributeEnd();
  }

  json::OStream Pretty;
  std::string CompactText;
  std::optional<llvm::raw_string_ostream> CompactOS;
  std::optional<json::OStream> Compact;
  unsigned CompactDepth = 0;
  llvm::SmallVector<bool, 16> IsMap;
};

/// llvm::json::parse recurses once per nesting level: refuse deep input
/// before it can exhaust the stack.
llvm::Error checkJsonNesting(llvm::StringRef Text, llvm::StringRef Name) {
  unsigned Depth = 0;
  bool InString = false, Escaped = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (C == '\\')
        Escaped = true;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxTextNesting)
        return makeError(
            ErrorKind::Usage,
            "%s: byte %zu: nesting deeper than %u levels; not a plan",
            Name.str().c_str(), I, MaxTextNesting);
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return llvm::Error::success();
}

} // namespace

std::string encodeJsonPlan(const Plan &P) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  {
    JsonFieldWriter W(OS);
    writePlanFields(P, W);
  }
  OS << '\n';
  OS.flush();
  return Out;
}

namespace {

/// The whole document as an llvm::json tree.
llvm::Expected<Plan> decodeJsonTree(llvm::StringRef Text,
                                    llvm::StringRef Name) {
  if (llvm::Error E = checkJsonNesting(Text, Name))
    return E;
  llvm::Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    return makeError(ErrorKind::Usage, "%s: invalid JSON: %s",
                     Name.str().c_str(),
                     llvm::toString(Root.takeError()).c_str());
  return readPlanFields(*Root, Name);
}

} // namespace

llvm::Expected<Plan> decodeJsonPlan(llvm::StringRef Text,
                                    llvm::StringRef Name) {
  return readTextPlan(Text, Name, /*Json=*/true,
                      [&] { return decodeJsonTree(Text, Name); });
}

} // namespace collplan
