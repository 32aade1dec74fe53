//===- SimulatedAllreduce.cpp - One allreduce timed on a simulated machine ===//
//
//   smpirun -np P -platform X.xml -hostfile H collplan_smpi_allreduce
//       (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K]
//       [--common-start]
//
// Built against SimGrid's SMPI instead of a real MPI library, so the plan
// runs through the same executor and the same MpiTransport code as under
// Open MPI, and the simulated clock says how long the call would take on the
// platform. PLAN is run by the executor; --mpi calls MPI_Allreduce, so
// SMPI's own algorithms (`--cfg=smpi/allreduce:rdb|lr|ompi|mpich|...`) are
// timed by the same harness.
//
// The data is real: every rank contributes rank + 1 to every float element,
// and --check verifies that every rank ends with the sum 1 + ... + P. At
// sizes where P copies of the vector would not fit in memory, --shared
// allocates the user buffers and the executor's own with SMPI_SHARED_MALLOC
// (all ranks share one copy: the timing holds, the values do not, so
// --check is refused).
//
// Rank 0 prints one JSON object: {"bytes": B, "ranks": P, "seconds": T,
// "checked": bool}, T the slowest rank's mean time per call after one
// warm-up call: calls back to back, or with --common-start each call from
// one simulated instant on every rank (SimulatedCall.h, timeCalls).
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/RankSlice.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"
#include "runtime/smpi/SimulatedCall.h"

#include <mpi.h>

#include <optional>
#include <string>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::smpi;

int main(int Argc, char **Argv) {
  programName() = "collplan_smpi_allreduce";
  MPI_Init(&Argc, &Argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Options O = parseOptions(Argc, Argv);

  uint64_t Count = O.Bytes / sizeof(float);
  auto *In = static_cast<float *>(allocate(O.Bytes, O.Shared));
  auto *Out = static_cast<float *>(allocate(O.Bytes, O.Shared));
  if (!O.Shared)
    for (uint64_t I = 0; I < Count; ++I)
      In[I] = float(Rank + 1);

  PlanCall Plan(O, Collective::Allreduce, "an allreduce");
  CallArgs A;
  A.Input = In;
  A.Output = Out;
  A.Count = Count;
  A.Type = Datatype::Float;
  double Seconds = timeCalls(
      [&] {
        if (!Plan) {
          MPI_Allreduce(In, Out, int(Count), MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD);
          return;
        }
        Plan.run(A);
      },
      O.Iterations, O.CommonStart ? Start::Common : Start::BackToBack);

  bool Wrong = false;
  if (O.Check) {
    float Expected = float(uint64_t(P) * (P + 1) / 2);
    for (uint64_t I = 0; I < Count && !Wrong; ++I)
      Wrong = Out[I] != Expected;
  }
  int Code = report(O, Seconds, Wrong);

  Plan.close();
  release(In, O.Shared);
  release(Out, O.Shared);
  MPI_Finalize();
  return Code;
}
