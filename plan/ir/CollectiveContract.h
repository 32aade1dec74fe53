//===- CollectiveContract.h - What each collective starts with and promises
//===//
//
// One table says, for every collective, what a rank contributes, what it
// holds at the end, and how the user's send and receive buffers map onto the
// plan's data buffer. The verifier (initial and final state), the cost model
// (lower bound), the executor (buffer mapping), the launcher's reference
// results and the interposer all read it: a new collective is one row here
// plus the algorithms that implement it.
//
// Buffers: a rank's send buffer holds its Input part of the vector, packed;
// its receive buffer holds its Output part, packed. In place (MPI_IN_PLACE),
// the input already sits in the receive buffer at its place in the whole
// vector, which the receive buffer then holds.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_COLLECTIVECONTRACT_H
#define COLLPLAN_IR_COLLECTIVECONTRACT_H

#include "plan/ir/Collective.h"

#include <cstdint>

namespace collplan {

/// A part of the user's vector, as seen by one rank.
enum class VectorPart : uint8_t {
  None,   ///< No block.
  Whole,  ///< Every block.
  Owned,  ///< The rank's own blocks (PlanHeader::ownedBy): contiguous.
  AtRoot, ///< Every block at the root, no block elsewhere.
  /// The blocks addressed to the rank by every rank (PlanHeader::addressedTo):
  /// one run per sender, strided. Personalised exchange (alltoall) names its
  /// blocks by (sender, receiver): see ARCHITECTURE.md, "Personalised
  /// exchange".
  Addressed,
};

struct CollectiveContract {
  Collective Kind;
  /// The blocks of `data` the rank's contribution initialises (every other
  /// block of every buffer starts empty), and what its send buffer holds.
  VectorPart Input;
  /// The blocks of `data` whose final value the collective promises, and
  /// what the receive buffer holds.
  VectorPart Output;
  /// True: every output block holds all P contributions, each combined
  /// exactly once. False: it holds the input of the one rank whose Input
  /// part covers it (PlanHeader::contributorOf), and plans may not reduce.
  bool Reduces;
  /// The lower bound's bandwidth term is BandwidthPasses · m · β, times
  /// (P − 1)/P when every rank already holds its share of the result
  /// (Thakur, Rabenseifner and Gropp, "Optimization of collective
  /// communication operations in MPICH", §2's bounds). A personalised
  /// exchange's vector is P rows, and a rank need only send its own row
  /// but for its diagonal block: (P − 1)/P of m/P.
  uint8_t BandwidthPasses;
  bool ShareAlreadyHeld;

  /// Whether one rank is distinguished (the input or output sits there).
  bool hasRoot() const {
    return Input == VectorPart::AtRoot || Output == VectorPart::AtRoot;
  }
  /// Whether the vector is split among ranks by ownership.
  bool hasOwnedBlocks() const {
    return Input == VectorPart::Owned || Output == VectorPart::Owned;
  }
  /// Whether the vector is the P x P matrix of a personalised exchange:
  /// row i is what rank i sends, column j what rank j receives.
  bool isPersonalised() const { return Output == VectorPart::Addressed; }
  /// The multiple of m·β in the lower bound for P ranks.
  double bandwidthShare(uint32_t Ranks) const;
};

/// The contract of collective C.
const CollectiveContract &contractOf(Collective C);

/// Broadcast and reduce have a root.
inline bool hasRoot(Collective C) { return contractOf(C).hasRoot(); }
/// Allgather(v), reduce-scatter and alltoall(v) split the vector among ranks
/// by ownership (alltoall: a rank owns its row).
inline bool hasOwnedBlocks(Collective C) {
  return contractOf(C).hasOwnedBlocks();
}
/// Alltoall(v): the vector is the P x P matrix of blocks by (sender,
/// receiver).
inline bool isPersonalised(Collective C) {
  return contractOf(C).isPersonalised();
}
/// The weights a request for C gives (its v form's counts): allgatherv one
/// per rank, alltoallv one per (sender, receiver) pair, row-major; 0 for the
/// collectives whose parts all weigh the same.
uint64_t weightCount(Collective C, uint32_t Ranks);
/// Whether the collective combines contributions with an operator.
inline bool reduces(Collective C) { return contractOf(C).Reduces; }

} // namespace collplan

#endif // COLLPLAN_IR_COLLECTIVECONTRACT_H
