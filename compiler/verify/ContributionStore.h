//===- ContributionStore.h - Symbolic state of one chunk of blocks -*- C++
//-*-===//
//
// For every (rank, buffer, block) of a chunk of blocks, the set of ranks
// whose contributions the block holds; empty means the block holds no data.
// Two representations share one interface so the replay is written once:
//
//   ExactStore   a bitset of P bits per set, and where the set first
//                combined a contribution twice: exact, O(P / 8) bytes per
//                set.
//   HashedStore  (count, sum mod 2^64 of per-rank random 64-bit hashes): 12
//                bytes per set. The end state compares count and hash with
//                the expected set's, so a wrong set passes with probability
//                about 2^-64.
//
// A reduce that counts a contribution twice is wrong only if its result
// reaches a block the collective promises; one whose result is overwritten
// first changes nothing. The hashed store cannot see a double count when it
// happens (that takes the sets themselves), only in a promised block at the
// end. So both stores judge double counts there, and give the same verdict;
// the exact store also remembers, per set, the reduce that doubled it, so
// the diagnostic can name it.
//
// Sets are addressed by slot = (Rank * Buffers + Buffer) * ChunkBlocks +
// block - chunk begin, so the blocks of one (rank, buffer) are contiguous and
// every operation is a loop over a run of consecutive slots.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H
#define COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan {
namespace verify {

namespace detail {
/// Scans in blocks so the common, all-good case runs as a branch-free loop
/// the compiler vectorises; the exact position is searched only on failure.
template <typename BadFn> inline uint64_t firstWhere(uint64_t N, BadFn IsBad) {
  constexpr uint64_t Step = 256;
  for (uint64_t I = 0; I < N; I += Step) {
    uint64_t E = std::min(N, I + Step);
    bool Bad = false;
    for (uint64_t J = I; J < E; ++J)
      Bad |= IsBad(J);
    if (Bad)
      for (uint64_t J = I; J < E; ++J)
        if (IsBad(J))
          return J;
  }
  return N;
}

} // namespace detail

/// The set a block must hold at the end: every rank's contribution, or
/// exactly one rank's.
struct ExpectedSet {
  static constexpr int64_t All = -1;
  int64_t Single = All;
};

/// "rank 4" or "ranks 2, 3, 5 and 12 more".
std::string rankList(llvm::ArrayRef<uint32_t> Ranks, uint64_t Total);

/// Marks a set that holds a contribution twice when the reduce that doubled
/// it has no tag of its own (see ExactStore::reduce).
constexpr uint32_t UntaggedDouble = UINT32_MAX;

class ExactStore {
public:
  /// firstBadReduce also finds reduces that count a contribution twice.
  static constexpr bool SeesDoubles = true;

  ExactStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks);
  static uint64_t bytesPerSet(uint32_t Ranks) {
    return ((uint64_t(Ranks) + 63) / 64) * 8 + sizeof(uint32_t);
  }

  /// Makes N sets from Slot empty, or all {Rank}.
  void clearRun(uint64_t Slot, uint64_t N);
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank);
  bool empty(uint64_t Slot) const;
  /// The first of N slots from Src that is empty, or N.
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const;
  /// The first of N slot pairs a reduce may not combine (either side empty,
  /// or a contribution on both sides), or N.
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const;
  void copy(uint64_t Dst, uint64_t Src, uint64_t N);
  /// Combines N sets; a result that holds a contribution twice keeps the tag
  /// of the reduce that first doubled it, or takes Tag (non-zero).
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N, uint32_t Tag);
  /// The tag of the reduce that doubled Slot's set, or 0.
  uint32_t doubledBy(uint64_t Slot) const { return Doubled[Slot]; }
  /// Why Dst and Src cannot be combined although both hold data: "would hold
  /// rank 4's contribution twice".
  std::string whyNotCombinable(uint64_t Dst, uint64_t Src) const;

  bool holds(uint64_t Slot, ExpectedSet E) const;
  /// The first of N sets from Slot that does not hold E, or N.
  uint64_t firstNotHolding(uint64_t Slot, uint64_t N, ExpectedSet E) const {
    for (uint64_t I = 0; I < N; ++I)
      if (!holds(Slot + I, E))
        return I;
    return N;
  }
  /// Why Slot does not hold E: "lacks the contributions of ranks 2, 3".
  std::string whyNotHolding(uint64_t Slot, ExpectedSet E) const;

