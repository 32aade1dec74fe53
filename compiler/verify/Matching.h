//===- Matching.h - Send/receive matching and per-round rules ---*- C++ -*-===//
//
// The checks that need no symbolic state, done once per plan: every Send
// pairs with a Recv by the FIFO rule of Plan.h, with the same blocks; within
// a round a rank's Recv destinations overlap neither each other nor its Send
// sources; a collective that does not reduce contains no Reduce. The result
// is also the plan in the order the replays walk it: its Recv and Local
// operations as steps, per global round every Recv, then every Local, rank
// by rank in listed order, each Recv with the Send it pairs with.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_MATCHING_H
#define COLLPLAN_VERIFY_MATCHING_H

#include "plan/ir/Plan.h"

#include <cstdint>
#include <vector>

namespace collplan {
namespace verify {

/// One Recv or Local operation, flattened for the replays: what it reads and
/// writes, and where it sits for diagnostics. The symbolic replay visits
/// these once per chunk they touch, so they are kept compact and apart from
/// the Plan.
struct Step {
  uint32_t Rank;   ///< Where the operation runs (its destination).
  uint32_t From;   ///< Recv: the sender; Local: Rank.
  uint16_t Buffer; ///< The destination buffer.
  uint16_t Source; ///< Recv: the sender's buffer; Local: the source.
  OpKind Kind;
  Combine Mode;
  uint32_t Round;     ///< The global round index.
  uint32_t OpIdx;     ///< The op's index in its round.
  uint32_t FromOpIdx; ///< Recv: the matched send's index in its round.
  uint32_t NumRanges;
  uint64_t FirstRange; ///< Into MatchedPlan::Ranges.
};

struct MatchedPlan {
  /// The Recv and Local operations in replay order (above). Meaningful only
  /// for a plan without matching errors.
  std::vector<Step> Steps;
  /// The steps' blocks, each step's ranges in a run.
  std::vector<BlockRange> Ranges;
  std::vector<Diagnostic> Errors;
  uint64_t Rounds = 0; ///< Distinct global round indices.
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
