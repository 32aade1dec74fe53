//===- PlanFieldTrees.h - Plan parts from small field trees --*- C++ -*-===//
//
// Internal to plan/serialize: typed, bounded access to a field tree (an
// llvm::json value), and the readers of a plan's parts built on it. The
// whole-document reader (readPlanFields on a tree) and the streaming one
// (PlanFieldsStream.cpp, which builds a tree per header field and per
// operation) share them, so both make every check with the same words.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_PLANFIELDTREES_H
#define COLLPLAN_SERIALIZE_PLANFIELDTREES_H

#include "plan/ir/Plan.h"
#include "plan/serialize/PlanFields.h"
#include "plan/serialize/PlanLocation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace collplan {

inline llvm::StringRef describe(const llvm::json::Value &V) {
  switch (V.kind()) {
  case llvm::json::Value::Null:
    return "null";
  case llvm::json::Value::Boolean:
    return "a boolean";
  case llvm::json::Value::Number:
    return "a number";
  case llvm::json::Value::String:
    return "a string";
  case llvm::json::Value::Array:
    return "a list";
  case llvm::json::Value::Object:
    return "a map";
  }
  return "a value";
}

/// Typed, bounded access to the tree; every error names the file, the
/// location within the plan (Where) and the field.
class TreeReader {
public:
  explicit TreeReader(llvm::StringRef Name) : Name(Name) {}

  /// Prefixed to field names in messages: "rank 3, round 5, op 1".
  ReadLocation Where;

  llvm::Error fail(const llvm::Twine &Field, const llvm::Twine &Message) const {
    return readError(Name.str(), Where, Field, Message);
  }

  /// V as a map whose keys are all among Allowed.
  llvm::Expected<const llvm::json::Object *>
  map(const llvm::json::Value &V, const llvm::Twine &Field,
      llvm::ArrayRef<llvm::StringRef> Allowed) const {
    const llvm::json::Object *O = V.getAsObject();
    if (!O)
      return fail(Field, "expected a map, got " + describe(V));
    // Report unknown keys in sorted order so the message is deterministic.
    std::optional<std::string> Unknown;
    for (const auto &KV : *O) {
      llvm::StringRef Key = KV.first;
      if (!llvm::is_contained(Allowed, Key) && (!Unknown || Key < *Unknown))
        Unknown = Key.str();
    }
    if (Unknown) {
      std::string Known;
      for (llvm::StringRef A : Allowed)
        Known += (Known.empty() ? "" : ", ") + A.str();
      std::string Prefix = Field.str();
      return fail(Prefix.empty() ? *Unknown : Prefix + "." + *Unknown,
                  "unknown field; expected one of: " + Known);
    }
    return O;
  }

  llvm::Expected<const llvm::json::Value *> member(const llvm::json::Object &O,
                                                   llvm::StringRef Key) const {
    const llvm::json::Value *V = O.get(Key);
    if (!V)
      return fail(Key, "missing");
    return V;
  }

  llvm::Expected<uint64_t> number(const llvm::json::Value &V,
                                  const llvm::Twine &Field, uint64_t Min,
                                  uint64_t Max) const {
    if (V.kind() != llvm::json::Value::Number)
      return fail(Field, "expected an integer, got " + describe(V));
    std::optional<uint64_t> U;
    if (auto I = V.getAsInteger()) {
      if (*I < 0)
        return fail(Field,
                    "expected a non-negative integer, got " + llvm::Twine(*I));
      U = uint64_t(*I);
    } else if (auto X = V.getAsUINT64()) {
      U = *X;
    }
    if (!U)
      return fail(Field, "expected an integer in [" + llvm::Twine(Min) + ", " +
                             llvm::Twine(Max) + "]");
    if (*U < Min || *U > Max)
      return fail(Field, "expected an integer in [" + llvm::Twine(Min) + ", " +
                             llvm::Twine(Max) + "], got " + llvm::Twine(*U));
    return *U;
  }

  llvm::Expected<uint64_t> number(const llvm::json::Object &O,
                                  llvm::StringRef Key, uint64_t Min,
                                  uint64_t Max) const {
    auto V = member(O, Key);
    if (!V)
      return V.takeError();
    return number(**V, Key, Min, Max);
  }

  llvm::Expected<llvm::StringRef> string(const llvm::json::Value &V,
                                         const llvm::Twine &Field) const {
    auto S = V.getAsString();
    if (!S)
      return fail(Field, "expected a string, got " + describe(V));
    if (S->size() > MaxNameLength)
      return fail(Field,
                  "longer than " + llvm::Twine(MaxNameLength) + " bytes");
    return *S;
  }

  llvm::Expected<llvm::StringRef> string(const llvm::json::Object &O,
                                         llvm::StringRef Key) const {
    auto V = member(O, Key);
    if (!V)
      return V.takeError();
    return string(**V, Key);
  }

  llvm::Expected<const llvm::json::Array *> list(const llvm::json::Object &O,
                                                 llvm::StringRef Key) const {
    auto V = member(O, Key);
    if (!V)
      return V.takeError();
    const llvm::json::Array *A = (*V)->getAsArray();
    if (!A)
      return fail(Key, "expected a list, got " + describe(**V));
    return A;
  }

private:
  llvm::StringRef Name;
};

/// The header fields of the root map Root: the format tag and version first
/// (a newer file may have fields this reader does not know, and the version
/// is then the useful message), then unknown fields, then each field.
/// "programs" is allowed and not read.
llvm::Expected<PlanHeader> readPlanHeader(const TreeReader &In,
                                          const llvm::json::Value &Root);

/// Buffer names to their indices, as operations name them.
llvm::StringMap<uint16_t> bufferIndex(const PlanHeader &H);

llvm::Expected<Op> readOp(const TreeReader &In, const llvm::json::Value &V,
                          const PlanHeader &H,
                          const llvm::StringMap<uint16_t> &BufferIndex);

/// Rank's program from its tree; In.Where is set to each part in turn.
llvm::Expected<Program>
readProgram(TreeReader &In, const llvm::json::Value &V, size_t Rank,
            const PlanHeader &H, const llvm::StringMap<uint16_t> &BufferIndex);

/// Program Rank must be labelled Rank.
llvm::Error checkRankLabel(const TreeReader &In, uint64_t Rank,
                           uint64_t Declared);

/// Round Index may follow the rounds Prog has so far.
llvm::Error checkRoundOrder(const TreeReader &In, const Program &Prog,
                            uint64_t Index);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_PLANFIELDTREES_H
