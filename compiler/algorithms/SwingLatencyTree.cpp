//===- SwingLatencyTree.cpp - One combine tree for Swing-L ----------------===//
//
// See SwingLatencyTree.h for the ideas; this file holds the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/SwingLatencyTree.h"

#include <algorithm>

namespace collplan::swing {

LatencyTree::LatencyTree(const SwingTorus &T, uint32_t Collective)
    : T(T), Sched(T.schedule(Collective)), Mirrored(Collective >= T.numDims()) {
  uint32_t D = T.numDims();
  Reach.emplace_back(D, std::pair<int64_t, int64_t>(0, 0));
  FreeBits.emplace_back(D, 0);
  for (const StepDim &At : Sched) {
    // The peer, rho away, moves the other way: it holds rho - [Lo, Hi].
    Reach.push_back(Reach.back());
    auto &[Lo, Hi] = Reach.back()[At.Dim];
    int64_t R = rho(At.Sigma), OldLo = Lo;
    Lo = std::min(Lo, R - Hi);
    Hi = std::max(Hi, R - OldLo);
    FreeBits.push_back(FreeBits.back());
    ++FreeBits.back()[At.Dim];
  }
}

uint64_t LatencyTree::key(uint32_t Rank) const {
  uint64_t K = 0;
  for (uint32_t S = 0; S < Sched.size(); ++S)
    K |=
        uint64_t(T.topology().coordOf(Rank, Sched[S].Dim) >> Sched[S].Sigma & 1)
        << S;
  return K;
}

llvm::SmallVector<Subtree, 8> LatencyTree::held(uint32_t Rank,
                                                uint32_t Steps) const {
  // Per dimension the cyclic interval (start, length) Rank holds.
  llvm::SmallVector<std::pair<uint32_t, uint32_t>, 4> Box;
  for (uint32_t E = 0; E < T.numDims(); ++E) {
    int64_t Size = T.dims()[E], X = T.topology().coordOf(Rank, E);
    auto [Lo, Hi] = Reach[Steps][E];
    bool Forward = (X % 2 == 0) != Mirrored;
    int64_t Start = Forward ? X + Lo : X - Hi, Length = Hi - Lo + 1;
    // A whole ring may start anywhere; from 0 its nodes fit inside it.
    Start = Length >= Size ? 0 : ((Start % Size) + Size) % Size;
    Box.push_back({uint32_t(Start), uint32_t(std::min(Length, Size))});
  }
  llvm::SmallVector<Subtree, 8> Out;
  llvm::SmallVector<uint32_t, 4> Base(T.numDims(), 0);
  descend(Sched.size(), Base, Box, Out);
  return Out;
}

void LatencyTree::descend(uint32_t Level, llvm::SmallVector<uint32_t, 4> &Base,
                          llvm::ArrayRef<std::pair<uint32_t, uint32_t>> Box,
                          llvm::SmallVectorImpl<Subtree> &Out) const {
  bool Inside = true;
  for (uint32_t E = 0; E < Box.size(); ++E) {
    uint32_t Size = T.dims()[E], Len = 1u << FreeBits[Level][E];
    auto [Start, N] = Box[E];
    uint32_t Ahead = (Base[E] + Size - Start) % Size;
    uint32_t Behind = (Start + Size - Base[E]) % Size;
    if (Ahead >= N && Behind >= Len)
      return; // apart along E
    Inside &= Ahead + Len <= N;
  }
  if (Inside) {
    Out.push_back({Level, key(T.rankOf(Base)) >> Level});
    return;
  }
  // Split at the tree's bit Level - 1: bit Sigma of that step's dimension.
  const StepDim &At = Sched[Level - 1];
  descend(Level - 1, Base, Box, Out);
  Base[At.Dim] |= 1u << At.Sigma;
  descend(Level - 1, Base, Box, Out);
  Base[At.Dim] &= ~(1u << At.Sigma);
}

} // namespace collplan::swing
