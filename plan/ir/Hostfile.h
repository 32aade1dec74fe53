//===- Hostfile.h - A job's rank -> node map from host names ----*- C++ -*-===//
//
// Irregular jobs (nodes holding different numbers of ranks) are described the
// way launchers expand them: one host name per rank, in rank order (Slurm's
// SLURM_JOB_NODELIST expanded with the tasks per node, Open MPI's
// --display-map read down its rank column). Open MPI's own hostfile form,
// "NAME slots=N", stands for N consecutive ranks on NAME, which is where
// Open MPI's default by-slot mapping puts them. Blank lines and text after
// '#' are ignored. Nodes are numbered in order of first appearance.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_HOSTFILE_H
#define COLLPLAN_IR_HOSTFILE_H

#include "plan/ir/Topology.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// The node of every rank that Text lists, or a usage error naming
/// "Source:line" (a line that is neither a host name nor "NAME slots=N", a
/// file with no rank, more ranks than MaxRanks).
llvm::Expected<std::vector<uint32_t>> parseHostfile(llvm::StringRef Text,
                                                    llvm::StringRef Source);

/// The topology of the job Text lists: Topology::explicitNodes of its map.
llvm::Expected<Topology> topologyFromHostfile(llvm::StringRef Text,
                                              llvm::StringRef Source);

} // namespace collplan

#endif // COLLPLAN_IR_HOSTFILE_H
