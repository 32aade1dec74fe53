//===- PlanRun.cpp - One rank of `collplan run` ---------------------------===//

#include "runtime/launcher/PlanRun.h"
#include "plan/ir/Error.h"

#include "runtime/Executor.h"
#include "runtime/launcher/Workload.h"

#include <chrono>

namespace collplan::runtime {

llvm::Expected<RankReport> runPlanRank(const PlanHeader &H, const Program &Prog,
                                       uint64_t Hash, Transport &T,
                                       const RunSettings &S) {
  uint32_t Rank = T.rank();
  if (T.size() != H.Ranks)
    return makeError(ErrorKind::Runtime,
                     "the plan is for P = %u but %u ranks run", H.Ranks,
                     T.size());
  if (reduces(H.Kind) && !supports(S.Type, S.Op))
    return makeError(ErrorKind::Runtime, "operator %s is not defined on %s",
                     reduceOpName(S.Op).str().c_str(),
                     datatypeName(S.Type).str().c_str());
  if (llvm::Error E = checkSameHash(T, Hash))
    return E;

  Executor Ex(H, Prog, Rank);
  std::vector<char> Input = inputFor(H, Rank, S.Count, S.Type, S.Op);
  std::vector<char> Output(S.Count * sizeOf(S.Type));
  CallArgs Args;
  Args.Input = Input.data();
  Args.Output = Output.data();
  Args.Count = S.Count;
  Args.Type = S.Type;
  Args.Op = Operator::predefined(S.Op);

  for (unsigned I = 0; I < S.Warmup; ++I)
    if (llvm::Error E = Ex.run(T, Args))
      return E;
  // Line the ranks up so the clock starts together everywhere.
  if (llvm::Error E = checkSameHash(T, Hash))
    return E;
  auto Start = std::chrono::steady_clock::now();
  for (unsigned I = 0; I < S.Iterations; ++I)
    if (llvm::Error E = Ex.run(T, Args))
      return E;
  std::chrono::duration<double> Elapsed =
      std::chrono::steady_clock::now() - Start;

  RankReport Report;
  Report.SecondsPerCall = S.Iterations ? Elapsed.count() / S.Iterations : 0;
  if (S.Check && S.Warmup + S.Iterations > 0) {
    std::vector<char> Want = expectedOutput(H, Rank, S.Count, S.Type, S.Op);
    Output.resize(Want.size());
    Report.CheckFailure = compareOutput(Output, Want, S.Type);
  }
  return Report;
}

} // namespace collplan::runtime
