//===- BlockSet.cpp - Sorted half-open intervals of block indices ---------===//

#include "plan/ir/BlockSet.h"

#include <algorithm>

namespace collplan {

BlockSet BlockSet::range(uint64_t Begin, uint64_t End) {
  BlockSet S;
  S.insert(Begin, End);
  return S;
}

BlockSet BlockSet::wrapped(uint64_t Start, uint64_t Count, uint64_t Modulus) {
  BlockSet S;
  if (Modulus == 0 || Count == 0)
    return S;
  Count = std::min(Count, Modulus);
  Start %= Modulus;
  uint64_t FirstEnd = std::min(Modulus, Start + Count);
  S.insert(Start, FirstEnd);
  S.insert(0, Count - (FirstEnd - Start));
  return S;
}

void BlockSet::insert(uint64_t Begin, uint64_t End) {
  if (Begin >= End)
    return;
  // Find the first range that ends at or after Begin (touching ranges merge).
  auto *First = std::lower_bound(
      Ranges.begin(), Ranges.end(), Begin,
      [](const BlockRange &R, uint64_t B) { return R.End < B; });
  auto *Last = First;
  while (Last != Ranges.end() && Last->Begin <= End) {
    Begin = std::min(Begin, Last->Begin);
    End = std::max(End, Last->End);
    ++Last;
  }
  if (First == Last) {
    Ranges.insert(First, BlockRange{Begin, End});
    return;
  }
  *First = BlockRange{Begin, End};
  Ranges.erase(First + 1, Last);
}

void BlockSet::insert(const BlockSet &Other) {
  for (const BlockRange &R : Other.Ranges)
    insert(R);
}

BlockSet BlockSet::intersect(const BlockSet &Other) const {
  BlockSet Out;
  size_t I = 0, J = 0;
  while (I < Ranges.size() && J < Other.Ranges.size()) {
    const BlockRange &A = Ranges[I], &B = Other.Ranges[J];
    uint64_t Lo = std::max(A.Begin, B.Begin), Hi = std::min(A.End, B.End);
    if (Lo < Hi)
      Out.Ranges.push_back({Lo, Hi});
    if (A.End < B.End)
      ++I;
    else
      ++J;
  }
  return Out;
}

BlockSet BlockSet::subtract(const BlockSet &Other) const {
  BlockSet Out;
  size_t J = 0;
  for (BlockRange A : Ranges) {
    while (J < Other.Ranges.size() && Other.Ranges[J].End <= A.Begin)
      ++J;
    for (size_t K = J; K < Other.Ranges.size() && Other.Ranges[K].Begin < A.End;
         ++K) {
      const BlockRange &B = Other.Ranges[K];
      if (B.Begin > A.Begin)
        Out.Ranges.push_back({A.Begin, B.Begin});
      A.Begin = std::max(A.Begin, B.End);
    }
    if (!A.empty())
      Out.Ranges.push_back(A);
  }
  return Out;
}

bool BlockSet::overlaps(const BlockSet &Other) const {
  return !intersect(Other).empty();
}

bool BlockSet::contains(uint64_t Block) const {
  auto *It = std::upper_bound(
      Ranges.begin(), Ranges.end(), Block,
      [](uint64_t B, const BlockRange &R) { return B < R.End; });
  return It != Ranges.end() && It->Begin <= Block;
}

bool BlockSet::containsAll(const BlockSet &Other) const {
  return Other.subtract(*this).empty();
}

uint64_t BlockSet::count() const {
  uint64_t N = 0;
  for (const BlockRange &R : Ranges)
    N += R.size();
  return N;
}

std::string BlockSet::str() const {
  std::string Out;
  for (const BlockRange &R : Ranges) {
    if (!Out.empty())
      Out += ',';
    Out += std::to_string(R.Begin);
    if (R.size() > 1)
      Out += '-' + std::to_string(R.End - 1);
  }
  return Out.empty() ? "-" : Out;
}

} // namespace collplan
