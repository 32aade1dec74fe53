//===- PlanDirectoryWriter.h - Writing a plan directory ---------*- C++ -*-===//
//
// The one way plans and rules enter a plan directory, taken by `collplan
// tune` (new plans) and `collplan index` (rules for plans already there):
// refuse another run's plans for the same calls, write each plan whole or not
// at all, then merge the rules into the index and write it whole.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_PLANDIRECTORYWRITER_H
#define COLLPLAN_DISPATCH_PLANDIRECTORYWRITER_H

#include "plan/dispatch/DispatchRule.h"
#include "plan/dispatch/PlanIndex.h"

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/Error.h"

#include <string>
#include <tuple>
#include <vector>

namespace collplan {

/// A plan to write as Rule.File. Build makes its bytes when its turn comes
/// (so one plan at a time is in memory) and may complete Rule (algorithm,
/// parameters, counts, why).
struct NewPlan {
  DispatchRule Rule;
  llvm::unique_function<llvm::Error(DispatchRule &Rule, std::string &Bytes)>
      Build;
};

struct PlanDirectoryUpdate {
  /// New plans. Each replaces the directory's table for its collective, P
  /// and root: other plan files named for those are refused (stalePlans),
  /// since a call would take the narrowest range of either table.
  std::vector<NewPlan> Plans;
  /// Rules for files already in the directory, and measured rules: those of
  /// a table replace all its measured rules (a new measurement), as do new
  /// plans for it.
  std::vector<DispatchRule> Rules;
  /// Tables (collective, P, root: 0 for none) measured anew: their old
  /// measured rules leave the index, whatever the new measurement found.
  std::vector<PlanTable> Remeasured;
  /// Files whose rules leave the index (the files stay).
  std::vector<std::string> Removed;
  /// Comments at the top of the index: who wrote it.
  std::string Preamble;
  /// If set, what the directory's plans keep of floating-point sums and
  /// products from now on (PlanIndex::ChosenRounding); else it stays.
  std::optional<Rounding> ChosenRounding;
};

/// Plan files in Dir named for the collective, P and root of one of Plans
/// that are not among Plans' files.
std::vector<std::string> stalePlans(llvm::StringRef Dir,
                                    llvm::ArrayRef<NewPlan> Plans);

/// Applies U to the directory Dir and returns the index written. A rule
/// replacing one for the same file keeps the old one's Why when it has none.
/// Usage error: stale plans or an unreadable index (nothing is written); Io
/// error: a file could not be written.
llvm::Expected<PlanIndex> updatePlanDirectory(llvm::StringRef Dir,
                                              PlanDirectoryUpdate U);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_PLANDIRECTORYWRITER_H
