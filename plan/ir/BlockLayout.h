//===- BlockLayout.h - Where each block lies in the user's vector -*- C++ -*-===//
//
// Blocks are fractions of the vector, so one plan serves any element count:
// block b covers elements [begin(b), begin(b+1)) of an N-element vector, where
// begin(b) = floor(N * W(<b) / W(all)) for the block weights W (all ones when
// the plan has none). Blocks may be empty; both sides of a transfer compute
// the same extents, so they skip an empty transfer consistently.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_BLOCKLAYOUT_H
#define COLLPLAN_IR_BLOCKLAYOUT_H

#include "plan/ir/Plan.h"

#include <cstdint>
#include <vector>

namespace collplan {

class BlockLayout {
public:
  /// The layout of Header's blocks over a vector of Count elements.
  BlockLayout(const PlanHeader &Header, uint64_t Count);

  uint64_t numBlocks() const { return NumBlocks; }
  uint64_t count() const { return Count; }
  /// The first element of block B; begin(numBlocks()) == count().
  uint64_t begin(uint64_t Block) const;
  uint64_t size(uint64_t Block) const { return begin(Block + 1) - begin(Block); }
  /// The number of elements in a set of blocks.
  uint64_t size(const BlockSet &Set) const;

private:
  uint64_t NumBlocks;
  uint64_t Count;
  /// Prefix sums of the weights (NumBlocks + 1 entries); empty when uniform.
  std::vector<uint64_t> Prefix;
};

} // namespace collplan

#endif // COLLPLAN_IR_BLOCKLAYOUT_H
