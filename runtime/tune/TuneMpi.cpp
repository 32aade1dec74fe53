//===- TuneMpi.cpp - Measured tuning on the job's own ranks ---------------===//
//
//   collplan tune -P 4 -o DIR ...      (the model's choice per size)
//   mpirun -n 4 collplan_tune_mpi DIR [--bytes MIN:MAX] [--budget SECONDS]
//                                     [--noise FRACTION]
//
// For every table of DIR for this job's P (collective and root), and every
// power of 4 from MIN to MAX, times the plan the interposer would run and
// the MPI library's own call, the way the Intel MPI Benchmarks do: a
// warm-up, then batches of calls back to back between barriers, each timed
// as the slowest rank's time per call, contenders alternating batch by
// batch so drift hits both alike, until the size's share of the budget is
// spent; the median batch decides. Where the library is as fast (within the
// noise band) the directory's index gets a library rule (MeasuredRules.h): the
// interposer then calls the library on purpose and says so. The index is
// rewritten whole or not at all by rank 0; rank 0 prints the measurements
// and writes them all to DIR/measured-p<P>.csv. A separate program for the
// reason collplan_calibrate_mpi is one: collplan does not link MPI, and the
// job's launcher decides where ranks run. Exit codes as collplan's (2 bad
// usage, 4 cannot write, 5 a plan failed to run).
//
//===----------------------------------------------------------------------===//

#include "runtime/Executor.h"
#include "runtime/interposer/PlanDirectory.h"
#include "runtime/mpi/MpiTransport.h"

#include "plan/dispatch/MeasuredRules.h"
#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/ir/CollectiveContract.h"
#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <set>

using namespace collplan;
using namespace collplan::runtime;

namespace {

struct Options {
  std::string Dir;
  std::string Bytes = "16:16777216";
  std::string Budget = "60s";
  double Noise = 0.05;
  bool Quiet = false;
};

int Rank = 0, Size = 1;

void say(const Options &O, const std::string &Line) {
  if (Rank == 0 && !O.Quiet)
    std::cerr << "collplan_tune_mpi: " << Line << "\n";
}

/// One call of one table at one size, as the library and as the plan run
/// it: buffers and arguments for both.
class Call {
public:
  Call(Collective Kind, std::optional<uint32_t> Root, uint64_t Bytes)
      : Kind(Kind), Root(Root.value_or(0)) {
    uint64_t P = uint64_t(Size);
    switch (Kind) {
    case Collective::Allreduce:
    case Collective::Reduce:
      Elements = std::max<uint64_t>(1, Bytes / 4);
      Shape.Bytes = Elements * 4;
      break;
    case Collective::ReduceScatter:
      Part = std::max<uint64_t>(1, Bytes / (4 * P));
      Elements = Part * P;
      Shape.Bytes = Elements * 4;
      break;
    case Collective::Allgather:
    case Collective::Allgatherv:
      Part = std::max<uint64_t>(1, Bytes / P);
      Shape.Bytes = Part * P;
      Shape.Counts.assign(Kind == Collective::Allgatherv ? P : 0, Part);
      Displs.resize(P);
      for (uint64_t R = 0; R < P; ++R)
        Displs[R] = int(R * Part);
      Counts.assign(P, int(Part));
      break;
    case Collective::Broadcast:
      Shape.Bytes = Bytes;
      break;
    }
    Shape.Kind = Kind;
    Shape.Ranks = uint32_t(Size);
    if (reduces(Kind))
      Shape.Op = ReduceOp::Sum;
    if (hasRoot(Kind))
      Shape.Root = this->Root;
    Send.assign(Shape.Bytes, char(Rank + 1));
    Recv.assign(Shape.Bytes, 0);
  }

  const CallShape &shape() const { return Shape; }

