//===- TuneCommand.cpp - collplan tune ------------------------------------===//
//
// tune = the tuner's choice by message size (choiceBySize), deployed: a plan
// directory the interposer reads (one verified, stamped plan per range of
// sizes, named as plan/dispatch/PlanFileNames.h says, and an index saying
// why), and/or an Open MPI rules file and an MPICH selection file,
// each chosen among the families that library has (TuningFiles.h). Without
// a plan directory no plan is built and only the libraries' families are
// priced: at large P building and verifying the plans is most of the time.
//
// Ranges: the sizes priced are the powers of two between the two bounds
// (and the bounds). A choice holds from the first size that chose it up to
// the first size of the next choice; the first range starts at 0 and the
// last has no end, so every call of the collective and P has a plan.
// Parameters the families derive from the message size (circulant's block
// count) are chosen at the middle size (geometric) of the range asked.
//
// Roots: broadcast and reduce are tuned for each root of --roots (or the one
// --root names, 0 by default); a root other than 0 is part of its files'
// names, so the plans of several roots share a directory. Communicator
// sizes: --ranks takes one P, a list or a range, so one directory serves a
// job's sub-communicators too.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "compiler/select/Tuner.h"
#include "compiler/tuning/TuningFiles.h"
#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/dispatch/PlanFileNames.h"
#include "plan/dispatch/PlanIndex.h"
#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"
#include "tools/collplan/PlanOutput.h"
#include "tools/collplan/RequestOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <set>

