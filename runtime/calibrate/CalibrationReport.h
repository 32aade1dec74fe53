//===- CalibrationReport.h - What calibration found, three ways -*- C++ -*-===//
//
// A Calibration as a table, as JSON, and as the cost parameters file that
// `--params` reads (compiler/cost/CostParamsFile.h). collplan calibrate and
// collplan_calibrate_mpi print and write the same.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_CALIBRATIONREPORT_H
#define COLLPLAN_RUNTIME_CALIBRATE_CALIBRATIONREPORT_H

#include "compiler/cost/CostParams.h"
#include "runtime/calibrate/Calibrate.h"

#include "llvm/Support/raw_ostream.h"

namespace collplan::runtime {

/// The fitted (or evaluated) parameters; alpha_intra and beta_intra only
/// when the job spanned nodes.
CostParams toCostParams(const Calibration &C);

/// Every timing with its prediction, each plan's residuals, the parameters.
void printCalibrationTable(llvm::raw_ostream &OS, const Calibration &C);
void printCalibrationJson(llvm::raw_ostream &OS, const Calibration &C,
                          llvm::StringRef ParamsFile);

/// The timings of a calibration printed as JSON (printCalibrationJson) on
/// one node, their plans built again by Plans on one node of their ranks
/// (with the cores it recorded, 0 when it did not): fitting them anew
/// (fitCalibration) compares models on the same measurements.
llvm::Expected<Calibration> readCalibrationTimings(llvm::StringRef Json,
                                                   llvm::StringRef Name,
                                                   const PlanSource &Plans);

/// Writes the fitted keys to the parameters file whole or not at all (Io
/// error otherwise).
llvm::Error writeCalibration(llvm::StringRef Path, const Calibration &C);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_CALIBRATIONREPORT_H
