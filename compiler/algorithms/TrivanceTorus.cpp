//===- TrivanceTorus.cpp - Trivance's steps, peers and block sets ---------===//
//
// See TrivanceTorus.h for the ideas; this file holds the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/TrivanceTorus.h"

#include <cassert>

namespace collplan::trivance {

uint64_t pow3(uint32_t K) {
  uint64_t P = 1;
  while (K--)
    P *= 3;
  return P;
}

uint32_t pow3Floor(uint32_t N) {
  if (N == 0)
    return 0;
  uint64_t P = 1;
  while (P * 3 <= N)
    P *= 3;
  return uint32_t(P);
}

uint32_t log3Ceil(uint64_t N) {
  uint32_t K = 0;
  for (uint64_t P = 1; P < N; P *= 3)
    ++K;
  return K;
}

TernaryTorus::TernaryTorus(llvm::ArrayRef<uint32_t> Sizes)
    : Dims(Sizes.begin(), Sizes.end()), Shape(Topology::torus(Sizes, 1)) {
  llvm::SmallVector<uint32_t, 4> Levels;
  uint32_t Total = 0;
  for (uint32_t D : Dims) {
    assert(D >= 1 && pow3(log3Ceil(D)) == D && "a dimension of 3^L ranks");
    Ranks *= D;
    Levels.push_back(log3Ceil(D));
    Total += Levels.back();
  }
  // The dimensions take turns from dimension 0, skipping exhausted ones.
  llvm::SmallVector<uint32_t, 4> Next(Dims.size(), 0);
  uint32_t Dim = 0;
  for (uint32_t S = 0; S < Total; ++S) {
    while (Next[Dim] >= Levels[Dim])
      Dim = (Dim + 1) % Dims.size();
    Schedule.push_back({Dim, Next[Dim]++});
    Dim = (Dim + 1) % Dims.size();
  }
}

uint32_t TernaryTorus::peer(uint32_t Rank, uint32_t Step, Third Side) const {
  const TernaryStep &At = Schedule[Step];
  return Shape.neighbour(Rank, At.Dim, int64_t(Side) * int64_t(pow3(At.Level)));
}

uint64_t TernaryTorus::label(uint32_t Rank) const {
  llvm::SmallVector<uint32_t, 4> A = Shape.coordsOf(Rank);
  uint64_t Label = 0;
  for (const TernaryStep &At : Schedule)
    Label = Label * 3 + A[At.Dim] / pow3(At.Level) % 3;
  return Label;
}

BlockSet TernaryTorus::labelThird(uint32_t Rank, uint32_t Step,
                                  Third Side) const {
  uint64_t Len = pow3(steps() - 1 - Step);
  uint64_t Mine = label(Rank);
  uint64_t Base = Mine / (3 * Len) * (3 * Len);
  uint64_t Digit = (Mine / Len % 3 + 3 + int(Side)) % 3;
  return BlockSet::range(Base + Digit * Len, Base + (Digit + 1) * Len);
}

BlockSet TernaryTorus::rankThird(uint32_t Rank, uint32_t Step,
                                 Third Side) const {
  // Per dimension: the residue the blocks keep modulo 3^(steps taken).
  llvm::SmallVector<uint32_t, 4> A = Shape.coordsOf(Rank);
  llvm::SmallVector<uint64_t, 4> Modulus(Dims.size(), 1);
  for (uint32_t S = 0; S < Step; ++S)
    Modulus[Schedule[S].Dim] *= 3;
  const TernaryStep &At = Schedule[Step];
  llvm::SmallVector<uint64_t, 4> Residue(Dims.size());
  for (size_t E = 0; E < Dims.size(); ++E)
    Residue[E] = A[E] % Modulus[E];
  int64_t Shift = int64_t(Side) * int64_t(Modulus[At.Dim]);
  Modulus[At.Dim] *= 3;
  int64_t M = int64_t(Modulus[At.Dim]);
  Residue[At.Dim] = uint64_t(((int64_t(A[At.Dim]) + Shift) % M + M) % M);
  // Every block matching all residues, in row-major (increasing) order.
  BlockSet Out;
  llvm::SmallVector<uint32_t, 4> B(Dims.size());
  for (size_t E = 0; E < Dims.size(); ++E)
    B[E] = uint32_t(Residue[E]);
  while (true) {
    uint64_t Block = Shape.nodeAt(B);
    Out.insert(Block, Block + 1);
    size_t E = Dims.size();
    while (E > 0) {
      --E;
      B[E] += uint32_t(Modulus[E]);
      if (B[E] < Dims[E])
        break;
      B[E] = uint32_t(Residue[E]);
      if (E == 0)
        return Out;
    }
    if (Dims.empty())
      return Out;
  }
}

} // namespace collplan::trivance