namespace collplan::cli {

namespace {

struct TuneOptions {
  SelectRequestOptions Request;
  std::vector<std::string> Collectives;
  std::string Ranks;
  std::string Roots;
  std::string Bytes = "8:1GiB";
  std::string Dir;
  std::string OpenMpiRules;
  std::string MpichJson;
  std::string PlanExtension = "cplan";
  VerifyMode Mode = VerifyMode::Auto;
  /// The model's best K at each size: the choice, and K - 1 runners-up
  /// written to DIR/candidates/ for collplan_tune_mpi to time.
  unsigned Candidates = 1;
  bool Quiet = false;
};

/// Where the runners-up go, inside the plan directory: a plan directory of
/// its own, which the interposer does not read unless a measured rule of
/// the main index names one of its files.
constexpr const char *CandidatesFolder = "candidates";

/// "8:1GiB" -> 8, 16, ..., 1 GiB: the bounds and the powers of two between.
std::optional<RequestProblem> parseSizes(const std::string &Text,
                                         std::vector<uint64_t> &Sizes) {
  llvm::Expected<ByteRange> Range = parseByteRange("--bytes", Text);
  if (!Range)
    return RequestProblem{ExitUsage, llvm::toString(Range.takeError())};
  // Both bounds are sizes to price.
  uint64_t Min = Range->Min, Max = Range->Max.value_or(0);
  if (Min == 0 || !Range->Max || Min > Max)
    return RequestProblem{ExitUsage, "--bytes '" + Text +
                                         "': expected 0 < MIN <= MAX, both "
                                         "sizes to price (no inf)"};
  Sizes.push_back(Min);
  // By exponent: doubling past 2^63 would wrap to 0 and never end.
  for (unsigned K = 0; K < 64; ++K)
    if (uint64_t P = uint64_t(1) << K; P > Min && P < Max)
      Sizes.push_back(P);
  if (Max != Min)
    Sizes.push_back(Max);
  return std::nullopt;
}

/// The power of two nearest the geometric middle of the sizes.
uint64_t middleSize(llvm::ArrayRef<uint64_t> Sizes) {
  double Mid =
      (std::log2(double(Sizes.front())) + std::log2(double(Sizes.back()))) / 2;
  return uint64_t(1) << std::min<uint64_t>(63, std::llround(Mid));
}

/// At most this many communicator sizes, and roots, in one run.
constexpr uint64_t MaxTunedValues = 256;

/// Option's Text, "V", "V1,V2,..." or "MIN:MAX" (every value between) or a
/// mix, into Out: distinct integers in [Lo, Hi], at most MaxTunedValues.
std::optional<RequestProblem> parseIntegerList(const std::string &Option,
                                               const std::string &Text,
                                               uint64_t Lo, uint64_t Hi,
                                               std::vector<uint64_t> &Out) {
  auto Bad = [&](const std::string &Why) {
    return RequestProblem{ExitUsage, Option + " '" + Text + "': " + Why};
  };
  llvm::SmallVector<llvm::StringRef, 8> Items;
  llvm::StringRef(Text).split(Items, ',');
  for (llvm::StringRef Item : Items) {
    auto [From, To] = Item.split(':');
    uint64_t Min = 0, Max = 0;
    if (From.getAsInteger(10, Min) ||
        (Item.contains(':') ? To.getAsInteger(10, Max) : (Max = Min, false)))
      return Bad("expected V, V1,V2,... or MIN:MAX");
    if (Min < Lo || Max > Hi || Min > Max)
      return Bad("expected values from " + std::to_string(Lo) + " to " +
                 std::to_string(Hi) + ", MIN <= MAX");
    if (Max - Min >= MaxTunedValues ||
        Out.size() + (Max - Min) >= MaxTunedValues)
      return Bad("more than " + std::to_string(MaxTunedValues) + " values");
    for (uint64_t V = Min; V <= Max; ++V)
      if (!llvm::is_contained(Out, V))
        Out.push_back(V);
  }
  return std::nullopt;
}

/// The communicator sizes of --ranks: "8", "2,4,8" or "2:64" (every P from
/// 2 to 64); none when it is not given (the topology fixes P).
std::optional<RequestProblem> parseRanks(const std::string &Text,
                                         std::vector<uint64_t> &Out) {
  if (Text.empty())
    return std::nullopt;
  return parseIntegerList("--ranks", Text, 1, MaxRanks, Out);
}

/// The rule of the plan serving Range of Request's table: its collective,
/// P, root and bytes, and the file it is written to.
DispatchRule planRule(const CompileRequest &Request, const DecisionRange &Range,
                      llvm::StringRef Ext) {
  DispatchRule R;
  R.Kind = Request.Kind;
  R.Ranks = Request.ranks();
  R.Root = Request.Root;
  R.MinBytes = Range.MinBytes;
  R.MaxBytes = Range.MaxBytes;
  R.File = planFileName(R, Ext);
  return R;
}

/// The roots to tune a rooted collective for on P ranks: --roots (a list
/// or range of ranks, or all), else --root, else 0.
std::optional<RequestProblem> parseRoots(const TuneOptions &O, uint32_t P,
                                         std::vector<uint32_t> &Roots) {
  if (O.Roots.empty()) {
    Roots = {O.Request.Job.Root.value_or(0)};
    return std::nullopt;
  }
  if (O.Request.Job.Root)
    return RequestProblem{ExitUsage, "give --root or --roots, not both"};
  std::vector<uint64_t> Values;
  if (std::optional<RequestProblem> F = parseIntegerList(
          O.Roots == "all" ? "--roots all, that is" : "--roots",
          O.Roots == "all" ? "0:" + std::to_string(P - 1) : O.Roots, 0, P - 1,
          Values))
    return F;
  Roots.assign(Values.begin(), Values.end());
  return std::nullopt;
}

void say(const TuneOptions &O, const llvm::Twine &Line) {
  if (!O.Quiet)
    llvm::errs() << "collplan: tune: " << Line << "\n";
}

/// The plans a run keeps between choosing and writing, at most
/// MaxOpsToPrice operations in all over every request: the ranges' winners
/// are built to be priced or checked, and kept rather than built again.
constexpr uint64_t MaxOpsKept = MaxOpsToPrice;

uint64_t keptOps(const Compilation &C) {
  uint64_t Ops = 0;
  for (const Candidate &K : C.Candidates)
    if (K.Built)
      for (const Program &Prog : K.Built->Programs)
        Ops += Prog.numOps();
  return Ops;
}

/// One request's candidates, priced, the candidate of each range, and the
/// runners-up worth timing: each with the sizes where it is among the best.
struct Tuned {
  Compilation Priced;
  std::vector<size_t> Winners;
  std::vector<SizeRange> RunnersUp;
};

/// The candidates of C among the K best (but not the best) at some of
/// Sizes, each once, spanning the first to the last such size.
std::vector<SizeRange> runnersUp(Compilation &C, llvm::ArrayRef<uint64_t> Sizes,
                                 unsigned K) {
  std::vector<SizeRange> Out;
  for (uint64_t Size : Sizes) {
    size_t At = size_t(llvm::find(C.Sizes, Size) - C.Sizes.begin());
    unsigned Place = 0;
    for (size_t I : rankAtSize(C.Candidates, At)) {
      if (Place == K)
        break;
      if (!C.mayChoose(I))
        continue;
      if (Place++ == 0)
        continue; // The choice itself.
      auto Known =
          llvm::find_if(Out, [&](const SizeRange &R) { return R.Index == I; });
      if (Known != Out.end()) {
        Known->To = Size;
        continue;
      }
      const Candidate &Runner = C.Candidates[I];
      Out.push_back({Size, Size, Runner.Algo, Runner.Params, I});
    }
  }
  return Out;
}

/// MPI_Alltoallv's ranks agree on every call with one allreduce of 24 bytes
/// before they may run a plan (runtime/interposer/CallDecision.h), which
/// the model prices as recursive doubling's ceil(log2 P) (alpha + 24 beta).
/// Ranges keeps to the sizes whose plan takes at least 20 times that, so
/// the agreement is at most 5 % of a call the plan serves; the smaller
/// calls go to the library (measured: the agreement made 8 B calls 3 times
/// slower than Open MPI's own on 2 ranks; README, "Unmodified MPI
/// programs"). The last range stays when no size is that large.
void keepAboveAgreement(const Compilation &C, const CompileRequest &Request,
                        std::vector<SizeRange> &Ranges) {
  const CostParams &K = Request.Cost;
  double Agreement =
      llvm::Log2_64_Ceil(Request.ranks()) * (K.Alpha + 24 * K.Beta);
  auto TimeAt = [&](const SizeRange &R, uint64_t Size) {
    size_t At = llvm::find(C.Sizes, Size) - C.Sizes.begin();
    return C.Candidates[R.Index].Times[At];
  };
  for (size_t I = 0; I < Ranges.size(); ++I)
    for (uint64_t Size : C.Sizes)
      if (Size >= Ranges[I].From && Size <= Ranges[I].To &&
          TimeAt(Ranges[I], Size) >= 20 * Agreement) {
        Ranges.erase(Ranges.begin(), Ranges.begin() + I);
        Ranges.front().From = Size;
        return;
      }
  Ranges.erase(Ranges.begin(), Ranges.end() - 1);
  Ranges.front().From = Ranges.front().To;
}

/// The decision table over Sizes among Families (every family when empty),
/// from the priced candidates, which Session receives when given.
llvm::Expected<DecisionTable> decide(const TuneOptions &O,
                                     const CompileRequest &Request,
                                     llvm::ArrayRef<const Algorithm *> Families,
                                     llvm::ArrayRef<uint64_t> Sizes,
                                     const std::string &What,
                                     Tuned *Session = nullptr) {
  auto Report = progressReporter("pricing " + What);
  llvm::Expected<Compilation> C = priceCandidates(
      Request, Families, Sizes, [&](uint32_t Done, uint32_t Total) {
        if (!O.Quiet)
          Report(Done, Total);
      });
  if (!C)
    return C.takeError();
  std::vector<SizeRange> Ranges = choiceBySize(*C, Sizes);
  bool Floored = Request.Kind == Collective::Alltoallv && !Ranges.empty();
  if (Floored)
    keepAboveAgreement(*C, Request, Ranges);
  if (Ranges.empty())
    return makeError(
        ErrorKind::CannotCompile, "no candidate for %s on P = %u at any size",
        collectiveName(Request.Kind).str().c_str(), Request.ranks());
  DecisionTable T;
  T.Kind = Request.Kind;
  T.Ranks = Request.ranks();
  for (size_t I = 0; I < Ranges.size(); ++I) {
    const SizeRange &R = Ranges[I];
    DecisionRange D;
    D.MinBytes = I == 0 && !Floored ? 0 : R.From;
    D.MaxBytes = I + 1 == Ranges.size() ? UINT64_MAX : Ranges[I + 1].From;
    D.Family = R.Algo->name().str();
    D.Params = R.Params;
    D.FirstSize = R.From;
    D.LastSize = R.To;
    T.Ranges.push_back(std::move(D));
  }
  if (Session) {
    Session->RunnersUp = runnersUp(*C, Sizes, O.Candidates);
    // Only the winners' and runners-up's plans are written: the others are
    // dropped.
    auto Written = [&](size_t I) {
      auto Is = [&](const SizeRange &R) { return R.Index == I; };
      return llvm::any_of(Ranges, Is) || llvm::any_of(Session->RunnersUp, Is);
    };
    for (size_t I = 0; I < C->Candidates.size(); ++I)
      if (!Written(I))
        C->Candidates[I].Built.reset();
    Session->Priced = std::move(*C);
    for (const SizeRange &R : Ranges)
      Session->Winners.push_back(R.Index);
  }
  return T;
}

std::string costText(const CostParams &C) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::format("alpha %g s, beta %g s/B, gamma %g s/B", C.Alpha, C.Beta,
                     C.Gamma);
  if (C.AlphaIntra >= 0 || C.BetaIntra >= 0)
    OS << llvm::format(", alpha_intra %g s, beta_intra %g s/B",
                       C.alphaFor(true, 0), C.betaFor(true, 0));
  if (C.MediumMessageBytes > 0)
    OS << llvm::format(", above %g B alpha %g s, beta %g s/B",
                       C.MediumMessageBytes,
                       C.alphaFor(false, C.MediumMessageBytes + 1),
                       C.betaFor(false, C.MediumMessageBytes + 1));
  if (C.LargeMessageBytes > 0)
    OS << llvm::format(", above %g B alpha %g s, beta %g s/B",
                       C.LargeMessageBytes, C.alphaFor(false, INFINITY),
                       C.betaFor(false, INFINITY));
  return Out;
}

/// One request to tune: a collective on one P (and root), and the
/// families it may take (all when empty).
struct TuneJob {
  CompileRequest Request;
  std::vector<const Algorithm *> Families;

