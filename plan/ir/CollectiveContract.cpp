//===- CollectiveContract.cpp - The contract of every collective ----------===//

#include "plan/ir/CollectiveContract.h"

#include <iterator>

namespace collplan {

namespace {

using enum VectorPart;

// One row per collective, in the enum's order.
constexpr CollectiveContract Contracts[] = {
    // Kind                      Input   Output  Reduces passes share held
    {Collective::Allreduce, Whole, Whole, true, 2, true},
    {Collective::ReduceScatter, Whole, Owned, true, 1, true},
    {Collective::Allgather, Owned, Whole, false, 1, true},
    {Collective::Allgatherv, Owned, Whole, false, 1, true},
    {Collective::Broadcast, AtRoot, Whole, false, 1, false},
    {Collective::Reduce, Whole, AtRoot, true, 1, false},
    {Collective::Alltoall, Owned, Addressed, false, 1, true},
    {Collective::Alltoallv, Owned, Addressed, false, 1, true},
};

constexpr bool rowsInEnumOrder() {
  for (size_t I = 0; I < std::size(Contracts); ++I)
    if (Contracts[I].Kind != static_cast<Collective>(I))
      return false;
  return true;
}
static_assert(rowsInEnumOrder(), "contractOf indexes the rows by Collective");

} // namespace

double CollectiveContract::bandwidthShare(uint32_t Ranks) const {
  if (Ranks <= 1)
    return 0;
  double Share = BandwidthPasses;
  if (isPersonalised())
    Share /= Ranks; // Only the rank's own row leaves it.
  return ShareAlreadyHeld ? Share * (Ranks - 1) / Ranks : Share;
}

uint64_t weightCount(Collective C, uint32_t Ranks) {
  if (C == Collective::Allgatherv)
    return Ranks;
  if (C == Collective::Alltoallv)
    return uint64_t(Ranks) * Ranks;
  return 0;
}

const CollectiveContract &contractOf(Collective C) {
  return Contracts[static_cast<size_t>(C)];
}

} // namespace collplan
