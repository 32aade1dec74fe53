//===- TextPlanSize.cpp - How large a plan is as YAML or JSON -------------===//
//
// A FieldWriter that counts the bytes YamlFieldWriter (yaml-cpp, indent 2)
// and JsonFieldWriter (llvm::json::OStream, indent 2, flow containers
// compact) would write. TextPlanSizeTest holds the two to the writers.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/TextPlanSize.h"
#include "plan/serialize/PlanFields.h"

#include "llvm/ADT/SmallVector.h"

namespace collplan {

namespace {

unsigned digits(uint64_t V) {
  unsigned N = 1;
  while (V >= 10) {
    V /= 10;
    ++N;
  }
  return N;
}

class SizeCounter final : public FieldWriter {
public:
  explicit SizeCounter(bool Json) : Json(Json) {}

  uint64_t Bytes = 0;

  void beginMap(Style S) override { begin(S, /*IsMap=*/true); }
  void beginList(Style S) override { begin(S, /*IsMap=*/false); }
  void endMap() override { end(); }
  void endList() override { end(); }

  void key(llvm::StringRef K) override {
    Container &C = Stack.back();
    if (Json) {
      element(C);
      Bytes += K.size() + (C.S == Style::Flow ? 3 : 4); // "K": or "K":_
      return;
    }
    if (C.S == Style::Flow) {
      Bytes += (C.Count++ ? 2 : 0) + K.size() + 2; // , K:_
      return;
    }
    // A block map's first key follows its list entry's "- " when it is one.
    if (C.Count++ || !C.FirstInline)
      Bytes += C.Indent;
    Bytes += K.size() + 1;
  }

  void value(uint64_t V) override { scalar(digits(V)); }
  void value(llvm::StringRef V) override { scalar(V.size() + (Json ? 2 : 0)); }
  void value(bool V) override { scalar(V ? 4 : 5); }

private:
  struct Container {
    Style S;
    bool IsMap;
    /// YAML block: the indentation of the entries; JSON: the depth.
    uint64_t Indent;
    bool FirstInline = false;
    uint64_t Count = 0;
  };

  /// JSON: a separator, and in block style a line, before each element.
  void element(Container &C) {
    Bytes += C.Count++ ? 1 : 0;
    if (C.S == Style::Block)
      Bytes += 1 + 2 * C.Indent;
  }

  /// Before a value (scalar or container) in the current container.
  void beforeValue() {
    if (Stack.empty())
      return;
    Container &C = Stack.back();
    if (Json) {
      if (!C.IsMap)
        element(C);
      return;
    }
    if (C.S == Style::Flow) {
      if (!C.IsMap)
        Bytes += C.Count++ ? 2 : 0;
      return;
    }
    if (C.IsMap) {
      Bytes += 1; // " " before the value, or the line break after "K:".
      return;
    }
    ++C.Count;
    Bytes += C.Indent + 2; // "- "
  }

  /// After a scalar or a flow container: YAML block entries end their line.
  void afterInlineValue() {
    if (!Json && !Stack.empty() && Stack.back().S == Style::Block)
      Bytes += 1;
  }

  void scalar(uint64_t Size) {
    beforeValue();
    Bytes += Size;
    afterInlineValue();
  }

  void begin(Style S, bool IsMap) {
    bool Inline =
        S == Style::Flow || (!Stack.empty() && Stack.back().S == Style::Flow);
    S = Inline ? Style::Flow : Style::Block;
    beforeValue();
    Container C{S, IsMap, 0};
    if (Json) {
      Bytes += 1; // { or [
      C.Indent = Stack.size() + 1;
    } else if (S == Style::Block && !Stack.empty()) {
      const Container &Parent = Stack.back();
      C.Indent = Parent.Indent + 2;
      C.FirstInline = !Parent.IsMap && Parent.S == Style::Block;
    } else if (S == Style::Flow) {
      Bytes += 1;
    }
    Stack.push_back(C);
  }

  void end() {
    Container C = Stack.pop_back_val();
    if (Json) {
      if (C.S == Style::Block && C.Count)
        Bytes += 1 + 2 * (C.Indent - 1);
      Bytes += 1; // } or ]
      return;
    }
    if (C.S == Style::Flow) {
      Bytes += 1;
      afterInlineValue();
      return;
    }
    // yaml-cpp writes an empty block list or map as [] or {}, on a line of
    // its own at the entries' indentation.
    if (C.Count == 0 && !Stack.empty())
      Bytes += C.Indent + 3;
  }

  bool Json;
  llvm::SmallVector<Container, 8> Stack;
};

} // namespace

uint64_t textPlanBytesAtLeast(const Plan &P, PlanFormat F) {
  SizeCounter Counter(F == PlanFormat::Json);
  writePlanFields(P, Counter);
  // Each YAML line's break is counted with it; JSON's last line has its own.
  return Counter.Bytes + (F == PlanFormat::Json ? 1 : 0);
}

} // namespace collplan