  /// "broadcast from root 3", for people.
  std::string name() const {
    std::string Name = collectiveName(Request.Kind).str();
    if (Request.Root.value_or(0) != 0)
      Name += " from root " + std::to_string(*Request.Root);
    return Name;
  }
};

/// Every request, checked before anything is priced or written: one per
/// communicator size and collective, and per root of a rooted one.
std::optional<RequestProblem> buildJobs(const TuneOptions &O, uint64_t Anchor,
                                        std::vector<TuneJob> &Jobs) {
  std::vector<std::string> Kinds = O.Collectives;
  if (Kinds.empty())
    Kinds.push_back(O.Request.Job.Collective);
  std::vector<uint64_t> RankCounts;
  if (std::optional<RequestProblem> F = parseRanks(O.Ranks, RankCounts))
    return F;
  if (RankCounts.size() > 1 &&
      (O.Request.Job.Topology != "flat" || !O.Request.Job.Hostfile.empty() ||
       O.Request.Job.Ppn))
    return RequestProblem{
        ExitUsage, "--ranks with several sizes tunes flat communicators; it "
                   "does not combine with --topology, --ppn or --hostfile"};
  if (RankCounts.size() > 1 &&
      (!O.OpenMpiRules.empty() || !O.MpichJson.empty()))
    return RequestProblem{
        ExitUsage, "the Open MPI and MPICH files are written for one P: give "
                   "--ranks one size with --openmpi-rules or --mpich-json"};
  if (RankCounts.empty())
    RankCounts.push_back(0); // The topology's own P.
  for (uint64_t P : RankCounts)
    for (const std::string &Kind : Kinds) {
      SelectRequestOptions Job = O.Request;
      if (P)
        Job.Job.Ranks = P;
      TuneJob T;
      std::vector<uint32_t> Roots;
      std::optional<RequestProblem> F =
          buildSelectRequest(Job, Kind, Anchor, T.Request, T.Families);
      if (!F && hasRoot(T.Request.Kind))
        F = parseRoots(O, T.Request.ranks(), Roots);
      if (F)
        return F;
      if (Roots.empty())
        Roots.push_back(0);
      for (uint32_t Root : Roots) {
        if (hasRoot(T.Request.Kind))
          T.Request.Root = Root;
        Jobs.push_back(T);
      }
    }
  return std::nullopt;
}

/// What tune decides: the plan directory's tables (every family) and the
/// libraries' (their own families only), in the order of the jobs, and the
/// priced candidates of each plan table (Sessions, one per job).
struct TuneTables {
  std::vector<DecisionTable> Plans, OpenMpi, Mpich;
  std::vector<Tuned> Sessions;
};

/// The tables of every job over Sizes.
llvm::Error decideTables(const TuneOptions &O, llvm::ArrayRef<TuneJob> Jobs,
                         llvm::ArrayRef<uint64_t> Sizes, TuneTables &Out) {
  bool WritePlans = !O.Dir.empty();
  uint64_t Kept = 0;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    const TuneJob &Job = Jobs[I];
    std::string Name = Job.name();
    // Every family's choice is needed for the plan directory only.
    if (WritePlans) {
      say(O, llvm::formatv("{0} on P = {1}: pricing every candidate at {2} "
                           "sizes, {3} .. {4}",
                           Name, Job.Request.ranks(), Sizes.size(),
                           formatBytes(double(Sizes.front())),
                           formatBytes(double(Sizes.back()))));
      Tuned &Session = Out.Sessions.emplace_back();
      llvm::Expected<DecisionTable> T = decide(
          O, Job.Request, Job.Families, Sizes, Name + " candidates", &Session);
      if (!T)
        return T.takeError();
      // Past the bound the plans are built again when written.
      Kept += keptOps(Session.Priced);
      if (Kept > MaxOpsKept) {
        Kept -= keptOps(Session.Priced);
        for (Candidate &C : Session.Priced.Candidates)
          C.Built.reset();
      }
      for (DecisionRange &R : T->Ranges)
        R.PlanFile = planRule(Job.Request, R, O.PlanExtension).File;
      Out.Plans.push_back(std::move(*T));
    }

    // The libraries' files: the same question among their own algorithms.
    // They choose by size alone: the first root of a collective speaks for
    // every root.
    bool FirstOfKind = I == 0 || Jobs[I - 1].Request.Kind != Job.Request.Kind;
    for (auto [Library, Path, Tables] :
         {std::tuple(MpiLibrary::OpenMpi, &O.OpenMpiRules, &Out.OpenMpi),
          std::tuple(MpiLibrary::Mpich, &O.MpichJson, &Out.Mpich)}) {
      if (Path->empty() || !FirstOfKind)
        continue;
      std::vector<const Algorithm *> Own;
      for (const std::string &F : libraryFamilies(Library, Job.Request.Kind))
        if (const Algorithm *A = findAlgorithm(F);
            A && (Job.Families.empty() || llvm::is_contained(Job.Families, A)))
          Own.push_back(A);
      // No counterpart: an empty table, which the file notes as such.
      DecisionTable None;
      None.Kind = Job.Request.Kind;
      None.Ranks = Job.Request.ranks();
      if (Own.empty()) {
        Tables->push_back(std::move(None));
        continue;
      }
      const char *Lib = Library == MpiLibrary::OpenMpi ? "Open MPI" : "MPICH";
      say(O, llvm::formatv("{0}: choosing among {1}'s algorithms", Name, Lib));
      llvm::Expected<DecisionTable> L = decide(
          O, Job.Request, Own, Sizes, Name + " (" + Lib + "'s algorithms)");
      if (!L) {
        // None of the library's algorithms fits (e.g. a root they lack).
        llvm::consumeError(L.takeError());
        Tables->push_back(std::move(None));
        continue;
      }
      Tables->push_back(std::move(*L));
    }
  }
  return llvm::Error::success();
}

