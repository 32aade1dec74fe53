//===- SlurmStep.h - A Slurm job step's rank -> node map --------*- C++ -*-===//
//
// Slurm describes a step by its nodes (a host list such as "n[1-4,7],gpu01"),
// the tasks on each node ("2(x3),1": three nodes of 2, then one of 1) and
// the distribution of tasks over nodes: block (consecutive ranks fill a
// node), cyclic (ranks dealt to the nodes in turn, a node left out once
// full) or plane=N (blocks of N ranks dealt in turn). These are the values
// srun puts in SLURM_NODELIST, SLURM_TASKS_PER_NODE and SLURM_DISTRIBUTION
// (see srun(1), -m). An arbitrary distribution (a SLURM_HOSTFILE) is not
// described by them and is refused, as is any text Slurm would not write.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_SLURMSTEP_H
#define COLLPLAN_IR_SLURMSTEP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan {

/// The host names of a Slurm host list, in order: "n[1-3,07-08],login"
/// is n1 n2 n3 n07 n08 login (a range keeps its first bound's zeros).
llvm::Expected<std::vector<std::string>> expandSlurmHostlist(llvm::StringRef);

/// The tasks on each node of "2(x3),1" (2 2 2 1); counts must be positive.
llvm::Expected<std::vector<uint64_t>> parseSlurmTasksPerNode(llvm::StringRef);

/// The node of every rank for tasks per node Tasks and a distribution as
/// SLURM_DISTRIBUTION gives it ("block", "cyclic:block", "plane", ...;
/// empty is block). PlaneSize is SLURM_DIST_PLANESIZE, for "plane".
llvm::Expected<std::vector<uint32_t>>
slurmNodeOfRank(llvm::ArrayRef<uint64_t> Tasks, llvm::StringRef Distribution,
                uint64_t PlaneSize = 0);

} // namespace collplan

#endif // COLLPLAN_IR_SLURMSTEP_H
