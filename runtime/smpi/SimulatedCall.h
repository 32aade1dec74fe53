//===- SimulatedCall.h - What the SMPI drivers share -------------*- C++
//-*-===//
//
// The drivers (SimulatedAllreduce.cpp, SimulatedAlltoall.cpp,
// SimulatedBroadcast.cpp) time one collective on a simulated machine: a plan
// run by the executor over the MPI transport, or the simulated library's own
// call (--mpi), with the same arguments, buffers and clock. This header holds
// their command line, their buffers (private, or one shared copy with
// SMPI_SHARED_MALLOC where P copies would not fit), the plan's executor and
// the timed loop with its one line of JSON.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SMPI_SIMULATEDCALL_H
#define COLLPLAN_SMPI_SIMULATEDCALL_H

#include "plan/serialize/RankSlice.h"
#include "runtime/Executor.h"
#include "runtime/mpi/MpiTransport.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <time.h>

namespace collplan {
namespace smpi {

/// The program's name in messages; each driver sets it first.
inline const char *&programName() {
  static const char *Name = "collplan_smpi";
  return Name;
}

[[noreturn]] inline void fail(int Code, const std::string &Message) {
  std::fprintf(stderr, "%s: %s\n", programName(), Message.c_str());
  MPI_Abort(MPI_COMM_WORLD, Code);
  std::abort();
}

struct Options {
  std::string Plan; ///< Empty: the library's own call (--mpi).
  uint64_t Bytes = 0;
  bool Check = false;
  bool Shared = false;
  int Iterations = 1;
  /// --common-start: every call starts on every rank at one simulated
  /// instant (timeCalls, Start::Common).
  bool CommonStart = false;
};

/// (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K]
/// [--common-start]; BYTES a
/// multiple of 4 (the drivers move 4-byte elements).
inline Options parseOptions(int Argc, char **Argv) {
  Options O;
  bool HaveTarget = false, HaveBytes = false;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--check")
      O.Check = true;
    else if (A == "--shared")
      O.Shared = true;
    else if (A == "--common-start")
      O.CommonStart = true;
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
    fail(2, std::string("usage: ") + programName() +
                " (PLAN | --mpi) BYTES [--check] [--shared] [--iterations K] "
                "[--common-start]");
  if (O.Check && O.Shared)
    fail(2, "--check needs private buffers: drop --shared");
  if (O.Bytes % 4)
    fail(2, "BYTES must be a multiple of 4 (4-byte elements)");
  return O;
}

inline void *allocate(uint64_t Bytes, bool Shared) {
  void *P = Shared ? SMPI_SHARED_MALLOC(Bytes) : std::malloc(Bytes);
  if (!P && Bytes)
    fail(1, "out of memory for " + std::to_string(Bytes) + " bytes");
  return P;
}

inline void release(void *P, bool Shared) {
  if (Shared)
    SMPI_SHARED_FREE(P);
  else
    std::free(P);
}

/// A plan's executor for this rank over the MPI transport on a duplicate of
/// MPI_COMM_WORLD; empty for --mpi. Each rank reads its own program, as the
/// interposer does.
class PlanCall {
public:
  PlanCall(const Options &O, Collective Kind, const char *KindName) {
    if (O.Plan.empty())
      return;
    int Rank = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    llvm::Expected<RankSlice> S = readRankSlice(O.Plan, uint32_t(Rank));
    if (!S)
      fail(2, O.Plan + ": " + llvm::toString(S.takeError()));
    if (S->Header.Ranks != uint32_t(P) || S->Header.Kind != Kind)
      fail(2,
           O.Plan + ": not " + KindName + " plan for P = " + std::to_string(P));
    Slice = std::move(*S);
    MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
    Mpi.emplace(Comm);
    runtime::MemorySource Memory;
    if (O.Shared)
      Memory = {[](size_t Bytes) { return SMPI_SHARED_MALLOC(Bytes); },
                [](void *P) { SMPI_SHARED_FREE(P); }};
    Ex.emplace(Slice->Header, Slice->Prog, uint32_t(Rank), Memory);
  }
  PlanCall(const PlanCall &) = delete;
  PlanCall &operator=(const PlanCall &) = delete;
  ~PlanCall() { close(); }