/// Candidate Index of Session, verified (once: a candidate that wins
/// several ranges is not verified again) and encoded into Bytes. A failure
/// finalizeOrReport printed leaves its exit code in Printed.
llvm::Expected<Plan *> finalizeCandidate(const TuneOptions &O, Tuned &Session,
                                         size_t Index, PlanFormat Format,
                                         int &Printed, std::string &Bytes) {
  llvm::Expected<Plan *> P = Session.Priced.plan(Index);
  if (!P)
    return P.takeError();
  Candidate &C = Session.Priced.Candidates[Index];
  FinalizedPlan F;
  Printed = finalizeOrReport(**P, Format, O.Mode, O.Quiet, F,
                             C.Verdict ? &*C.Verdict : nullptr);
  if (Printed)
    return makeError(ErrorKind::Invalid, "");
  if (O.Mode == VerifyMode::Auto)
    C.Verdict = F.Verdict;
  Bytes = std::move(F.Bytes);
  return *P;
}

/// Writes the plan directory: one verified, stamped plan per range of each
/// table, each taken from the priced candidates (built again only past the
/// memory bound) and encoded once, and the index. The exit code (printed).
int writePlanDirectory(const TuneOptions &O, llvm::ArrayRef<TuneJob> Jobs,
                       TuneTables &Tables, PlanFormat Format,
                       const std::string &Preamble) {
  PlanDirectoryUpdate U;
  U.Preamble = "Last tuned: " + Preamble;
  // What the plans were chosen to keep, for the interposer to ask of them.
  const CompileRequest &Asked = Jobs.front().Request;
  U.ChosenRounding = Asked.Reproducible       ? Rounding::Reproducible
                     : Asked.IdenticalResults ? Rounding::Identical
                                              : Rounding::RankDependent;
  // A failure that has been printed already (verification's diagnostics).
  int Printed = ExitSuccess;
  for (size_t I = 0; I < Tables.Plans.size(); ++I)
    for (size_t K = 0; K < Tables.Plans[I].Ranges.size(); ++K) {
      NewPlan New;
      New.Rule =
          planRule(Jobs[I].Request, Tables.Plans[I].Ranges[K], O.PlanExtension);
      New.Build = [&, I, K](DispatchRule &Rule,
                            std::string &Bytes) -> llvm::Error {
        DecisionTable &T = Tables.Plans[I];
        DecisionRange &R = T.Ranges[K];
        say(O, llvm::formatv("{0}: plan {1}/{2}: {3} for {4} .. {5}",
                             Jobs[I].name(), K + 1, T.Ranges.size(), R.Family,
                             formatBytes(double(R.MinBytes)),
                             R.MaxBytes == UINT64_MAX
                                 ? std::string("inf")
                                 : formatBytes(double(R.MaxBytes))));
        Tuned &Session = Tables.Sessions[I];
        size_t Winner = Session.Winners[K];
        llvm::Expected<Plan *> P =
            finalizeCandidate(O, Session, Winner, Format, Printed, Bytes);
        if (!P)
          return P.takeError();
        Candidate &C = Session.Priced.Candidates[Winner];
        // The times pricing found, unless they were rank 0's: the whole
        // plan is priced then.
        auto TimeAt = [&](uint64_t Size) {
          size_t At = llvm::find(Session.Priced.Sizes, Size) -
                      Session.Priced.Sizes.begin();
          return C.FromRankZero ? evaluateCost(**P, Size, C.Request.Cost).Time
                                : C.Times[At];
        };
        R.FirstTime = TimeAt(R.FirstSize);
        R.LastTime = TimeAt(R.LastSize);
        Rule = ruleFor((*P)->Header, Rule.File, R.MinBytes, R.MaxBytes,
                       std::nullopt);
        Rule.Why = whyText(R);
        // The table's last plan written: its candidates are done with,
        // unless runners-up are still to be written.
        if (K + 1 == T.Ranges.size() && Session.RunnersUp.empty())
          for (Candidate &Done : Session.Priced.Candidates)
            Done.Built.reset();
        return llvm::Error::success();
      };
      U.Plans.push_back(std::move(New));
    }
  llvm::Expected<PlanIndex> Index = updatePlanDirectory(O.Dir, std::move(U));
  if (Index)
    return ExitSuccess;
  if (Printed) {
    llvm::consumeError(Index.takeError());
    return Printed;
  }
  return reportError(Index.takeError(), ErrorKind::Io);
}

