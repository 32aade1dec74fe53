//===- SimulatedAllreduce.cpp - One allreduce timed on a simulated machine ===//
//
//   smpirun -np P -platform X.xml -hostfile H collplan_smpi_allreduce
//       (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K]
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
// warm-up call.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/RankSlice.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

using namespace collplan;
using namespace collplan::runtime;

namespace {

[[noreturn]] void fail(int Code, const std::string &Message) {
  std::fprintf(stderr, "collplan_smpi_allreduce: %s\n", Message.c_str());
  MPI_Abort(MPI_COMM_WORLD, Code);
  std::abort();
}

struct Options {
  std::string Plan; ///< Empty: MPI_Allreduce.
  uint64_t Bytes = 0;
  bool Check = false;
  bool Shared = false;
  int Iterations = 1;
};

Options parseOptions(int Argc, char **Argv) {
  Options O;
  bool HaveTarget = false, HaveBytes = false;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--check")
      O.Check = true;
    else if (A == "--shared")
      O.Shared = true;
    else if (A == "--mpi")
      HaveTarget = true;
    else if (A == "--iterations" && I + 1 < Argc)
      O.Iterations = std::atoi(Argv[++I]);
    else if (!HaveTarget && A[0] != '-') {
      O.Plan = A;
      HaveTarget = true;
    } else if (!HaveBytes && A[0] != '-') {
      O.Bytes = std::strtoull(A.c_str(), nullptr, 10);
      HaveBytes = true;
    } else
      fail(2, "unknown argument '" + A + "'");
  }
  if (!HaveTarget || !HaveBytes || O.Iterations < 1)
    fail(2, "usage: collplan_smpi_allreduce (PLAN | --mpi) BYTES [--check] "
            "[--shared] [--iterations K]");
  if (O.Check && O.Shared)
    fail(2, "--check needs private buffers: drop --shared");
  if (O.Bytes % sizeof(float))
    fail(2, "BYTES must be a multiple of 4 (float elements)");
  return O;
}

float *allocate(uint64_t Bytes, bool Shared) {
  void *P = Shared ? SMPI_SHARED_MALLOC(Bytes) : std::malloc(Bytes);
  if (!P && Bytes)
    fail(1, "out of memory for " + std::to_string(Bytes) + " bytes");
  return static_cast<float *>(P);
}

void release(float *P, bool Shared) {
  if (Shared)
    SMPI_SHARED_FREE(P);
  else
    std::free(P);
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Options O = parseOptions(Argc, Argv);

  // Each rank reads its own program, as the interposer does.
  std::optional<RankSlice> Slice;
  if (!O.Plan.empty()) {
    llvm::Expected<RankSlice> S = readRankSlice(O.Plan, uint32_t(Rank));
    if (!S)
      fail(2, O.Plan + ": " + llvm::toString(S.takeError()));
    if (S->Header.Ranks != uint32_t(P) ||
        S->Header.Kind != Collective::Allreduce)
      fail(2, O.Plan + ": not an allreduce plan for P = " + std::to_string(P));
    Slice = std::move(*S);
  }

  uint64_t Count = O.Bytes / sizeof(float);
  float *In = allocate(O.Bytes, O.Shared);
  float *Out = allocate(O.Bytes, O.Shared);
  if (!O.Shared)
    for (uint64_t I = 0; I < Count; ++I)
      In[I] = float(Rank + 1);

  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  std::optional<MpiTransport> Mpi;
  std::optional<Executor> Ex;
  if (Slice) {
    Mpi.emplace(Comm);
    MemorySource Memory;
    if (O.Shared)
      Memory = {[](size_t Bytes) { return SMPI_SHARED_MALLOC(Bytes); },
                [](void *P) { SMPI_SHARED_FREE(P); }};
    Ex.emplace(Slice->Header, Slice->Prog, uint32_t(Rank), Memory);
  }
  CallArgs A;
  A.Input = In;
  A.Output = Out;
  A.Count = Count;
  A.Type = Datatype::Float;
  auto Call = [&] {
    if (!Ex) {
      MPI_Allreduce(In, Out, int(Count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return;
    }
    if (llvm::Error E = Ex->run(*Mpi, A))
      fail(1, "rank " + std::to_string(Rank) + ": " +
                  llvm::toString(std::move(E)));
  };

  Call(); // Warm-up: connections, the executor's scratch.
  MPI_Barrier(MPI_COMM_WORLD);
  double Start = MPI_Wtime();
  for (int I = 0; I < O.Iterations; ++I)
    Call();
  double Local = (MPI_Wtime() - Start) / O.Iterations, Max = 0;
  MPI_Reduce(&Local, &Max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  int Wrong = 0, AnyWrong = 0;
  if (O.Check) {
    float Expected = float(uint64_t(P) * (P + 1) / 2);
    for (uint64_t I = 0; I < Count && !Wrong; ++I)
      Wrong = Out[I] != Expected;
    if (Wrong)
      std::fprintf(stderr, "collplan_smpi_allreduce: rank %d: wrong result\n",
                   Rank);
  }
  MPI_Allreduce(&Wrong, &AnyWrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (Rank == 0 && !AnyWrong)
    std::printf("{\"bytes\": %llu, \"ranks\": %d, \"seconds\": %.9g, "
                "\"checked\": %s}\n",
                (unsigned long long)O.Bytes, P, Max,
                O.Check ? "true" : "false");

  Ex.reset();
  Mpi.reset();
  MPI_Comm_free(&Comm);
  release(In, O.Shared);
  release(Out, O.Shared);
  MPI_Finalize();
  return AnyWrong ? 1 : 0;
}
