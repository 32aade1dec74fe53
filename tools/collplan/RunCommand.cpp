//===- RunCommand.cpp - collplan run --------------------------------------===//
//
// `collplan run -n P PLAN` starts P local processes on the TCP transport
// (runtime/launcher/LocalLauncher.h), runs the plan on generated data and
// reports the time per call; --check compares every rank's result with a
// reference computed element by element. Without -n, the process is one rank
// of a job described by COLLPLAN_RANK / COLLPLAN_SIZE / COLLPLAN_ADDR
// or a launcher's own (runtime/tcp/RankEnvironment.h), started by it.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFile.h"
#include "runtime/launcher/LocalLauncher.h"
#include "runtime/launcher/PlanRun.h"
#include "runtime/tcp/RankEnvironment.h"
#include "runtime/tcp/TcpTransport.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

namespace collplan::cli {

namespace {

using namespace collplan::runtime;

struct RunOptions {
  std::string File;
  uint32_t Ranks = 0;
  bool Check = false;
  unsigned Iterations = 10;
  unsigned Warmup = 2;
  ByteSizeOption Bytes;
  std::string Type = "float";
  std::string Op = "sum";
  double TimeoutSeconds = 30;
  OutputFormat Format = OutputFormat::Text;
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

/// The body of one rank: connect, run, report. Returns the exit code.
int runRank(const Plan &P, uint64_t Hash, const RunSettings &S,
            const TcpConfig &Config, std::string &Report) {
  llvm::Expected<std::unique_ptr<TcpTransport>> T =
      TcpTransport::connect(Config);
  llvm::Expected<RankReport> R = T ? runPlanRank(P, Hash, **T, S)
                                   : llvm::Expected<RankReport>(T.takeError());
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

/// The settings of the run O asks for on plan P, or a usage error.
llvm::Expected<RunSettings> runSettings(const RunOptions &O, const Plan &P) {
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
  if (reduces(P.Header.Kind) && !supports(*Type, *Op))
    return makeError(ErrorKind::Usage,
                     "--op " + O.Op + " is not defined on " + O.Type +
                         " (bitwise and logical operators take integer types)");
  uint32_t Ranks = P.Header.Ranks;
  if (O.Ranks && O.Ranks != Ranks)
    return makeError(ErrorKind::Usage,
                     O.File + " is a plan for P = " + std::to_string(Ranks) +
                         "; -n " + std::to_string(O.Ranks) + " does not match");
  if (!O.Ranks && !environmentNamesRank())
    return makeError(ErrorKind::Usage,
                     "give -n P to start P local processes, or set "
                     "COLLPLAN_RANK, COLLPLAN_SIZE and COLLPLAN_ADDR (or "
                     "start it with mpirun, srun or torchrun) to run one "
                     "rank of a job");
  // The limits COLLPLAN_TIMEOUT has (a zero or negative timeout fails every
  // wait at once); NaN fails the comparisons too.
  if (!(O.TimeoutSeconds >= 0.001 && O.TimeoutSeconds <= 86400))
    return makeError(ErrorKind::Usage,
                     "--timeout " + std::to_string(O.TimeoutSeconds) +
                         ": expected seconds in [0.001, 86400]");
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

/// The ranks' outcomes: P local processes with -n, otherwise this process as
/// the one rank the environment names (FirstRank is then that rank).
llvm::Expected<std::vector<RankOutcome>> runRanks(const RunOptions &O,
                                                  const Plan &P, uint64_t Hash,
                                                  const RunSettings &S,
                                                  uint32_t &FirstRank) {
  FirstRank = 0;
  auto Rank = [&](const TcpConfig &Config, std::string &Report) {
    return runRank(P, Hash, S, Config, Report);
  };
  if (O.Ranks) {
    auto Timeout = std::chrono::milliseconds(int64_t(O.TimeoutSeconds * 1000));
    return launchLocal(P.Header.Ranks, Timeout, std::chrono::milliseconds(0),
                       Rank);
  }
  llvm::Expected<TcpConfig> Config = tcpConfigFromEnvironment();
  if (!Config)
    return Config.takeError();
  if (Config->Size != P.Header.Ranks)
    return makeError(
        ErrorKind::Usage,
        O.File + " is a plan for P = " + std::to_string(P.Header.Ranks) +
            " but " + Config->SizeVariable + "=" +
            std::to_string(Config->Size) + " (" + Config->Source + ")");
  RankOutcome One;
  One.ExitCode = Rank(*Config, One.Report);
  FirstRank = Config->Rank;
  return std::vector<RankOutcome>{One};
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

void printRunJson(const RunOptions &O, const Plan &P, uint64_t Hash,
                  const RunSettings &S, const RunSummary &Sum) {
  llvm::json::OStream J(llvm::outs(), 2);
  J.object([&] {
    J.attribute("file", O.File);
    J.attribute("algorithm", P.Header.Algorithm);
    J.attribute("collective", collectiveName(P.Header.Kind));
    J.attribute("ranks", int64_t(P.Header.Ranks));
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

void printRunText(const RunOptions &O, const Plan &P, uint64_t Hash,
                  const RunSettings &S, const RunSummary &Sum) {
  llvm::raw_ostream &OS = llvm::outs();
  OS << O.File << ": " << collectiveName(P.Header.Kind) << " with "
     << P.Header.Algorithm << " on P = " << P.Header.Ranks << " (plan "
     << planHashHex(Hash) << "), TCP transport\n";
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

int runCommand(const RunOptions &O) {
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  llvm::Expected<RunSettings> S = runSettings(O, *P);
  if (!S)
    return reportError(S.takeError(), ErrorKind::Usage);
  uint64_t Hash = planHash(*P);
  uint32_t FirstRank = 0;
  llvm::Expected<std::vector<RankOutcome>> Outcomes =
      runRanks(O, *P, Hash, *S, FirstRank);
  if (!Outcomes)
    return reportError(Outcomes.takeError(), ErrorKind::Runtime);

  RunSummary Sum = summarize(O, *Outcomes, FirstRank);
  if (O.Format == OutputFormat::Json)
    printRunJson(O, *P, Hash, *S, Sum);
  else
    printRunText(O, *P, Hash, *S, Sum);
  for (size_t I = 0; I < Sum.Parsed.size(); ++I)
    if (Sum.Parsed[I].Status != "ok")
      printError("rank " + std::to_string(FirstRank + I) + ": " +
                 Sum.Parsed[I].Text);
  return Sum.Exit;
}

} // namespace

void addRunCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "run", "Run a plan on P local processes over TCP, time it and check "
             "the result. Without -n: one rank of a job, its rank and size "
             "from COLLPLAN_RANK/COLLPLAN_SIZE, else the launcher's "
             "(OMPI_COMM_WORLD_RANK/_SIZE, PMI_RANK/PMI_SIZE, "
             "SLURM_PROCID/SLURM_NTASKS, RANK/WORLD_SIZE: the first family "
             "set, never mixed), rank 0's address from COLLPLAN_ADDR, else "
             "MASTER_ADDR:MASTER_PORT; also COLLPLAN_TIMEOUT, COLLPLAN_SECRET. "
             "Errors name the variables used");
  Cmd->add_option("file", O->File, "plan file")->required();
  Cmd->add_option("-n,--ranks", O->Ranks,
                  "start this many local processes (the plan's P)");
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
  Cmd->add_option("--timeout", O->TimeoutSeconds,
                  "seconds a rank waits for a peer to arrive or progress")
      ->default_val(30);
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runCommand(*O); });
}

} // namespace collplan::cli
