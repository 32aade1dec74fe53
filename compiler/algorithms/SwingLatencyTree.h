//===- SwingLatencyTree.h - One combine tree for Swing-L --------*- C++ -*-===//
//
// Swing-L (§3.1.2) exchanges the whole vector at every step, so each rank
// ends with join(own, peer's) and its own tree: the sets of ranks held after
// each step do not nest (docs/algorithms/swing.md, "Identical results").
// order=identical keeps the rounds and peers but agrees on one tree for all
// ranks, and a rank carries what it holds as that tree's maximal subtrees,
// one partial each, combining two only when they are siblings.
//
// The tree follows the collective's schedule: a rank's key has, as bit k,
// bit Sigma of its coordinate along the dimension of step k, and subtrees
// are the aligned intervals of keys. On a ring that is the rank order, so
// without a fold the tree is the canonical one (docs/reproducibility.md).
//
// What a rank holds after s steps is a box: per dimension a cyclic interval
// of 2^(steps taken along it) coordinates around its own, mirrored for odd
// coordinates as the peer function is (SwingPeers.h). Its maximal subtrees
// come from a descent of the tree that stops at boxes inside or apart.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_SWINGLATENCYTREE_H
#define COLLPLAN_ALGORITHMS_SWINGLATENCYTREE_H

#include "compiler/algorithms/SwingPeers.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <utility>

namespace collplan::swing {

/// The ranks whose keys share Key >> Level: 2^Level leaves of the tree.
struct Subtree {
  uint32_t Level = 0;
  uint64_t Prefix = 0; ///< Key >> Level.

  bool operator<(const Subtree &O) const {
    return std::pair(Prefix << Level, Level) <
           std::pair(O.Prefix << O.Level, O.Level);
  }
  bool operator==(const Subtree &O) const {
    return Level == O.Level && Prefix == O.Prefix;
  }
  Subtree sibling() const { return {Level, Prefix ^ 1}; }
  Subtree parent() const { return {Level + 1, Prefix >> 1}; }
};

/// The common tree of one Swing-L collective on a power-of-two torus.
class LatencyTree {
public:
  LatencyTree(const SwingTorus &T, uint32_t Collective);

  /// The leaf of Rank.
  Subtree leaf(uint32_t Rank) const { return {0, key(Rank)}; }
  /// What Rank holds after its first Steps steps, as maximal subtrees in
  /// key order.
  llvm::SmallVector<Subtree, 8> held(uint32_t Rank, uint32_t Steps) const;

private:
  uint64_t key(uint32_t Rank) const;
  /// Appends the maximal subtrees of Box inside the node at Level whose
  /// per-dimension aligned intervals start at Base.
  void descend(uint32_t Level, llvm::SmallVector<uint32_t, 4> &Base,
               llvm::ArrayRef<std::pair<uint32_t, uint32_t>> Box,
               llvm::SmallVectorImpl<Subtree> &Out) const;

  const SwingTorus &T;
  llvm::SmallVector<StepDim, 32> Sched;
  bool Mirrored;
  /// Per step count s and dimension: the offsets [Lo, Hi] held after s
  /// steps by a rank that moves forward along that dimension.
  llvm::SmallVector<llvm::SmallVector<std::pair<int64_t, int64_t>, 4>, 32>
      Reach;
  /// Per level: how many low bits of each coordinate the node leaves free.
  llvm::SmallVector<llvm::SmallVector<uint32_t, 4>, 32> FreeBits;
};

} // namespace collplan::swing

#endif // COLLPLAN_ALGORITHMS_SWINGLATENCYTREE_H
