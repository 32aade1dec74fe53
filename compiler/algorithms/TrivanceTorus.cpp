//===- TrivanceTorus.cpp - Trivance's steps, peers and block sets ---------===//
//
// See TrivanceTorus.h for the ideas; this file holds the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/TrivanceTorus.h"

#include <algorithm>
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

uint32_t stepDistance(uint32_t Size, uint32_t Level) {
  uint64_t Near = pow3(Level);
  if (Level + 1 < log3Ceil(Size))
    return uint32_t(Near);
  return uint32_t((Size - Near + 1) / 2);
}

namespace {

/// Move[c][x] for one dimension of Size ranks (TernaryTorus::Move).
std::vector<std::vector<int8_t>> movesOf(uint32_t Size) {
  uint32_t L = log3Ceil(Size);
  // Held[c][x]: whether offset x is in S_c.
  std::vector<std::vector<bool>> Held(L + 1, std::vector<bool>(Size, false));
  Held[L][0] = true;
  for (uint32_t C = L; C-- > 0;) {
    uint32_t Dist = stepDistance(Size, C) % Size;
    for (uint32_t X = 0; X < Size; ++X)
      if (Held[C + 1][X]) {
        Held[C][X] = true;
        Held[C][(X + Dist) % Size] = true;
        Held[C][(X + Size - Dist) % Size] = true;
      }
  }
  std::vector<std::vector<int8_t>> Move(
      L, std::vector<int8_t>(Size, TernaryTorus::NotHeld));
  for (uint32_t C = 0; C < L; ++C) {
    uint32_t Dist = stepDistance(Size, C) % Size;
    uint64_t Plus = 0, Minus = 0;
    for (uint32_t X = 0; X < Size; ++X) {
      if (!Held[C][X])
        continue;
      bool Keep = Held[C + 1][X];
      bool ToPlus = Held[C + 1][(X + Size - Dist) % Size];
      bool ToMinus = Held[C + 1][(X + Dist) % Size];
      if (Keep)
        Move[C][X] = 0;
      else if (ToPlus && (!ToMinus || Plus <= Minus))
        Move[C][X] = 1, ++Plus;
      else
        Move[C][X] = -1, ++Minus;
      assert((Keep || ToPlus || ToMinus) && "S_c is S_{c+1} and its shifts");
    }
  }
  assert((L == 0 || std::count(Move[0].begin(), Move[0].end(),
                               TernaryTorus::NotHeld) == 0) &&
         "the distances cover every offset");
  return Move;
}

} // namespace

TernaryTorus::TernaryTorus(llvm::ArrayRef<uint32_t> Sizes, uint32_t FirstDim)
    : Dims(Sizes.begin(), Sizes.end()), Shape(Topology::torus(Sizes, 1)) {
  llvm::SmallVector<uint32_t, 4> Levels;
  uint32_t Total = 0;
  for (uint32_t D : Dims) {
    Ranks *= D;
    Levels.push_back(log3Ceil(D));
    Total += Levels.back();
    PowersOfThree &= pow3(Levels.back()) == D;
    Move.push_back(movesOf(D));
  }
  // The dimensions take turns from FirstDim, skipping exhausted ones.
  llvm::SmallVector<uint32_t, 4> Next(Dims.size(), 0);
  uint32_t Dim = Dims.empty() ? 0 : FirstDim % Dims.size();
  for (uint32_t S = 0; S < Total; ++S) {
    while (Next[Dim] >= Levels[Dim])
      Dim = (Dim + 1) % Dims.size();
    Schedule.push_back({Dim, Next[Dim]++});
    Dim = (Dim + 1) % Dims.size();
  }
}

uint32_t TernaryTorus::peer(uint32_t Rank, uint32_t Step, Third Side) const {
  const TernaryStep &At = Schedule[Step];
  return Shape.neighbour(Rank, At.Dim,
                         int64_t(Side) *
                             int64_t(stepDistance(Dims[At.Dim], At.Level)));
}

BlockSet TernaryTorus::rankThird(uint32_t Rank, uint32_t Step,
                                 Third Side) const {
  // Per dimension, the coordinates of the blocks: those whose offset from
  // Rank is held at the dimension's current level (Side's part along the
  // step's own dimension).
  llvm::SmallVector<uint32_t, 4> Level(Dims.size(), 0);
  for (uint32_t S = 0; S < Step; ++S)
    ++Level[Schedule[S].Dim];
  const TernaryStep &At = Schedule[Step];
  llvm::SmallVector<uint32_t, 4> A = Shape.coordsOf(Rank);
  llvm::SmallVector<std::vector<uint32_t>, 4> Coords(Dims.size());
  for (size_t E = 0; E < Dims.size(); ++E) {
    uint32_t D = Dims[E];
    for (uint32_t X = 0; X < D; ++X) {
      bool In;
      if (E == At.Dim)
        In = Move[E][Level[E]][X] == int8_t(Side);
      else if (Level[E] == Move[E].size())
        In = X == 0; // a finished dimension: only the rank's own coordinate
      else
        In = Move[E][Level[E]][X] != NotHeld;
      if (In)
        Coords[E].push_back((A[E] + X) % D);
    }
    if (Coords[E].empty())
      return BlockSet();
    std::sort(Coords[E].begin(), Coords[E].end());
  }
  // Their product in row-major (increasing) order.
  BlockSet Out;
  llvm::SmallVector<size_t, 4> I(Dims.size(), 0);
  llvm::SmallVector<uint32_t, 4> B(Dims.size());
  while (true) {
    for (size_t E = 0; E < Dims.size(); ++E)
      B[E] = Coords[E][I[E]];
    uint64_t Block = Shape.nodeAt(B);
    Out.insert(Block, Block + 1);
    size_t E = Dims.size();
    while (true) {
      if (E == 0)
        return Out;
      --E;
      if (++I[E] < Coords[E].size())
        break;
      I[E] = 0;
    }
  }
}

uint64_t TernaryTorus::label(uint32_t Rank) const {
  assert(PowersOfThree && "labels need powers of three");
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

} // namespace collplan::trivance
