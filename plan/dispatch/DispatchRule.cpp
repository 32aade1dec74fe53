//===- DispatchRule.cpp - Which calls a plan file is for ------------------===//

#include "plan/dispatch/DispatchRule.h"

#include "llvm/ADT/STLExtras.h"

#include <tuple>

namespace collplan {

/// Whether the call's per-rank bytes are proportional to Weights (equal
/// when Weights is empty), in exact arithmetic.
static bool proportional(llvm::ArrayRef<uint64_t> Weights,
                         llvm::ArrayRef<uint64_t> Counts) {
  if (Weights.empty())
    return llvm::is_splat(Counts) || Counts.empty();
  if (Weights.size() != Counts.size())
    return false;
  // c_r / C == w_r / W for every r.
  unsigned __int128 C = 0, W = 0;
  for (size_t R = 0; R < Counts.size(); ++R) {
    C += Counts[R];
    W += Weights[R];
  }
  for (size_t R = 0; R < Counts.size(); ++R)
    if ((unsigned __int128)Counts[R] * W != (unsigned __int128)Weights[R] * C)
      return false;
  return true;
}

bool DispatchRule::covers(const CallShape &C) const {
  return Kind == C.Kind && Ranks == C.Ranks && MinBytes <= C.Bytes &&
         C.Bytes < MaxBytes && (!Op || Op == C.Op) &&
         (!Root || Root == C.Root) &&
         (!Counts || proportional(*Counts, C.Counts));
}

bool DispatchRule::describes(const PlanHeader &H) const {
  return H.Kind == Kind && H.Ranks == Ranks && (!Root || H.Root == Root);
}

PlanTable tableOf(const DispatchRule &R) {
  return {R.Kind, R.Ranks, R.Root.value_or(0)};
}

DispatchRule ruleFor(const PlanHeader &H, std::string File, uint64_t MinBytes,
                     uint64_t MaxBytes, std::optional<ReduceOp> Op) {
  DispatchRule E;
  E.File = std::move(File);
  E.Kind = H.Kind;
  E.Ranks = H.Ranks;
  E.MinBytes = MinBytes;
  E.MaxBytes = MaxBytes;
  E.Op = Op;
  E.Root = H.Root;
  if (H.Kind == Collective::Allgatherv) {
    E.Counts.emplace();
    if (!H.Weights.empty())
      for (uint32_t R = 0; R < H.Ranks; ++R) {
        uint64_t Weight = 0;
        for (const BlockRange &Rg : H.ownedBy(R).ranges())
          for (uint64_t B = Rg.Begin; B < Rg.End; ++B)
            Weight += H.Weights[B];
        E.Counts->push_back(Weight);
      }
    // Equal weights serve exactly the calls of equal counts.
    if (llvm::is_splat(*E.Counts))
      E.Counts->clear();
  }
  E.Algorithm = H.Algorithm;
  E.Params = H.Params;
  return E;
}

bool ruleOrder(const DispatchRule &A, const DispatchRule &B) {
  // Each key sorts the more specific rule first.
  auto Key = [](const DispatchRule &R) {
    return std::make_tuple(!R.measured(), !R.Library, !R.Op, !R.Root, !R.Counts,
                           R.MaxBytes - R.MinBytes, R.MinBytes,
                           std::cref(R.File));
  };
  return Key(A) < Key(B);
}

} // namespace collplan
