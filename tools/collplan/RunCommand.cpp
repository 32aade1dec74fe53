//===- RunCommand.cpp - collplan run --------------------------------------===//
//
// `collplan run PLAN` starts the plan's P ranks as local processes on the TCP
// transport (runtime/launcher/LocalLauncher.h), runs the plan on generated
// data and reports the time per call; --check compares every rank's result
// with a reference computed element by element. -n P may be given; it must be
// the plan's P. Without -n, when the environment names a rank (COLLPLAN_RANK
// or a launcher's own variables: runtime/tcp/RankEnvironment.h), the process
// is that one rank of a job started by some other launcher: it reads only its
// own rank's program (readRankSlice), as the interposer does.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"
#include "runtime/launcher/LocalLauncher.h"
#include "runtime/launcher/PlanRun.h"
#include "runtime/tcp/RankEnvironment.h"
#include "runtime/tcp/TcpTransport.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"
#include "tools/collplan/OutOfMemory.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <optional>

namespace collplan::cli {

namespace {

using namespace collplan;
using namespace collplan::runtime;

struct RunOptions {
  std::string File;
  std::optional<uint32_t> Ranks;
  bool Check = false;
  unsigned Iterations = 10;
  unsigned Warmup = 2;
  ByteSizeOption Bytes;
  std::string Type = "float";
  std::string Op = "sum";
  double TimeoutSeconds = 30;
  OutputFormat Format = OutputFormat::Text;
  bool TrustUnverified = false;
};

/// One rank's outcome as its report line carries it: "status\tseconds\ttext"
/// with status ok, check (the check failed) or error.
struct ParsedOutcome {
  std::string Status = "error";
  double Seconds = 0;
  std::string Text;
};

ParsedOutcome parseReport(const RankOutcome &O) {
  ParsedOutcome P;
  llvm::StringRef R(O.Report);
  auto [Status, Rest] = R.split('\t');
  auto [Seconds, Text] = Rest.split('\t');
  if (Status.empty()) {
    P.Text = !O.Note.empty()
                 ? O.Note
                 : "exited with code " + std::to_string(O.ExitCode) +
                       " without a report";
    return P;
  }
  P.Status = Status.str();
  Seconds.getAsDouble(P.Seconds);
  P.Text = Text.rtrim().str();
  return P;
}

/// The body of rank Config.Rank, whose program Prog is: connect, run,
/// report. Returns the exit code.
int runRank(const PlanHeader &H, const Program &Prog, uint64_t Hash,
            const RunSettings &S, const TcpConfig &Config,
            std::string &Report) {
  llvm::Expected<std::unique_ptr<TcpTransport>> T =
      TcpTransport::connect(Config);
  auto Run = [&]() -> llvm::Expected<RankReport> {
    AllocationsThrow Sized;
    try {
      return runPlanRank(H, Prog, Hash, **T, S);
    } catch (const std::bad_alloc &) {
      // --bytes past this machine's memory: a message, not an abort.
      return makeError(ErrorKind::Runtime, "cannot allocate the buffers for " +
                                               std::to_string(S.Count) +
                                               " elements (--bytes)");
    }
  };
  llvm::Expected<RankReport> R =
      T ? Run() : llvm::Expected<RankReport>(T.takeError());
  if (!R) {
    ErrorReport E = takeErrorReport(R.takeError(), ErrorKind::Runtime);
    Report = "error\t0\t" + E.Message;
    return exitCodeFor(E.Kind);
  }
  std::string Seconds = std::to_string(R->SecondsPerCall);
  if (!R->CheckFailure.empty()) {
    Report = "check\t" + Seconds + "\t" + R->CheckFailure;
    return ExitInvalid;
  }
  Report = "ok\t" + Seconds + "\t";
  return ExitSuccess;
}

/// The settings of the run O asks for on a plan with header H, or a usage
/// error.
llvm::Expected<RunSettings> runSettings(const RunOptions &O,
                                        const PlanHeader &H) {
  std::optional<Datatype> Type = parseDatatype(O.Type);
  std::optional<ReduceOp> Op = parseReduceOp(O.Op);
  if (!Type)
    return makeError(ErrorKind::Usage,
                     "unknown --datatype '" + O.Type +
                         "' (int8..int64, uint8..uint64, float, double)");
  if (!Op)
    return makeError(ErrorKind::Usage, "unknown --op '" + O.Op +
                                           "' (sum, prod, min, max, band, "
                                           "bor, bxor, land, lor, lxor)");
  if (reduces(H.Kind) && !supports(*Type, *Op))
    return makeError(ErrorKind::Usage,
                     "--op " + O.Op + " is not defined on " + O.Type +
                         " (bitwise and logical operators take integer types)");
  if (O.Ranks && *O.Ranks != H.Ranks)
    return makeError(ErrorKind::Usage,
                     O.File + " is a plan for P = " + std::to_string(H.Ranks) +
                         "; -n " + std::to_string(*O.Ranks) +
                         " does not match (leave -n out to run the plan's P)");
  if (O.Check && O.Warmup + uint64_t(O.Iterations) == 0)
    return makeError(
        ErrorKind::Usage,
        "--check needs at least one call (--iterations or --warmup)");
  RunSettings S;
  S.Type = *Type;
  S.Op = *Op;
  S.Count = O.Bytes.Value / sizeOf(*Type);
  S.Iterations = O.Iterations;
  S.Warmup = O.Warmup;
  S.Check = O.Check;
  return S;
}

/// The ranks' reports taken together.
struct RunSummary {
  std::vector<ParsedOutcome> Parsed;
  uint32_t FirstRank = 0;
  int Exit = ExitSuccess;
  double Max = 0, Min = 1e300, Mean = 0;
  const char *CheckText = "skipped";
};

RunSummary summarize(const RunOptions &O,
                     const std::vector<RankOutcome> &Outcomes,
                     uint32_t FirstRank) {
  RunSummary Sum;
  Sum.FirstRank = FirstRank;
  double Total = 0;
  for (const RankOutcome &Outcome : Outcomes) {
    Sum.Parsed.push_back(parseReport(Outcome));
    const ParsedOutcome &R = Sum.Parsed.back();
    if (R.Status == "error" || (Outcome.ExitCode != 0 && R.Status == "ok"))
      Sum.Exit = ExitRuntimeError;
    else if (R.Status == "check" && Sum.Exit == ExitSuccess)
      Sum.Exit = ExitInvalid;
    Sum.Max = std::max(Sum.Max, R.Seconds);
    Sum.Min = std::min(Sum.Min, R.Seconds);
    Total += R.Seconds;
  }
  Sum.Mean = Total / double(Sum.Parsed.size());
  Sum.CheckText = !O.Check                  ? "skipped"
                  : Sum.Exit == ExitSuccess ? "passed"
                  : Sum.Exit == ExitInvalid ? "failed"
                                            : "not completed";
  return Sum;
}

void printRunJson(const RunOptions &O, const PlanHeader &H, uint64_t Hash,
                  const RunSettings &S, const RunSummary &Sum) {
  llvm::json::OStream J(llvm::outs(), 2);
  J.object([&] {
    J.attribute("file", O.File);
    J.attribute("algorithm", H.Algorithm);
    J.attribute("collective", collectiveName(H.Kind));
    J.attribute("ranks", int64_t(H.Ranks));
    J.attribute("plan_hash", planHashHex(Hash));
    J.attribute("transport", "tcp");
    J.attribute("bytes", int64_t(S.Count * sizeOf(S.Type)));
    J.attribute("count", int64_t(S.Count));
    J.attribute("datatype", O.Type);
    J.attribute("op", O.Op);
    J.attribute("iterations", int64_t(S.Iterations));
    J.attributeObject("seconds_per_call", [&] {
      J.attribute("max", Sum.Max);
      J.attribute("min", Sum.Min);
      J.attribute("mean", Sum.Mean);
    });
    J.attribute("check", Sum.CheckText);
    J.attributeArray("ranks_failed", [&] {
      for (size_t I = 0; I < Sum.Parsed.size(); ++I)
        if (Sum.Parsed[I].Status != "ok")
          J.object([&] {
            J.attribute("rank", int64_t(Sum.FirstRank + I));
            J.attribute("status", Sum.Parsed[I].Status);
            J.attribute("message", Sum.Parsed[I].Text);
          });
    });
    J.attribute("exit_code", int64_t(Sum.Exit));
  });
  llvm::outs() << "\n";
}

void printRunText(const RunOptions &O, const PlanHeader &H, uint64_t Hash,
                  const RunSettings &S, const RunSummary &Sum) {
  llvm::raw_ostream &OS = llvm::outs();
  OS << O.File << ": " << collectiveName(H.Kind) << " with " << H.Algorithm
     << " on P = " << H.Ranks << " (plan " << planHashHex(Hash)
     << "), TCP transport\n";
  OS << "  " << formatBytes(double(S.Count * sizeOf(S.Type))) << " (" << S.Count
     << " x " << O.Type << ", " << O.Op << "), " << S.Iterations
     << " calls after " << S.Warmup << " warm-up\n";
  if (Sum.Exit == ExitSuccess || Sum.Exit == ExitInvalid)
    OS << "  time per call   max " << formatSeconds(Sum.Max) << ", min "
       << formatSeconds(Sum.Min) << ", mean " << formatSeconds(Sum.Mean)
       << " over ranks\n";
  OS << "  check           " << Sum.CheckText << "\n";
  OS.flush();
}

/// Prints the outcomes and returns the exit code.
int report(const RunOptions &O, const PlanHeader &H, uint64_t Hash,
           const RunSettings &S, const std::vector<RankOutcome> &Outcomes,
           uint32_t FirstRank) {
  RunSummary Sum = summarize(O, Outcomes, FirstRank);
  if (O.Format == OutputFormat::Json)
    printRunJson(O, H, Hash, S, Sum);
  else
    printRunText(O, H, Hash, S, Sum);
  for (size_t I = 0; I < Sum.Parsed.size(); ++I)
    if (Sum.Parsed[I].Status != "ok")
      printError("rank " + std::to_string(FirstRank + I) + ": " +
                 Sum.Parsed[I].Text);
  return Sum.Exit;
}

/// All P ranks as local processes, from the whole plan.
int runAllRanks(const RunOptions &O) {
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  llvm::Expected<RunSettings> S = runSettings(O, P->Header);
  if (!S)
    return reportError(S.takeError(), ErrorKind::Usage);
  uint64_t Hash = planHash(*P);
  if (!O.TrustUnverified)
    if (llvm::Error E = checkStamp(P->Header, Hash, O.File))
      return reportError(std::move(E), ErrorKind::Usage);
  auto Rank = [&](const TcpConfig &Config, std::string &Report) {
    return runRank(P->Header, P->Programs[Config.Rank], Hash, *S, Config,
                   Report);
  };
  auto Timeout = std::chrono::milliseconds(int64_t(O.TimeoutSeconds * 1000));
  llvm::Expected<std::vector<RankOutcome>> Outcomes =
      launchLocal(P->Header.Ranks, Timeout, std::chrono::milliseconds(0), Rank);
  if (!Outcomes)
    return reportError(Outcomes.takeError(), ErrorKind::Runtime);
  return report(O, P->Header, Hash, *S, *Outcomes, 0);
}

/// This process as the one rank the environment names, from that rank's
/// slice of the plan.
int runOneRank(const RunOptions &O) {
  llvm::Expected<TcpConfig> Config = tcpConfigFromEnvironment();
  if (!Config)
    return reportError(Config.takeError(), ErrorKind::Runtime);
  llvm::Expected<RankSlice> Slice = readRankSlice(O.File, Config->Rank);
  if (!Slice)
    return reportError(Slice.takeError(), ErrorKind::Usage);
  const PlanHeader &H = Slice->Header;
  if (!O.TrustUnverified)
    if (llvm::Error E = checkStamp(H, Slice->Hash, O.File))
      return reportError(std::move(E), ErrorKind::Usage);
  llvm::Expected<RunSettings> S = runSettings(O, H);
  if (!S)
    return reportError(S.takeError(), ErrorKind::Usage);
  if (Config->Size != H.Ranks)
    return reportError(
        makeError(ErrorKind::Usage,
                  O.File + " is a plan for P = " + std::to_string(H.Ranks) +
                      " but " + Config->SizeVariable + "=" +
                      std::to_string(Config->Size) + " (" + Config->Source +
                      ")"),
        ErrorKind::Usage);
  RankOutcome One;
  One.ExitCode = runRank(H, Slice->Prog, Slice->Hash, *S, *Config, One.Report);
  return report(O, H, Slice->Hash, *S, {One}, Config->Rank);
}

int runCommand(const RunOptions &O) {
  if (!O.Ranks && environmentNamesRank())
    return runOneRank(O);
  return runAllRanks(O);
}

} // namespace

void addRunCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "run", "Run a plan on its P ranks as local processes over TCP, time it "
             "and check "
             "the result. Without -n: one rank of a job, its rank and size "
             "from COLLPLAN_RANK/COLLPLAN_SIZE, else the launcher's "
             "(OMPI_COMM_WORLD_RANK/_SIZE, PMI_RANK/PMI_SIZE, "
             "SLURM_PROCID/SLURM_NTASKS, RANK/WORLD_SIZE: the first family "
             "set, never mixed), rank 0's address from COLLPLAN_ADDR, else "
             "MASTER_ADDR:MASTER_PORT; also COLLPLAN_TIMEOUT, COLLPLAN_SECRET. "
             "Errors name the variables used");
  Cmd->add_option("file", O->File, "plan file")->required();
  Cmd->add_option("-n,--ranks", O->Ranks,
                  "start this many local processes; must be the plan's P, "
                  "the default");
  Cmd->add_flag("--check", O->Check,
                "compare every rank's result with an independently computed "
                "reference");
  Cmd->add_option("--iterations", O->Iterations, "timed calls")
      ->default_val(10);
  Cmd->add_option("--warmup", O->Warmup, "untimed calls first")->default_val(2);
  addBytesOption(*Cmd, O->Bytes, "size of the whole vector");
  Cmd->add_option("--datatype", O->Type,
                  "int8..int64, uint8..uint64, float, double")
      ->default_val("float");
  Cmd->add_option("--op", O->Op,
                  "sum, prod, min, max, band, bor, bxor, land, lor, lxor")
      ->default_val("sum");
  addTimeoutOption(*Cmd, O->TimeoutSeconds);
  Cmd->add_flag("--trust-unverified", O->TrustUnverified,
                "run a plan without a valid verification stamp (compiled "
                "with --no-verify, edited, or written by another tool); "
                "without it such a plan is refused (exit 2)");
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runCommand(*O); });
}

} // namespace collplan::cli
