//===- CirculantCensusTree.h - The census allreduce in one tree -*- C++ -*-===//
//
// The circulant census allreduce (Träff 2022 §2.3, after Bar-Noy, Kipnis and
// Schieber) has each rank sum the values of r, r + 1, ..., r - 1 in its own
// cyclic order, so floating-point ranks end with different bits.
// order=identical keeps its q rounds and peers, but every rank combines in
// the canonical tree for P (docs/reproducibility.md) with the device of
// CommonCombineTree.h: what a rank holds is kept as that tree's maximal
// subtrees, one whole-vector partial each, and only siblings combine.
//
// Before round k rank r holds the cyclic run r .. r + skip[k] - 1
// (circulant.md, "Census allreduce"). In an even round (skip[k+1] = 2 skip[k])
// it sends all of it to r - skip[k]; in an odd one all but its own value to r -
// skip[k] + 1. So the one cut the pieces need is between r's own leaf and the
// rest, and only while an odd round is still to come: until then the own leaf
// stays a piece of its own. A run that wraps past rank P - 1 is cut there by
// the tree itself (no subtree but the root spans it), and the runs never exceed
// P, so the last round completes the root exactly.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_CIRCULANTCENSUSTREE_H
#define COLLPLAN_ALGORITHMS_CIRCULANTCENSUSTREE_H

#include "compiler/algorithms/CirculantSchedule.h"
#include "compiler/algorithms/CommonCombineTree.h"
#include "plan/ir/Plan.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace collplan::circulant {

class CensusTree {
public:
  explicit CensusTree(uint32_t P);

  /// Appends Rank's q rounds: slot 0 is the data buffer, slot j the
  /// header's buffer j. Each piece is the whole vector (block 0).
  void appendRank(uint32_t Rank, Program &Prog) const;
  /// The slots (data and scratch buffers) the busiest rank needs: every
  /// rank's pieces are followed, O(P q^2 log P).
  uint32_t slots() const;
  /// Per round, the most whole vectors a rank sends in it.
  llvm::SmallVector<uint32_t, 32> mostSentPerRound() const;

private:
  /// The pieces rank X sends in round K, in leaf order.
  llvm::SmallVector<uint32_t, 16> sent(uint64_t X, unsigned K) const;
  /// Whether the own leaf is still a piece of its own before round K.
  bool ownApart(unsigned K) const { return int(K) <= LastOdd; }
  bool odd(unsigned K) const { return S[K + 1] != 2 * S[K]; }
  /// Follows Rank through its rounds; with Prog, appends its operations.
  /// Returns the slots it used.
  uint32_t walk(uint32_t Rank, Program *Prog) const;

  uint32_t P;
  Skips S;
  commontree::CombineTree T;
  int LastOdd = -1;
};

} // namespace collplan::circulant

#endif // COLLPLAN_ALGORITHMS_CIRCULANTCENSUSTREE_H
