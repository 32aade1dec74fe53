//===- RunCommand.cpp - collplan run --------------------------------------===//
//
// `collplan run -n P PLAN` starts P local processes on the TCP transport
// (runtime/launcher/LocalLauncher.h), runs the plan on generated data and
// reports the time per call; --check compares every rank's result with a
// reference computed element by element. Without -n, the process is one rank
// of a job described by COLLPLAN_RANK / COLLPLAN_SIZE / COLLPLAN_ADDR
// (runtime/tcp/Rendezvous.h), started by some other launcher.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFile.h"
#include "runtime/launcher/LocalLauncher.h"
#include "runtime/launcher/PlanRun.h"
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
    P.Text =
        "exited with code " + std::to_string(O.ExitCode) + " without a report";
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
  if (!T) {
    Report = "error\t0\t" + llvm::toString(T.takeError());
    return ExitRuntimeError;
  }
  llvm::Expected<RankReport> R = runPlanRank(P, Hash, **T, S);
  if (!R) {
    Report = "error\t0\t" + llvm::toString(R.takeError());
    return ExitRuntimeError;
  }
  std::string Seconds = std::to_string(R->SecondsPerCall);
  if (!R->CheckFailure.empty()) {
    Report = "check\t" + Seconds + "\t" + R->CheckFailure;
    return ExitInvalid;
  }
  Report = "ok\t" + Seconds + "\t";
  return ExitSuccess;
}