  /// Frees the executor and the communicator: before MPI_Finalize.
  void close() {
    Ex.reset();
    Mpi.reset();
    if (Comm != MPI_COMM_NULL)
      MPI_Comm_free(&Comm);
  }

  /// False for --mpi: the caller makes the library's call.
  explicit operator bool() const { return Ex.has_value(); }
  const PlanHeader &header() const { return Slice->Header; }

  void run(const runtime::CallArgs &A) {
    if (llvm::Error E = Ex->run(*Mpi, A)) {
      int Rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
      fail(1, "rank " + std::to_string(Rank) + ": " +
                  llvm::toString(std::move(E)));
    }
  }

private:
  std::optional<RankSlice> Slice;
  MPI_Comm Comm = MPI_COMM_NULL;
  std::optional<runtime::MpiTransport> Mpi;
  std::optional<runtime::Executor> Ex;
};

/// How timeCalls starts each call.
enum class Start {
  /// Back to back after one barrier: the mean per call of a loop.
  BackToBack,
  /// Each call after a barrier, its time summed (OSU's osu_bcast does so): a
  /// rooted collective does not hold its ranks together, and back to back
  /// the root starts the next call while the leaves still receive the last.
  BarrierEach,
  /// Each call starting on every rank at one simulated instant, the cost
  /// model's setting (every clock at 0). A barrier lets ranks go up to its
  /// last round's latency apart, and back to back a call whose critical
  /// path ends on other ranks than it starts on overlaps the next (an
  /// allreduce of 8 floats on 64 ranks leaves most blocks empty); both
  /// blur a call's own time.
  Common,
};

/// The instant (MPI_Wtime) every rank agrees on and has slept until: the
/// ranks' latest clock after a barrier plus a margin far longer than the
/// agreement's own spread (a max-allreduce of one double).
inline double commonInstant() {
  const double Margin = 1e-3;
  MPI_Barrier(MPI_COMM_WORLD);
  double Mine = MPI_Wtime(), Latest = 0;
  MPI_Allreduce(&Mine, &Latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double At = Latest + Margin, Wait = At - MPI_Wtime();
  if (Wait <= 0)
    fail(1, "the common start's margin was too short");
  // SMPI's sleep advances the simulated clock (smpicc maps nanosleep to it).
  timespec T{time_t(Wait), long((Wait - double(time_t(Wait))) * 1e9)};
  smpi_nanosleep(&T, nullptr);
  return At;
}

/// Runs Call once to warm up (connections, the executor's scratch), then
/// Iterations times as How says; returns the slowest rank's mean time per
/// call at rank 0.
inline double timeCalls(const std::function<void()> &Call, int Iterations,
                        Start How = Start::BackToBack) {
  Call();
  MPI_Barrier(MPI_COMM_WORLD);
  double Began = MPI_Wtime(), Busy = 0;
  for (int I = 0; I < Iterations; ++I) {
    if (How == Start::BarrierEach) {
      MPI_Barrier(MPI_COMM_WORLD);
      Began = MPI_Wtime();
    } else if (How == Start::Common) {
      Began = commonInstant();
    }
    Call();
    if (How != Start::BackToBack)
      Busy += MPI_Wtime() - Began;
  }
  double Local =
      (How != Start::BackToBack ? Busy : MPI_Wtime() - Began) / Iterations;
  double Max = 0;
  MPI_Reduce(&Local, &Max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return Max;
}

/// Agrees on whether any rank found a wrong result (Wrong on this one) and
/// prints rank 0's line if none did: {"bytes": B, "ranks": P, "seconds": T,
/// "checked": bool}. Returns the process's exit code.
inline int report(const Options &O, double Seconds, bool Wrong) {
  int Rank = 0, P = 1, Mine = Wrong, Any = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (Wrong)
    std::fprintf(stderr, "%s: rank %d: wrong result\n", programName(), Rank);
  MPI_Allreduce(&Mine, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (Rank == 0 && !Any)
    std::printf("{\"bytes\": %llu, \"ranks\": %d, \"seconds\": %.9g, "
                "\"checked\": %s}\n",
                (unsigned long long)O.Bytes, P, Seconds,
                O.Check ? "true" : "false");
  return Any ? 1 : 0;
}

} // namespace smpi
} // namespace collplan

#endif // COLLPLAN_SMPI_SIMULATEDCALL_H
