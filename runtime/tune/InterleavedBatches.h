//===- InterleavedBatches.h - Contenders timed batch by batch ------------===//
//
// How collplan_tune_mpi times a size's contenders (the library's own call,
// the plans, the library's own algorithms forced): as the Intel MPI
// Benchmarks do, batches of calls back to back between barriers, the
// contenders taking turns batch by batch so drift hits all alike.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TUNE_INTERLEAVEDBATCHES_H
#define COLLPLAN_RUNTIME_TUNE_INTERLEAVEDBATCHES_H

#include "runtime/tune/LibraryAlgorithms.h"
#include "runtime/tune/TunedCall.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace collplan {

/// How long a size is timed.
struct BatchPolicy {
  double Seconds = 1;
  /// At least this many batches of each contender.
  int MinBatches = 5;
  /// Calls per batch; 0: about 16 MiB moved per batch, 2 to 64 calls.
  int Calls = 0;
};

/// Medians of the time per call: the library's, then each plan's (its calls
/// made through the interposer on a communicator of Plans, each pinned to
/// one plan and returning errors), then the
/// library's running each of Serving (of Forced, its own algorithms), batches
/// taking turns until Policy.Seconds have passed (at least Policy.MinBatches
/// each). A batch is Calls calls back to back between barriers, as an
/// application makes them and as the Intel MPI Benchmarks time them, and counts
/// as the slowest rank's time over Calls: a plan that is fast alone but slow
/// back to back (a rank starting the next call while its peer finishes this
/// one) shows here.
llvm::Expected<std::vector<double>>
measureInterleaved(TunedCall &C, llvm::ArrayRef<MPI_Comm> Plans,
                   LibraryAlgorithms *Forced, llvm::ArrayRef<size_t> Serving,
                   const BatchPolicy &Policy);

} // namespace collplan

#endif // COLLPLAN_RUNTIME_TUNE_INTERLEAVEDBATCHES_H
