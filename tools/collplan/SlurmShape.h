//===- SlurmShape.h - A Slurm job's shape from its environment --*- C++ -*-===//
//
// What `collplan slurm` (run by the SPANK plugin in srun) and `collplan
// launch` (mpirun in a batch script) read of a Slurm job: the rank -> node
// map of the step, or of the allocation in a batch script, from
// SLURM_STEP_NODELIST / SLURM_NODELIST / SLURM_JOB_NODELIST, the tasks per
// node (SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE), SLURM_DISTRIBUTION
// and SLURM_DIST_PLANESIZE (plan/ir/SlurmStep.h). The cache is keyed by the
// shape, not by the nodes' names, so every job of the same shape shares one
// directory: a block map of equal nodes is nodes:NxK, any other map a
// hostfile of the nodes by number.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_SLURMSHAPE_H
#define COLLPLAN_TOOLS_SLURMSHAPE_H

#include "tools/collplan/PlanCache.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileUtilities.h"

#include <cstdint>
#include <vector>

namespace collplan::cli {

struct SlurmShape {
  std::vector<uint32_t> NodeOf; ///< The node of every rank.
  uint32_t Nodes = 0;
  JobShape Job;             ///< PerNode for a block map, else Hostfile.
  llvm::FileRemover Remove; ///< Removes the hostfile with the shape.
};

/// Reads the job in the environment into S; a usage error names the
/// variable it cannot read, an I/O error the hostfile it cannot write.
llvm::Error readSlurmShape(SlurmShape &S);

/// Whether this process runs inside a Slurm allocation (SLURM_JOB_ID).
bool inSlurmJob();

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_SLURMSHAPE_H
