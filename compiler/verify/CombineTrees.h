//===- CombineTrees.h - The order in which partials were combined -*- C++
//-*-===//
//
// Floating-point addition is commutative but not associative: two ranks that
// combine the same contributions in differently shaped trees may end with
// different bits. An allreduce whose ranks must agree bit for bit (replicas
// of a data-parallel job, MPICH's allred_float test) needs every rank to
// have combined each block in the same tree, up to swapping the operands of
// a combine. This store keeps, per slot of the contribution store, a 64-bit
// hash of that tree: a leaf per rank, and a symmetric but non-associative
// join per reduce. Equal hashes at the end mean equal trees, with a collision
// probability of about 2^-64 per comparison.
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
  static constexpr uint64_t bytesPerSet() { return sizeof(uint64_t); }

  void clearRun(uint64_t Slot, uint64_t N) {
    std::fill_n(Tree.begin() + Slot, N, Empty);
  }
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
    std::fill_n(Tree.begin() + Slot, N, leaf(Rank));
  }
  void copy(uint64_t Dst, uint64_t Src, uint64_t N) {
    std::copy_n(Tree.begin() + Src, N, Tree.begin() + Dst);
  }
  /// Empty operands are the contribution store's to diagnose: the other side
  /// is kept.
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N) {
    for (uint64_t I = 0; I < N; ++I) {
      uint64_t S = Tree[Src + I];
      uint64_t &D = Tree[Dst + I];
      if (S != Empty)
        D = D == Empty ? S : join(D, S);
    }
  }
  uint64_t at(uint64_t Slot) const { return Tree[Slot]; }

private:
  static constexpr uint64_t Empty = 0;
  std::vector<uint64_t> Tree;

  static uint64_t leaf(uint32_t Rank) {
    return splitmix64(uint64_t(Rank) ^ 0x6a09e667f3bcc909ULL) | 1;
  }
  /// Symmetric (a (+) b and b (+) a give the same bits) but not associative.
  static uint64_t join(uint64_t A, uint64_t B) {
    return splitmix64(std::min(A, B) * 0x9e3779b97f4a7c15ULL + std::max(A, B)) |
           1;
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_COMBINETREES_H
