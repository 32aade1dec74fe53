//===- CirculantCensusTree.cpp - The census allreduce in one tree ---------===//
//
// See CirculantCensusTree.h for the idea; this file follows one rank's
// pieces through the rounds.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/CirculantCensusTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

namespace collplan::circulant {

using commontree::Piece;
using commontree::Pool;

CensusTree::CensusTree(uint32_t P)
    : P(P), S(P), T(commontree::canonicalTree(P)) {
  for (unsigned K = 0; K < S.q(); ++K)
    if (odd(K))
      LastOdd = int(K);
}

llvm::SmallVector<uint32_t, 16> CensusTree::sent(uint64_t X, unsigned K) const {
  llvm::SmallVector<uint32_t, 16> Out;
  // The maximal subtrees of the cyclic run of L ranks from A: the tree cuts
  // it where it wraps.
  auto Run = [&](uint64_t A, uint64_t L) {
    A %= P;
    if (A + L <= P) {
      T.maximalSubtrees(uint32_t(A), uint32_t(A + L), Out);
      return;
    }
    T.maximalSubtrees(uint32_t(A), P, Out);
    T.maximalSubtrees(0, uint32_t(A + L - P), Out);
  };
  if (odd(K)) {
    Run(X + 1, S[K] - 1); // all but the own value, to r - skip[k] + 1
  } else if (ownApart(K)) {
    Out.push_back(T.leafAt(uint32_t(X)));
    Run(X + 1, S[K] - 1);
  } else {
    Run(X, S[K]);
  }
  llvm::sort(Out, [&](uint32_t A, uint32_t B) { return T.lo(A) < T.lo(B); });
  return Out;
}

uint32_t CensusTree::walk(uint32_t Rank, Program *Prog) const {
  BlockSet All = BlockSet::single(0);
  Piece Leaf = {T.leafAt(Rank), DataBuffer};
  bool Apart = ownApart(0);
  Pool Own;
  if (!Apart)
    Own.push_back(Leaf);
  uint32_t Slots = 1;
  for (unsigned K = 0; K < S.q(); ++K) {
    // "Census allreduce": even rounds pair r with r -/+ skip[k], odd ones
    // with r -/+ (skip[k] - 1).
    uint64_t Shift = odd(K) ? S[K] - 1 : S[K];
    uint32_t To = uint32_t((uint64_t(Rank) + P - Shift) % P);
    uint32_t From = uint32_t((uint64_t(Rank) + Shift) % P);
    Pool Out = Own;
    if (Apart && !odd(K))
      Out.push_back(Leaf);
    llvm::sort(Out, [&](const Piece &A, const Piece &B) {
      return T.lo(A.Node) < T.lo(B.Node);
    });
    llvm::SmallVector<uint32_t, 16> Expected = sent(Rank, K);
    if (Out.size() != Expected.size() ||
        !std::equal(Out.begin(), Out.end(), Expected.begin(),
                    [](const Piece &X, uint32_t N) { return X.Node == N; }))
      llvm::report_fatal_error("circulant census: a rank's pieces left the "
                               "runs the census sends");
    if (Prog)
      for (const Piece &X : Out)
        Prog->add(K, Op::send(To, All, X.Slot));
    // Receive the peer's pieces, in its order, into slots nothing occupies.
    Pool Busy = Own;
    if (Apart)
      Busy.push_back(Leaf);
    Pool Merged = Own;
    for (uint32_t N : sent(From, K)) {
      uint16_t Slot = commontree::freeSlot(Busy);
      Slots = std::max<uint32_t>(Slots, Slot + 1u);
      if (Prog)
        Prog->add(K, Op::recv(From, All, Combine::Replace, Slot));
      Busy.push_back({N, Slot});
      Merged.push_back({N, Slot});
    }
    auto Emit = [&](uint16_t Src, uint16_t Dst) {
      if (Prog)
        Prog->add(K, Op::local(Src, Dst, All, Combine::Reduce));
    };
    commontree::settle(T, Merged, Emit);
    if (Apart && !ownApart(K + 1)) {
      // No odd round is left: the own value may join its siblings.
      Apart = false;
      Merged.push_back(Leaf);
      commontree::settle(T, Merged, Emit);
    }
    Own = std::move(Merged);
  }
  if (S.q() > 0 && (Own.size() != 1 || Own[0].Node != T.root()))
    llvm::report_fatal_error("circulant census: a rank missed the tree");
  if (Prog && !Own.empty() && Own[0].Slot != DataBuffer)
    Prog->add(S.q() - 1,
              Op::local(Own[0].Slot, DataBuffer, All, Combine::Replace));
  return Slots;
}

void CensusTree::appendRank(uint32_t Rank, Program &Prog) const {
  walk(Rank, &Prog);
}

uint32_t CensusTree::slots() const {
  uint32_t Most = 1;
  for (uint32_t R = 0; R < P; ++R)
    Most = std::max(Most, walk(R, nullptr));
  return Most;
}

llvm::SmallVector<uint32_t, 32> CensusTree::mostSentPerRound() const {
  llvm::SmallVector<uint32_t, 32> Most(S.q(), 0);
  for (unsigned K = 0; K < S.q(); ++K)
    for (uint32_t R = 0; R < P; ++R)
      Most[K] = std::max<uint32_t>(Most[K], uint32_t(sent(R, K).size()));
  return Most;
}

} // namespace collplan::circulant
