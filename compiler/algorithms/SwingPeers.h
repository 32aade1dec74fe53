//===- SwingPeers.h - Swing's peer function and block sets ------*- C++ -*-===//
//
// The combinatorics of Swing (De Sensi et al., "Swing: Short-cutting Rings
// for Higher Bandwidth Allreduce", NSDI'24), kept apart from the plan
// building in Swing.cpp so the tests can check them against the paper's
// tables.
//
// At step s a node moves by rho(s) = 1 - 2 + 4 - ... + (-2)^s along one torus
// dimension: forward when its coordinate is even, backward when it is odd
// (§3.1, Eq. 2), so the pairing is an involution on even rings. A torus
// serves 2D concurrent collectives (§4.1): collective c < D starts on
// dimension c and round-robins over the dimensions; collective c + D does
// the same with every direction reversed ("mirrored"). A dimension of size
// d takes ceil(log2 d) steps and is skipped once exhausted (§4.2).
//
// Block sets. In the bandwidth-optimal reduce-scatter rank r sends at step s
// every block b whose path r -> b (a walk through increasing steps) starts at
// step s. For power-of-two sizes that path is unique (Appendix A, negabinary
// numbers); for even sizes that are not powers of two a block can be reached
// along several paths, and choosing the *latest* first step among them keeps
// every contribution counted once (§3.2 and Appendix A.2: "send that only in
// the last step"; the earliest step double-counts). One walk over all step
// subsets from rank 0 gives rank 0's sets; every other rank's are the image
// under a per-dimension translation (even coordinate) or reflection (odd
// coordinate), because the peer function commutes with those maps.
//
// For power-of-two sizes a closed form exists: relabelling block b as
// psi(b), an interleaving of per-dimension Gray codes of negabinary digits,
// turns every send set into the aligned half of an interval, so a message is
// one interval (the paper's "logical remap" to contiguous data, §4.1).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_SWINGPEERS_H
#define COLLPLAN_ALGORITHMS_SWINGPEERS_H

#include "plan/ir/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace collplan::swing {

/// rho(s) = sum_{i=0}^{s} (-2)^i: the signed distance of step s.
int64_t rho(uint32_t Step);

/// Global step Step of a collective moves along dimension Dim, taking that
/// dimension's step Sigma.
struct StepDim {
  uint32_t Dim = 0;
  uint32_t Sigma = 0;
};

/// A torus of nodes, one rank each, row-major (the last dimension varies
/// fastest), and the Swing collectives that run on it.
class SwingTorus {
public:
  explicit SwingTorus(llvm::ArrayRef<uint32_t> Dims);

  uint32_t numDims() const { return Dims.size(); }
  llvm::ArrayRef<uint32_t> dims() const { return Dims; }
  uint32_t ranks() const { return Ranks; }
  /// Steps of one reduce-scatter: sum over dimensions of ceil(log2 d).
  uint32_t steps() const { return Steps; }
  /// Whether every dimension size is a power of two (psi() applies).
  bool powerOfTwo() const { return PowerOfTwo; }

  /// The (dimension, step within it) of every global step of collective C
  /// (C < D plain, D <= C < 2D mirrored).
  llvm::SmallVector<StepDim, 32> schedule(uint32_t Collective) const;
  /// Rank's peer at a step of collective Collective.
  uint32_t peer(uint32_t Rank, StepDim At, bool Mirrored) const;
  uint32_t peer(uint32_t Rank, uint32_t Step, uint32_t Collective) const;

  /// The torus as a Topology of one rank per node, whose coordinates
  /// (Topology::coordsOf) every function here reads.
  const Topology &topology() const { return Shape; }
  llvm::SmallVector<uint32_t, 4> coordsOf(uint32_t Rank) const {
    return Shape.coordsOf(Rank);
  }
  uint32_t rankOf(llvm::ArrayRef<uint32_t> Coords) const {
    return Shape.nodeAt(Coords);
  }

  /// For every block b: the reduce-scatter step at which rank 0 of
  /// collective Collective sends its contribution to b (the latest first
  /// step of the paths 0 -> b); -1 for block 0. O(2^steps()) = O(ranks()).
  std::vector<int8_t> firstStepsFromZero(uint32_t Collective) const;
  /// The image of Block under the map taking rank 0's sets to Rank's:
  /// per dimension x -> x + a if Rank's coordinate a is even, a - x if odd.
  uint32_t transform(uint32_t Rank, uint32_t Block) const;

  /// Power-of-two tori only: the contiguous label of Rank (or block) in
  /// collective Collective. At step s rank r sends the blocks whose label
  /// shares the top s bits with psi(r) and differs in the next one.
  uint64_t psi(uint32_t Rank, uint32_t Collective) const;
  /// The rank whose psi(Rank, Collective) is Label: psi's inverse.
  uint32_t rankOfPsi(uint64_t Label, uint32_t Collective) const;

private:
  llvm::SmallVector<uint32_t, 4> Dims;
  Topology Shape;
  llvm::SmallVector<uint32_t, 4> Levels; ///< ceil(log2 d) per dimension.
  uint32_t Ranks = 1;
  uint32_t Steps = 0;
  bool PowerOfTwo = true;
};

/// The blocks rank Rank sends at each reduce-scatter step of collective
/// Collective, as sorted block indices (the set for Rank computed from rank
/// 0's first steps by transform()).
std::vector<std::vector<uint32_t>>
sendSetsOf(const SwingTorus &T, llvm::ArrayRef<int8_t> FirstStepsFromZero,
           uint32_t Rank);

} // namespace collplan::swing

#endif // COLLPLAN_ALGORITHMS_SWINGPEERS_H
