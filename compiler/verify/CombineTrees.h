//===- CombineTrees.h - The order partials were combined in -----*- C++ -*-===//
//
// Floating-point addition is commutative but not associative: two ranks that
// combine the same contributions in differently shaped trees may end with
// different bits. An allreduce whose ranks must agree bit for bit (replicas
// of a data-parallel job, MPICH's allred_float test) needs every rank to
// have combined each block in the same tree, up to swapping the operands of
// a combine. This store keeps, per slot of the contribution store, a 32-bit
// hash of that tree: a leaf per rank, and a symmetric but non-associative
// join per reduce. Equal hashes at the end mean equal trees, with a collision
// probability of about 2^-32 per comparison; a plan whose ranks differ
// usually differs in many blocks, each a further chance to see it. 32 bits
// rather than 64 because the replay is bound by memory traffic, and these
// hashes are a third of it.
//
// Identical bits on every rank are not yet the same bits at every message
// size: a family's block boundaries move with the size, and another family
// may serve another size. A plan whose every reduced block follows one
// canonical tree for P (canonicalTree) gives every element the same tree
// whatever the size, block count or family, so calls of any size agree bit
// for bit (docs/reproducibility.md).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_COMBINETREES_H
#define COLLPLAN_VERIFY_COMBINETREES_H

#include "plan/ir/Hash.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collplan {
namespace verify {

class CombineTrees {
public:
  explicit CombineTrees(uint64_t Slots) : Tree(Slots, Empty) {}
  static constexpr uint64_t bytesPerSet() { return sizeof(uint32_t); }
  void resize(uint64_t Slots) { Tree.resize(Slots, Empty); }

  void prefetch(uint64_t Slot) const { __builtin_prefetch(Tree.data() + Slot); }
  void clearRun(uint64_t Slot, uint64_t N) {
    std::fill_n(Tree.begin() + Slot, N, Empty);
  }
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
    std::fill_n(Tree.begin() + Slot, N, leaf(Rank));
  }
  void copy(uint64_t Dst, uint64_t Src, uint64_t N) {
    if (N == 1)
      Tree[Dst] = Tree[Src];
    else
      std::copy_n(Tree.begin() + Src, N, Tree.begin() + Dst);
  }
  /// Empty operands are the contribution store's to diagnose: the other side
  /// is kept.
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N) {
    for (uint64_t I = 0; I < N; ++I) {
      uint32_t S = Tree[Src + I];
      uint32_t &D = Tree[Dst + I];
      if (S != Empty)
        D = D == Empty ? S : join(D, S);
    }
  }
  bool allEqual(uint64_t Slot, uint64_t N) const {
    return std::all_of(Tree.begin() + Slot, Tree.begin() + Slot + N,
                       [&](uint32_t T) { return T == Tree[Slot]; });
  }
  /// The first of N slots from A whose tree differs from B's, or N.
  uint64_t firstDifferent(uint64_t A, uint64_t B, uint64_t N) const {
    return std::mismatch(Tree.begin() + A, Tree.begin() + A + N,
                         Tree.begin() + B)
               .first -
           (Tree.begin() + A);
  }

  /// The canonical tree's hash for Ranks ranks (at least 2): the tree of
  /// recursive doubling and of recursive halving taken nearest partner
  /// first, with MPICH's fold onto P' = 2^floor(log2 P) ranks. The first
  /// 2 * (P - P') ranks combine in pairs (2i, 2i + 1); then the P' partials,
  /// in rank order, combine with their neighbours level by level: (0, 1),
  /// (2, 3), ..., then pairs of pairs. Computed here from its definition,
  /// not from any family (the verifier trusts no generator).
  static uint32_t canonicalTree(uint32_t Ranks) {
    uint32_t Virtual = 1;
    while (Virtual * 2 <= Ranks)
      Virtual *= 2;
    uint32_t Folded = Ranks - Virtual;
    std::vector<uint32_t> Level(Virtual);
    for (uint32_t V = 0; V < Virtual; ++V)
      Level[V] =
          V < Folded ? join(leaf(2 * V), leaf(2 * V + 1)) : leaf(V + Folded);
    for (; Level.size() > 1; Level.resize(Level.size() / 2))
      for (size_t I = 0; I < Level.size() / 2; ++I)
        Level[I] = join(Level[2 * I], Level[2 * I + 1]);
    return Level[0];
  }
  /// The first of N slots from Slot whose tree is not Tree, or N.
  uint64_t firstOtherThan(uint64_t Slot, uint64_t N, uint32_t Tree) const {
    return std::find_if(this->Tree.begin() + Slot,
                        this->Tree.begin() + Slot + N,
                        [&](uint32_t T) { return T != Tree; }) -
           (this->Tree.begin() + Slot);
  }

private:
  static constexpr uint32_t Empty = 0;
  std::vector<uint32_t> Tree;

  static uint32_t leaf(uint32_t Rank) {
    return uint32_t(splitmix64(uint64_t(Rank) ^ 0x6a09e667f3bcc909ULL) >> 32) |
           1;
  }
  /// Symmetric (a (+) b and b (+) a give the same bits) but not associative.
  static uint32_t join(uint32_t A, uint32_t B) {
    return uint32_t(
               splitmix64(uint64_t(std::min(A, B)) << 32 | std::max(A, B)) >>
               32) |
           1;
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_COMBINETREES_H