/// A runner-up's file name in the candidates folder: the table, the family
/// and its place among the candidates priced (not a name the file-name
/// rules parse: only the folder's index says what it serves).
std::string runnerUpFileName(const CompileRequest &Request, const SizeRange &R,
                             llvm::StringRef Ext) {
  std::string Name = collectiveName(Request.Kind).str();
  if (Request.Root.value_or(0) != 0)
    Name += "-root" + std::to_string(*Request.Root);
  return Name + "-p" + std::to_string(Request.ranks()) + "-" +
         R.Algo->name().str() + "-" + std::to_string(R.Index) + "." + Ext.str();
}

/// Writes the runners-up of every table to DIR/candidates/ (a plan
/// directory of its own), replacing that folder's earlier candidates for
/// the same tables, files included: the folder is tune's. The exit code.
int writeRunnersUp(const TuneOptions &O, llvm::ArrayRef<TuneJob> Jobs,
                   TuneTables &Tables, PlanFormat Format,
                   const std::string &Preamble) {
  llvm::SmallString<256> Folder(O.Dir);
  llvm::sys::path::append(Folder, CandidatesFolder);
  if (O.Candidates <= 1 && !llvm::sys::fs::is_directory(Folder))
    return ExitSuccess;
  if (std::error_code EC = llvm::sys::fs::create_directories(Folder)) {
    printError("cannot create '" + Folder.str().str() + "': " + EC.message());
    return ExitIoError;
  }
  llvm::Expected<PlanIndex> Old = readPlanIndex(Folder);
  if (!Old)
    return reportError(Old.takeError(), ErrorKind::Usage);
  PlanDirectoryUpdate U;
  U.Preamble = "Runners-up for collplan_tune_mpi to time: " + Preamble;
  std::set<PlanTable> TablesTuned;
  int Printed = ExitSuccess;
  for (size_t I = 0; I < Tables.Sessions.size(); ++I) {
    DispatchRule Table;
    Table.Kind = Jobs[I].Request.Kind;
    Table.Ranks = Jobs[I].Request.ranks();
    Table.Root = Jobs[I].Request.Root;
    TablesTuned.insert(tableOf(Table));
    for (const SizeRange &R : Tables.Sessions[I].RunnersUp) {
      NewPlan New;
      New.Rule.File = runnerUpFileName(Jobs[I].Request, R, O.PlanExtension);
      New.Rule.Kind = Table.Kind;
      New.Rule.Ranks = Table.Ranks;
      New.Rule.Root = Table.Root;
      New.Build = [&, I, R](DispatchRule &Rule,
                            std::string &Bytes) -> llvm::Error {
        say(O,
            llvm::formatv("{0}: runner-up {1} for {2} .. {3}", Jobs[I].name(),
                          R.Algo->name(), formatBytes(double(R.From)),
                          formatBytes(double(R.To))));
        Tuned &Session = Tables.Sessions[I];
        llvm::Expected<Plan *> P =
            finalizeCandidate(O, Session, R.Index, Format, Printed, Bytes);
        if (!P)
          return P.takeError();
        const std::vector<uint64_t> &Sizes = Session.Priced.Sizes;
        // Among the best from R.From to R.To: the calls up to the next
        // size priced, from 0 and without end at the bounds.
        auto Next = llvm::upper_bound(Sizes, R.To);
        Rule = ruleFor((*P)->Header, Rule.File,
                       R.From == Sizes.front() ? 0 : R.From,
                       Next == Sizes.end() ? UINT64_MAX : *Next, std::nullopt);
        Rule.Why = "among the model's " + std::to_string(O.Candidates) +
                   " best from " + formatBytes(double(R.From)) + " to " +
                   formatBytes(double(R.To));
        return llvm::Error::success();
      };
      U.Plans.push_back(std::move(New));
    }
  }
  // The earlier candidates of the tables tuned now leave, files and all.
  std::vector<std::string> Gone;
  for (const DispatchRule &R : Old->Plans)
    if (!R.Library && TablesTuned.count(tableOf(R)) &&
        llvm::none_of(U.Plans,
                      [&](const NewPlan &N) { return N.Rule.File == R.File; }))
      Gone.push_back(R.File);
  U.Removed = Gone;
  llvm::Expected<PlanIndex> Index = updatePlanDirectory(Folder, std::move(U));
  if (!Index) {
    if (Printed) {
      llvm::consumeError(Index.takeError());
      return Printed;
    }
    return reportError(Index.takeError(), ErrorKind::Io);
  }
  for (const std::string &File : Gone) {
    llvm::SmallString<256> Path(Folder);
    llvm::sys::path::append(Path, File);
    llvm::sys::fs::remove(Path);
  }
  return ExitSuccess;
}

