//===- InterleavedBatches.cpp - Contenders timed batch by batch ----------===//

#include "runtime/tune/InterleavedBatches.h"

#include <mpi.h>

#include <algorithm>

namespace collplan {

namespace {

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

} // namespace

llvm::Expected<std::vector<double>>
measureInterleaved(TunedCall &C, llvm::ArrayRef<MPI_Comm> Plans,
                   LibraryAlgorithms *Forced, llvm::ArrayRef<size_t> Serving,
                   const BatchPolicy &Policy) {
  const size_t MinBatches = size_t(Policy.MinBatches), MaxBatches = 500;
  const double Seconds = Policy.Seconds;
  const int Calls =
      Policy.Calls
          ? Policy.Calls
          : int(std::clamp<uint64_t>((16 << 20) / C.shape().Bytes, 2, 64));
  size_t Contenders = 1 + Plans.size() + Serving.size();
  std::vector<std::vector<double>> Times(Contenders);
  auto RunBatch = [&](size_t Which, bool Keep) -> llvm::Error {
    // The library's forced algorithm, released before the allreduce below.
    bool Forcing = Which > Plans.size();
    MPI_Comm Comm = Forcing ? Forced->force(Serving[Which - 1 - Plans.size()])
                            : MPI_COMM_WORLD;
    MPI_Barrier(MPI_COMM_WORLD);
    double Start = MPI_Wtime();
    for (int I = 0; I < Calls; ++I) {
      if (Which == 0 || Forcing)
        C.library(Comm);
      else if (C.interposed(Plans[Which - 1]) != MPI_SUCCESS)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "a plan failed to run (the interposer said why above)");
    }
    double Mine = (MPI_Wtime() - Start) / Calls, Slowest = 0;
    if (Forcing)
      Forced->release();
    MPI_Allreduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (Keep)
      Times[Which].push_back(Slowest);
    return llvm::Error::success();
  };
  for (size_t Which = 0; Which < Contenders; ++Which) // Warm-up: connections,
    if (llvm::Error E = RunBatch(Which, false))       // caches, first touch.
      return E;
  double Start = MPI_Wtime();
  for (;;) {
    for (size_t Which = 0; Which < Contenders; ++Which)
      if (llvm::Error E = RunBatch(Which, true))
        return E;
    // Rank 0's clock decides for all, so every rank stops together.
    int Done =
        Times[0].size() >= MaxBatches ||
        (Times[0].size() >= MinBatches && MPI_Wtime() - Start >= Seconds);
    MPI_Bcast(&Done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (Done)
      break;
  }
  std::vector<double> Medians;
  for (std::vector<double> &V : Times)
    Medians.push_back(median(std::move(V)));
  return Medians;
}

} // namespace collplan