  void library() {
    switch (Kind) {
    case Collective::Allreduce:
      MPI_Allreduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T,
                    MPI_SUM, MPI_COMM_WORLD);
      break;
    case Collective::Reduce:
      MPI_Reduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T, MPI_SUM,
                 int(Root), MPI_COMM_WORLD);
      break;
    case Collective::ReduceScatter:
      MPI_Reduce_scatter_block(Send.data(), Recv.data(), int(Part), MPI_INT32_T,
                               MPI_SUM, MPI_COMM_WORLD);
      break;
    case Collective::Allgather:
      MPI_Allgather(Send.data(), int(Part), MPI_BYTE, Recv.data(), int(Part),
                    MPI_BYTE, MPI_COMM_WORLD);
      break;
    case Collective::Allgatherv:
      MPI_Allgatherv(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                     Counts.data(), Displs.data(), MPI_BYTE, MPI_COMM_WORLD);
      break;
    case Collective::Broadcast:
      MPI_Bcast(Recv.data(), int(Shape.Bytes), MPI_BYTE, int(Root),
                MPI_COMM_WORLD);
      break;
    }
  }

  /// The executor's view of the same call, as the interposer builds it.
  CallArgs planArgs() {
    CallArgs A;
    A.Input = Send.data();
    A.Output = Recv.data();
    if (reduces(Kind)) {
      A.Count = Elements;
      A.Type = Datatype::Int32;
      A.Op = Operator::predefined(ReduceOp::Sum);
    } else {
      A.Count = Shape.Bytes;
      A.Type = Datatype::UInt8;
      if (Kind == Collective::Broadcast)
        A.Input = nullptr;
    }
    return A;
  }

private:
  Collective Kind;
  uint32_t Root;
  CallShape Shape;
  uint64_t Elements = 0, Part = 0;
  std::vector<int> Counts, Displs;
  std::vector<char> Send, Recv;
};

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

