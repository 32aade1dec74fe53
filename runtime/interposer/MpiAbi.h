//===- MpiAbi.h - Which MPI ABI the interposer was built for and runs in --===//
//
// MPI fixes an API, not an ABI. Open MPI's handles (MPI_Comm, MPI_Datatype,
// MPI_Op) are pointers to objects in libmpi; the MPICH ABI's, shared by
// MPICH, Intel MPI, Cray MPICH and MVAPICH, are 32-bit integers. An
// interposer built against one and preloaded into a program of the other
// would hand the library handles it cannot read, so each build is told its
// ABI by the build system and checks, before it interprets any handle, that
// the library the program's MPI calls reach has the same one.
//
// This file includes no mpi.h: it must work whichever MPI is loaded.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_MPIABI_H
#define COLLPLAN_RUNTIME_INTERPOSER_MPIABI_H

#include <string>

namespace collplan::runtime {

enum class MpiAbi { OpenMpi, Mpich };

/// The ABI this build of the interposer was compiled against.
MpiAbi builtForAbi();

/// "Open MPI" or "MPICH".
const char *abiName(MpiAbi Abi);

/// The MPI library a program's PMPI_ calls reach from the interposer, and
/// its ABI: Open MPI's if that library defines Open MPI's world
/// communicator object, the MPICH ABI otherwise.
struct RunningMpi {
  MpiAbi Abi = MpiAbi::OpenMpi;
  std::string Library; ///< The shared object's path, as the loader has it.
};
RunningMpi runningMpi();

/// Whether this build may interpret the handles of the running MPI: decided
/// once, on first use. Inline, as every exported collective asks it first.
bool decideServesRunningMpi();
extern signed char ServesRunningMpi; ///< -1 until decided.
inline bool servesRunningMpi() {
  if (__builtin_expect(ServesRunningMpi < 0, 0))
    return decideServesRunningMpi();
  return ServesRunningMpi;
}

/// At MPI_Init: when the running MPI has the other ABI, one line on stderr
/// (from the first rank only, when the launcher says which that is) naming
/// the library found and the build to preload instead.
void reportAbiMismatch();

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_INTERPOSER_MPIABI_H
