//===- AllreduceBench.cpp - A plan over MPI and TCP, beside MPI and Gloo --===//
//
//   mpirun -n 4 [--mca btl tcp,self] collplan_bench_mpi PLAN [BYTES...]
//
// For each size (default 1 KiB, 64 KiB, 1 MiB, 16 MiB) times, on the same
// float-sum data:
//   plan_mpi   the plan run by the executor over MpiTransport (so over
//              whichever BTL the mpirun flags select: `--mca btl tcp,self`
//              makes it Open MPI's TCP path);
//   plan_tcp   the same plan over collplan's own TcpTransport (loopback);
//   mpi        MPI_Allreduce, whichever algorithm the flags select;
//   gloo       Gloo's allreduce over its TCP transport, what PyTorch runs
//              over TCP (when built with Debian's libgloo-dev).
// The first three run in turns, so that all see the same machine state. Gloo
// runs after them, once its context exists: its transport's background
// thread keeps polling while the context lives, which would slow the others.
// Prints the median over batches of each batch's time per call (the slowest
// rank's), and the ratios plan_tcp / plan_mpi and plan_mpi / mpi.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/RankSlice.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"
#include "runtime/tcp/TcpTransport.h"

#include <mpi.h>

#ifdef COLLPLAN_BENCH_GLOO
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <filesystem>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;

namespace {

[[noreturn]] void fail(const std::string &Message) {
  std::fprintf(stderr, "%s\n", Message.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

/// Connects the ranks over TCP: rank 0 listens on an ephemeral loopback
/// port and tells the others through MPI.
std::unique_ptr<TcpTransport> connectTcp(int Rank, int P) {
  TcpConfig C;
  C.Rank = uint32_t(Rank);
  C.Size = uint32_t(P);
  C.Secret = "collplan_bench_mpi";
  int Port = 0;
  if (Rank == 0) {
    uint16_t Chosen = 0;
    llvm::Expected<int> Fd = listenOn(C.Host, Chosen);
    if (!Fd)
      fail(llvm::toString(Fd.takeError()));
    C.ListenSocket = *Fd;
    Port = Chosen;
  }
  MPI_Bcast(&Port, 1, MPI_INT, 0, MPI_COMM_WORLD);
  C.Port = uint16_t(Port);
  llvm::Expected<std::unique_ptr<TcpTransport>> T = TcpTransport::connect(C);
  if (!T)
    fail(llvm::toString(T.takeError()));
  return std::move(*T);
}

#ifdef COLLPLAN_BENCH_GLOO
/// A Gloo context over TCP on loopback, rendezvous through a file store in a
/// directory rank 0 makes.
std::shared_ptr<gloo::Context> connectGloo(int Rank, int P) {
  char Dir[256] = "/tmp/collplan-gloo-XXXXXX";
  if (Rank == 0 && !mkdtemp(Dir))
    fail("mkdtemp failed");
  MPI_Bcast(Dir, sizeof(Dir), MPI_CHAR, 0, MPI_COMM_WORLD);
  gloo::transport::tcp::attr Attr("127.0.0.1");
  auto Device = gloo::transport::tcp::CreateDevice(Attr);
  gloo::rendezvous::FileStore Store(Dir);
  auto Context = std::make_shared<gloo::rendezvous::Context>(Rank, P);
  Context->connectFullMesh(Store, Device);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0)
    std::filesystem::remove_all(Dir);
  return Context;
}
#endif

struct Contender {
  Contender(const char *Name, std::function<void()> Call)
      : Name(Name), Call(std::move(Call)) {}
  const char *Name;
  std::function<void()> Call;
  std::vector<double> Times;
  std::vector<double> Medians; ///< One per size.
};

} // namespace

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
  MpiTransport Mpi(Comm);
  std::unique_ptr<TcpTransport> Tcp = connectTcp(Rank, P);
#ifdef COLLPLAN_BENCH_GLOO
  std::shared_ptr<gloo::Context> Gloo;
#endif
  Executor Ex(Pl->Header, Pl->Prog, uint32_t(Rank));

