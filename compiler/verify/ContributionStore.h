//===- ContributionStore.h - Symbolic state of a chunk ----------*- C++ -*-===//
//
// For every (rank, buffer, block) of a chunk of blocks, the set of ranks
// whose contributions the block holds; empty means the block holds no data.
// Two representations share one interface so the replay is written once:
//
//   ExactStore   a bitset of P bits per set, and where the set first
//                combined a contribution twice: exact, O(P / 8) bytes per
//                set.
//   HashedStore  one 64-bit word per set: the sum of per-rank words whose
//                low 25 bits are 1 and whose high 39 bits are random, so
//                the low bits count the contributions (MaxRanks = 2^24
//                fits) and the high bits sum their hashes. A reduce is one
//                addition, which the compiler vectorises. The end state
//                compares the word with the expected set's, so a wrong set
//                passes with probability about 2^-39; a count that
//                outgrows its field (a contribution doubled many times)
//                carries into the hash and fails the comparison too.
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
  /// Holds Slots sets from now on (RunRegions.h), the new ones empty.
  void resize(uint64_t Slots) {
    Bits.resize(Slots * Words);
    Doubled.resize(Slots);
  }
  static uint64_t bytesPerSet(uint32_t Ranks) {
    return ((uint64_t(Ranks) + 63) / 64) * 8 + sizeof(uint32_t);
  }

  /// Makes N sets from Slot empty, or all {Rank}.
  void prefetch(uint64_t Slot) const { __builtin_prefetch(set(Slot)); }
  void clearRun(uint64_t Slot, uint64_t N);
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank);
  bool empty(uint64_t Slot) const;
  /// The first of N slots from Src that is empty, or N.
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const;
  /// The first of N slot pairs a reduce may not combine (either side empty,
  /// or a contribution on both sides), or N.
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const;
  void copy(uint64_t Dst, uint64_t Src, uint64_t N);
  /// Whether the N sets from Slot are equal (and doubled alike).
  bool allEqual(uint64_t Slot, uint64_t N) const;
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
  static uint64_t bytesPerSet(uint32_t) { return sizeof(uint64_t); }
  void resize(uint64_t Slots) { Word.resize(Slots); }

  void clearRun(uint64_t Slot, uint64_t N) {
    std::fill_n(Word.begin() + Slot, N, 0);
  }
  void prefetch(uint64_t Slot) const { __builtin_prefetch(Word.data() + Slot); }
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
    std::fill_n(Word.begin() + Slot, N, RankWord[Rank]);
  }
  bool empty(uint64_t Slot) const { return count(Word[Slot]) == 0; }
  // The hot paths, inline so the replay's short runs pay no call.
  uint64_t firstEmpty(uint64_t Src, uint64_t N) const {
    const uint64_t *S = Word.data() + Src;
    return detail::firstWhere(N, [S](uint64_t I) { return count(S[I]) == 0; });
  }
  uint64_t firstBadReduce(uint64_t Dst, uint64_t Src, uint64_t N) const {
    const uint64_t *D = Word.data() + Dst, *S = Word.data() + Src;
    return detail::firstWhere(
        N, [=](uint64_t I) { return (count(D[I]) == 0) | (count(S[I]) == 0); });
  }
  void copy(uint64_t Dst, uint64_t Src, uint64_t N) {
    // Uniform runs (SymbolicExecution.cpp) copy one slot: no call.
    if (N == 1)
      Word[Dst] = Word[Src];
    else
      std::copy_n(Word.begin() + Src, N, Word.begin() + Dst);
  }
  bool allEqual(uint64_t Slot, uint64_t N) const {
    const uint64_t *W = Word.data() + Slot;
    return detail::firstWhere(N, [=](uint64_t I) { return W[I] != W[0]; }) == N;
  }
  void reduce(uint64_t Dst, uint64_t Src, uint64_t N, uint32_t /*Tag*/) {
    uint64_t *D = Word.data() + Dst;
    const uint64_t *S = Word.data() + Src;
    for (uint64_t I = 0; I < N; ++I)
      D[I] += S[I];
  }
  uint32_t doubledBy(uint64_t) const { return 0; }

  bool holds(uint64_t Slot, ExpectedSet E) const {
    return Word[Slot] == expected(E);
  }
  uint64_t firstNotHolding(uint64_t Slot, uint64_t N, ExpectedSet E) const {
    const uint64_t *W = Word.data() + Slot;
    uint64_t Want = expected(E);
    return detail::firstWhere(N, [=](uint64_t I) { return W[I] != Want; });
  }
  std::string whyNotHolding(uint64_t Slot, ExpectedSet E) const;

private:
  static constexpr unsigned CountBits = 25;
  static constexpr uint64_t CountMask = (uint64_t(1) << CountBits) - 1;
  static uint64_t count(uint64_t W) { return W & CountMask; }

  uint32_t Ranks;
  std::vector<uint64_t> RankWord;
  uint64_t FullWord = 0;
  std::vector<uint64_t> Word;

  uint64_t expected(ExpectedSet E) const {
    return E.Single == ExpectedSet::All ? FullWord : RankWord[E.Single];
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_CONTRIBUTIONSTORE_H
