//===- Collective.cpp - The collectives a plan can perform ----------------===//

#include "plan/ir/Collective.h"

namespace collplan {

static constexpr Collective AllCollectives[] = {
    Collective::Allreduce,  Collective::ReduceScatter, Collective::Allgather,
    Collective::Allgatherv, Collective::Broadcast,     Collective::Reduce,
    Collective::Alltoall,   Collective::Alltoallv};

llvm::StringRef collectiveName(Collective C) {
  switch (C) {
  case Collective::Allreduce:
    return "allreduce";
  case Collective::ReduceScatter:
    return "reduce-scatter";
  case Collective::Allgather:
    return "allgather";
  case Collective::Allgatherv:
    return "allgatherv";
  case Collective::Broadcast:
    return "broadcast";
  case Collective::Reduce:
    return "reduce";
  case Collective::Alltoall:
    return "alltoall";
  case Collective::Alltoallv:
    return "alltoallv";
  }
  return "unknown";
}

std::optional<Collective> parseCollective(llvm::StringRef Name) {
  for (Collective C : AllCollectives)
    if (collectiveName(C) == Name)
      return C;
  return std::nullopt;
}

llvm::ArrayRef<Collective> allCollectives() { return AllCollectives; }

} // namespace collplan
