//===- Matching.h - Send/receive matching and per-round rules ---*- C++ -*-===//
//
// The checks that need no symbolic state, done once per plan: every Send
// pairs with a Recv by the FIFO rule of Plan.h, with the same blocks; within
// a round a rank's Recv destinations overlap neither each other nor its Send
// sources; a collective that does not reduce contains no Reduce. The result
// also indexes the plan for the symbolic replay: the active (round, rank)
// pairs in global round order and, for every Recv, the Send it pairs with.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_MATCHING_H
#define COLLPLAN_VERIFY_MATCHING_H

#include "plan/ir/Plan.h"

#include <cstdint>
#include <vector>

namespace collplan {
namespace verify {

/// Where one operation sits: Plan.Programs[Rank].Rounds[RoundPos].Ops[OpIdx].
struct OpRef {
  uint32_t Rank = 0;
  uint32_t RoundPos = 0;
  uint32_t OpIdx = 0;
};

/// One rank's round, in the replay order.
struct ActiveRound {
  uint32_t Index = 0; ///< The global round index.
  uint32_t Rank = 0;
  uint32_t RoundPos = 0;
  /// The plan-wide id of the round's first operation (ids run rank by rank,
  /// round by round, op by op).
  uint64_t FirstOp = 0;
};

struct MatchedPlan {
  /// Every rank's rounds, sorted by (Index, Rank).
  std::vector<ActiveRound> Schedule;
  /// For the Recv with plan-wide id I, the Send it pairs with. Meaningful
  /// only for matched receives (the plan has no matching errors).
  std::vector<OpRef> SenderOf;
  std::vector<Diagnostic> Errors;
  uint64_t Rounds = 0;
  uint64_t Messages = 0;
  uint64_t BlockTransfers = 0;
};

/// Runs the checks above on a structurally valid plan (see checkStructure).
/// Reports at most MaxErrors diagnostics, ordered by round, rank and op.
MatchedPlan matchPlan(const Plan &P, size_t MaxErrors);

/// Orders diagnostics by round, rank and op, those without a round (the end
/// state) last, and keeps the first MaxErrors.
void sortDiagnostics(std::vector<Diagnostic> &Errors, size_t MaxErrors);

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_MATCHING_H
