//===- ControlVariables.h - The MPI library's control variables (MPI_T) --===//
//
// How collplan_tune_mpi makes an MPI library run one of its own algorithms:
// through the control variables of the MPI tool interface (MPI 3.0, 14.3.6),
// which Open MPI and MPICH both use to force a collective algorithm. SMPI,
// which builds this program for the simulated machine, has no tool
// interface: there this header declares nothing.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_CONTROLVARIABLES_H
#define COLLPLAN_RUNTIME_TUNE_CONTROLVARIABLES_H

#include "llvm/ADT/StringRef.h"

#include <mpi.h>

#include <optional>
#include <string>

#ifdef MPI_T_ENUM_NULL

namespace collplan {

/// Starts the tool interface for the rest of the process, once; whether it
/// runs. Never finalized: MPICH 4.0 crashes in MPI_T_cvar_get_num once the
/// interface has been finalized and started again.
bool startToolInterface();

/// An int control variable, found by name once the tool interface runs.
struct ControlVariable {
  int Index = -1;
  /// Its enumeration of values and names, if the library gives one.
  MPI_T_enum Enum = MPI_T_ENUM_NULL;
  std::string Description;

  static std::optional<ControlVariable> find(llvm::StringRef Name);
  bool read(int &Value) const;
  bool write(int Value) const;
};

} // namespace collplan

#endif // MPI_T_ENUM_NULL

#endif // COLLPLAN_RUNTIME_TUNE_CONTROLVARIABLES_H
