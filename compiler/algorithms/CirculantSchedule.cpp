//===- CirculantSchedule.cpp - Träff's circulant broadcast schedules ------===//
//
// Follows the O(log p) procedures of Träff, "Round-optimal n-Block Broadcast
// Schedules in Logarithmic Time" (arXiv 2312.11236; docs/algorithms/
// circulant.md). The receive search is the recursive form: an iterative
// explicit-stack rewrite circulating in one MPICH revision is not equivalent
// (docs/algorithms/circulant.md, "Errata and decisions"), so the recursion
// stays.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/CirculantSchedule.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

namespace collplan {
namespace circulant {

Skips::Skips(uint64_t P) : P(P), Q(P <= 1 ? 0 : llvm::Log2_64_Ceil(P)) {
  assert(P >= 1 && P <= MaxProcessors && "p out of range");
  Skip.resize(Q + 1);
  Skip[Q] = P;
  // Halving with rounding up keeps skip[k+1] - skip[k] <= skip[k], which is
  // what lets a processor forward what it just received
  // (docs/algorithms/circulant.md, "Schedule arithmetic").
  for (unsigned K = Q; K-- > 0;)
    Skip[K] = Skip[K + 1] - Skip[K + 1] / 2;
}

uint64_t Skips::to(uint64_t R, unsigned K) const {
  uint64_t T = R + Skip[K];
  return T >= P ? T - P : T;
}

uint64_t Skips::from(uint64_t R, unsigned K) const {
  return R >= Skip[K] ? R - Skip[K] : R + P - Skip[K];
}

unsigned baseblock(const Skips &S, uint64_t R) {
  if (R == 0)
    return S.q();
  // Greedy decomposition, largest skip first. The remainder after taking
  // skip[k] is below skip[k+1] - skip[k] <= skip[k], so k only decreases.
  unsigned K = S.q();
  while (true) {
    while (S[K] > R)
      --K;
    if (S[K] == R)
      return K;
    R -= S[K];
  }
}

unsigned homerange(const Skips &S, uint64_t R) {
  assert(R >= 1 && R < S.processors());
  // skip[k] = ceil(p / 2^(q-k)) is monotone, so a binary search would do;
  // q is at most 62, a scan is as fast.
  unsigned K = S.q();
  while (S[K] > R)
    --K;
  return K;
}

namespace {

/// The depth-first receive search (docs/algorithms/circulant.md, "Schedule
/// arithmetic"). Candidate processors are sums of
/// non-increasing skips below virtual position V = r + p; each skip index
/// (block) is consumed once, via a doubly linked list of unused indices.
class ReceiveSearch {
public:
  ReceiveSearch(const Skips &S, uint64_t R)
      : S(S), Q(S.q()), V(R + S.processors()) {
    // Node Q + 1 is the list head; End terminates.
    for (int E = 0; E <= int(Q); ++E) {
      Next[E] = E - 1;
      Prev[E] = E + 1;
    }
    Next[Q + 1] = int(Q);
  }

  void unlink(int E) {
    // E's own links stay: the search follows Next[E] right after unlinking.
    Next[Prev[E]] = Next[E];
    if (Next[E] != End)
      Prev[Next[E]] = Prev[E];
  }

  unsigned visit(uint64_t Prefix, uint64_t Below, int E, unsigned K) {
    while (E != End && K < Q) {
      uint64_t Candidate = Prefix + S[E];
      if (Candidate <= V - S[K] && Candidate < Below) {
        // Not yet inside window k: extend the sum by smaller skips first.
        if (Candidate <= V - S[K + 1]) {
          K = visit(Candidate, Below, E, K);
          if (K == Q)
            return Q;
        }
        // Our own prefix lies in the (moved) window: the caller picks it.
        if (Prefix > V - S[K + 1])
          return K;
        Below = Candidate;
        Pick[K] = E;
        ++K;
        unlink(E);
      }
      E = Next[E];
    }
    return K;
  }

  const Skips &S;
  unsigned Q;
  uint64_t V;
  static constexpr int End = -1;
  int Next[66];
  int Prev[66];
  int Pick[64];
};

} // namespace

PhaseSchedule receiveSchedule(const Skips &S, uint64_t R) {
  unsigned Q = S.q();
  assert(R < S.processors());
  PhaseSchedule Result(Q, 0);
  if (Q == 0)
    return Result;
  unsigned B = baseblock(S, R);
  ReceiveSearch Search(S, R);
  Search.unlink(int(B));
  // The root's block q sits at V = p; the top call may start at the unlinked
  // q (the root's case), where the first candidate fails the window test.
  [[maybe_unused]] unsigned Filled =
      Search.visit(0, 2 * S.processors(), int(Q), 0);
  assert(Filled == Q && "receive search left rounds unfilled");
  for (unsigned K = 0; K < Q; ++K)
    Result[K] = Search.Pick[K] == int(Q) ? int32_t(B)
                                         : int32_t(Search.Pick[K]) - int32_t(Q);
  return Result;
}

PhaseSchedule sendSchedule(const Skips &S, uint64_t R) {
  unsigned Q = S.q();
  PhaseSchedule Result(Q, 0);
  if (Q == 0)
    return Result;
  if (R == 0) {
    for (unsigned K = 0; K < Q; ++K)
      Result[K] = int32_t(K);
    return Result;
  }
  // The send rules (docs/algorithms/circulant.md, "Schedule arithmetic"). C
  // is the block R forwards by default: its new block B until
  // the walk passes a skip of R's decomposition, then that previous-phase
  // block. E bounds the processors R still feeds. Where the rules do not
  // decide, ask the receiver; that happens at most a few times.
  int64_t B = baseblock(S, R);
  int64_t Rest = int64_t(R), C = B, E = int64_t(S.processors());
  auto Skip = [&](unsigned K) { return int64_t(S[K]); };
  auto Receiver = [&](unsigned K) { return receiveSchedule(S, S.to(R, K))[K]; };
  for (unsigned K = Q - 1; K >= 1; --K) {
    if (Rest < Skip(K)) {
      if (Rest + Skip(K) < E || E < Skip(K - 1) || (K == 1 && B > 0))
        Result[K] = int32_t(C);
      else
        Result[K] = Receiver(K);
      E = std::min(E, Skip(K));
    } else {
      C = int64_t(K) - int64_t(Q);
      E -= Skip(K);
      if (Rest > Skip(K) || Rest <= E || K == 1 || E < Skip(K - 1))
        Result[K] = int32_t(C);
      else
        Result[K] = Receiver(K);
      Rest -= Skip(K);
    }
  }
  Result[0] = int32_t(B - int64_t(Q));
  return Result;
}

unsigned dummyRounds(unsigned Q, uint64_t N) {
  assert(Q >= 1 && N >= 1);
  return unsigned((Q - (N - 1) % Q) % Q);
}

PhaseRound phaseRound(unsigned Q, uint64_t N, uint64_t T) {
  uint64_t X = dummyRounds(Q, N);
  uint64_t I = T + X;
  return {unsigned(I % Q), int64_t(I / Q * Q) - int64_t(X)};
}

int64_t blockAt(int32_t Entry, int64_t Offset, uint64_t N) {
  int64_t Block = int64_t(Entry) + Offset;
  return Block < 0 ? Block : std::min<int64_t>(Block, int64_t(N) - 1);
}

} // namespace circulant
} // namespace collplan
