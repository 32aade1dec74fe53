//===- SimulatedBroadcast.cpp - One broadcast timed on a simulated machine ===//
//
//   smpirun -np P -platform X.xml -hostfile H collplan_smpi_broadcast
//       (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K]
//       [--common-start]
//
// SimulatedAllreduce.cpp's harness for MPI_Bcast from rank 0: BYTES is the
// vector, one buffer per rank (the plan's is in place). PLAN is a broadcast
// plan with root 0 run by the executor; --mpi calls MPI_Bcast, so SMPI's own
// algorithms (`--cfg=smpi/bcast:binomial_tree|scatter_rdb_allgather|ompi|
// mpich|...`) are timed by the same harness. Each call is timed alone
// after a barrier (SimulatedCall.h, timeCalls): back-to-back broadcasts
// overlap.
//
// The data is real: element e of the root's vector is e * 65599 + 7
// (mod 2^32), the other ranks start from zeros, and --check verifies that
// every rank ends with the root's vector.
//
//===----------------------------------------------------------------------===//

#include "runtime/smpi/SimulatedCall.h"

#include <mpi.h>

#include <string>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::smpi;

namespace {

uint32_t valueOf(uint64_t E) { return uint32_t(E * 65599 + 7); }

} // namespace

int main(int Argc, char **Argv) {
  programName() = "collplan_smpi_broadcast";
  MPI_Init(&Argc, &Argv);
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  Options O = parseOptions(Argc, Argv);
  PlanCall Plan(O, Collective::Broadcast, "a broadcast");
  if (Plan && Plan.header().Root.value_or(0) != 0)
    fail(2, O.Plan + ": the driver broadcasts from rank 0");

  uint64_t Count = O.Bytes / sizeof(uint32_t);
  if (Count > uint64_t(INT32_MAX))
    fail(2, "a vector of more than INT_MAX elements");
  auto *Buf = static_cast<uint32_t *>(allocate(O.Bytes, O.Shared));
  if (!O.Shared)
    for (uint64_t I = 0; I < Count; ++I)
      Buf[I] = Rank == 0 ? valueOf(I) : 0;

  CallArgs A;
  A.Input = nullptr; // In place: the root's vector is the buffer.
  A.Output = Buf;
  A.Count = Count;
  A.Type = Datatype::UInt32;
  double Seconds = timeCalls(
      [&] {
        if (Plan)
          Plan.run(A);
        else
          MPI_Bcast(Buf, int(Count), MPI_UINT32_T, 0, MPI_COMM_WORLD);
      },
      O.Iterations, O.CommonStart ? Start::Common : Start::BarrierEach);

  bool Wrong = false;
  if (O.Check)
    for (uint64_t I = 0; I < Count && !Wrong; ++I)
      Wrong = Buf[I] != valueOf(I);
  int Code = report(O, Seconds, Wrong);

  Plan.close();
  release(Buf, O.Shared);
  MPI_Finalize();
  return Code;
}