/// Medians (library, plan) of the time per call, batches alternating until
/// Seconds have passed (at least MinBatches each). A batch is Calls calls
/// back to back between barriers, as an application makes them and as the
/// Intel MPI Benchmarks time them, and counts as the slowest rank's time
/// over Calls: a plan that is fast alone but slow back to back (a rank
/// starting the next call while its peer finishes this one) shows here.
llvm::Expected<std::pair<double, double>>
measure(Call &C, Executor &Ex, Transport &T, uint64_t Bytes, double Seconds) {
  constexpr int MinBatches = 5, MaxBatches = 500;
  // About 16 MiB moved per batch, 2 to 64 calls.
  const int Calls = int(std::clamp<uint64_t>((16 << 20) / Bytes, 2, 64));
  CallArgs Args = C.planArgs();
  std::vector<double> Times[2];
  auto RunBatch = [&](int Which, bool Keep) -> llvm::Error {
    MPI_Barrier(MPI_COMM_WORLD);
    double Start = MPI_Wtime();
    for (int I = 0; I < Calls; ++I) {
      if (Which == 0)
        C.library();
      else if (llvm::Error E = Ex.run(T, Args))
        return E;
    }
    double Mine = (MPI_Wtime() - Start) / Calls, Slowest = 0;
    MPI_Allreduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (Keep)
      Times[Which].push_back(Slowest);
    return llvm::Error::success();
  };
  for (int Which : {0, 1}) // Warm-up: connections, caches, first touch.
    if (llvm::Error E = RunBatch(Which, false))
      return E;
  double Start = MPI_Wtime();
  for (;;) {
    for (int Which : {0, 1})
      if (llvm::Error E = RunBatch(Which, true))
        return E;
    // Rank 0's clock decides for all, so every rank stops together.
    int Done = Times[0].size() >= size_t(MaxBatches) ||
               (Times[0].size() >= size_t(MinBatches) &&
                MPI_Wtime() - Start >= Seconds);
    MPI_Bcast(&Done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (Done)
      break;
  }
  return std::pair(median(Times[0]), median(Times[1]));
}

/// "MIN:MAX" in plain bytes: MIN, 4 MIN, 16 MIN, ... up to MAX.
std::optional<std::vector<uint64_t>> sizesOf(const std::string &Text) {
  auto [Lo, Hi] = llvm::StringRef(Text).split(':');
  uint64_t Min = 0, Max = 0;
  if (Lo.getAsInteger(10, Min) || Hi.getAsInteger(10, Max) || Min == 0 ||
      Min > Max)
    return std::nullopt;
  std::vector<uint64_t> Sizes;
  for (uint64_t S = Min; S <= Max; S *= 4) {
    Sizes.push_back(S);
    if (S > UINT64_MAX / 4)
      break;
  }
  return Sizes;
}

/// A table of the directory: a collective on this P, and its root.
using Table = std::pair<Collective, std::optional<uint32_t>>;

/// "90", "90s", "10m" or "1h": seconds, more than 0.
std::optional<double> secondsOf(llvm::StringRef Text) {
  double Unit = 1;
  if (Text.consume_back("h"))
    Unit = 3600;
  else if (Text.consume_back("m"))
    Unit = 60;
  else
    Text.consume_back("s");
  double Value = 0;
  if (Text.getAsDouble(Value) || !(Value > 0))
    return std::nullopt;
  return Value * Unit;
}

int run(const Options &O) {
  std::optional<std::vector<uint64_t>> Sizes = sizesOf(O.Bytes);
  std::optional<double> Budget = secondsOf(O.Budget);
  if (!Sizes || !Budget || O.Noise < 0) {
    if (Rank == 0)
      std::cerr << "collplan_tune_mpi: expected --bytes MIN:MAX (plain bytes, "
                   "0 < MIN <= MAX), --budget more than 0 (90, 90s, 10m, 1h) "
                   "and --noise >= 0\n";
    return 2;
  }
  llvm::Expected<PlanDirectory> Dir = PlanDirectory::open(O.Dir);
  if (!Dir) {
    if (Rank == 0)
      std::cerr << "collplan_tune_mpi: " << llvm::toString(Dir.takeError())
                << "\n";
    else
      llvm::consumeError(Dir.takeError());
    return 2;
  }
  Dir->PlansOnly = true; // Earlier measurements are measured again.
  std::set<Table> Tables;
  for (const std::unique_ptr<PlanEntry> &E : Dir->entries())
    if (!E->Rule.Library && E->Rule.Ranks == uint32_t(Size))
      Tables.insert({E->Rule.Kind, E->Rule.Root});
  if (Tables.empty()) {
    if (Rank == 0)
      std::cerr << "collplan_tune_mpi: " << O.Dir
                << " has no plans for P = " << Size
                << " (make them with collplan tune -P " << Size << ")\n";
    return 2;
  }
  double PerSize = *Budget / double(2 * Tables.size() * Sizes->size());
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MpiTransport Transport(Dup);
  PlanDirectoryUpdate Update;
  if (Rank == 0 && !O.Quiet)
    llvm::outs()
        << "collective   root        bytes  plan                         "
           "       plan_us   library_us  library/plan  choice\n";
  int Failed = 0;
  // Every measurement, for people and plots: the index keeps only the
  // library rules' evidence.
  std::string Csv = "collective,root,ranks,bytes,plan_file,plan_seconds,"
                    "library_seconds,choice\n";
  for (const auto &[Kind, Root] : Tables) {
    say(O, llvm::formatv("measuring {0}{1} on P = {2}: {3} sizes, about {4:F0} "
                         "s",
                         collectiveName(Kind),
                         Root ? " from root " + std::to_string(*Root) : "",
                         Size, Sizes->size(), 2 * PerSize * Sizes->size())
               .str());
    std::vector<SizeMeasurement> Measured;
    for (uint64_t Bytes : *Sizes) {
      Call C(Kind, Root, Bytes);
      std::optional<FoundPlan> Found = Dir->find(
          C.shape(), uint32_t(Rank), [&](const std::string &W) { say(O, W); });
      if (!Found)
        continue;
      Executor Ex(Found->Slice->Header, Found->Slice->Prog, uint32_t(Rank));
      llvm::Expected<std::pair<double, double>> T =
          measure(C, Ex, Transport, C.shape().Bytes, PerSize);
      if (!T) {
        std::cerr << "collplan_tune_mpi: rank " << Rank << ": "
                  << Found->Entry->Path << ": " << llvm::toString(T.takeError())
                  << "\n";
        Failed = 5;
        break;
      }
      SizeMeasurement M;
      M.Bytes = C.shape().Bytes;
      M.PlanFile = Found->Entry->Rule.File;
      M.LibrarySeconds = T->first;
      M.PlanSeconds = T->second;
      Measured.push_back(M);
      const char *Choice = libraryWins(M, O.Noise) ? "library" : "plan";
      Csv += llvm::formatv("{0},{1},{2},{3},{4},{5:e},{6:e},{7}\n",
                           collectiveName(Kind),
                           Root ? std::to_string(*Root) : "", Size, M.Bytes,
                           M.PlanFile, M.PlanSeconds, M.LibrarySeconds, Choice)
                 .str();
      if (Rank == 0 && !O.Quiet)
        llvm::outs() << llvm::formatv(
            "{0,-12} {1,4} {2,12}  {3,-34} {4,9:F1} {5,12:F1} {6,13:F2}  {7}\n",
            collectiveName(Kind), Root ? std::to_string(*Root) : "-", M.Bytes,
            M.PlanFile, M.PlanSeconds * 1e6, M.LibrarySeconds * 1e6,
            M.LibrarySeconds / M.PlanSeconds, Choice);
    }
    if (Failed)
      break;
    for (DispatchRule &R :
         libraryRules(Kind, uint32_t(Size), Root, Measured, O.Noise))
      Update.Rules.push_back(std::move(R));
    // A table whose plans won everywhere still drops its old library rules.
    if (!Measured.empty())
      Update.Remeasured.emplace_back(Kind, uint32_t(Size), Root.value_or(0));
  }
  MPI_Comm_free(&Dup);
  if (Failed)
    return Failed;
  if (Rank != 0)
    return 0;
  Update.Preamble =
      "Measured by collplan_tune_mpi on P = " + std::to_string(Size) +
      " (noise band " + std::to_string(O.Noise) + ")";
  llvm::SmallString<256> CsvPath(O.Dir);
  llvm::sys::path::append(CsvPath,
                          "measured-p" + std::to_string(Size) + ".csv");
  if (llvm::Error E = writeFileAtomically(CsvPath, Csv, "measurements")) {
    std::cerr << "collplan_tune_mpi: " << llvm::toString(std::move(E)) << "\n";
    return 4;
  }
  llvm::Expected<PlanIndex> Index =
      updatePlanDirectory(O.Dir, std::move(Update));
  if (!Index) {
    std::cerr << "collplan_tune_mpi: " << llvm::toString(Index.takeError())
              << "\n";
    return 4;
  }
  say(O, "wrote " + planIndexPath(O.Dir) + " and " + CsvPath.str().str());
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  CLI::App App("Time a plan directory's plans against the MPI library's own "
               "collectives on this job's ranks, and send the calls where the "
               "library is as fast to the library (library rules in the "
               "directory's index); start with mpirun -n P");
  Options O;
  App.add_option("dir", O.Dir, "the plan directory (collplan tune -o DIR)")
      ->required();
  App.add_option("--bytes", O.Bytes,
                 "sizes MIN:MAX in plain bytes: MIN, 4 MIN, 16 MIN, ... up "
                 "to MAX")
      ->capture_default_str();
  App.add_option("--budget", O.Budget,
                 "time for the whole measurement (90, 90s, 10m, 1h), shared "
                 "evenly by the sizes, tables and contenders")
      ->capture_default_str();
  App.add_option("--noise", O.Noise,
                 "the library's call is kept unless the plan is faster by "
                 "more than this fraction")
      ->capture_default_str();
  App.add_flag("--quiet,-q", O.Quiet, "print nothing on success");
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Code = 0;
  try {
    App.parse(Argc, Argv);
    Code = run(O);
  } catch (const CLI::ParseError &E) {
    Code = Rank == 0 ? App.exit(E) : 0;
    Code = Code == 0 ? 0 : 2;
  }
  MPI_Finalize();
  return Code;
}
