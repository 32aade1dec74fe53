//===- PairSizes.cpp - An alltoallv plan's pairs, seen from one rank ------===//

#include "plan/dispatch/PairSizes.h"

namespace collplan {

PairSizes::PairSizes(const PlanHeader &H) : Ranks(H.Ranks) {
  uint64_t Pairs = uint64_t(H.Ranks) * H.Ranks, PerPair = H.pairBlocks();
  Prefix.reserve(Pairs + 1);
  Prefix.push_back(0);
  for (uint64_t Pair = 0; Pair < Pairs; ++Pair) {
    uint64_t W = PerPair;
    if (!H.Weights.empty()) {
      W = 0;
      for (uint64_t B = Pair * PerPair; B < (Pair + 1) * PerPair; ++B)
        W += H.Weights[B];
    }
    Prefix.push_back(Prefix.back() + W);
  }
}

uint64_t PairSizes::beginOf(uint64_t Bytes, uint64_t Pair) const {
  // BlockLayout's rounding, at the pair's first block.
  if (Prefix.back() == 0)
    return 0;
  return uint64_t((unsigned __int128)Bytes * Prefix[Pair] / Prefix.back());
}

uint64_t PairSizes::size(uint64_t Bytes, uint32_t From, uint32_t To) const {
  uint64_t Pair = uint64_t(From) * Ranks + To;
  return beginOf(Bytes, Pair + 1) - beginOf(Bytes, Pair);
}

std::optional<uint64_t>
PairSizes::bytesFor(uint32_t Rank, llvm::ArrayRef<uint64_t> Row,
                    llvm::ArrayRef<uint64_t> Column) const {
  if (Row.size() != Ranks || Column.size() != Ranks || Rank >= Ranks)
    return std::nullopt;
  // The size from the first pair that moves something: a pair of weight w
  // gets exactly Bytes * w / W when the counts are in the weights'
  // proportion, so Bytes = count * W / w.
  std::optional<uint64_t> Bytes;
  for (uint32_t Peer = 0; Peer < Ranks && !Bytes; ++Peer)
    for (auto [Count, Pair] :
         {std::pair{Row[Peer], uint64_t(Rank) * Ranks + Peer},
          std::pair{Column[Peer], uint64_t(Peer) * Ranks + Rank}}) {
      if (Count == 0)
        continue;
      uint64_t W = weightOf(Pair);
      unsigned __int128 Scaled = (unsigned __int128)Count * Prefix.back();
      if (W == 0 || Scaled % W != 0 || Scaled / W >= (uint64_t(1) << 62))
        return std::nullopt;
      Bytes = uint64_t(Scaled / W);
      break;
    }
  if (!Bytes) {
    // Nothing to move: fine at any size only if the plan moves nothing
    // here either.
    for (uint32_t Peer = 0; Peer < Ranks; ++Peer)
      if (weightOf(uint64_t(Rank) * Ranks + Peer) ||
          weightOf(uint64_t(Peer) * Ranks + Rank))
        return std::nullopt;
    return 0;
  }
  for (uint32_t Peer = 0; Peer < Ranks; ++Peer)
    if (size(*Bytes, Rank, Peer) != Row[Peer] ||
        size(*Bytes, Peer, Rank) != Column[Peer])
      return std::nullopt;
  return Bytes;
}

} // namespace collplan
