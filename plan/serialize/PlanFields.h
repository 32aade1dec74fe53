//===- PlanFields.h - One field tree for YAML and JSON plans ---*- C++ -*-===//
//
// YAML and JSON plan files carry one structure. writePlanFields() walks a
// plan and calls a FieldWriter in a fixed order (the YAML and JSON writers
// implement it); readTextPlan() reads the same structure back as the text is
// parsed, and readPlanFields() from a whole parsed tree, for the documents
// the streaming parser declines. Field names and types are documented in
// schemas/plan.schema.json.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_PLANFIELDS_H
#define COLLPLAN_SERIALIZE_PLANFIELDS_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>

namespace collplan {

/// The "format" tag of YAML and JSON plan files.
constexpr llvm::StringLiteral PlanFormatTag = "collplan-plan";

/// Limits a reader enforces beyond MaxRanks and MaxTorusDims (Topology.h), so
/// that no field of a hostile file can make it allocate or loop without bound.
constexpr uint64_t MaxPlanBlocks = uint64_t(1) << 40;
constexpr uint64_t MaxNameLength = 4096;
/// Text plans nest about ten levels; the whole-tree parsers recurse per
/// level.
constexpr unsigned MaxTextNesting = 64;
/// Text plans up to this size that the streaming parser declines (YAML
/// anchors, tags, multi-line scalars...) are parsed whole, into trees that
/// take up to 140 times the text; larger ones are refused.
constexpr uint64_t MaxWholeTextPlanBytes = uint64_t(8) << 20;

/// Receives the plan's field tree in document order. Flow containers are
/// written on one line (YAML flow style, compact JSON): the writers use it
/// for each operation and each block list, so a plan reads one op per line.
class FieldWriter {
public:
  enum class Style { Block, Flow };

  virtual ~FieldWriter();
  virtual void beginMap(Style S) = 0;
  virtual void endMap() = 0;
  virtual void beginList(Style S) = 0;
  virtual void endList() = 0;
  /// The key of the next map entry; exactly one value follows.
  virtual void key(llvm::StringRef K) = 0;
  virtual void value(uint64_t V) = 0;
  virtual void value(llvm::StringRef V) = 0;
  virtual void value(bool V) = 0;
};

void writePlanFields(const Plan &P, FieldWriter &W);

/// Reads a YAML (or, if Json, JSON) plan from Text as it is parsed, in
/// memory proportional to the plan (TextPullParser.h). Text the streaming
/// parser declines is read by ReadWhole (a whole-tree parser and
/// readPlanFields) if it is at most MaxWholeTextPlanBytes long. Name (the
/// file) starts every error message, followed by the location: line and
/// column for syntax, rank, round, op and field for the plan's fields.
llvm::Expected<Plan>
readTextPlan(llvm::StringRef Text, llvm::StringRef Name, bool Json,
             llvm::function_ref<llvm::Expected<Plan>()> ReadWhole);

/// Reads a plan from the field tree Root. Name (the file) starts every error
/// message, followed by the location: rank, round, op and field.
llvm::Expected<Plan> readPlanFields(const llvm::json::Value &Root,
                                    llvm::StringRef Name);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_PLANFIELDS_H
