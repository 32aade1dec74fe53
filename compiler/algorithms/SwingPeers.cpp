//===- SwingPeers.cpp - Swing's peer function and block sets --------------===//
//
// See SwingPeers.h for the ideas; this file holds the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/SwingPeers.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace collplan::swing {

int64_t rho(uint32_t Step) {
  // rho(s+1) = 1 - 2 rho(s), rho(0) = 1.
  int64_t R = 1;
  for (uint32_t S = 0; S < Step; ++S)
    R = 1 - 2 * R;
  return R;
}

SwingTorus::SwingTorus(llvm::ArrayRef<uint32_t> Sizes)
    : Dims(Sizes.begin(), Sizes.end()), Shape(Topology::torus(Sizes, 1)) {
  for (uint32_t D : Dims) {
    Ranks *= D;
    Levels.push_back(D <= 1 ? 0 : llvm::Log2_32_Ceil(D));
    Steps += Levels.back();
    PowerOfTwo &= llvm::isPowerOf2_32(D);
  }
}

llvm::SmallVector<StepDim, 32> SwingTorus::schedule(uint32_t Collective) const {
  // §4.1: collective c starts on dimension c mod D and takes the dimensions
  // in turn; §4.2: exhausted dimensions are skipped.
  llvm::SmallVector<StepDim, 32> Out;
  llvm::SmallVector<uint32_t, 4> Next(Dims.size(), 0);
  uint32_t D = Dims.size();
  uint32_t Dim = Collective % D;
  for (uint32_t S = 0; S < Steps; ++S) {
    while (Next[Dim] >= Levels[Dim])
      Dim = (Dim + 1) % D;
    Out.push_back({Dim, Next[Dim]++});
    Dim = (Dim + 1) % D;
  }
  return Out;
}

uint32_t SwingTorus::peer(uint32_t Rank, StepDim At, bool Mirrored) const {
  int64_t Dist = rho(At.Sigma);
  if (Shape.coordOf(Rank, At.Dim) % 2)
    Dist = -Dist;
  if (Mirrored)
    Dist = -Dist;
  return Shape.neighbour(Rank, At.Dim, Dist);
}

uint32_t SwingTorus::peer(uint32_t Rank, uint32_t Step,
                          uint32_t Collective) const {
  return peer(Rank, schedule(Collective)[Step], Collective >= numDims());
}

std::vector<int8_t> SwingTorus::firstStepsFromZero(uint32_t Collective) const {
  std::vector<int8_t> First(Ranks, -1);
  llvm::SmallVector<StepDim, 32> Sched = schedule(Collective);
  bool Mirrored = Collective >= numDims();
  // Walk every subset of steps from rank 0, remembering each walk's first
  // step; a block reached along several walks keeps the latest (§3.2).
  struct Frame {
    uint32_t Node, NextStep;
    int8_t FirstStep;
  };
  llvm::SmallVector<Frame, 64> Stack{{0, 0, -1}};
  while (!Stack.empty()) {
    Frame F = Stack.pop_back_val();
    for (uint32_t S = F.NextStep; S < Steps; ++S) {
      uint32_t Q = peer(F.Node, Sched[S], Mirrored);
      int8_t Start = F.FirstStep < 0 ? int8_t(S) : F.FirstStep;
      if (Q != 0)
        First[Q] = std::max(First[Q], Start);
      Stack.push_back({Q, S + 1, Start});
    }
  }
  return First;
}

uint32_t SwingTorus::transform(uint32_t Rank, uint32_t Block) const {
  llvm::SmallVector<uint32_t, 4> R = coordsOf(Rank), B = coordsOf(Block);
  for (size_t E = 0; E < Dims.size(); ++E) {
    uint32_t D = Dims[E];
    B[E] = R[E] % 2 ? (R[E] + D - B[E]) % D : (R[E] + B[E]) % D;
  }
  return rankOf(B);
}

