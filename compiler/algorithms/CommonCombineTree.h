//===- CommonCombineTree.h - One combine tree, partials as subtrees -*- C++
//-*-//
//
// The device behind the identical orders of families whose ranks would
// otherwise each combine in their own tree (permutation r >= 1, the
// circulant census): all ranks agree on one binary tree over the
// contributions, a rank carries what it has gathered as that tree's
// maximal subtrees (a "pool" of pieces, one partial each, in a slot of its
// own), and two pieces are combined only when they are siblings. Whatever
// the schedule, every rank then ends with the tree's root, so with the same
// bits (docs/reproducibility.md, "identical").
//
// CombineTree lays its leaves out in one order, so a node's leaves are an
// interval [Lo, Hi) of positions and containment is interval containment.
// The canonical tree (docs/reproducibility.md) is one such tree, over the
// ranks in rank order.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_COMMONCOMBINETREE_H
#define COLLPLAN_ALGORITHMS_COMMONCOMBINETREE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace collplan::commontree {

constexpr uint32_t NoNode = ~0u;

/// A binary tree built bottom-up: leaves take positions 0, 1, ... in the
/// order they are added, and a join must take adjacent intervals, left
/// first.
class CombineTree {
public:
  /// A new leaf at the next position; returns its node.
  uint32_t addLeaf();
  /// The parent of Left and Right, whose intervals must be adjacent.
  uint32_t join(uint32_t Left, uint32_t Right);
  /// Makes N the root (the last node joined, or the only leaf).
  void setRoot(uint32_t N) { Root = N; }

  uint32_t root() const { return Root; }
  uint32_t parent(uint32_t N) const { return Nodes[N].Parent; }
  uint32_t sibling(uint32_t N) const { return Nodes[N].Sibling; }
  uint32_t lo(uint32_t N) const { return Nodes[N].Lo; }
  uint32_t hi(uint32_t N) const { return Nodes[N].Hi; }
  /// The leaf node at position Pos.
  uint32_t leafAt(uint32_t Pos) const { return LeafAt[Pos]; }
  /// Whether node A's leaves include node B's.
  bool contains(uint32_t A, uint32_t B) const {
    return Nodes[A].Lo <= Nodes[B].Lo && Nodes[B].Hi <= Nodes[A].Hi;
  }
  /// Appends the maximal subtrees whose leaves lie in positions [Lo, Hi),
  /// in leaf order: O(depth) nodes in O(depth) steps.
  void maximalSubtrees(uint32_t Lo, uint32_t Hi,
                       llvm::SmallVectorImpl<uint32_t> &Out) const;

private:
  struct Node {
    uint32_t Lo, Hi;
    uint32_t Left = NoNode, Right = NoNode;
    uint32_t Parent = NoNode, Sibling = NoNode;
  };
  void descend(uint32_t N, uint32_t Lo, uint32_t Hi,
               llvm::SmallVectorImpl<uint32_t> &Out) const;

  std::vector<Node> Nodes;
  std::vector<uint32_t> LeafAt;
  uint32_t Root = NoNode;
};

/// The canonical tree for P ranks (docs/reproducibility.md, "The canonical
/// tree"): leaf i is rank i; the first 2(P - P') ranks pair up, then the P'
/// partials combine with their neighbours level by level.
CombineTree canonicalTree(uint32_t P);

/// A subtree's partial held by a rank: the tree node and the slot (buffer or
/// block placement) it is in.
struct Piece {
  uint32_t Node;
  uint16_t Slot;
};
using Pool = llvm::SmallVector<Piece, 8>;

/// The lowest slot no piece of Used occupies.
uint16_t freeSlot(llvm::ArrayRef<Piece> Used);

/// Merges what arrived into Own: drops pieces inside others, then combines
/// siblings, From into Into (the lower slot), until none are left, calling
/// OnCombine(From, Into) for each combine in the order it must run. Returns
/// the number of combines.
uint64_t
settle(const CombineTree &T, Pool &Own,
       llvm::function_ref<void(uint16_t From, uint16_t Into)> OnCombine);

} // namespace collplan::commontree

#endif // COLLPLAN_ALGORITHMS_COMMONCOMBINETREE_H
