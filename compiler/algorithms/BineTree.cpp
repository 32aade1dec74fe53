//===- BineTree.cpp - Bine binomial trees on any number of ranks ----------===//
//
// See BineTree.h for the tree and the window that prunes it to P ranks.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/BineTree.h"

#include "llvm/Support/MathExtras.h"

#include <vector>

namespace collplan::bine {

namespace {

/// The digits of negative weight in base -2.
constexpr uint64_t NegativeDigits = 0xAAAAAAAAAAAAAAAAULL;

uint64_t lowMask(uint32_t Digits) {
  return Digits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Digits) - 1;
}

} // namespace

uint64_t toNegabinary(int64_t X, uint32_t Digits) {
  return ((uint64_t(X) + NegativeDigits) ^ NegativeDigits) & lowMask(Digits);
}

int64_t fromNegabinary(uint64_t Nb) {
  return int64_t((Nb ^ NegativeDigits) - NegativeDigits);
}

BineTree::BineTree(uint32_t Ranks)
    : Ranks(Ranks), Digits(Ranks <= 1 ? 0 : llvm::Log2_32_Ceil(Ranks)) {
  // The s-digit numbers: lo sums the negative weights, hi the positive ones.
  int64_t Lo = fromNegabinary(NegativeDigits & lowMask(Digits));
  int64_t Hi = fromNegabinary(~NegativeDigits & lowMask(Digits));
  int64_t P = Ranks;
  // Windows [A, A + P) inside [Lo, Hi] that hold the root (position 0).
  int64_t First = std::max(Lo, 1 - P), Last = std::min<int64_t>(0, Hi - P + 1);
  if (First > Last)
    return;
  // A window is bad when it holds a position but not that position's parent:
  // for each position an interval of starts, marked in a difference array.
  std::vector<int32_t> Bad(Last - First + 2, 0);
  auto Mark = [&](int64_t From, int64_t To) {
    From = std::max(From, First);
    To = std::min(To, Last);
    if (From > To)
      return;
    ++Bad[From - First];
    --Bad[To - First + 1];
  };
  for (int64_t X = Lo; X <= Hi; ++X) {
    if (X == 0)
      continue;
    int64_t Parent = parent(X);
    if (Parent < X)
      Mark(std::max(X - P + 1, Parent + 1), X);
    else
      Mark(X - P + 1, std::min(X, Parent - P));
  }
  int32_t Count = 0;
  for (int64_t A = First; A <= Last; ++A) {
    Count += Bad[A - First];
    if (Count == 0) {
      Start = A;
      Valid = true;
      return;
    }
  }
}

int64_t BineTree::positionOf(uint32_t Rel) const {
  int64_t P = Ranks;
  return Start + ((int64_t(Rel) - Start) % P + P) % P;
}

uint32_t BineTree::relativeOf(int64_t X) const {
  int64_t P = Ranks;
  return uint32_t((X % P + P) % P);
}

uint32_t BineTree::equalRun(int64_t X) const {
  uint64_t Nb = toNegabinary(X, Digits);
  uint32_t Run = Nb & 1 ? llvm::countTrailingOnes(Nb)
                        : (Nb == 0 ? Digits : llvm::countTrailingZeros(Nb));
  return std::min(Run, Digits);
}

std::optional<uint32_t> BineTree::receiveRound(int64_t X) const {
  if (X == 0)
    return std::nullopt;
  return Digits - equalRun(X);
}

int64_t BineTree::parent(int64_t X) const {
  return fromNegabinary(toNegabinary(X, Digits) ^ lowMask(equalRun(X)));
}

std::optional<int64_t> BineTree::child(int64_t X, uint32_t Round) const {
  int64_t Y = fromNegabinary(toNegabinary(X, Digits) ^ lowMask(Digits - Round));
  if (!inWindow(Y))
    return std::nullopt;
  return Y;
}

} // namespace collplan::bine
