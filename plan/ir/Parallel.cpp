//===- Parallel.cpp - The process's one pool of worker threads ------------===//

#include "plan/ir/Parallel.h"

#include "llvm/Support/Parallel.h"
#include "llvm/Support/Threading.h"

namespace collplan {

namespace {

/// LLVM's executor takes its size from parallel::strategy when it is first
/// used: bound it before then.
bool boundExecutor() {
  static const bool Bound = [] {
    llvm::parallel::strategy = llvm::optimal_concurrency(MaxWorkerThreads);
    return true;
  }();
  return Bound;
}

} // namespace

unsigned workerThreads() {
  boundExecutor();
  return llvm::parallel::strategy.compute_thread_count();
}

void parallelFor(size_t N, llvm::function_ref<void(size_t)> Fn) {
  boundExecutor();
  llvm::parallelForEachN(0, N, Fn);
}

} // namespace collplan
