//===- PersonalisedExchange.h - What alltoall families share ---*- C++ -*-===//
//
// Alltoall(v)'s vector is the P x P matrix of (sender, receiver) pairs,
// row-major, one block per pair (ARCHITECTURE.md, "Personalised exchange"):
// block s*P + d is rank s's data for rank d. Every family of the exchange
// lays its header out the same way and names blocks through pairBlock.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_PERSONALISEDEXCHANGE_H
#define COLLPLAN_ALGORITHMS_PERSONALISEDEXCHANGE_H

#include "compiler/algorithms/Algorithm.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collplan {

/// The block of the pair (From, To) among P ranks.
inline uint64_t pairBlock(uint32_t Ranks, uint32_t From, uint32_t To) {
  return uint64_t(From) * Ranks + To;
}

/// headerFor with one block per pair; alltoallv weighs each pair by its
/// count (the request's P^2 weights, row-major, are the blocks' weights).
inline PlanHeader personalisedHeader(const Algorithm &A,
                                     const CompileRequest &Request) {
  PlanHeader H = headerFor(A, Request);
  H.Blocks = uint64_t(H.Ranks) * H.Ranks;
  H.Weights = Request.Weights;
  H.RequiresCommutative = false; // Nothing is combined.
  return H;
}

/// A relabelling of ranks maps rank 0's program onto every other's with the
/// same block sizes only when every pair weighs the same
/// (Algorithm::rankSymmetric).
inline bool personalisedSymmetric(const PlanHeader &H) {
  return H.Weights.empty();
}

/// The set of Blocks, which it sorts: the scattered single blocks a
/// message of the matrix carries.
inline BlockSet blockSetOf(std::vector<uint64_t> &Blocks) {
  std::sort(Blocks.begin(), Blocks.end());
  BlockSet Out;
  for (uint64_t B : Blocks)
    Out.insert(B, B + 1);
  return Out;
}

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_PERSONALISEDEXCHANGE_H
