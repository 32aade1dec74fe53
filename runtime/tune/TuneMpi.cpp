//===- TuneMpi.cpp - Measured tuning on the job's own ranks ---------------===//
//
//   collplan tune -P 4 --candidates 3 -o DIR ...  (the model's 3 best)
//   mpirun -n 4 collplan_tune_mpi DIR [--bytes MIN:MAX] [--budget SECONDS]
//                                     [--noise FRACTION] [--resume]
//                                     [--openmpi-rules FILE | --mpich-json
//                                     FILE]
//
// For every table of DIR for this job's P (collective and root), and every
// power of 4 from MIN to MAX, times the plan the model chose, the
// runners-up tune wrote to DIR/candidates/ (each through the interposer's
// own path, as an interposed program's call runs it: CallDecision.h's
// pinPlan), and the MPI library's own call, the way the Intel MPI Benchmarks
// do: a warm-up, then batches of calls back to back between barriers, each
// timed as the slowest rank's time per call, contenders taking turns batch by
// batch so drift hits all alike, until the size's share of the budget is spent;
// the median batch decides. Each size becomes a measured rule
// (MeasuredRules.h): the library where it is as fast as the fastest plan
// (within the noise band) -- the interposer then calls it on purpose and says
// so -- else the fastest plan. The index is rewritten whole or not at all by
// rank 0 at the end; rank 0 prints the measurements and keeps them all in
// DIR/measured-p<P>.csv, rewritten whole after each size, from which --resume
// takes the sizes already measured (with the same contenders) after an
// interrupted run. With --openmpi-rules (or, built against MPICH,
// --mpich-json), the library's own algorithms join the contenders, each forced
// (LibraryAlgorithms.h), and rank 0 writes the library's tuning file from what
// they measured: at each size the fastest of them, or the library's own
// decision where none beats it by more than the noise band. The directory's
// rules still choose between the plans and the library's own decision, the call
// the interposer makes. A separate program for the reason
// collplan_calibrate_mpi is one: collplan does not link MPI, and the job's
// launcher decides where ranks run. Exit codes as collplan's (2 bad usage, 4
// cannot write, 5 a plan failed to run).
//
//===----------------------------------------------------------------------===//

#include "runtime/interposer/CallDecision.h"
#include "runtime/interposer/PlanDirectory.h"
#include "runtime/tune/InterleavedBatches.h"
#include "runtime/tune/MpichAlgorithms.h"
#include "runtime/tune/OpenMpiAlgorithms.h"
#include "runtime/tune/TunedCall.h"

#include "plan/dispatch/MeasuredRules.h"
#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/ir/CollectiveContract.h"
#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <thread>

using namespace collplan;
using namespace collplan::runtime;

namespace {

/// The noise band without --noise: 5 %, or 35 % where a node runs more ranks
/// than it has cores. There the way the OS shares the cores changes from
/// job to job, and with it which contender is faster: on the project's
/// 2-core machine a binomial broadcast of 1 MiB on 3 ranks measured 0.75,
/// 1.41 and 1.52 times the library's time in three jobs, and the plans
/// chosen at under 0.80 ran at 1.2-1.5 in the next jobs
/// (docs/measured-tuning.md). A gain inside that spread does not carry
/// over to the job that uses it.
constexpr double QuietNoise = 0.05, OversubscribedNoise = 0.35;

struct Options {
  std::string Dir;
  std::string Bytes = "16:16777216";
  std::string Budget = "60s";
  /// Within this fraction the library's call is kept (MeasuredRules.h).
  double Noise = QuietNoise;
  /// Whether --noise was given; if not, run() may widen it
  /// (OversubscribedNoise).
  bool NoiseGiven = false;
  bool Resume = false;
  /// The library's tuning file to write from its own algorithms, measured:
  /// Open MPI's rules or MPICH's selection (one per run: a job runs one MPI).
  std::string OpenMpiRules, MpichJson;
  bool Quiet = false;
  /// At least this many batches of each contender per size.
  int MinBatches = 5;
  /// Calls per batch; 0: about 16 MiB moved per batch, 2 to 64 calls.
  int Calls = 0;
  /// This process in MPI_COMM_WORLD: kept here, not in globals, since SMPI
  /// runs every rank in one process and the evaluation does not privatize
  /// globals.
  int Rank = 0, Size = 1;

