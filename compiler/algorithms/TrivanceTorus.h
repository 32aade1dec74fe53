//===- TrivanceTorus.h - Trivance's steps, peers and block sets -*- C++ -*-===//
//
// The combinatorics of Trivance (Juerss, Addanki and Schmid, "Trivance:
// Latency-Optimal AllReduce by Shortcutting Multiport Networks", arXiv
// 2602.17254, 2026), kept apart from the plan building in Trivance.cpp so
// the tests can check them against the paper's and its simulator's figures.
//
// A torus whose dimensions are powers of three (or 1), one rank per node. A
// dimension of size 3^L takes L steps; at its step c a rank talks to both of
// its neighbours 3^c away along that dimension at once, one per port of the
// bidirectional ring, so a step triples what a rank has combined (the
// paper's §3: log3 P steps where recursive doubling and Swing take log2 P).
// The dimensions take turns, starting with dimension 0 and skipping the
// exhausted ones (the simulator's schedule; Swing's §4.2).
//
// Block sets (the bandwidth form). Before reduce-scatter step t a rank v
// holds the partials of the blocks b with b_e = v_e (mod 3^{c_e}) in every
// dimension e, c_e being the steps dimension e has taken; at step t (dimension
// E, its step c) it keeps those with b_E = v_E (mod 3^{c+1}), sends those with
// b_E = v_E + 3^c to its + neighbour and those with b_E = v_E - 3^c to its -
// neighbour, and combines what both neighbours send it into the kept ones.
// The contributions a partial holds are the ranks v + sum of (-1, 0 or +1)
// 3^c along the steps taken: balanced ternary offsets, distinct modulo 3^L,
// so every contribution is combined once. The allgather runs it backwards.
//
// Labels. Numbering block b by the base-3 digits it is sorted by, in step
// order (digit c of b_E for the step (E, c), the first step's digit most
// significant), turns every set above into one interval: the held set is a
// label prefix, the kept and sent sets its three thirds.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_TRIVANCETORUS_H
#define COLLPLAN_ALGORITHMS_TRIVANCETORUS_H

#include "plan/ir/BlockSet.h"
#include "plan/ir/Topology.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace collplan::trivance {

/// 3^K.
uint64_t pow3(uint32_t K);
/// The largest power of three <= N (N >= 1), and 0 for N = 0.
uint32_t pow3Floor(uint32_t N);
/// ceil(log3 N) for N >= 1.
uint32_t log3Ceil(uint64_t N);

/// One step: the dimension it moves along and that dimension's step c
/// (distance 3^c).
struct TernaryStep {
  uint32_t Dim = 0;
  uint32_t Level = 0;
};

/// Which part of a rank's held blocks a step concerns: the part it keeps,
/// or the part it sends to its + or - neighbour.
enum class Third : int8_t { Minus = -1, Kept = 0, Plus = 1 };

class TernaryTorus {
public:
  /// Every size a power of three or 1.
  explicit TernaryTorus(llvm::ArrayRef<uint32_t> Dims);

  llvm::ArrayRef<uint32_t> dims() const { return Dims; }
  uint32_t ranks() const { return Ranks; }
  /// Steps of one reduce-scatter: sum over dimensions of log3 d.
  uint32_t steps() const { return Schedule.size(); }
  llvm::ArrayRef<TernaryStep> schedule() const { return Schedule; }
  const Topology &topology() const { return Shape; }

  /// Rank's neighbour at step Step on side Side (Plus or Minus).
  uint32_t peer(uint32_t Rank, uint32_t Step, Third Side) const;

  /// Rank's label: its digits in step order (TrivanceTorus.h, "Labels").
  uint64_t label(uint32_t Rank) const;
  /// The labels of Side's part of what Rank holds before step Step, an
  /// interval of ranks() / 3^(Step+1) labels.
  BlockSet labelThird(uint32_t Rank, uint32_t Step, Third Side) const;
  /// The same blocks by their rank numbers (rank b's final block is block
  /// b): a strided set, for reduce-scatter and allgather.
  BlockSet rankThird(uint32_t Rank, uint32_t Step, Third Side) const;

private:
  llvm::SmallVector<uint32_t, 4> Dims;
  Topology Shape;
  llvm::SmallVector<TernaryStep, 32> Schedule;
  uint32_t Ranks = 1;
};

} // namespace collplan::trivance

#endif // COLLPLAN_ALGORITHMS_TRIVANCETORUS_H
