//===- CallShape.cpp - A collective call, as its plan is chosen by --------===//

#include "plan/dispatch/CallShape.h"

#include "plan/ir/BlockLayout.h"
#include "plan/ir/CollectiveContract.h"

namespace collplan {

/// Whether H's blocks give rank r exactly C's part of the vector: equal
/// parts (uniform blocks) when C lists no counts, else Counts[r] bytes.
static bool givesParts(const PlanHeader &H, const CallShape &C) {
  if (C.Counts.empty())
    return H.Weights.empty();
  if (C.Counts.size() != H.Ranks)
    return false;
  BlockLayout Layout(H, C.Bytes);
  for (uint32_t R = 0; R < H.Ranks; ++R)
    if (Layout.size(H.ownedBy(R)) != C.Counts[R])
      return false;
  return true;
}

Fit fit(const PlanHeader &H, const CallShape &C, Rounding R) {
  if (H.Kind != C.Kind || H.Ranks != C.Ranks || H.Root != C.Root)
    return Fit::OtherCall;
  if (hasOwnedBlocks(H.Kind) && !givesParts(H, C))
    return Fit::OtherCall;
  if (!(C.Type && C.Op && roundsByOrder(*C.Type, *C.Op)))
    return Fit::Serves;
  if (R == Rounding::Reproducible && !(H.Stamp && H.Stamp->Reproducible))
    return Fit::NotReproducible;
  if (R >= Rounding::Identical && !(H.Stamp && H.Stamp->IdenticalResults))
    return Fit::RankDependentRounding;
  return Fit::Serves;
}

} // namespace collplan
