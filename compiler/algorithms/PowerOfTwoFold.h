//===- PowerOfTwoFold.h - Folding P ranks onto a power of two ---*- C++ -*-===//
//
// The recursive-doubling and Rabenseifner families run their exchange phase
// on P' = 2^floor(log2 P) virtual ranks. MPICH's fold (Thakur, Rabenseifner
// and Gropp 2005; the Swing paper's §2.3.2 "Non-power-of-two" describes a
// variant) makes up the difference: with rem = P - P', the first
// 2*rem ranks pair up as (2i, 2i+1); the even rank of each pair hands its data
// to the odd one before the exchange phase, sits the phase out, and gets the
// result back afterwards. Virtual rank v stands for real ranks {2v, 2v+1}
// when v < rem and for v + rem otherwise, so virtual ranks keep the real
// ranks' order and every group of consecutive virtual ranks covers a
// contiguous range of real ranks.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_POWEROFTWOFOLD_H
#define COLLPLAN_ALGORITHMS_POWEROFTWOFOLD_H

#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <cstdint>

namespace collplan {

class PowerOfTwoFold {
public:
  explicit PowerOfTwoFold(uint32_t Ranks)
      : Ranks(Ranks), Virtual(uint32_t(llvm::PowerOf2Floor(Ranks))),
        Extra(Ranks - Virtual) {
    assert(Ranks >= 1 && "a fold needs at least one rank");
  }

  uint32_t ranks() const { return Ranks; }
  /// P' = 2^floor(log2 P): the ranks of the exchange phase.
  /// Whether every rank's program is rank 0's with peers XORed by its rank:
  /// for powers of two only, since the fold singles out the paired ranks
  /// (Algorithm::rankSymmetric).
  static bool rankSymmetric(uint32_t Ranks) {
    return llvm::isPowerOf2_32(Ranks);
  }

  uint32_t virtualRanks() const { return Virtual; }
  /// log2 P': the rounds of one recursive doubling or halving phase.
  uint32_t levels() const { return llvm::Log2_32(Virtual); }
  /// rem = P - P': the number of pairs that fold.
  uint32_t extra() const { return Extra; }
  /// Whether P is not a power of two, so the fold adds a round before and
  /// one after the exchange phase.
  bool folds() const { return Extra != 0; }
  /// The round the exchange phase starts at.
  uint32_t firstExchangeRound() const { return folds() ? 1 : 0; }

  /// Whether Rank belongs to a folded pair (one of the first 2*rem ranks).
  bool isPaired(uint32_t Rank) const { return Rank < 2 * Extra; }
  /// Whether Rank hands its data to its partner and sits out the exchange.
  bool isIdle(uint32_t Rank) const { return isPaired(Rank) && Rank % 2 == 0; }
  /// The other rank of Rank's pair (Rank must be paired).
  uint32_t pairPartner(uint32_t Rank) const { return Rank ^ 1; }

  /// The virtual rank of a rank that takes part in the exchange.
  uint32_t virtualOf(uint32_t Rank) const {
    assert(!isIdle(Rank) && "an idle rank has no virtual rank");
    return isPaired(Rank) ? Rank / 2 : Rank - Extra;
  }
  /// The real rank that acts for virtual rank V in the exchange.
  uint32_t realOf(uint32_t V) const {
    return V < Extra ? 2 * V + 1 : V + Extra;
  }
  /// The lowest real rank virtual rank V stands for; firstRealOf(P') == P,
  /// so virtual ranks [A, B) stand for real ranks [firstRealOf(A),
  /// firstRealOf(B)).
  uint32_t firstRealOf(uint32_t V) const {
    return V < Extra ? 2 * V : V + Extra;
  }

private:
  uint32_t Ranks;
  uint32_t Virtual;
  uint32_t Extra;
};

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_POWEROFTWOFOLD_H