  MpiLibrary library() const {
    return OpenMpiRules.empty() ? MpiLibrary::Mpich : MpiLibrary::OpenMpi;
  }
  const std::string &libraryFile() const {
    return OpenMpiRules.empty() ? MpichJson : OpenMpiRules;
  }
  const char *libraryFlag() const {
    return OpenMpiRules.empty() ? "--mpich-json" : "--openmpi-rules";
  }
  /// The measurements file's name of a forced algorithm: "openmpi:ring".
  std::string forcedName(llvm::StringRef Algorithm) const {
    return (OpenMpiRules.empty() ? "mpich:" : "openmpi:") + Algorithm.str();
  }
};

/// The runners-up `collplan tune --candidates K` wrote, inside the plan
/// directory.
constexpr const char *CandidatesFolder = "candidates";

/// Whether some node of the job runs more ranks than it has hardware
/// threads (as collplan calibrate counts them).
bool oversubscribed() {
  MPI_Comm Node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &Node);
  int Ranks = 1;
  MPI_Comm_size(Node, &Ranks);
  MPI_Comm_free(&Node);
  int Mine = unsigned(Ranks) > std::thread::hardware_concurrency(), Any = 0;
  MPI_Allreduce(&Mine, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return Any != 0;
}

void say(const Options &O, const std::string &Line) {
  if (O.Rank == 0 && !O.Quiet)
    std::cerr << "collplan_tune_mpi: " << Line << "\n";
}

/// The measurements file: a row per (table, size, contender), the seconds
/// per call (17 digits: --resume reads back the very numbers, and so makes
/// the same choices and writes the same index), and whether the contender
/// was chosen; the library's forced algorithms as Options::forcedName.
constexpr const char *CsvHeader =
    "collective,root,ranks,bytes,contender,seconds,chosen\n";

std::string csvRows(const Options &O, Collective Kind,
                    std::optional<uint32_t> Root, const SizeMeasurement &M,
                    const DispatchRule &Chosen, const SizeMeasurement &Forced) {
  std::string Prefix =
      llvm::formatv("{0},{1},{2},{3},", collectiveName(Kind),
                    Root ? std::to_string(*Root) : "", O.Size, M.Bytes)
          .str();
  std::string Out =
      Prefix + llvm::formatv("library,{0:e16},{1}\n", M.LibrarySeconds,
                             int(Chosen.Library))
                   .str();
  for (const auto &[Rule, Seconds] : M.Plans)
    Out +=
        Prefix + llvm::formatv("{0},{1:e16},{2}\n", Rule.File, Seconds,
                               int(!Chosen.Library && Chosen.File == Rule.File))
                     .str();
  for (const auto &[Rule, Seconds] : Forced.Plans)
    Out += Prefix +
           llvm::formatv("{0},{1:e16},0\n", O.forcedName(Rule.File), Seconds)
               .str();
  return Out;
}

/// The rows of an earlier run's measurements file, by their first four
/// fields (collective, root, ranks, bytes): contender -> seconds.
using EarlierRuns = std::map<std::string, std::map<std::string, double>>;

EarlierRuns readEarlierRuns(const std::string &Path) {
  EarlierRuns Out;
  llvm::Expected<std::string> Text =
      readBoundedFile(Path, uint64_t(64) << 20, "measurements");
  if (!Text) {
    llvm::consumeError(Text.takeError());
    return Out;
  }
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(*Text).split(Lines, '\n', -1, false);
  for (llvm::StringRef Line : llvm::drop_begin(Lines)) {
    llvm::SmallVector<llvm::StringRef, 7> F;
    Line.split(F, ',');
    double Seconds = 0;
    if (F.size() != 7 || F[5].getAsDouble(Seconds) || !(Seconds > 0))
      continue;
    Out[llvm::join(llvm::ArrayRef<llvm::StringRef>(F).take_front(4), ",")]
       [F[4].str()] = Seconds;
  }
  return Out;
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

/// The directory's runners-up (DIR/candidates/), or none when tune wrote
/// none.
std::optional<PlanDirectory> openCandidates(const Options &O) {
  llvm::SmallString<256> Folder(O.Dir);
  llvm::sys::path::append(Folder, CandidatesFolder);
  if (!llvm::sys::fs::is_directory(Folder))
    return std::nullopt;
  llvm::Expected<PlanDirectory> D = PlanDirectory::open(Folder.str().str());
  if (!D) {
    say(O, llvm::toString(D.takeError()));
    return std::nullopt;
  }
  return std::move(*D);
}

/// The plans to time for a call at this rank: the model's choice, then the
/// runners-up that serve it, each with its rule as the main index would
/// name it (a runner-up's file under candidates/).
std::vector<std::pair<DispatchRule, FoundPlan>>
contendersFor(const Options &O, const CallShape &Shape, PlanDirectory &Dir,
              std::optional<PlanDirectory> &Candidates) {
  auto Warn = [&](const std::string &W) { say(O, W); };
  std::vector<std::pair<DispatchRule, FoundPlan>> Out;
  if (std::optional<FoundPlan> F = Dir.find(Shape, uint32_t(O.Rank), Warn))
    Out.emplace_back(F->Entry->Rule, *F);
  if (Candidates)
    for (FoundPlan &F :
         Candidates->findEveryPlan(Shape, uint32_t(O.Rank), Warn)) {
      DispatchRule R = F.Entry->Rule;
      R.File = std::string(CandidatesFolder) + "/" + R.File;
      Out.emplace_back(std::move(R), F);
    }
  return Out;
}

/// A contender known by its name alone (a library's algorithm).
DispatchRule namedRule(const std::string &Name) {
  DispatchRule R;
  R.File = Name;
  return R;
}

/// Those of Forced (their indices) that serve C: each is called once, and
/// an algorithm that fails on any rank (Open MPI's two-process ones on more
/// ranks, MPICH's recursive doubling allgather on 3) is left out, on every
/// rank alike.
std::vector<size_t> servingAlgorithms(TunedCall &C, LibraryAlgorithms *Forced) {
  std::vector<size_t> Out;
  for (size_t I = 0; Forced && I < Forced->algorithms().size(); ++I) {
    int Failed = C.library(Forced->force(I)) != MPI_SUCCESS, AnyFailed = 0;
    Forced->release();
    MPI_Allreduce(&Failed, &AnyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!AnyFailed)
      Out.push_back(I);
  }
  return Out;
}

/// The library's tuning file from the measured tables, written whole by
/// rank 0.
int writeLibraryFile(const Options &O,
                     llvm::ArrayRef<OpenMpiRuleTable> OpenMpiTables,
                     llvm::ArrayRef<MpichRuleTable> MpichTables) {
  std::string Text;
  if (O.library() == MpiLibrary::OpenMpi)
    Text = openMpiRulesText(
        OpenMpiTables,
        "Open MPI coll_tuned dynamic rules, measured by collplan_tune_mpi on "
        "P = " +
            std::to_string(O.Size) + " (noise band " + std::to_string(O.Noise) +
            "): Open MPI's own algorithms, each forced, against its own "
            "decision (algorithm 0).");
  else
    Text = mpichSelectionText(MpichTables); // JSON: no room for comments.
  if (llvm::Error E =
          writeFileAtomically(O.libraryFile(), Text, "tuning file")) {
    std::cerr << "collplan_tune_mpi: " << llvm::toString(std::move(E)) << "\n";
    return 4;
  }
  say(O, "wrote " + O.libraryFile());
  return 0;
}

/// The library's algorithms for Kind, forced, if its file has rules for
/// Kind; an error when this MPI cannot force them.
llvm::Expected<std::unique_ptr<LibraryAlgorithms>>
forceLibraryAlgorithms(const Options &O, Collective Kind) {
  if (O.library() == MpiLibrary::OpenMpi)
    return openMpiCollectiveId(Kind) ? forceOpenMpiAlgorithms(Kind) : nullptr;
  return mpichCollectiveName(Kind) ? forceMpichAlgorithms(Kind) : nullptr;
}

int run(Options O) {
  std::optional<std::vector<uint64_t>> Sizes = sizesOf(O.Bytes);
  std::optional<double> Budget = secondsOf(O.Budget);
  if (!Sizes || !Budget || O.Noise < 0 || O.MinBatches < 1 || O.Calls < 0) {
    if (O.Rank == 0)
      std::cerr << "collplan_tune_mpi: expected --bytes MIN:MAX (plain bytes, "
                   "0 < MIN <= MAX), --budget more than 0 (90, 90s, 10m, 1h), "
                   "--noise >= 0, --batches >= 1 and --calls >= 0\n";
    return 2;
  }
  if (!O.NoiseGiven && oversubscribed()) {
    O.Noise = OversubscribedNoise;
    say(O, llvm::formatv("a node runs more ranks than it has cores: noise "
                         "band {0}, since timings there change from job to "
                         "job (--noise to choose)",
                         OversubscribedNoise)
               .str());
  }
  llvm::Expected<PlanDirectory> Dir = PlanDirectory::open(O.Dir);
  if (!Dir) {
    if (O.Rank == 0)
      std::cerr << "collplan_tune_mpi: " << llvm::toString(Dir.takeError())
                << "\n";
    else
      llvm::consumeError(Dir.takeError());
    return 2;
  }
  Dir->IgnoreMeasured = true; // Earlier measurements are measured again.
  std::optional<PlanDirectory> Candidates = openCandidates(O);
  std::set<Table> Tables;
  for (const std::unique_ptr<PlanEntry> &E : Dir->entries())
    if (!E->Rule.measured() && E->Rule.Ranks == uint32_t(O.Size))
      Tables.insert({E->Rule.Kind, E->Rule.Root});
  if (Tables.empty()) {
    if (O.Rank == 0)
      std::cerr << "collplan_tune_mpi: " << O.Dir
                << " has no plans for P = " << O.Size
                << " (make them with collplan tune -P " << O.Size << ")\n";
    return 2;
  }
  // Before the measurements: a rules file that cannot be written fails now.
  if (!O.libraryFile().empty()) {
    llvm::SmallString<256> Folder(O.libraryFile());
    llvm::sys::path::remove_filename(Folder);
    if (Folder.empty())
      Folder = ".";
    if (llvm::sys::fs::access(Folder, llvm::sys::fs::AccessMode::Write)) {
      if (O.Rank == 0)
        std::cerr << "collplan_tune_mpi: " << O.libraryFlag()
                  << ": cannot write into " << Folder.str().str() << "\n";
      return 4;
    }
  }
  llvm::SmallString<256> CsvPath(O.Dir);
  llvm::sys::path::append(CsvPath,
                          "measured-p" + std::to_string(O.Size) + ".csv");
  // Only rank 0 reads and writes the file; it tells the others what to skip.
  EarlierRuns Earlier;
  if (O.Resume && O.Rank == 0)
    Earlier = readEarlierRuns(CsvPath.str().str());
  double PerSize = *Budget / double(Tables.size() * Sizes->size());
  PlanDirectoryUpdate Update;
  // One format for the header and the rows.
  const char *Row = "{0,-12} {1,4} {2,12}  {3,-48} {4,9} {5,9}  {6}\n";
  if (O.Rank == 0 && !O.Quiet)
    llvm::outs() << llvm::formatv(Row, "collective", "root", "bytes",
                                  "contender", "us/call", "/library", "choice");
  int Failed = 0;
  size_t Reused = 0;
  std::string Csv = CsvHeader;
  std::vector<OpenMpiRuleTable> OpenMpiTables;
  std::vector<MpichRuleTable> MpichTables;
  std::set<Collective> LibraryTables;
  for (const auto &[Kind, Root] : Tables) {
    // The libraries' files go by size alone: the first root speaks for all.
    std::unique_ptr<LibraryAlgorithms> Forced;
    if (!O.libraryFile().empty() && LibraryTables.insert(Kind).second) {
      llvm::Expected<std::unique_ptr<LibraryAlgorithms>> F =
          forceLibraryAlgorithms(O, Kind);
      if (!F) {
        if (O.Rank == 0)
          std::cerr << "collplan_tune_mpi: " << O.libraryFlag() << ": "
                    << llvm::toString(F.takeError()) << "\n";
        else
          llvm::consumeError(F.takeError());
        Failed = 2;
        break;
      }
      Forced = std::move(*F);
    }
    std::vector<SizeMeasurement> ForcedMeasured;
    say(O, llvm::formatv("measuring {0}{1} on P = {2}: {3} sizes, about {4:F0} "
                         "s",
                         collectiveName(Kind),
                         Root ? " from root " + std::to_string(*Root) : "",
                         O.Size, Sizes->size(), PerSize * Sizes->size())
               .str());
    std::vector<SizeMeasurement> Measured;
    for (uint64_t Bytes : *Sizes) {
      TunedCall C(Kind, Root, Bytes, O.Rank, O.Size);
      std::vector<std::pair<DispatchRule, FoundPlan>> Plans =
          contendersFor(O, C.shape(), *Dir, Candidates);
      if (Plans.empty())
        continue;
      SizeMeasurement M, ForcedM;
      M.Bytes = ForcedM.Bytes = C.shape().Bytes;
      std::vector<size_t> Serving = servingAlgorithms(C, Forced.get());
      auto ForcedName = [&](size_t I) {
        return O.forcedName(Forced->algorithms()[I].Name);
      };
      // --resume: rank 0's earlier run timed this size with these
      // contenders, and says so to all.
      int Known = 0;
      if (O.Rank == 0) {
        auto Row = Earlier.find(
            llvm::formatv("{0},{1},{2},{3}", collectiveName(Kind),
                          Root ? std::to_string(*Root) : "", O.Size, M.Bytes)
                .str());
        Known = Row != Earlier.end() && Row->second.count("library") &&
                llvm::all_of(Plans,
                             [&](const auto &P) {
                               return Row->second.count(P.first.File);
                             }) &&
                llvm::all_of(Serving, [&](size_t I) {
                  return Row->second.count(ForcedName(I));
                });
        if (Known) {
          M.LibrarySeconds = Row->second.at("library");
          for (const auto &[Rule, Found] : Plans)
            M.Plans.emplace_back(Rule, Row->second.at(Rule.File));
          for (size_t I : Serving)
            ForcedM.Plans.emplace_back(namedRule(Forced->algorithms()[I].Name),
                                       Row->second.at(ForcedName(I)));
        }
      }
      MPI_Bcast(&Known, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (Known) {
        ++Reused;
      } else {
        // Each plan runs as an interposed call of it would: through the
        // interposer's own path, on a communicator pinned to it.
        std::vector<MPI_Comm> Runs(Plans.size());
        for (size_t I = 0; I < Plans.size(); ++I) {
          MPI_Comm_dup(MPI_COMM_WORLD, &Runs[I]);
          MPI_Comm_set_errhandler(Runs[I], MPI_ERRORS_RETURN);
          interposer::pinPlan(Runs[I], Plans[I].second);
        }
        llvm::Expected<std::vector<double>> T = measureInterleaved(
            C, Runs, Forced.get(), Serving, {PerSize, O.MinBatches, O.Calls});
        for (MPI_Comm &Comm : Runs)
          MPI_Comm_free(&Comm);
        if (!T) {
          std::cerr << "collplan_tune_mpi: rank " << O.Rank << ": "
                    << llvm::toString(T.takeError()) << "\n";
          Failed = 5;
          break;
        }
        M.LibrarySeconds = (*T)[0];
        for (size_t I = 0; I < Plans.size(); ++I)
          M.Plans.emplace_back(Plans[I].first, (*T)[I + 1]);
        for (size_t I = 0; I < Serving.size(); ++I)
          ForcedM.Plans.emplace_back(
              namedRule(Forced->algorithms()[Serving[I]].Name),
              (*T)[1 + Plans.size() + I]);
      }
      Measured.push_back(M);
      ForcedM.LibrarySeconds = M.LibrarySeconds;
      ForcedMeasured.push_back(ForcedM);
      if (O.Rank != 0)
        continue;
      DispatchRule Chosen =
          measuredRules(Kind, uint32_t(O.Size), Root, M, O.Noise).front();
      Csv += csvRows(O, Kind, Root, M, Chosen, ForcedM);
      // After each size, whole: what --resume reads after an interruption.
      if (llvm::Error E = writeFileAtomically(CsvPath, Csv, "measurements")) {
        std::cerr << "collplan_tune_mpi: " << llvm::toString(std::move(E))
                  << "\n";
        Failed = 4;
      }
      if (O.Quiet)
        continue;
      auto Line = [&](llvm::StringRef Who, double Seconds, bool Won) {
        llvm::outs() << llvm::formatv(
            Row, collectiveName(Kind), Root ? std::to_string(*Root) : "-",
            M.Bytes, Who, llvm::formatv("{0:F1}", Seconds * 1e6),
            llvm::formatv("{0:F2}", Seconds / M.LibrarySeconds),
            Won ? "chosen" : "");
      };
      Line("library", M.LibrarySeconds, Chosen.Library);
      for (const auto &[Rule, Seconds] : M.Plans)
        Line(Rule.File, Seconds, !Chosen.Library && Chosen.File == Rule.File);
      for (const auto &[Rule, Seconds] : ForcedM.Plans)
        Line(O.forcedName(Rule.File), Seconds, false);
    }
    if (Forced) {
      if (O.library() == MpiLibrary::OpenMpi)
        OpenMpiTables.push_back(
            measuredOpenMpiRules(Kind, uint32_t(O.Size), ForcedMeasured,
                                 Forced->algorithms(), O.Noise));
      else
        MpichTables.push_back(
            measuredMpichRules(Kind, ForcedMeasured, O.Noise));
      Forced.reset();
    }
    MPI_Bcast(&Failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (Failed)
      break;
    for (DispatchRule &R :
         measuredRules(Kind, uint32_t(O.Size), Root, Measured, O.Noise))
      Update.Rules.push_back(std::move(R));
    // The table's earlier measured rules leave, whatever this one found.
    if (!Measured.empty())
      Update.Remeasured.emplace_back(Kind, uint32_t(O.Size), Root.value_or(0));
  }
  if (Failed)
    return Failed;
  if (O.Rank != 0)
    return 0;
  if (Reused)
    say(O,
        llvm::formatv("--resume: {0} size(s) taken from {1}", Reused, CsvPath)
            .str());
  Update.Preamble =
      "Measured by collplan_tune_mpi on P = " + std::to_string(O.Size) +
      " (noise band " + std::to_string(O.Noise) + ")";
  llvm::Expected<PlanIndex> Index =
      updatePlanDirectory(O.Dir, std::move(Update));
  if (!Index) {
    std::cerr << "collplan_tune_mpi: " << llvm::toString(Index.takeError())
              << "\n";
    return 4;
  }
  say(O, "wrote " + planIndexPath(O.Dir) + " and " + CsvPath.str().str());
  if (!O.libraryFile().empty())
    return writeLibraryFile(O, OpenMpiTables, MpichTables);
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
  CLI::Option *Noise = App.add_option(
      "--noise", O.Noise,
      "the library's call is kept unless the plan is faster by more than "
      "this fraction (default 0.05, or 0.35 where a node runs more ranks "
      "than it has cores)");
  App.add_option("--batches", O.MinBatches,
                 "at least this many batches of each contender per size "
                 "(1 on a simulated machine, whose clock has no noise)")
      ->capture_default_str();
  App.add_option("--calls", O.Calls,
                 "calls per batch (0: about 16 MiB moved per batch, 2 to 64)")
      ->capture_default_str();
  App.add_flag("--resume", O.Resume,
               "take the sizes an interrupted run already measured (with the "
               "same contenders) from DIR/measured-p<P>.csv");
  CLI::Option *OpenMpi = App.add_option(
      "--openmpi-rules", O.OpenMpiRules,
      "also time Open MPI's own algorithms for the directory's "
      "collectives (each forced through MPI_T) and write Open "
      "MPI's coll_tuned rules file choosing, at each size, the "
      "fastest of them, or Open MPI's own decision (algorithm 0) "
      "where none is faster by more than --noise");
  App.add_option("--mpich-json", O.MpichJson,
                 "under MPICH: also time MPICH's own algorithms for the "
                 "directory's collectives (each forced through MPI_T) and "
                 "write MPICH's JSON selection file "
                 "(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) naming, at each "
                 "size, the fastest of them, or, where none is faster than "
                 "MPICH's own decision by more than --noise, the one timed "
                 "nearest it")
      ->excludes(OpenMpi);
  App.add_flag("--quiet,-q", O.Quiet, "print nothing on success");
  // Open MPI reads forced algorithms only with its dynamic rules on, a
  // setting read at MPI_Init (without a forced algorithm or a rules file,
  // its decisions stay the fixed ones).
  if (llvm::any_of(llvm::ArrayRef(Argv, Argc), [](const char *A) {
        return llvm::StringRef(A).startswith("--openmpi-rules");
      }))
    setenv(OpenMpiDynamicRulesVariable, "1", /*overwrite=*/0);
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &O.Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &O.Size);
  int Code = 0;
  try {
    App.parse(Argc, Argv);
    O.NoiseGiven = Noise->count() > 0;
    Code = run(O);
  } catch (const CLI::ParseError &E) {
    Code = O.Rank == 0 ? App.exit(E) : 0;
    Code = Code == 0 ? 0 : 2;
  }
  MPI_Finalize();
  return Code;
}