/// The Open MPI rules file and the MPICH selection file, when asked for.
int writeLibraryFiles(const TuneOptions &O, const TuneTables &Tables,
                      const std::string &Preamble) {
  if (!O.OpenMpiRules.empty())
    if (llvm::Error E = writeFileAtomically(
            O.OpenMpiRules, openMpiRulesFile(Tables.OpenMpi, Preamble)))
      return reportError(std::move(E), ErrorKind::Io);
  if (!O.MpichJson.empty()) {
    if (llvm::Error E =
            writeFileAtomically(O.MpichJson, mpichSelectionJson(Tables.Mpich)))
      return reportError(std::move(E), ErrorKind::Io);
    // MPICH replaces its whole tree with the file and asserts on a
    // collective without a rule, so the file alone would stop a program.
    say(O, O.MpichJson + " holds the tuned collectives only: merge its "
                         "entries into a copy of MPICH's own selection "
                         "tree (generic.json) before using it");
  }
  return ExitSuccess;
}

/// The tables as people read them, and what was written.
void printTables(const TuneOptions &O, llvm::ArrayRef<TuneJob> Jobs,
                 const TuneTables &Tables, double Seconds) {
  llvm::raw_ostream &OS = llvm::outs();
  std::vector<std::pair<std::string, const DecisionTable *>> Shown;
  for (size_t I = 0; I < Tables.Plans.size(); ++I)
    Shown.push_back({Jobs[I].Request.Root.value_or(0) != 0
                         ? " from root " + std::to_string(*Jobs[I].Request.Root)
                         : "",
                     &Tables.Plans[I]});
  for (const DecisionTable &T : Tables.OpenMpi)
    Shown.push_back({" (Open MPI's algorithms)", &T});
  for (const DecisionTable &T : Tables.Mpich)
    Shown.push_back({" (MPICH's algorithms)", &T});
  for (const auto &[Label, Table] : Shown) {
    const DecisionTable &T = *Table;
    if (T.Ranges.empty())
      continue;
    OS << collectiveName(T.Kind) << " on P = " << T.Ranks << Label << ":\n";
    for (const DecisionRange &R : T.Ranges) {
      OS << "  " << llvm::right_justify(formatBytes(double(R.MinBytes)), 10)
         << " .. "
         << llvm::left_justify(R.MaxBytes == UINT64_MAX
                                   ? std::string("inf")
                                   : formatBytes(double(R.MaxBytes)),
                               10)
         << "  " << R.Family;
      for (const auto &[K, V] : R.Params)
        OS << " " << K << "=" << V;
      if (!R.PlanFile.empty())
        OS << "  -> " << R.PlanFile;
      OS << "\n";
    }
  }
  std::vector<std::string> Written;
  if (!O.Dir.empty())
    Written.push_back(planIndexPath(O.Dir));
  for (const std::string *F : {&O.OpenMpiRules, &O.MpichJson})
    if (!F->empty())
      Written.push_back(*F);
  OS << "wrote " << llvm::join(Written, ", ") << " in "
     << formatSeconds(Seconds) << "\n";
}

