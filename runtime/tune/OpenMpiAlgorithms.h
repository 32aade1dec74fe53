//===- OpenMpiAlgorithms.h - Open MPI's own algorithms, one at a time ----===//
//
// Open MPI's coll_tuned component reads its forced algorithm
// (coll_tuned_<collective>_algorithm) when a communicator is created, and
// the variable is writable through the MPI tool interface. So a job can
// hold one duplicate of MPI_COMM_WORLD per algorithm, each running that
// algorithm, and time them all side by side, as collplan_tune_mpi
// --openmpi-rules does, instead of one mpirun per algorithm as Open MPI's
// own ompi-collectives-tuning scripts do. The forced values count only
// when coll_tuned_use_dynamic_rules is on (at MPI_Init; without a forced
// value or a rules file Open MPI then takes its fixed decision as before).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_OPENMPIALGORITHMS_H
#define COLLPLAN_RUNTIME_TUNE_OPENMPIALGORITHMS_H

#include "runtime/tune/LibraryAlgorithms.h"

#include "plan/ir/Collective.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace collplan {

/// The environment variable that turns coll_tuned's dynamic rules on; set it
/// (unless the user did) before MPI_Init.
constexpr const char *OpenMpiDynamicRulesVariable =
    "OMPI_MCA_coll_tuned_use_dynamic_rules";

/// Every algorithm Open MPI lists for Kind (its MPI_T enumeration, 0
/// "ignore" left out), each on its own communicator. Collective over
/// MPI_COMM_WORLD. An error when this MPI is not Open MPI with coll_tuned,
/// or its dynamic rules are off.
llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceOpenMpiAlgorithms(Collective Kind);

} // namespace collplan

#endif // COLLPLAN_RUNTIME_TUNE_OPENMPIALGORITHMS_H
