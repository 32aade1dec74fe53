//===- TrivanceTorus.h - Trivance's steps, peers and block sets -*- C++ -*-===//
//
// The combinatorics of Trivance (Juerss, Addanki and Schmid, "Trivance:
// Latency-Optimal AllReduce by Shortcutting Multiport Networks", arXiv
// 2602.17254, 2026), kept apart from the plan building in Trivance.cpp so
// the tests can check them against the paper's and its simulator's figures.
//
// A torus of nodes, one rank each. A dimension of d ranks takes
// L = ceil(log3 d) steps; at its step c a rank talks to both of its
// neighbours at distance 3^c along that dimension at once, one per port of
// the bidirectional ring, so a step triples what a rank has combined (log3 P
// steps where recursive doubling and Swing take log2 P). The last step of a
// dimension that is not a power of three goes ceil((d - 3^(L-1)) / 2) far
// (the simulator's rule; 3^(L-1) for d = 3^L). The dimensions take turns,
// skipping the exhausted ones (the simulator's schedule; Swing's §4.2); the
// simulator's ports run one collective starting on each dimension, so a
// rank drives all 2D links of its node each step.
//
// Block sets (the bandwidth form), by offsets. Let S_c be the offsets the
// steps c..L-1 of a dimension can cover (sums of -1, 0 or +1 times their
// distances, modulo d): S_L = {0}, and the distances above make S_0 every
// offset. In the reduce-scatter a rank holds, before its step c along a
// dimension, the partials of the blocks whose offset from it along that
// dimension lies in S_c; it keeps those in S_{c+1} and sends each other one
// to the neighbour from which it lies in S_{c+1} (the + one when both do and
// the + side has not sent more, balancing the two ports). Every partial then
// moves on one path fixed by its offset alone, so a contribution reaches its
// block once and only once, and a rank sends d - 1 blocks per dimension in
// all: bandwidth-optimal on any d. For d = 3^L the offsets have one balanced
// ternary form, and the sets are the simulator's ("the blocks reachable from
// the neighbour through the later steps"). The allgather runs it backwards.
//
// Labels. For powers of three, numbering block b by its base-3 digits in
// step order (digit c of b_E for the step (E, c), the first step's digit most
// significant) turns every set above into one interval: the held set is a
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
#include <vector>

namespace collplan::trivance {

/// 3^K.
uint64_t pow3(uint32_t K);
/// The largest power of three <= N (N >= 1), and 0 for N = 0.
uint32_t pow3Floor(uint32_t N);
/// ceil(log3 N) for N >= 1.
uint32_t log3Ceil(uint64_t N);
/// The distance of step Level of a dimension of Size ranks.
uint32_t stepDistance(uint32_t Size, uint32_t Level);

/// One step: the dimension it moves along and that dimension's step.
struct TernaryStep {
  uint32_t Dim = 0;
  uint32_t Level = 0;
};

/// Which part of a rank's held blocks a step concerns: the part it keeps,
/// or the part it sends to its + or - neighbour.
enum class Third : int8_t { Minus = -1, Kept = 0, Plus = 1 };

class TernaryTorus {
public:
  /// The collective whose steps start on dimension FirstDim (ports=all runs
  /// one starting on each dimension).
  explicit TernaryTorus(llvm::ArrayRef<uint32_t> Dims, uint32_t FirstDim = 0);

  llvm::ArrayRef<uint32_t> dims() const { return Dims; }
  uint32_t ranks() const { return Ranks; }
  /// Steps of one reduce-scatter: sum over dimensions of ceil(log3 d).
  uint32_t steps() const { return Schedule.size(); }
  llvm::ArrayRef<TernaryStep> schedule() const { return Schedule; }
  const Topology &topology() const { return Shape; }
  /// Whether every dimension is a power of three (the labels apply).
  bool powersOfThree() const { return PowersOfThree; }

  /// Rank's neighbour at step Step on side Side (Plus or Minus).
  uint32_t peer(uint32_t Rank, uint32_t Step, Third Side) const;

  /// Side's part of what Rank holds before reduce-scatter step Step, by
  /// rank numbers (rank b's final block is block b). Empty when Rank sends
  /// nothing that way.
  BlockSet rankThird(uint32_t Rank, uint32_t Step, Third Side) const;

  /// Powers of three only: Rank's label (TrivanceTorus.h, "Labels").
  uint64_t label(uint32_t Rank) const;
  /// Powers of three only: rankThird in labels, an interval of
  /// ranks() / 3^(Step+1) of them.
  BlockSet labelThird(uint32_t Rank, uint32_t Step, Third Side) const;

private:
  llvm::SmallVector<uint32_t, 4> Dims;
  Topology Shape;
  llvm::SmallVector<TernaryStep, 32> Schedule;
  /// Per dimension and level c: Move[e][c][x] for offset x in [0, d): -1,
  /// 0 or +1 for the side offset x goes to at step c (0: kept), or
  /// NotHeld when x is not in S_c.
  std::vector<std::vector<std::vector<int8_t>>> Move;
  uint32_t Ranks = 1;
  bool PowersOfThree = true;

public:
  static constexpr int8_t NotHeld = 2;
};

} // namespace collplan::trivance

#endif // COLLPLAN_ALGORITHMS_TRIVANCETORUS_H