int runTune(const TuneOptions &O) {
  std::vector<uint64_t> Sizes;
  if (std::optional<RequestProblem> F = parseSizes(O.Bytes, Sizes)) {
    printError(F->Message);
    return F->Code;
  }
  std::optional<PlanFormat> Format = formatForPath("x." + O.PlanExtension);
  if (!Format) {
    printError("--plan-format '" + O.PlanExtension +
               "': expected cplan, yaml or json");
    return ExitUsage;
  }
  std::vector<TuneJob> Jobs;
  if (std::optional<RequestProblem> F = buildJobs(O, middleSize(Sizes), Jobs)) {
    printError(F->Message);
    return F->Code;
  }
  if (O.Dir.empty() && O.OpenMpiRules.empty() && O.MpichJson.empty()) {
    printError("nothing to write: give -o DIR (a plan directory), "
               "--openmpi-rules FILE or --mpich-json FILE");
    return ExitUsage;
  }

  if (!O.Dir.empty())
    if (std::error_code EC = llvm::sys::fs::create_directories(O.Dir)) {
      printError("cannot create the plan directory '" + O.Dir +
                 "': " + EC.message());
      return ExitIoError;
    }

  auto Start = std::chrono::steady_clock::now();
  std::vector<std::string> Kinds = O.Collectives;
  if (Kinds.empty())
    Kinds.push_back(O.Request.Job.Collective);
  const CompileRequest &First = Jobs.front().Request;
  bool SeveralSizes = llvm::any_of(Jobs, [&](const TuneJob &J) {
    return J.Request.ranks() != First.ranks();
  });
  std::string Preamble =
      llvm::formatv("{0} on P = {1} ({2}); sizes {3} .. {4} ({5} sizes); {6}",
                    llvm::join(Kinds, ", "),
                    SeveralSizes ? O.Ranks : std::to_string(First.ranks()),
                    First.Topo.str(), formatBytes(double(Sizes.front())),
                    formatBytes(double(Sizes.back())), Sizes.size(),
                    costText(First.Cost))
          .str();
  TuneTables Tables;
  if (llvm::Error E = decideTables(O, Jobs, Sizes, Tables))
    return reportError(std::move(E), ErrorKind::CannotCompile);
  if (!O.Dir.empty()) {
    if (int Code = writePlanDirectory(O, Jobs, Tables, *Format, Preamble))
      return Code;
    if (int Code = writeRunnersUp(O, Jobs, Tables, *Format, Preamble))
      return Code;
  }
  if (int Code = writeLibraryFiles(O, Tables, Preamble))
    return Code;
  if (!O.Quiet)
    printTables(
        O, Jobs, Tables,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count());
  return ExitSuccess;
}

} // namespace

void addTuneCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<TuneOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "tune", "The best plan for every message size: a plan directory for "
              "the interposer, and Open MPI / MPICH tuning files");
  addSelectRequestOptions(*Cmd, O->Request);
  // tune's --ranks also takes several communicator sizes.
  Cmd->remove_option(Cmd->get_option("--ranks"));
  Cmd->add_option("--ranks,-P", O->Ranks,
                  "communicator sizes: P, a list P1,P2,... or a range "
                  "MIN:MAX (flat; at most 256 sizes); may be omitted when "
                  "the topology fixes P");
  Cmd->add_option("--collectives", O->Collectives,
                  "several collectives, comma separated (instead of "
                  "--collective)")
      ->delimiter(',');
  Cmd->add_option("--roots", O->Roots,
                  "broadcast and reduce: tune for each of these roots "
                  "(a list R1,R2,..., a range MIN:MAX, or all; at most "
                  "256), into one directory; a root other than 0 is part "
                  "of its files' names");
  Cmd->add_option("--bytes", O->Bytes,
                  "sizes MIN:MAX: the powers of two between them are "
                  "priced")
      ->capture_default_str();
  Cmd->add_option("-o,--output", O->Dir,
                  "plan directory to write (COLLPLAN_PLANS for the "
                  "interposer); created if missing. Without it only the "
                  "libraries' files are written (no plan is built)");
  Cmd->add_option("--openmpi-rules", O->OpenMpiRules,
                  "also write an Open MPI coll_tuned dynamic rules file");
  Cmd->add_option("--mpich-json", O->MpichJson,
                  "also write an MPICH JSON selection file "
                  "(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)");
  Cmd->add_option("--plan-format", O->PlanExtension,
                  "cplan (default), yaml or json");
  Cmd->add_option("--candidates", O->Candidates,
                  "also write the model's runners-up: the K best plans at "
                  "each size, the choice included, for collplan_tune_mpi "
                  "to time on the job's ranks (DIR/candidates/)")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  addVerifyModeOption(*Cmd, "--verify-mode", O->Mode);
  Cmd->add_flag("--quiet,-q", O->Quiet,
                "no progress lines and no summary on success");
  Cmd->callback([O, &Exit] { Exit = runTune(*O); });
}

} // namespace collplan::cli
