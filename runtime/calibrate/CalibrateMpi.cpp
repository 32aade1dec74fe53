//===- CalibrateMpi.cpp - collplan calibrate over MPI ---------------------===//
//
//   mpirun -n P collplan_calibrate_mpi [-o params.yaml | --evaluate FILE]
//                          [--format json] [--datatype float] [--op sum]
//
// The same fit as `collplan calibrate -n P`, the plans run by the executor
// on the MPI library's point-to-point path (runtime/mpi/MpiTransport)
// instead of collplan's TCP transport. A separate program rather than `collplan
// calibrate --transport mpi`: collplan itself does not link MPI, and mpirun is
// how users start MPI jobs across nodes anyway. Rank 0 prints and writes; exit
// codes as collplan's (2 bad usage, 4 cannot write, 5 runtime).
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostParamsFile.h"
#include "compiler/select/CalibrationPlans.h"
#include "runtime/calibrate/CalibrationReport.h"
#include "runtime/mpi/MpiTransport.h"

#include "plan/ir/Error.h"

#include <CLI/CLI.hpp>
#include <mpi.h>

#include <iostream>

using namespace collplan;
using namespace collplan::runtime;

int main(int Argc, char **Argv) {
  CLI::App App("Fit alpha, beta and gamma to plans timed over MPI on P = 2 "
               "up to the job's ranks; start with mpirun -n P (across nodes "
               "too)");
  std::vector<std::string> Fit;
  uint32_t MinRanks = 2;
  std::optional<double> CoresPerNode;
  std::string Output, Evaluate, Format = "text", Type = "float", Op = "sum";
  App.add_option("-o,--output", Output, "write the parameters file (YAML)");
  App.add_option("--fit", Fit,
                 "the parameters to fit, comma-separated (default: alpha, "
                 "beta, gamma, overhead, overhead_per_byte; alpha_intra, "
                 "beta_intra across nodes)")
      ->delimiter(',')
      ->check(CLI::IsMember(fittableKeys()));
  App.add_option("--min-ranks", MinRanks,
                 "time plans on P = this .. the job's ranks only")
      ->check(CLI::Range(2u, 1u << 20));
  App.add_option("--cores-per-node", CoresPerNode,
                 "the cores of each node, priced by the fit (default: rank "
                 "0's machine's hardware threads; 0: off)")
      ->check(CLI::Range(0.0, 1e6));
  App.add_option("--evaluate", Evaluate,
                 "compare this parameters file's predictions with the times "
                 "instead of fitting");
  App.add_option("--format", Format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  App.add_option("--datatype", Type, "datatype gamma is measured for");
  App.add_option("--op", Op, "reduction operator gamma is measured for");
  MPI_Init(&Argc, &Argv);
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    int Code = Rank == 0 ? App.exit(E) : 0;
    MPI_Finalize();
    return Code == 0 ? 0 : 2;
  }
  CalibrateSettings S;
  std::optional<Datatype> T = parseDatatype(Type);
  std::optional<ReduceOp> R = parseReduceOp(Op);
  if (!T || !R || !supports(*T, *R)) {
    if (Rank == 0)
      std::cerr << "collplan_calibrate_mpi: unsupported --datatype/--op '"
                << Type << "' '" << Op << "'\n";
    MPI_Finalize();
    return 2;
  }
  S.Type = *T;
  S.Op = *R;
  S.Keys = Fit;
  S.MinRanks = MinRanks;
  S.CoresPerNode = CoresPerNode;
  if (!Evaluate.empty()) {
    CostParams Given;
    llvm::Error E = Output.empty()
                        ? readCostParamsFile(Evaluate, Given, nullptr)
                        : makeError(ErrorKind::Usage,
                                    "--evaluate writes no parameters (no -o)");
    if (E) {
      ErrorReport Er = takeErrorReport(std::move(E), ErrorKind::Usage);
      if (Rank == 0)
        std::cerr << "collplan_calibrate_mpi: " << Er.Message << "\n";
      MPI_Finalize();
      return 2;
    }
    S.Evaluate = Given;
  }
  S.Progress = [](const std::string &Line) {
    std::cerr << "collplan_calibrate_mpi: " << Line << "\n";
  };
  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  int Exit = 0;
  {
    int Size = 0;
    MPI_Comm_size(Comm, &Size);
    if (Size < 2) {
      if (Rank == 0)
        std::cerr << "collplan_calibrate_mpi: needs at least 2 ranks "
                     "(mpirun -n 2)\n";
      Exit = 2;
    } else {
      MpiTransport Tr(Comm);
      llvm::Expected<Calibration> C = calibrate(Tr, "mpi", calibrationPlans, S);
      if (!C) {
        ErrorReport E = takeErrorReport(C.takeError(), ErrorKind::Runtime);
        std::cerr << "collplan_calibrate_mpi: " << E.Message << "\n";
        Exit = int(E.Kind);
      } else if (Rank == 0) {
        if (!Output.empty())
          if (llvm::Error E = writeCalibration(Output, *C)) {
            ErrorReport Er = takeErrorReport(std::move(E), ErrorKind::Io);
            std::cerr << "collplan_calibrate_mpi: " << Er.Message << "\n";
            Exit = int(Er.Kind);
          }
        if (Exit == 0) {
          if (Format == "json")
            printCalibrationJson(llvm::outs(), *C, Output);
          else
            printCalibrationTable(llvm::outs(), *C);
          llvm::outs().flush();
        }
      }
    }
  }
  MPI_Comm_free(&Comm);
  MPI_Finalize();
  return Exit;
}
