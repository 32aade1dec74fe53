//===- SimulatedAlltoall.cpp - One alltoall timed on a simulated machine --===//
//
//   smpirun -np P -platform X.xml -hostfile H collplan_smpi_alltoall
//       (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K]
//       [--common-start]
//
// SimulatedAllreduce.cpp's harness for MPI_Alltoall: BYTES is what each rank
// sends to each rank (MPI_Alltoall's count times the type's size, OSU's
// message size), so a rank's send and receive buffers hold P * BYTES and the
// plan's vector, the whole matrix, P^2 * BYTES (ARCHITECTURE.md,
// "Personalised exchange"). PLAN is an alltoall plan run by the executor;
// --mpi calls MPI_Alltoall, so SMPI's own algorithms
// (`--cfg=smpi/alltoall:pair|bruck|ring|basic_linear|ompi|mpich|...`) are
// timed by the same harness.
//
// The data is real: element e of rank s's block for rank d is
// (s * P + d) * 65599 + e (mod 2^32), and --check verifies that every rank
// d ends with every sender's block for it, in sender order.
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

namespace {

/// Element E of rank From's block for rank To.
uint32_t valueOf(uint64_t P, uint64_t From, uint64_t To, uint64_t E) {
  return uint32_t((From * P + To) * 65599 + E);
}

} // namespace

int main(int Argc, char **Argv) {
  programName() = "collplan_smpi_alltoall";
  MPI_Init(&Argc, &Argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Options O = parseOptions(Argc, Argv);

  uint64_t PerPair = O.Bytes / sizeof(uint32_t);
  uint64_t Row = PerPair * uint64_t(P);
  if (Row > uint64_t(INT32_MAX))
    fail(2, "a send buffer of more than INT_MAX elements");
  auto *In = static_cast<uint32_t *>(allocate(Row * 4, O.Shared));
  auto *Out = static_cast<uint32_t *>(allocate(Row * 4, O.Shared));
  if (!O.Shared)
    for (uint64_t To = 0; To < uint64_t(P); ++To)
      for (uint64_t E = 0; E < PerPair; ++E)
        In[To * PerPair + E] = valueOf(P, Rank, To, E);

  PlanCall Plan(O, Collective::Alltoall, "an alltoall");
  CallArgs A;
  A.Input = In;
  A.Output = Out;
  A.Count = Row * uint64_t(P); // The whole matrix.
  A.Type = Datatype::UInt32;
  double Seconds = timeCalls(
      [&] {
        if (!Plan) {
          MPI_Alltoall(In, int(PerPair), MPI_UINT32_T, Out, int(PerPair),
                       MPI_UINT32_T, MPI_COMM_WORLD);
          return;
        }
        Plan.run(A);
      },
      O.Iterations, O.CommonStart ? Start::Common : Start::BackToBack);

  bool Wrong = false;
  if (O.Check)
    for (uint64_t From = 0; From < uint64_t(P) && !Wrong; ++From)
      for (uint64_t E = 0; E < PerPair && !Wrong; ++E)
        Wrong = Out[From * PerPair + E] != valueOf(P, From, Rank, E);
  int Code = report(O, Seconds, Wrong);

  Plan.close();
  release(In, O.Shared);
  release(Out, O.Shared);
  MPI_Finalize();
  return Code;
}
