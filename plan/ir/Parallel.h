//===- Parallel.h - The process's one pool of worker threads ----*- C++ -*-===//
//
// Every parallel loop in collplan (pricing the tuner's candidates, building a
// plan's ranks, the verifier's replay) runs on LLVM's one executor
// (llvm/Support/Parallel.h), at most MaxWorkerThreads threads per process.
// A loop started inside another runs on the calling thread, one index after
// another (LLVM runs only the outermost task group in parallel), so loops
// never nest into threads of threads: the work in flight, and the memory it
// holds (a priced plan each, a replay's store each), is bounded by the
// thread count, per process rather than per call. The threads are not
// copied by fork(): a child forked after its parent used them must not
// (collplan's forked ranks run plans, never these loops).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_PARALLEL_H
#define COLLPLAN_IR_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>

namespace collplan {

/// At most this many worker threads, however many cores the machine has.
constexpr unsigned MaxWorkerThreads = 8;

/// The threads a parallelFor may use at most (the caller's included).
unsigned workerThreads();

/// Fn(0), ..., Fn(N - 1), in any order and on any of the process's worker
/// threads (the caller's too); returns when every call has.
void parallelFor(size_t N, llvm::function_ref<void(size_t)> Fn);

} // namespace collplan

#endif // COLLPLAN_IR_PARALLEL_H