private:
  uint32_t Ranks;
  uint64_t Words;
  std::vector<uint64_t> Bits;
  std::vector<uint32_t> Doubled; ///< Per set: 0, or the doubling tag.

  uint64_t *set(uint64_t Slot) { return Bits.data() + Slot * Words; }
  const uint64_t *set(uint64_t Slot) const {
    return Bits.data() + Slot * Words;
  }
  bool test(const uint64_t *S, uint32_t Rank) const {
    return (S[Rank / 64] >> (Rank % 64)) & 1;
  }
};

class HashedStore {
public:
  /// firstBadReduce finds empty operands only (see the file comment).
  static constexpr bool SeesDoubles = false;

  HashedStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks,
              uint64_t Seed);
  static uint64_t bytesPerSet(uint32_t) {
    return sizeof(uint32_t) + sizeof(uint64_t);
  }

  void clearRun(uint64_t Slot, uint64_t N) {
    std::fill_n(Count.begin() + Slot, N, 0);
    std::fill_n(Hash.begin() + Slot, N, 0);
  }
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
    std::fill_n(Count.begin() + Slot, N, 1);
    std::fill_n(Hash.begin() + Slot, N, RankHash[Rank]);
  }
  bool empty(uint64_t Slot) const { return Count[Slot] == 0; }
  // The hot paths, inline so the replay's short runs pay no call.
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const {
    const uint32_t *S = Count.data() + Src;
    return detail::firstWhere(N, [S](uint64_t I) { return S[I] == 0; });
  }
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const {
    const uint32_t *D = Count.data() + Dst, *S = Count.data() + Src;
    return detail::firstWhere(
        N, [=](uint64_t I) { return (D[I] == 0) | (S[I] == 0); });
  }
  void copy(uint64_t Dst, uint64_t Src, uint64_t N) {
    uint32_t *DC = Count.data() + Dst;
    const uint32_t *SC = Count.data() + Src;
    uint64_t *DH = Hash.data() + Dst;
    const uint64_t *SH = Hash.data() + Src;
    for (uint64_t I = 0; I < N; ++I) {
      DC[I] = SC[I];
      DH[I] = SH[I];
    }
  }
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N, uint32_t /*Tag*/) {
    uint32_t *DC = Count.data() + Dst;
    const uint32_t *SC = Count.data() + Src;
    uint64_t *DH = Hash.data() + Dst;
    const uint64_t *SH = Hash.data() + Src;
    for (uint64_t I = 0; I < N; ++I) {
      DC[I] = std::min(DC[I] + SC[I], Ranks + 1); // Saturate past P.
      DH[I] += SH[I];
    }
  }
  uint32_t doubledBy(uint64_t) const { return 0; }

  bool holds(uint64_t Slot, ExpectedSet E) const {
    return E.Single == ExpectedSet::All
               ? Count[Slot] == Ranks && Hash[Slot] == FullHash
               : Count[Slot] == 1 && Hash[Slot] == RankHash[E.Single];
  }
  uint64_t firstNotHolding(uint64_t Slot, uint64_t N, ExpectedSet E) const {
    const uint32_t *C = Count.data() + Slot;
    const uint64_t *H = Hash.data() + Slot;
    bool All = E.Single == ExpectedSet::All;
    uint32_t WantCount = All ? Ranks : 1;
    uint64_t WantHash = All ? FullHash : RankHash[E.Single];
    return detail::firstWhere(N, [=](uint64_t I) {
      return (C[I] != WantCount) | (H[I] != WantHash);
    });
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
