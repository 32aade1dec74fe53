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
};

/// "allreduce", "reduce-scatter", "allgather", "allgatherv", "broadcast",
/// "reduce": the names used on the command line and in plan files.
llvm::StringRef collectiveName(Collective C);
std::optional<Collective> parseCollective(llvm::StringRef Name);
llvm::ArrayRef<Collective> allCollectives();

/// Broadcast and reduce have a root.
inline bool hasRoot(Collective C) {
  return C == Collective::Broadcast || C == Collective::Reduce;
}
/// Allgather(v) and reduce-scatter split the vector among ranks by ownership.
inline bool hasOwnedBlocks(Collective C) {
  return C == Collective::Allgather || C == Collective::Allgatherv ||
         C == Collective::ReduceScatter;
}
/// Whether the collective combines contributions with an operator.
inline bool reduces(Collective C) {
  return C == Collective::Allreduce || C == Collective::ReduceScatter ||
         C == Collective::Reduce;
}

} // namespace collplan

#endif // COLLPLAN_IR_COLLECTIVE_H