int runCommand(const RunOptions &O) {
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P) {
    printError(llvm::toString(P.takeError()));
    return ExitUsage;
  }
  std::optional<Datatype> Type = parseDatatype(O.Type);
  std::optional<ReduceOp> Op = parseReduceOp(O.Op);
  if (!Type) {
    printError("unknown --datatype '" + O.Type +
               "' (int8..int64, uint8..uint64, float, double)");
    return ExitUsage;
  }
  if (!Op) {
    printError("unknown --op '" + O.Op +
               "' (sum, prod, min, max, band, bor, bxor, land, lor, lxor)");
    return ExitUsage;
  }
  if (reduces(P->Header.Kind) && !supports(*Type, *Op)) {
    printError("--op " + O.Op + " is not defined on " + O.Type +
               " (bitwise and logical operators take integer types)");
    return ExitUsage;
  }
  uint32_t Ranks = P->Header.Ranks;
  if (O.Ranks && O.Ranks != Ranks) {
    printError(O.File + " is a plan for P = " + std::to_string(Ranks) +
               "; -n " + std::to_string(O.Ranks) + " does not match");
    return ExitUsage;
  }
  bool FromEnvironment = !O.Ranks && std::getenv("COLLPLAN_RANK");
  if (!O.Ranks && !FromEnvironment) {
    printError("give -n P to start P local processes, or set COLLPLAN_RANK, "
               "COLLPLAN_SIZE and COLLPLAN_ADDR to run one rank of a job");
    return ExitUsage;
  }

  // The limits COLLPLAN_TIMEOUT has (a zero or negative timeout fails every
  // wait at once); NaN fails the comparisons too.
  if (!(O.TimeoutSeconds >= 0.001 && O.TimeoutSeconds <= 86400)) {
    printError("--timeout " + std::to_string(O.TimeoutSeconds) +
               ": expected seconds in [0.001, 86400]");
    return ExitUsage;
  }
  if (O.Check && O.Warmup + uint64_t(O.Iterations) == 0) {
    printError("--check needs at least one call (--iterations or --warmup)");
    return ExitUsage;
  }

  RunSettings S;
  S.Type = *Type;
  S.Op = *Op;
  S.Count = O.Bytes.Value / sizeOf(*Type);
  S.Iterations = O.Iterations;
  S.Warmup = O.Warmup;
  S.Check = O.Check;
  uint64_t Hash = planHash(*P);
  auto Timeout = std::chrono::milliseconds(int64_t(O.TimeoutSeconds * 1000));

  std::vector<RankOutcome> Outcomes;
  uint32_t FirstRank = 0;
  if (FromEnvironment) {
    llvm::Expected<TcpConfig> Config = tcpConfigFromEnvironment();
    if (!Config) {
      printError(llvm::toString(Config.takeError()));
      return ExitUsage;
    }
    if (Config->Size != Ranks) {
      printError(O.File + " is a plan for P = " + std::to_string(Ranks) +
                 " but COLLPLAN_SIZE=" + std::to_string(Config->Size));
      return ExitUsage;
    }
    RankOutcome One;
    One.ExitCode = runRank(*P, Hash, S, *Config, One.Report);
    Outcomes.push_back(One);
    FirstRank = Config->Rank;
  } else {
    llvm::Expected<std::vector<RankOutcome>> All =
        launchLocal(Ranks, Timeout, std::chrono::milliseconds(0),
                    [&](const TcpConfig &Config, std::string &Report) {
                      return runRank(*P, Hash, S, Config, Report);
                    });
    if (!All) {
      printError(llvm::toString(All.takeError()));
      return ExitRuntimeError;
    }
    Outcomes = std::move(*All);
  }

  std::vector<ParsedOutcome> Parsed;
  int Exit = ExitSuccess;
  double Max = 0, Min = 1e300, Sum = 0;
  for (const RankOutcome &O : Outcomes) {
    Parsed.push_back(parseReport(O));
    const ParsedOutcome &R = Parsed.back();
    if (R.Status == "error" || (O.ExitCode != 0 && R.Status == "ok"))
      Exit = ExitRuntimeError;
    else if (R.Status == "check" && Exit == ExitSuccess)
      Exit = ExitInvalid;
    Max = std::max(Max, R.Seconds);
    Min = std::min(Min, R.Seconds);
    Sum += R.Seconds;
  }
  double Mean = Sum / double(Parsed.size());
  const char *CheckText = !O.Check              ? "skipped"
                          : Exit == ExitSuccess ? "passed"
                          : Exit == ExitInvalid ? "failed"
                                                : "not completed";

  if (O.Format == OutputFormat::Json) {
    llvm::json::OStream J(llvm::outs(), 2);
    J.object([&] {
      J.attribute("file", O.File);
      J.attribute("algorithm", P->Header.Algorithm);
      J.attribute("collective", collectiveName(P->Header.Kind));
      J.attribute("ranks", int64_t(Ranks));
      J.attribute("plan_hash", planHashHex(Hash));
      J.attribute("transport", "tcp");
      J.attribute("bytes", int64_t(S.Count * sizeOf(S.Type)));
      J.attribute("count", int64_t(S.Count));
      J.attribute("datatype", O.Type);
      J.attribute("op", O.Op);
      J.attribute("iterations", int64_t(S.Iterations));
      J.attributeObject("seconds_per_call", [&] {
        J.attribute("max", Max);
        J.attribute("min", Min);
        J.attribute("mean", Mean);
      });
      J.attribute("check", CheckText);
      J.attributeArray("ranks_failed", [&] {
        for (size_t I = 0; I < Parsed.size(); ++I)
          if (Parsed[I].Status != "ok")
            J.object([&] {
              J.attribute("rank", int64_t(FirstRank + I));
              J.attribute("status", Parsed[I].Status);
              J.attribute("message", Parsed[I].Text);
            });
      });
      J.attribute("exit_code", int64_t(Exit));
    });
    llvm::outs() << "\n";
  } else {
    llvm::raw_ostream &OS = llvm::outs();
    OS << O.File << ": " << collectiveName(P->Header.Kind) << " with "
       << P->Header.Algorithm << " on P = " << Ranks << " (plan "
       << planHashHex(Hash) << "), TCP transport\n";
    OS << "  " << formatBytes(double(S.Count * sizeOf(S.Type))) << " ("
       << S.Count << " x " << O.Type << ", " << O.Op << "), " << S.Iterations
       << " calls after " << S.Warmup << " warm-up\n";
    if (Exit == ExitSuccess || Exit == ExitInvalid)
      OS << "  time per call   max " << formatSeconds(Max) << ", min "
         << formatSeconds(Min) << ", mean " << formatSeconds(Mean)
         << " over ranks\n";
    OS << "  check           " << CheckText << "\n";
    OS.flush();
  }
  for (size_t I = 0; I < Parsed.size(); ++I)
    if (Parsed[I].Status != "ok")
      printError("rank " + std::to_string(FirstRank + I) + ": " +
                 Parsed[I].Text);
  return Exit;
}

} // namespace

void addRunCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "run", "Run a plan on P local processes over TCP, time it and check "
             "the result (without -n: one rank of a job described by "
             "COLLPLAN_RANK, COLLPLAN_SIZE, COLLPLAN_ADDR, COLLPLAN_TIMEOUT)");
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