namespace {

/// The Gray code of the negabinary digits of a coordinate (SwingPeers.h):
/// bit sigma says on which side of the coordinate's step-sigma split it lies.
uint64_t grayLabel(uint32_t X, uint32_t Size, uint32_t Levels, bool Mirrored) {
  if (Levels == 0)
    return 0;
  if (Mirrored)
    X = (Size - X) % Size;
  // An odd coordinate moves backwards first, so it is labelled by its
  // distance from 0 as seen from the even side.
  int64_t T = X % 2 ? int64_t(X) : int64_t((Size - X) % Size);
  // L negabinary digits cover [MaxL - Size + 1, MaxL].
  int64_t MaxL = 0;
  for (uint32_t I = 0; I < Levels; I += 2)
    MaxL += int64_t(1) << I;
  int64_t V = T <= MaxL ? T : T - int64_t(Size);
  const uint64_t M = 0xAAAAAAAAAAAAAAAAULL;
  uint64_t Mask = (uint64_t(1) << Levels) - 1;
  uint64_t Nb = ((uint64_t(V) + M) ^ M) & Mask;
  return Nb ^ (Nb >> 1);
}

/// The coordinate whose grayLabel is Gray: the steps of grayLabel undone.
uint32_t coordOfGrayLabel(uint64_t Gray, uint32_t Size, uint32_t Levels,
                          bool Mirrored) {
  if (Levels == 0)
    return 0;
  uint64_t Nb = Gray;
  for (uint32_t Shift = 1; Shift < 64; Shift *= 2)
    Nb ^= Nb >> Shift;
  const uint64_t M = 0xAAAAAAAAAAAAAAAAULL;
  int64_t V = int64_t((Nb ^ M) - M);
  int64_t S = Size;
  uint32_t T = uint32_t((V % S + S) % S);
  uint32_t X = T % 2 ? T : (Size - T) % Size;
  return Mirrored ? (Size - X) % Size : X;
}

} // namespace

uint32_t SwingTorus::rankOfPsi(uint64_t Label, uint32_t Collective) const {
  llvm::SmallVector<StepDim, 32> Sched = schedule(Collective);
  llvm::SmallVector<uint64_t, 4> Gray(Dims.size(), 0);
  for (size_t I = 0; I < Sched.size(); ++I)
    Gray[Sched[I].Dim] |= ((Label >> (Sched.size() - 1 - I)) & 1)
                          << Sched[I].Sigma;
  llvm::SmallVector<uint32_t, 4> A(Dims.size());
  for (size_t E = 0; E < Dims.size(); ++E)
    A[E] =
        coordOfGrayLabel(Gray[E], Dims[E], Levels[E], Collective >= numDims());
  return rankOf(A);
}

uint64_t SwingTorus::psi(uint32_t Rank, uint32_t Collective) const {
  llvm::SmallVector<uint32_t, 4> A = coordsOf(Rank);
  bool Mirrored = Collective >= numDims();
  llvm::SmallVector<uint64_t, 4> Gray(Dims.size());
  for (size_t E = 0; E < Dims.size(); ++E)
    Gray[E] = grayLabel(A[E], Dims[E], Levels[E], Mirrored);
  uint64_t Psi = 0;
  for (const StepDim &At : schedule(Collective))
    Psi = (Psi << 1) | ((Gray[At.Dim] >> At.Sigma) & 1);
  return Psi;
}

std::vector<std::vector<uint32_t>>
sendSetsOf(const SwingTorus &T, llvm::ArrayRef<int8_t> FirstStepsFromZero,
           uint32_t Rank) {
  std::vector<std::vector<uint32_t>> Sets(T.steps());
  for (uint32_t B = 0; B < FirstStepsFromZero.size(); ++B)
    if (FirstStepsFromZero[B] >= 0)
      Sets[FirstStepsFromZero[B]].push_back(T.transform(Rank, B));
  for (std::vector<uint32_t> &S : Sets)
    std::sort(S.begin(), S.end());
  return Sets;
}

} // namespace collplan::swing
