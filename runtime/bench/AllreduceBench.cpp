//===- AllreduceBench.cpp - A plan against Open MPI's own allreduce -------===//
//
//   mpirun -n 4 collplan_bench_mpi PLAN [BYTES...]
//
// For each size (default 1 KiB, 64 KiB, 1 MiB, 16 MiB) times the plan run by
// the executor over MpiTransport and MPI_Allreduce (whichever algorithm the
// mpirun flags select) on the same float-sum data, alternating the two so
// both see the same machine state; prints the median time per call over
// ranks' maxima and the ratio ours / MPI's.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/RankSlice.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (Argc < 2) {
    if (Rank == 0)
      std::fprintf(stderr, "usage: %s PLAN [BYTES...]\n", Argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Each rank reads its own program only, as the interposer does.
  llvm::Expected<RankSlice> Pl = readRankSlice(Argv[1], uint32_t(Rank));
  if (!Pl || Pl->Header.Ranks != uint32_t(P) ||
      Pl->Header.Kind != Collective::Allreduce) {
    if (Rank == 0)
      std::fprintf(stderr, "%s: not an allreduce plan for P = %d%s\n", Argv[1],
                   P,
                   Pl ? "" : (": " + llvm::toString(Pl.takeError())).c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<uint64_t> Sizes;
  for (int I = 2; I < Argc; ++I)
    Sizes.push_back(std::strtoull(Argv[I], nullptr, 10));
  if (Sizes.empty())
    Sizes = {1 << 10, 1 << 16, 1 << 20, 1 << 24};

  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  MpiTransport T(Comm);
  Executor Ex(Pl->Header, Pl->Prog, uint32_t(Rank));
  if (Rank == 0)
    std::printf("%10s %14s %14s %8s\n", "bytes", "collplan_us", "mpi_us",
                "ratio");
  for (uint64_t Bytes : Sizes) {
    uint64_t Count = Bytes / sizeof(float);
    std::vector<float> In(Count, float(Rank + 1)), Out(Count);
    int Iterations =
        int(std::clamp<uint64_t>((64u << 20) / (Bytes + 1), 3, 50));
    CallArgs A;
    A.Input = In.data();
    A.Output = Out.data();
    A.Count = Count;
    A.Type = Datatype::Float;
    std::vector<double> Ours, Theirs;
    // Rounds of (ours, theirs), each a batch of Iterations calls.
    for (int Rep = 0; Rep < 6; ++Rep) {
      for (int Which = 0; Which < 2; ++Which) {
        MPI_Barrier(MPI_COMM_WORLD);
        double Start = MPI_Wtime();
        for (int I = 0; I < Iterations; ++I) {
          if (Which == 0) {
            if (llvm::Error E = Ex.run(T, A)) {
              std::fprintf(stderr, "%s\n",
                           llvm::toString(std::move(E)).c_str());
              MPI_Abort(MPI_COMM_WORLD, 1);
            }
          } else {
            MPI_Allreduce(In.data(), Out.data(), int(Count), MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
          }
        }
        double Local = (MPI_Wtime() - Start) / Iterations, Max = 0;
        MPI_Allreduce(&Local, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (Rep > 0) // The first round warms up.
          (Which == 0 ? Ours : Theirs).push_back(Max);
      }
    }
    // The result must be right: every element sums 1..P.
    for (uint64_t I = 0; I < Count; ++I)
      if (Out[I] != float(P * (P + 1) / 2)) {
        std::fprintf(stderr, "rank %d: wrong result at %llu\n", Rank,
                     (unsigned long long)I);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    std::sort(Ours.begin(), Ours.end());
    std::sort(Theirs.begin(), Theirs.end());
    double O = Ours[Ours.size() / 2], M = Theirs[Theirs.size() / 2];
    if (Rank == 0)
      std::printf("%10llu %14.1f %14.1f %8.3f\n", (unsigned long long)Bytes,
                  O * 1e6, M * 1e6, O / M);
  }
  MPI_Comm_free(&Comm);
  MPI_Finalize();
  return 0;
}