  std::vector<float> In, Out;
  CallArgs A;
  A.Type = Datatype::Float;
  auto Run = [&](Transport &T) {
    if (llvm::Error E = Ex.run(T, A))
      fail(llvm::toString(std::move(E)));
  };
  std::vector<Contender> All = {
      {"plan_mpi_us", [&] { Run(Mpi); }},
      {"plan_tcp_us", [&] { Run(*Tcp); }},
      {"mpi_us",
       [&] {
         MPI_Allreduce(In.data(), Out.data(), int(In.size()), MPI_FLOAT,
                       MPI_SUM, MPI_COMM_WORLD);
       }},
#ifdef COLLPLAN_BENCH_GLOO
      {"gloo_us",
       [&] {
         gloo::AllreduceOptions O(Gloo);
         O.setInput(In.data(), In.size());
         O.setOutput(Out.data(), Out.size());
         O.setReduceFunction(
             static_cast<void (*)(void *, const void *, const void *, size_t)>(
                 &gloo::sum<float>));
         gloo::allreduce(O);
       }},
#endif
  };

  // Times the contenders All[First, Last) in turns at every size.
  auto Measure = [&](size_t First, size_t Last) {
    for (uint64_t Bytes : Sizes) {
      uint64_t Count = Bytes / sizeof(float);
      In.assign(Count, float(Rank + 1));
      Out.assign(Count, 0);
      A.Input = In.data();
      A.Output = Out.data();
      A.Count = Count;
      int Iterations =
          int(std::clamp<uint64_t>((64u << 20) / (Bytes + 1), 3, 50));
      for (size_t C = First; C < Last; ++C)
        All[C].Times.clear();
      // Rounds of one batch per contender; the first round warms up.
      for (int Rep = 0; Rep < 12; ++Rep)
        for (size_t K = First; K < Last; ++K) {
          Contender &C = All[K];
          std::fill(Out.begin(), Out.end(), 0);
          MPI_Barrier(MPI_COMM_WORLD);
          double Start = MPI_Wtime();
          for (int I = 0; I < Iterations; ++I)
            C.Call();
          double Local = (MPI_Wtime() - Start) / Iterations, Max = 0;
          MPI_Allreduce(&Local, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          if (Rep > 0)
            C.Times.push_back(Max);
          // Every contender's result must be right: each element sums 1..P.
          for (uint64_t I = 0; I < Count; ++I)
            if (Out[I] != float(P * (P + 1) / 2))
              fail("rank " + std::to_string(Rank) + ": " + C.Name +
                   ": wrong result at element " + std::to_string(I));
        }
      for (size_t K = First; K < Last; ++K) {
        std::vector<double> &V = All[K].Times;
        std::sort(V.begin(), V.end());
        All[K].Medians.push_back(V[V.size() / 2]);
      }
    }
  };
  Measure(0, 3);
#ifdef COLLPLAN_BENCH_GLOO
  Tcp.reset();
  Gloo = connectGloo(Rank, P);
  Measure(3, 4);
  Gloo.reset();
#endif

  if (Rank == 0) {
    std::printf("%10s", "bytes");
    for (const Contender &C : All)
      std::printf(" %13s", C.Name);
    std::printf(" %13s %13s\n", "tcp/plan_mpi", "plan_mpi/mpi");
    for (size_t S = 0; S < Sizes.size(); ++S) {
      std::printf("%10llu", (unsigned long long)Sizes[S]);
      for (const Contender &C : All)
        std::printf(" %13.1f", C.Medians[S] * 1e6);
      std::printf(" %13.3f %13.3f\n", All[1].Medians[S] / All[0].Medians[S],
                  All[0].Medians[S] / All[2].Medians[S]);
    }
  }
  Tcp.reset();
  MPI_Comm_free(&Comm);
  MPI_Finalize();
  return 0;
}
