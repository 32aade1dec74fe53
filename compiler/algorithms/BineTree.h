//===- BineTree.h - Bine binomial trees on any number of ranks --*- C++ -*-===//
//
// The distance-halving Bine tree (De Sensi et al., "Bine Trees: Enhancing
// Collective Operations by Optimizing Communication Locality", SC'25, §3):
// with s = ceil(log2 P), a rank's position relative to the root is written
// as s negabinary digits (base -2). In round t = 0..s-1 every holder flips
// the s - t lowest digits of its position to name its child; a position
// whose u lowest digits are equal (and whose digit u is not) receives in
// round s - u from the position with those u digits flipped. Child and
// parent are rho(s-1-t) = 1 - 2 + 4 - ... apart (Swing's distances,
// SwingPeers.h): +rho from an even position, -rho from an odd one.
//
// The s-digit numbers are the 2^s consecutive integers [lo, hi] around the
// root (lo = -2, hi = 5 for s = 3), and a subtree is the set of positions that
// share the digits above its root's run: an interval. For P = 2^s the ranks
// are the positions taken mod P. For other P (the reference code's TODO) the
// tree is pruned to a window [A, A + P) of P consecutive positions that holds
// the root and the parent of each of its positions: then rank (root + x) mod
// P stands for position x, every kept position is reached in the same round
// as in the full tree along the same short distances, and the pruned
// positions' sends are simply dropped. Such a window exists for every P
// checked (every P up to 2^16 apart, tests/algorithms/BineTest.cpp up to
// 2^12); the constructor finds the lowest one in O(2^s), or says there is
// none, which bine then reports as an error rather than build a wrong tree.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_BINETREE_H
#define COLLPLAN_ALGORITHMS_BINETREE_H

#include <cstdint>
#include <optional>

namespace collplan::bine {

/// x's s lowest negabinary digits (x within the s-digit range).
uint64_t toNegabinary(int64_t X, uint32_t Digits);
/// The integer whose negabinary digits are Nb.
int64_t fromNegabinary(uint64_t Nb);

class BineTree {
public:
  /// The tree over Ranks ranks; valid() says whether a window was found.
  explicit BineTree(uint32_t Ranks);

  bool valid() const { return Valid; }
  uint32_t ranks() const { return Ranks; }
  /// s = ceil(log2 P): the rounds of a broadcast.
  uint32_t rounds() const { return Digits; }
  /// The first position of the window (0 >= A >= lo).
  int64_t windowStart() const { return Start; }

  /// The position of the rank Rel steps after the root (Rel in [0, P)).
  int64_t positionOf(uint32_t Rel) const;
  /// The root-relative rank at position X.
  uint32_t relativeOf(int64_t X) const;
  /// The round in which position X receives; none for the root.
  std::optional<uint32_t> receiveRound(int64_t X) const;
  /// The position X receives from (X not the root).
  int64_t parent(int64_t X) const;
  /// The position X sends to in Round (after its receive round), if that
  /// position is inside the window.
  std::optional<int64_t> child(int64_t X, uint32_t Round) const;

private:
  bool inWindow(int64_t X) const { return X >= Start && X < Start + Ranks; }
  /// The number of equal lowest digits of X (s for the root).
  uint32_t equalRun(int64_t X) const;

  uint32_t Ranks;
  uint32_t Digits;
  int64_t Start = 0;
  bool Valid = false;
};

} // namespace collplan::bine

#endif // COLLPLAN_ALGORITHMS_BINETREE_H
