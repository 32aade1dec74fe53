//===- RankIntervals.h - Rank order of partials in a chunk ------*- C++ -*-===//
//
// A plan that claims not to need a commutative operator (RequiresCommutative
// == false) must combine every block as x_0 (+) x_1 (+) ... (+) x_{P-1}.
// With Plan.h's rule destination = destination (+) incoming, that holds
// exactly when every reduce appends the incoming partial's ranks right after
// the destination's: each partial is then a run of consecutive ranks
// [Lo, Hi], and a reduce may only combine [a, b] with [b + 1, c]. So 8 bytes
// per set suffice, in the exact mode and the hashed mode alike, and both
// give the same verdict. A reduce that breaks the rule leaves an Unordered
// partial, which is not diagnosed again.
//
// Slots are the contribution store's (ContributionStore.h): the replay keeps
// both side by side, and this one only for plans that claim an order.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_RANKINTERVALS_H
#define COLLPLAN_VERIFY_RANKINTERVALS_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan {
namespace verify {

class RankIntervals {
public:
  explicit RankIntervals(uint64_t Slots) : Lo(Slots, Empty), Hi(Slots, 0) {}
  static constexpr uint64_t bytesPerSet() { return 2 * sizeof(uint32_t); }
  void resize(uint64_t Slots) {
    Lo.resize(Slots, Empty);
    Hi.resize(Slots, 0);
  }

  void prefetch(uint64_t Slot) const {
    __builtin_prefetch(Lo.data() + Slot);
    __builtin_prefetch(Hi.data() + Slot);
  }
  void clearRun(uint64_t Slot, uint64_t N) {
    std::fill_n(Lo.begin() + Slot, N, Empty);
  }
  void setSingleRun(uint64_t Slot, uint64_t N, uint32_t Rank) {
    std::fill_n(Lo.begin() + Slot, N, Rank);
    std::fill_n(Hi.begin() + Slot, N, Rank);
  }
  void copy(uint64_t Dst, uint64_t Src, uint64_t N) {
    if (N == 1) {
      Lo[Dst] = Lo[Src];
      Hi[Dst] = Hi[Src];
      return;
    }
    std::copy_n(Lo.begin() + Src, N, Lo.begin() + Dst);
    std::copy_n(Hi.begin() + Src, N, Hi.begin() + Dst);
  }

  /// Whether the N sets from Slot are equal (Hi of empty sets included: a
  /// false "no" only costs time).
  bool allEqual(uint64_t Slot, uint64_t N) const {
    for (uint64_t I = 1; I < N; ++I)
      if (Lo[Slot + I] != Lo[Slot] || Hi[Slot + I] != Hi[Slot])
        return false;
    return true;
  }

  /// The first of N slot pairs where both sides are runs of ranks and the
  /// incoming one (Src) does not start right after the destination's, or N.
  /// Empty sides are the contribution store's to diagnose.
  uint64_t firstOutOfOrder(uint64_t Dst, uint64_t Src, uint64_t N) const {
    for (uint64_t I = 0; I < N; ++I) {
      uint32_t DL = Lo[Dst + I], SL = Lo[Src + I];
      if (DL < Unordered && SL < Unordered && Hi[Dst + I] + 1 != SL)
        return I;
    }
    return N;
  }

  void reduce(uint64_t Dst, uint64_t Src, uint64_t N) {
    for (uint64_t I = 0; I < N; ++I) {
      uint32_t &DL = Lo[Dst + I];
      uint32_t SL = Lo[Src + I];
      if (SL == Empty)
        continue;
      if (DL == Empty || DL == Unordered || SL == Unordered) {
        DL = DL == Empty ? SL : Unordered;
        Hi[Dst + I] = Hi[Src + I];
      } else if (Hi[Dst + I] + 1 == SL) {
        Hi[Dst + I] = Hi[Src + I];
      } else {
        DL = Unordered;
      }
    }
  }

  /// Why Dst (named Place) and Src cannot be combined in this order:
  /// "reduces ranks 4..7 into block 2 of data, which holds ranks 0..1: not
  /// adjacent in rank order; ...".
  std::string whyOutOfOrder(uint64_t Dst, uint64_t Src,
                            const std::string &Place) const {
    uint32_t DL = Lo[Dst], DH = Hi[Dst], SL = Lo[Src], SH = Hi[Src];
    std::string Out = "reduces " + ranks(SL, SH) + " into " + Place +
                      ", which holds " + ranks(DL, DH);
    if (SH + 1 == DL)
      Out += ": the operands are reversed (destination = destination (+) "
             "incoming, so the incoming ranks must follow the destination's)";
    else if (SL <= DH && DL <= SH)
      Out += ": both hold some of these contributions";
    else
      Out += ": not adjacent in rank order";
    return Out + "; the plan claims requires_commutative: false";
  }

private:
  static constexpr uint32_t Empty = UINT32_MAX;
  static constexpr uint32_t Unordered = UINT32_MAX - 1;
  std::vector<uint32_t> Lo, Hi;

  static std::string ranks(uint32_t L, uint32_t H) {
    if (L == H)
      return "rank " + std::to_string(L);
    return "ranks " + std::to_string(L) + ".." + std::to_string(H);
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_RANKINTERVALS_H
