//===- MpichAlgorithms.h - MPICH's own algorithms, one at a time ---------===//
//
// MPICH (4.0) forces a collective's algorithm with the control variable
// MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM, which its MPIR_<Collective>_impl
// reads at every call (the switch maint/gen_coll.py generates) and which is
// writable through the MPI tool interface; on the device's default path
// (ch4, MPIR_CVAR_DEVICE_COLLECTIVES=percoll) the call still ends there, so
// a write takes effect from the next call. One communicator serves every
// algorithm: collplan_tune_mpi --mpich-json writes the variable before
// each batch and "auto" (MPICH's own decision) after it. While an algorithm
// is forced, MPIR_CVAR_COLLECTIVE_FALLBACK is "error", so an algorithm that
// cannot serve a call (recursive doubling allgather on 3 ranks) fails it
// instead of silently running MPICH's own choice under the forced name.
//
// MPICH 4.0 gives these variables no MPI_T enumeration (an int, its names
// only in the description, whose lines run together), so the names and
// their values are MPICH 4.0's (src/mpi/coll/cvars.txt), checked against
// the running library's description: every name, in order, followed by
// its " - " and no other.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_MPICHALGORITHMS_H
#define COLLPLAN_RUNTIME_TUNE_MPICHALGORITHMS_H

#include "runtime/tune/LibraryAlgorithms.h"

#include "plan/ir/Collective.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace collplan {

/// Every algorithm MPICH lists for Kind ("auto" and "nb" left out: see
/// the .cpp), all served by one
/// communicator. Collective over MPI_COMM_WORLD. An error when this MPI is
/// not MPICH or lists other algorithms than MPICH 4.0's.
llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceMpichAlgorithms(Collective Kind);

/// Whether Description lists exactly Names, in this order, each as "NAME
/// - ..." (spaces before the dash), the way MPICH's variable descriptions
/// list the values of an enum variable.
bool listsValues(llvm::StringRef Description,
                 llvm::ArrayRef<llvm::StringRef> Names);

} // namespace collplan

#endif // COLLPLAN_RUNTIME_TUNE_MPICHALGORITHMS_H
