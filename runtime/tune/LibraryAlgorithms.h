//===- LibraryAlgorithms.h - An MPI library's own algorithms, forced -----===//
//
// What collplan_tune_mpi times beside the library's own decision when it
// writes a library's tuning file: each algorithm the library has for a
// collective, and the communicator on which the library's call runs it.
// Open MPI reads its forced algorithm when a communicator is created, so
// each has a communicator of its own (OpenMpiAlgorithms.h); MPICH reads its
// at every call, so one communicator serves all, the variable written
// before each batch (MpichAlgorithms.h).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_LIBRARYALGORITHMS_H
#define COLLPLAN_RUNTIME_TUNE_LIBRARYALGORITHMS_H

#include "compiler/tuning/TuningFiles.h"

#include "llvm/ADT/ArrayRef.h"

#include <mpi.h>

#include <vector>

namespace collplan {

/// One collective's algorithms of the MPI library, each of which its call
/// can be made to run. Made collectively over MPI_COMM_WORLD; every rank
/// lists the same algorithms in the same order.
class LibraryAlgorithms {
public:
  virtual ~LibraryAlgorithms() = default;
  /// The algorithms, the library's own decision left out.
  llvm::ArrayRef<LibraryAlgorithm> algorithms() const { return Algorithms; }
  /// The communicator (a duplicate of MPI_COMM_WORLD, errors returned) on
  /// which the library's call runs algorithms()[I], until release(). An
  /// algorithm that cannot serve a call fails it rather than fall back.
  virtual MPI_Comm force(size_t I) = 0;
  /// Every call the library's own decision again.
  virtual void release() {}

protected:
  std::vector<LibraryAlgorithm> Algorithms;
};

} // namespace collplan

#endif // COLLPLAN_RUNTIME_TUNE_LIBRARYALGORITHMS_H
