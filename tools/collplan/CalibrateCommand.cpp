//===- CalibrateCommand.cpp - collplan calibrate --------------------------===//
//
// Times real plans (compiler/select/CalibrationPlans.h) on P = 2 .. -n local
// processes over collplan's TCP transport, fits the cost model's alpha, beta
// and gamma to those times (runtime/calibrate/PlanFit.h), prints each
// timing's residual and writes the parameters file for --params. With
// --evaluate FILE the same timings are compared with FILE's predictions
// instead (the fidelity check of tools/bench-calibrate.sh). Over MPI the same
// is `mpirun -n P collplan_calibrate_mpi` (runtime/calibrate/CalibrateMpi.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostParamsFile.h"
#include "compiler/select/CalibrationPlans.h"
#include "plan/ir/FileIo.h"
#include "runtime/calibrate/CalibrationReport.h"
#include "runtime/launcher/LocalLauncher.h"
#include "runtime/tcp/TcpTransport.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <memory>

namespace collplan::cli {
namespace {

using namespace runtime;

struct CalibrateOptions {
  uint32_t Ranks = 2;
  uint32_t MinRanks = 2;
  std::string Output;
  std::string Evaluate;
  std::vector<std::string> Fit;
  std::string Timings;
  std::string Type = "float";
  std::string Op = "sum";
  double TimeoutSeconds = 30;
  std::optional<double> CoresPerNode;
  OutputFormat Format = OutputFormat::Text;
};

int runCalibrate(const CalibrateOptions &O) {
  CalibrateSettings S;
  std::optional<Datatype> T = parseDatatype(O.Type);
  std::optional<ReduceOp> R = parseReduceOp(O.Op);
  if (!T || !R || !supports(*T, *R)) {
    printError("unsupported --datatype '" + O.Type + "' with --op '" + O.Op +
               "'");
    return ExitUsage;
  }
  S.Type = *T;
  S.Op = *R;
  S.Keys = O.Fit;
  S.MinRanks = O.MinRanks;
  S.CoresPerNode = O.CoresPerNode;
  if (!O.Evaluate.empty()) {
    if (!O.Output.empty()) {
      printError(
          "--evaluate compares given parameters; it writes none (no -o)");
      return ExitUsage;
    }
    CostParams Given;
    if (llvm::Error E = readCostParamsFile(O.Evaluate, Given, nullptr))
      return reportError(std::move(E), ErrorKind::Usage);
    S.Evaluate = Given;
  }
  if (!O.Timings.empty()) {
    llvm::Expected<std::string> Text =
        readBoundedFile(O.Timings, 64 << 20, "timings file", PipeInput::Allow);
    llvm::Expected<Calibration> C =
        Text ? readCalibrationTimings(*Text, O.Timings, calibrationPlans)
             : Text.takeError();
    if (!C)
      return reportError(C.takeError(), ErrorKind::Usage);
    C->Type = S.Type;
    C->Op = S.Op;
    if (S.CoresPerNode)
      C->CoresPerNode = *S.CoresPerNode;
    fitCalibration(*C, S);
    if (!O.Output.empty())
      if (llvm::Error E = writeCalibration(O.Output, *C))
        return reportError(std::move(E), ErrorKind::Io);
    if (O.Format == OutputFormat::Json)
      printCalibrationJson(llvm::outs(), *C, O.Output);
    else
      printCalibrationTable(llvm::outs(), *C);
    return ExitSuccess;
  }
  S.Progress = [](const std::string &Line) {
    std::cerr << "collplan: calibrate: " << Line << std::endl;
  };
  // Rank 0's process prints and writes (the launcher's children share our
  // stdout and stderr); its exit code says how that went.
  auto Body = [&](const TcpConfig &Config, std::string &Report) -> int {
    llvm::Expected<std::unique_ptr<TcpTransport>> Tr =
        TcpTransport::connect(Config);
    llvm::Expected<Calibration> C =
        Tr ? calibrate(**Tr, "tcp", calibrationPlans, S) : Tr.takeError();
    if (!C) {
      ErrorReport E = takeErrorReport(C.takeError(), ErrorKind::Runtime);
      Report = E.Message;
      return exitCodeFor(E.Kind);
    }
    if (Config.Rank != 0)
      return ExitSuccess;
    if (!O.Output.empty())
      if (llvm::Error E = writeCalibration(O.Output, *C)) {
        ErrorReport Er = takeErrorReport(std::move(E), ErrorKind::Io);
        Report = Er.Message;
        return exitCodeFor(Er.Kind);
      }
    if (O.Format == OutputFormat::Json)
      printCalibrationJson(llvm::outs(), *C, O.Output);
    else
      printCalibrationTable(llvm::outs(), *C);
    llvm::outs().flush();
    return ExitSuccess;
  };
  auto Timeout = std::chrono::milliseconds(int64_t(O.TimeoutSeconds * 1000));
  llvm::Expected<std::vector<RankOutcome>> Outcomes =
      launchLocal(O.Ranks, Timeout, std::chrono::milliseconds(0), Body);
  if (!Outcomes)
    return reportError(Outcomes.takeError(), ErrorKind::Runtime);
  int Exit = ExitSuccess;
  for (size_t Q = 0; Q < Outcomes->size(); ++Q) {
    const RankOutcome &Out = (*Outcomes)[Q];
    if (Out.ExitCode == 0)
      continue;
    printError("rank " + std::to_string(Q) + ": " +
               (!Out.Report.empty() ? Out.Report
                : !Out.Note.empty()
                    ? Out.Note
                    : "exited with code " + std::to_string(Out.ExitCode)));
    if (Exit == ExitSuccess)
      Exit = Out.ExitCode >= 1 && Out.ExitCode <= 5 ? Out.ExitCode
                                                    : ExitRuntimeError;
  }
  return Exit;
}

} // namespace

void addCalibrateCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<CalibrateOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "calibrate",
      "Fit the cost model's alpha, beta and gamma to this machine: time "
      "ring, recursive-doubling and Rabenseifner allreduce and binomial and "
      "circulant broadcast on P = 2 .. -n ranks at 8 B .. 16 MiB and fit the "
      "model's predictions to the times (weighted least squares on the "
      "relative error), printing each timing's residual. Runs -n processes "
      "over loopback TCP; over MPI run `mpirun -n P collplan_calibrate_mpi` "
      "instead. -o writes a parameters file that compile and cost read with "
      "--params FILE; --evaluate FILE compares FILE's predictions with the "
      "times instead of fitting. Progress goes to stderr.");
  Cmd->add_option("-n,--ranks", O->Ranks, "processes to start (at least 2)")
      ->capture_default_str()
      ->check(CLI::Range(2u, 1024u));
  Cmd->add_option("--min-ranks", O->MinRanks,
                  "time plans on P = this .. -n only (each P in a job of its "
                  "own keeps waiting ranks off a small machine's cores)")
      ->capture_default_str()
      ->check(CLI::Range(2u, 1024u));
  Cmd->add_option("-o,--output", O->Output,
                  "write the parameters file (YAML), whole or not at all");
  Cmd->add_option("--fit", O->Fit,
                  "the parameters to fit, comma-separated (default alpha, "
                  "beta, gamma, overhead, overhead_per_byte, and alpha_intra, "
                  "beta_intra across nodes); the others keep their defaults")
      ->delimiter(',')
      ->check(CLI::IsMember(fittableKeys()));
  Cmd->add_option("--timings", O->Timings,
                  "fit (or --evaluate) the timings saved by an earlier "
                  "calibrate --format json on one node instead of running "
                  "plans");
  Cmd->add_option("--evaluate", O->Evaluate,
                  "time the plans and compare with this parameters file's "
                  "predictions instead of fitting");
  Cmd->add_option("--datatype", O->Type, "datatype gamma is measured for")
      ->capture_default_str();
  Cmd->add_option("--op", O->Op, "reduction operator gamma is measured for")
      ->capture_default_str();
  Cmd->add_option("--cores-per-node", O->CoresPerNode,
                  "the cores of the node the ranks share, priced by the "
                  "fit (default: this machine's hardware threads; with "
                  "--timings, the count the file recorded; 0: off)")
      ->check(CLI::Range(0.0, 1e6));
  addTimeoutOption(*Cmd, O->TimeoutSeconds);
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runCalibrate(*O); });
}

} // namespace collplan::cli
