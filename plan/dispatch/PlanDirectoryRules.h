//===- PlanDirectoryRules.h - The rules of a plan directory -----*- C++ -*-===//
//
// Every rule a plan directory states: its index's entries (PlanIndex.h) and,
// for plan files the index does not list, their names (PlanFileNames.h), in
// precedence order (ruleOrder). A file with a plan extension that follows
// neither, and an index entry that cannot be used, are reported rather than
// silently never run.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_PLANDIRECTORYRULES_H
#define COLLPLAN_DISPATCH_PLANDIRECTORYRULES_H

#include "plan/dispatch/DispatchRule.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace collplan {

struct PlanDirectoryRules {
  std::string Dir;
  /// Most specific first (ruleOrder).
  std::vector<DispatchRule> Rules;
  /// "ignoring PATH: why", one per misnamed file or unusable index entry.
  std::vector<std::string> Problems;
  /// What the index says the plans were chosen to keep of floating-point
  /// sums and products (PlanIndex::ChosenRounding).
  std::optional<Rounding> ChosenRounding;

  /// Dir's file path for R.
  std::string pathOf(const DispatchRule &R) const;
};

/// Reads Dir's index and lists its plan files (reading no plan); an error
/// only when Dir cannot be listed.
llvm::Expected<PlanDirectoryRules> readPlanDirectoryRules(llvm::StringRef Dir);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_PLANDIRECTORYRULES_H
