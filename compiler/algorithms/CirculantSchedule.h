//===- CirculantSchedule.h - Circulant broadcast schedules ------*- C++ -*-===//
//
// The per-processor schedules of Träff's round-optimal n-block broadcast on a
// ceil(log2 p)-regular circulant graph (Träff, "Round-optimal n-Block
// Broadcast Schedules in Logarithmic Time"; docs/algorithms/circulant.md). Pure
// arithmetic, no IR: each function takes O(log p) time and space for one
// processor, in 64-bit arithmetic, so a launcher can compute its own rank's
// schedule at any p.
//
// Processors are numbered relative to the root (r = (rank - root) mod p). A
// schedule entry is phase-relative: b >= 0 is block b of the current phase,
// b - q < 0 is block b of the previous phase (circulant.md, "Schedule
// arithmetic").
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_CIRCULANTSCHEDULE_H
#define COLLPLAN_ALGORITHMS_CIRCULANTSCHEDULE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace collplan {
namespace circulant {

/// The largest p the schedules accept: 3p must fit in 64 bits (the receive
/// search forms sums a little above 2p).
constexpr uint64_t MaxProcessors = uint64_t(1) << 62;

/// One phase-relative schedule: q entries, each in [-q, q).
using PhaseSchedule = llvm::SmallVector<int32_t, 32>;

/// The circulant graph on p processors: q = ceil(log2 p) and the skips
/// skip[0..q] obtained by halving p with rounding up (circulant.md, "Skips").
/// In round k processor r sends to r + skip[k] and receives from r - skip[k].
class Skips {
public:
  /// Requires 1 <= P <= MaxProcessors.
  explicit Skips(uint64_t P);

  uint64_t processors() const { return P; }
  /// q = ceil(log2 p): rounds per phase; 0 for p = 1.
  unsigned q() const { return Q; }
  /// skip[K] for 0 <= K <= q; skip[q] = p.
  uint64_t operator[](unsigned K) const { return Skip[K]; }
  llvm::ArrayRef<uint64_t> all() const { return Skip; }

  /// (R + skip[K]) mod p and (R - skip[K]) mod p, for R < p.
  uint64_t to(uint64_t R, unsigned K) const;
  uint64_t from(uint64_t R, unsigned K) const;

private:
  uint64_t P;
  unsigned Q;
  llvm::SmallVector<uint64_t, 33> Skip;
};

/// The block relative processor R (0 <= R < p) first receives in the greedy
/// first phase: the smallest skip index of R's greedy decomposition into
/// skips (circulant.md, "Baseblock"). q for the root (R = 0).
unsigned baseblock(const Skips &S, uint64_t R);

/// The largest k with skip[k] <= R, for 1 <= R < p: the round in which R
/// receives its baseblock.
unsigned homerange(const Skips &S, uint64_t R);

/// R's receive schedule: in round k of a phase, R receives entry k from
/// R - skip[k]. A depth-first search over sums of decreasing skips
/// (circulant.md, "Receive schedule"), O(log p). For the root the result is a
/// permutation of -q..-1 that is never executed.
PhaseSchedule receiveSchedule(const Skips &S, uint64_t R);

/// R's send schedule: in round k of a phase, R sends entry k to R + skip[k],
/// which is what that processor's receive schedule expects
/// (circulant.md, "Send schedule": rules, with the rare violations resolved
/// by computing the receiver's schedule). O(log p). The root sends k in round
/// k.
PhaseSchedule sendSchedule(const Skips &S, uint64_t R);

/// Where real round T of an n-block broadcast falls (circulant.md, "Phase
/// rounds"):
/// the round within the phase and the offset to add to schedule entries.
struct PhaseRound {
  unsigned K;
  int64_t Offset;
};

/// The number of dummy rounds x = (q - (n-1) mod q) mod q that make
/// n - 1 + q + x a multiple of q. Requires q >= 1 and N >= 1.
unsigned dummyRounds(unsigned Q, uint64_t N);

/// Real round T (0 <= T < n - 1 + q) of an n-block broadcast.
PhaseRound phaseRound(unsigned Q, uint64_t N, uint64_t T);

/// The block a phase-relative Entry denotes at Offset in an n-block
/// broadcast: negative when virtual (nothing is moved), else capped at n-1.
int64_t blockAt(int32_t Entry, int64_t Offset, uint64_t N);

} // namespace circulant
} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_CIRCULANTSCHEDULE_H
