//===- PairSizes.h - An alltoallv plan's pairs, seen from one rank -*- C++
//-*-===//
//
// fit() (CallShape.h) tests a plan against a whole call, which every rank
// knows alike. An MPI_Alltoallv call's P^2 counts are known to no rank:
// each knows its row (what it sends to each rank) and its column (what it
// receives from each). This is the rank-local half of the test: the
// vector's size at which the plan's layout (BlockLayout.h: a block's bytes
// are its share of the weights, rounded down at its ends) gives exactly that
// row and column. The ranks then agree on the verdicts and the size
// (runtime/interposer, CallDecision.h) before any of them takes the plan.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_PAIRSIZES_H
#define COLLPLAN_DISPATCH_PAIRSIZES_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace collplan {

class PairSizes {
public:
  /// H is a personalised plan (alltoall or alltoallv); the pairs' weights
  /// are summed once, so each call's test costs O(P).
  explicit PairSizes(const PlanHeader &H);

  /// The bytes of pair (From, To) when the vector (the whole matrix) has
  /// Bytes bytes.
  uint64_t size(uint64_t Bytes, uint32_t From, uint32_t To) const;

  /// The vector's bytes at which rank Rank's row and column (P entries
  /// each, bytes) are exactly the plan's: 0 when both are empty at every
  /// size (all their counts and the plan's weights 0), nullopt when no
  /// size gives them.
  std::optional<uint64_t> bytesFor(uint32_t Rank, llvm::ArrayRef<uint64_t> Row,
                                   llvm::ArrayRef<uint64_t> Column) const;

private:
  uint32_t Ranks;
  /// The weights of the pairs before pair i (P^2 + 1 entries), row-major.
  std::vector<uint64_t> Prefix;

  uint64_t beginOf(uint64_t Bytes, uint64_t Pair) const;
  uint64_t weightOf(uint64_t Pair) const {
    return Prefix[Pair + 1] - Prefix[Pair];
  }
};

} // namespace collplan

#endif // COLLPLAN_DISPATCH_PAIRSIZES_H
