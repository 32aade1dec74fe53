//===- ContributionStore.cpp - Symbolic state of one chunk of blocks ------===//

#include "compiler/verify/ContributionStore.h"
#include "plan/ir/Hash.h"
#include "plan/ir/Topology.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstring>

namespace collplan {
namespace verify {
namespace {

/// "rank 4's contribution" or "the contributions of ranks 2, 3".
std::string contributionsOf(llvm::ArrayRef<uint32_t> Ranks, uint64_t Total) {
  if (Total == 1)
    return rankList(Ranks, Total) + "'s contribution";
  return "the contributions of " + rankList(Ranks, Total);
}

std::string expectedText(ExpectedSet E) {
  if (E.Single == ExpectedSet::All)
    return "every rank's contribution";
  return "only rank " + std::to_string(E.Single) + "'s contribution";
}

} // namespace

std::string rankList(llvm::ArrayRef<uint32_t> Ranks, uint64_t Total) {
  constexpr size_t Shown = 8;
  std::string Out = Total == 1 ? "rank " : "ranks ";
  for (size_t I = 0; I < Ranks.size() && I < Shown; ++I)
    Out += (I ? ", " : "") + std::to_string(Ranks[I]);
  if (Total > std::min<uint64_t>(Shown, Ranks.size()))
    Out += " and " +
           std::to_string(Total - std::min<uint64_t>(Shown, Ranks.size())) +
           " more";
  return Out;
}

//===-- ExactStore --------------------------------------------------------===//

ExactStore::ExactStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks)
    : Ranks(Ranks), Words((uint64_t(Ranks) + 63) / 64),
      Bits(uint64_t(Ranks) * Buffers * ChunkBlocks * Words),
      Doubled(uint64_t(Ranks) * Buffers * ChunkBlocks) {}

void ExactStore::clearRun(uint64_t Slot, uint64_t N) {
  std::fill_n(set(Slot), N * Words, 0);
  std::fill_n(Doubled.begin() + Slot, N, 0);
}

void ExactStore::setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
  clearRun(Slot, N);
  for (uint64_t I = 0; I < N; ++I)
    set(Slot + I)[Rank / 64] = uint64_t(1) << (Rank % 64);
}

bool ExactStore::empty(uint64_t Slot) const {
  const uint64_t *S = set(Slot);
  return std::all_of(S, S + Words, [](uint64_t W) { return W == 0; });
}

uint64_t ExactStore::firstEmpty(uint64_t Src, uint64_t N) const {
  for (uint64_t I = 0; I < N; ++I)
    if (empty(Src + I))
      return I;
  return N;
}

uint64_t ExactStore::firstBadReduce(uint64_t Dst, uint64_t Src,
                                    uint64_t N) const {
  for (uint64_t I = 0; I < N; ++I) {
    const uint64_t *D = set(Dst + I), *S = set(Src + I);
    uint64_t AnyD = 0, AnyS = 0, Both = 0;
    for (uint64_t W = 0; W < Words; ++W) {
      AnyD |= D[W];
      AnyS |= S[W];
      Both |= D[W] & S[W];
    }
    if (!AnyD || !AnyS || Both)
      return I;
  }
  return N;
}

void ExactStore::copy(uint64_t Dst, uint64_t Src, uint64_t N) {
  std::memmove(set(Dst), set(Src), N * Words * sizeof(uint64_t));
  std::memmove(Doubled.data() + Dst, Doubled.data() + Src,
               N * sizeof(uint32_t));
}

bool ExactStore::allEqual(uint64_t Slot, uint64_t N) const {
  for (uint64_t I = 1; I < N; ++I)
    if (Doubled[Slot + I] != Doubled[Slot] ||
        !std::equal(set(Slot + I), set(Slot + I) + Words, set(Slot)))
      return false;
  return true;
}

void ExactStore::reduce(uint64_t Dst, uint64_t Src, uint64_t N, uint32_t Tag) {
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t *D = set(Dst + I);
    const uint64_t *S = set(Src + I);
    uint64_t Both = 0;
    for (uint64_t W = 0; W < Words; ++W) {
      Both |= D[W] & S[W];
      D[W] |= S[W];
    }
    uint32_t &Mark = Doubled[Dst + I];
    if (!Mark)
      Mark = Doubled[Src + I] ? Doubled[Src + I] : Both ? Tag : 0;
  }
}

