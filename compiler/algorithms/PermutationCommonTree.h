//===- PermutationCommonTree.h - One combine tree for permutation -*- C++ -*-=//
//
// The permutation allreduce with r >= 1 (Kolmakov and Zhang §8-9) reduces
// each block on J ranks, copy j along the tree of copy 0 shifted by j, so at
// P not a power of two the copies end with different bits
// (docs/algorithms/permutation.md, "Identical results"). order=identical
// keeps the rounds and peers and agrees on one tree per block: the one copy
// 0 (the paper's q*) follows, T_A(L) with T_A(i+1) = T_A(i) (+) (T_B(i) +
// s_i) on even N_i and T_B(i+1) = T_B(i) (+) (T_B(i) + s_i), offsets taken
// from the block's index. A rank keeps, per placement, what it has gathered
// as maximal subtrees of that tree (a "pool", one block of one buffer each),
// sends a placement's pool where the rank-dependent form sends its q'
// partial, leaving out what the receiver holds already, and combines two
// pieces only when they are siblings. Placements are block offsets from the
// rank, so the schedule is the same on every rank up to rotation.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_PERMUTATIONCOMMONTREE_H
#define COLLPLAN_ALGORITHMS_PERMUTATIONCOMMONTREE_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace collplan::permutation {

/// Runs [Lo, Hi) of placements, ascending, each within [0, P).
using PlacementRuns = llvm::SmallVector<std::pair<uint64_t, uint64_t>, 2>;

/// One operation on the same slot pair of many placements. Slot 0 is the
/// data buffer, slot j the scratch buffer "partial<j>".
struct PlacedOp {
  OpKind Kind;
  Combine Mode;
  uint16_t Dest;   ///< Recv, Local: the slot written.
  uint16_t Source; ///< Send, Local: the slot read.
  PlacementRuns Runs;
};

/// One reduction round: send to rank - Shift, receive from rank + Shift.
struct PlacedStep {
  uint64_t Shift = 0;
  std::vector<PlacedOp> Ops;
};

struct CommonTreeReduction {
  /// Buffers a rank needs: data and Slots - 1 scratch buffers.
  uint32_t Slots = 1;
  std::vector<PlacedStep> Steps;
  /// Blocks a rank sends and combines over the reduction phase.
  uint64_t BlocksSent = 0, BlocksCombined = 0;

  /// Appends the reduction's L rounds, 0 .. L - 1, to Rank's program among
  /// P ranks: placement k is block Rank - k, slot j the header's buffer j.
  void appendRounds(uint32_t P, uint32_t Rank, Program &Prog) const;
};

/// The reduction phase of permutation allreduce on the cyclic group for P
/// ranks ending with J complete vectors (J = N[L-r]), in one tree per block.
/// Fails, naming the count, if a rank would hold more than MostSlots pieces
/// of one block at once.
llvm::Expected<CommonTreeReduction> commonTreeReduction(uint32_t P, uint64_t J,
                                                        uint32_t MostSlots);

} // namespace collplan::permutation

#endif // COLLPLAN_ALGORITHMS_PERMUTATIONCOMMONTREE_H
