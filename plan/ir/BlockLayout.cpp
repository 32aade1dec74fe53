//===- BlockLayout.cpp - Where each block lies in the user's vector -------===//

#include "plan/ir/BlockLayout.h"

namespace collplan {

BlockLayout::BlockLayout(const PlanHeader &Header, uint64_t Count)
    : NumBlocks(Header.Blocks), Count(Count) {
  if (Header.Weights.empty())
    return;
  Prefix.reserve(Header.Weights.size() + 1);
  Prefix.push_back(0);
  for (uint64_t W : Header.Weights)
    Prefix.push_back(Prefix.back() + W);
}

uint64_t BlockLayout::begin(uint64_t Block) const {
  uint64_t Num = Prefix.empty() ? Block : Prefix[Block];
  uint64_t Den = Prefix.empty() ? NumBlocks : Prefix.back();
  if (Den == 0)
    return 0;
  // 128-bit product: Count * Num overflows 64 bits for large vectors.
  return uint64_t((unsigned __int128)Count * Num / Den);
}

uint64_t BlockLayout::size(const BlockSet &Set) const {
  uint64_t N = 0;
  for (const BlockRange &R : Set.ranges())
    N += begin(R.End) - begin(R.Begin);
  return N;
}

} // namespace collplan