std::string ExactStore::whyNotCombinable(uint64_t Dst, uint64_t Src) const {
  const uint64_t *D = set(Dst), *S = set(Src);
  llvm::SmallVector<uint32_t, 8> Twice;
  uint64_t Total = 0;
  for (uint32_t R = 0; R < Ranks; ++R)
    if (test(D, R) && test(S, R) && Total++ < 8)
      Twice.push_back(R);
  return "would hold " + contributionsOf(Twice, Total) + " twice";
}

bool ExactStore::holds(uint64_t Slot, ExpectedSet E) const {
  if (Doubled[Slot])
    return false;
  const uint64_t *S = set(Slot);
  if (E.Single != ExpectedSet::All) {
    uint64_t Bit = uint64_t(E.Single);
    for (uint64_t W = 0; W < Words; ++W)
      if (S[W] != (W == Bit / 64 ? uint64_t(1) << (Bit % 64) : 0))
        return false;
    return true;
  }
  for (uint64_t W = 0; W + 1 < Words; ++W)
    if (S[W] != ~uint64_t(0))
      return false;
  uint32_t Tail = Ranks % 64;
  return S[Words - 1] == (Tail ? (uint64_t(1) << Tail) - 1 : ~uint64_t(0));
}

std::string ExactStore::whyNotHolding(uint64_t Slot, ExpectedSet E) const {
  const uint64_t *S = set(Slot);
  if (empty(Slot))
    return "holds no data; it should hold " + expectedText(E);
  if (Doubled[Slot])
    return "holds a contribution twice; it should hold " + expectedText(E);
  llvm::SmallVector<uint32_t, 8> Missing, Extra;
  uint64_t MissingTotal = 0, ExtraTotal = 0;
  for (uint32_t R = 0; R < Ranks; ++R) {
    bool Want = E.Single == ExpectedSet::All || E.Single == int64_t(R);
    bool Have = test(S, R);
    if (Want && !Have && MissingTotal++ < 8)
      Missing.push_back(R);
    if (!Want && Have && ExtraTotal++ < 8)
      Extra.push_back(R);
  }
  std::string Out;
  if (ExtraTotal)
    Out = "holds " + contributionsOf(Extra, ExtraTotal) +
          ", which does not belong there";
  if (MissingTotal)
    Out += (Out.empty() ? "lacks " : " and lacks ") +
           contributionsOf(Missing, MissingTotal);
  return Out;
}

//===-- HashedStore -------------------------------------------------------===//

HashedStore::HashedStore(uint32_t Ranks, uint32_t Buffers, uint64_t ChunkBlocks,
                         uint64_t Seed)
    : Ranks(Ranks), RankWord(Ranks),
      Word(uint64_t(Ranks) * Buffers * ChunkBlocks) {
  static_assert(MaxRanks < (uint64_t(1) << CountBits),
                "the count field must hold every rank");
  for (uint32_t R = 0; R < Ranks; ++R) {
    RankWord[R] = (splitmix64(Seed ^ splitmix64(R)) & ~CountMask) | 1;
    FullWord += RankWord[R];
  }
}

std::string HashedStore::whyNotHolding(uint64_t Slot, ExpectedSet E) const {
  uint64_t Want = E.Single == ExpectedSet::All ? Ranks : 1;
  uint64_t Have = count(Word[Slot]);
  if (Have == 0)
    return "holds no data; it should hold " + expectedText(E);
  if (Have < Want)
    return "lacks " + std::to_string(Want - Have) + " of the " +
           std::to_string(Want) + " contributions it should hold";
  if (Have > Want)
    return "holds " + std::to_string(Have) +
           " contributions (a contribution is combined twice); it should "
           "hold " +
           expectedText(E);
  return "holds " + std::to_string(Have) +
         " contributions but not the expected ones (a contribution is "
         "doubled or misplaced); it should hold " +
         expectedText(E);
}

} // namespace verify
} // namespace collplan
