//===- ContributionStore.h - Symbolic state of one chunk of blocks -*- C++ -*-===//
//
// For every (rank, buffer, block) of a chunk of blocks, the set of ranks
// whose contributions the block holds; empty means the block holds no data.
// Two representations share one interface so the replay is written once:
//
//   ExactStore   a bitset of P bits per set: exact, O(P / 8) bytes per set.
//   HashedStore  (count, sum mod 2^64 of per-rank random 64-bit hashes): 12
//                bytes per set. A reduce can only check that the count stays
//                within P; the end state compares count and hash with the
//                expected set's, so a wrong set passes with probability
//                about 2^-64.
//
// Sets are addressed by slot = (Rank * Buffers + Buffer) * ChunkBlocks +
// block - chunk begin, so the blocks of one (rank, buffer) are contiguous and
// every operation is a loop over a run of consecutive slots.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H
#define COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan {
namespace verify {

/// The set a block must hold at the end: every rank's contribution, or
/// exactly one rank's.
struct ExpectedSet {
  static constexpr int64_t All = -1;
  int64_t Single = All;
};

/// "rank 4" or "ranks 2, 3, 5 and 12 more".
std::string rankList(llvm::ArrayRef<uint32_t> Ranks, uint64_t Total);

class ExactStore {
public:
  ExactStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks);
  static uint64_t bytesPerSet(uint32_t Ranks) {
    return ((uint64_t(Ranks) + 63) / 64) * 8;
  }

  void clear();
  void setSingle(uint64_t Slot, uint32_t Rank);
  bool empty(uint64_t Slot) const;
  /// The first of N slots from Src that is empty, or N.
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const;
  /// The first of N slot pairs a reduce may not combine (either side empty,
  /// or a contribution on both sides), or N.
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const;
  void copy(uint64_t Dst, uint64_t Src, uint64_t N);
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N);
  /// Why Dst and Src cannot be combined although both hold data: "would hold
  /// rank 4's contribution twice".
  std::string whyNotCombinable(uint64_t Dst, uint64_t Src) const;

  bool holds(uint64_t Slot, ExpectedSet E) const;
  /// Why Slot does not hold E: "lacks the contributions of ranks 2, 3".
  std::string whyNotHolding(uint64_t Slot, ExpectedSet E) const;

private:
  uint32_t Ranks;
  uint64_t Words;
  std::vector<uint64_t> Bits;

  uint64_t *set(uint64_t Slot) { return Bits.data() + Slot * Words; }
  const uint64_t *set(uint64_t Slot) const { return Bits.data() + Slot * Words; }
  bool test(const uint64_t *S, uint32_t Rank) const {
    return (S[Rank / 64] >> (Rank % 64)) & 1;
  }
};

class HashedStore {
public:
  HashedStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks,
              uint64_t Seed);
  static uint64_t bytesPerSet(uint32_t) {
    return sizeof(uint32_t) + sizeof(uint64_t);
  }

  void clear();
  void setSingle(uint64_t Slot, uint32_t Rank) {
    Count[Slot] = 1;
    Hash[Slot] = RankHash[Rank];
  }
  bool empty(uint64_t Slot) const { return Count[Slot] == 0; }
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const;
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const;
  void copy(uint64_t Dst, uint64_t Src, uint64_t N);
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N);
  std::string whyNotCombinable(uint64_t Dst, uint64_t Src) const;

  bool holds(uint64_t Slot, ExpectedSet E) const {
    return E.Single == ExpectedSet::All
               ? Count[Slot] == Ranks && Hash[Slot] == FullHash
               : Count[Slot] == 1 && Hash[Slot] == RankHash[E.Single];
  }
  std::string whyNotHolding(uint64_t Slot, ExpectedSet E) const;

private:
  uint32_t Ranks;
  std::vector<uint64_t> RankHash;
  uint64_t FullHash = 0;
  // Structure of arrays: the count checks read 4 bytes per set.
  std::vector<uint32_t> Count;
  std::vector<uint64_t> Hash;
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H
