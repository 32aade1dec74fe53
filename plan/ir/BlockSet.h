//===- BlockSet.h - Sorted half-open intervals of block indices -*- C++ -*-===//
//
// A plan names the blocks an operation moves as a set of intervals rather than
// a list of indices, so a ring or Swing step stays a few integers at any P.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_BLOCKSET_H
#define COLLPLAN_IR_BLOCKSET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace collplan {

/// The half-open interval [Begin, End) of block indices.
struct BlockRange {
  uint64_t Begin = 0;
  uint64_t End = 0;

  uint64_t size() const { return End - Begin; }
  bool empty() const { return Begin >= End; }
  friend bool operator==(const BlockRange &A, const BlockRange &B) {
    return A.Begin == B.Begin && A.End == B.End;
  }
};

/// A set of block indices kept as sorted, disjoint, non-adjacent intervals.
/// Every mutation restores that canonical form, so two equal sets compare
/// equal range by range and serialize to the same bytes.
class BlockSet {
public:
  BlockSet() = default;

  /// The blocks [Begin, End).
  static BlockSet range(uint64_t Begin, uint64_t End);
  /// The single block B.
  static BlockSet single(uint64_t B) { return range(B, B + 1); }
  /// Count consecutive blocks starting at Start, wrapping modulo Modulus:
  /// the shape of a ring or circulant step.
  static BlockSet wrapped(uint64_t Start, uint64_t Count, uint64_t Modulus);

  /// Adds [Begin, End), merging with neighbours.
  void insert(uint64_t Begin, uint64_t End);
  void insert(BlockRange R) { insert(R.Begin, R.End); }
  void insert(const BlockSet &Other);

  BlockSet intersect(const BlockSet &Other) const;
  BlockSet subtract(const BlockSet &Other) const;
  bool overlaps(const BlockSet &Other) const;
  bool contains(uint64_t Block) const;
  bool containsAll(const BlockSet &Other) const;

  bool empty() const { return Ranges.empty(); }
  /// The number of blocks in the set.
  uint64_t count() const;
  /// One past the largest block, or 0 for the empty set.
  uint64_t upperBound() const { return Ranges.empty() ? 0 : Ranges.back().End; }
  llvm::ArrayRef<BlockRange> ranges() const { return Ranges; }

  /// Calls F(Block) for every block in increasing order.
  template <typename Fn> void forEachBlock(Fn F) const {
    for (const BlockRange &R : Ranges)
      for (uint64_t B = R.Begin; B < R.End; ++B)
        F(B);
  }

  /// "3", "0-4" (inclusive), "0-1,5,7-9": the notation of `collplan show`.
  std::string str() const;

  friend bool operator==(const BlockSet &A, const BlockSet &B) {
    return A.Ranges == B.Ranges;
  }
  friend bool operator!=(const BlockSet &A, const BlockSet &B) {
    return !(A == B);
  }

private:
  llvm::SmallVector<BlockRange, 1> Ranges;
};

} // namespace collplan

#endif // COLLPLAN_IR_BLOCKSET_H
