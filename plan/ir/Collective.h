//===- Collective.h - The collectives a plan can perform ---------*- C++ -*-===//

#ifndef COLLPLAN_IR_COLLECTIVE_H
#define COLLPLAN_IR_COLLECTIVE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace collplan {

enum class Collective : uint8_t {
  Allreduce,
  ReduceScatter,
  Allgather,
  Allgatherv,
  Broadcast,
  Reduce,
  Alltoall,
  Alltoallv,
};

/// "allreduce", "reduce-scatter", "allgather", "allgatherv", "broadcast",
/// "reduce", "alltoall", "alltoallv": the names used on the command line and
/// in plan files.
llvm::StringRef collectiveName(Collective C);
std::optional<Collective> parseCollective(llvm::StringRef Name);
llvm::ArrayRef<Collective> allCollectives();

} // namespace collplan

#endif // COLLPLAN_IR_COLLECTIVE_H
