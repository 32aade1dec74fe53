//===- DispatchRule.h - Which calls a plan file is for ----------*- C++ -*-===//
//
// A plan directory says which calls each of its files serves, either in the
// file's name (PlanFileNames.h) or in its index (PlanIndex.h); both give a
// DispatchRule. A rule narrows the files worth reading for a call (covers);
// once a file's header is read it must agree with its rule (describes), and
// fit() (CallShape.h) decides. When several rules cover a call the most
// specific wins: one precedence order, ruleOrder().
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_DISPATCHRULE_H
#define COLLPLAN_DISPATCH_DISPATCHRULE_H

#include "plan/dispatch/CallShape.h"

#include <map>
#include <string>
#include <tuple>

namespace collplan {

struct DispatchRule {
  /// The plan file, relative to the directory (measured candidates live in
  /// its candidates/ folder); empty for a library rule.
  std::string File;
  /// The covered calls go to the MPI library's own collective on purpose:
  /// it measured faster there (runtime/tune). Only the index states these.
  bool Library = false;
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 0;
  /// Calls of [MinBytes, MaxBytes) bytes: the whole vector.
  uint64_t MinBytes = 0;
  uint64_t MaxBytes = UINT64_MAX; ///< Exclusive; UINT64_MAX: no bound.
  std::optional<ReduceOp> Op;     ///< None: every operator.
  std::optional<uint32_t> Root;   ///< None: the plan's own root.
  /// Allgatherv: empty for equal counts, else each rank's weight: the rule
  /// covers calls whose counts are proportional to it.
  std::optional<std::vector<uint64_t>> Counts;
  // For people only: who chose what, and why.
  std::string Algorithm;
  std::map<std::string, std::string> Params;
  std::string Why;
  /// Measured median seconds per call, by contender ("library", or a plan
  /// file's name), at MeasuredBytes: the evidence of a measured rule.
  std::map<std::string, double> Measured;
  uint64_t MeasuredBytes = 0;
  /// A measurement on the job's ranks chose this rule (the library, or the
  /// fastest plan timed): it outranks the model's choice, and a new
  /// measurement of its table replaces it.
  bool measured() const { return Library || !Measured.empty(); }
  /// Stated by the directory's index rather than the file's name (for
  /// messages; never written).
  bool FromIndex = false;

  /// Whether the rule's file is worth reading for call C.
  bool covers(const CallShape &C) const;
  /// Whether a header read from the file is what the rule says it holds.
  bool describes(const PlanHeader &H) const;
};

/// The calls a table of rules is for: collective, P and root (0 when the
/// rule names none).
using PlanTable = std::tuple<Collective, uint32_t, uint32_t>;
PlanTable tableOf(const DispatchRule &R);

/// The rule for a plan with header H serving [MinBytes, MaxBytes) and Op:
/// collective, P, root and counts from the header.
DispatchRule ruleFor(const PlanHeader &H, std::string File, uint64_t MinBytes,
                     uint64_t MaxBytes, std::optional<ReduceOp> Op);

/// The precedence among rules covering one call: a measured rule first (a
/// measurement outranks the model's choice), a library rule before a
/// plan's, then an operator-specific
/// rule, then a root-specific one, then a counts-specific one, then the
/// narrowest byte range, then the file name (so the choice is
/// deterministic). True when A goes before B.
bool ruleOrder(const DispatchRule &A, const DispatchRule &B);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_DISPATCHRULE_H
