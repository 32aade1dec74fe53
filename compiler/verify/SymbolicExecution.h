//===- SymbolicExecution.h - Replay on contribution sets --------*- C++ -*-===//
//
// Executes a plan whose sends and receives all match (see Matching.h) on
// contribution sets instead of data, chunk of blocks by chunk of blocks so
// the state fits Options.MemoryBudget, and checks every reduce, every send
// and the end state the collective promises.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_SYMBOLICEXECUTION_H
#define COLLPLAN_VERIFY_SYMBOLICEXECUTION_H

#include "compiler/verify/Matching.h"
#include "compiler/verify/Verifier.h"

#include <string>
#include <vector>

namespace collplan {
namespace verify {

/// What the replay found of the combine trees (CombineTrees.h): the first
/// block two ranks combine in different trees, and the first promised block
/// combined in another tree than the canonical one; each empty if none.
struct TreeVerdict {
  std::string DifferentOrders;
  std::string NonCanonical;
};

/// Appends at most Options.MaxErrors diagnostics to Errors. Mode is Exact or
/// Hashed (not Auto).
void executeSymbolically(const Plan &P, MatchedPlan &&Matched, VerifyMode Mode,
                         const VerifyOptions &Options,
                         std::vector<Diagnostic> &Errors, TreeVerdict &Verdict);

/// The number of blocks per chunk that keeps Mode's state within Budget
/// (at least 1, at most the plan's block count).
uint64_t chunkBlocks(const PlanHeader &H, VerifyMode Mode, uint64_t Budget);

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_SYMBOLICEXECUTION_H
