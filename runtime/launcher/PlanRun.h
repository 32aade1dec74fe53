//===- PlanRun.h - One rank of `collplan run` -------------------*- C++ -*-===//
//
// What every rank of `collplan run` does, whichever transport it has: agree
// on the plan hash with every peer, run the plan on generated data for the
// requested number of calls, time them, and check the last result against
// the reference of Workload.h.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_LAUNCHER_PLANRUN_H
#define COLLPLAN_RUNTIME_LAUNCHER_PLANRUN_H

#include "plan/ir/Plan.h"
#include "runtime/Reduction.h"
#include "runtime/Transport.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace collplan::runtime {

struct RunSettings {
  /// Elements of the whole vector.
  uint64_t Count = 0;
  Datatype Type = Datatype::Float;
  ReduceOp Op = ReduceOp::Sum;
  unsigned Iterations = 10;
  /// Untimed calls before the timed ones (connections warm up, pages fault).
  unsigned Warmup = 2;
  bool Check = false;
};

struct RankReport {
  double SecondsPerCall = 0;
  /// Empty when the check passed or did not run.
  std::string CheckFailure;
};

/// Runs this rank (T.rank()) of a plan with header H: Prog is that rank's
/// program (the whole plan is not needed: see RankSlice.h). Hash is the whole
/// plan's planHash, compared with every peer before anything else.
llvm::Expected<RankReport> runPlanRank(const PlanHeader &H, const Program &Prog,
                                       uint64_t Hash, Transport &T,
                                       const RunSettings &S);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_LAUNCHER_PLANRUN_H
