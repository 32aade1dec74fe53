//===- PlanFit.h - Cost parameters fitted to plans' times -------*- C++ -*-===//
//
// The model's time for a plan is a critical path over the plan's rounds
// (compiler/cost/CostModel.h): a sum, along that path, of alpha, beta * bytes
// and gamma * reduced bytes. Along a fixed path it is linear in the
// parameters, T(x) = a . x; the path itself can change with x (where ranks
// wait on different partners), so the fit alternates: take a (the partial
// derivatives of the model at the current x, exact where the path is fixed),
// solve the weighted non-negative least squares for x, and repeat until x
// settles. The fit minimises the sum of relative errors |T(x)/t - 1|, by
// least squares weighted 1 / (t^2 |r|) with r the last step's relative error
// (iteratively reweighted least squares): relative, so small messages decide
// alpha and large ones beta (an unweighted fit would let the megabyte sizes
// decide everything); absolute rather than squared, so the timings a shared
// machine spoiled (2x and more, here) do not pull the others off: the
// fidelity targets are medians.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_PLANFIT_H
#define COLLPLAN_RUNTIME_CALIBRATE_PLANFIT_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Plan.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan::runtime {

/// One measured point: plan Plan (an index into the plans) on a vector of
/// Bytes bytes took Seconds per call.
struct PlanTiming {
  uint32_t Plan = 0;
  uint64_t Bytes = 0;
  double Seconds = 0;
};

/// One candidate of a fit of the size ranges' thresholds: the thresholds
/// (0: off) and the relative residuals of the best fit with them.
struct ThresholdTrial {
  double Medium = 0, Large = 0;
  double Rms = 0, Max = 0, Median = 0;
};

struct PlanFitResult {
  /// The start with the fitted keys replaced.
  CostParams Params;
  /// When a threshold was fitted: the fit without a split, then with each
  /// candidate for one split, then for a second one, in the order tried.
  std::vector<ThresholdTrial> Thresholds;
  /// The model's time for each timing under Params.
  std::vector<double> Predicted;
  /// Over the timings: root mean square and largest |predicted/measured-1|.
  double RmsRelativeResidual = 0, MaxRelativeResidual = 0;
  unsigned Iterations = 0;
};

/// The model's prediction for each timing under Params.
std::vector<double> predictTimings(llvm::ArrayRef<Plan> Plans,
                                   llvm::ArrayRef<PlanTiming> Timings,
                                   const CostParams &Params);

/// Fits the fields Keys names (costParamField's keys: alpha, beta, gamma,
/// alpha_intra, beta_intra, overhead, overhead_per_byte and the size
/// ranges' alpha and beta by least squares; medium_message_bytes and
/// large_message_bytes from the powers of two between the plans' smallest
/// and largest messages, one split and then a second) to Timings, starting
/// from Start (which also gives every other field, ElementBytes included).
/// Timings of no positive time are ignored.
PlanFitResult fitPlanTimings(llvm::ArrayRef<Plan> Plans,
                             llvm::ArrayRef<PlanTiming> Timings,
                             const CostParams &Start,
                             llvm::ArrayRef<std::string> Keys);

/// Root mean square and largest |Predicted/Measured - 1| over the timings.
void relativeResiduals(llvm::ArrayRef<PlanTiming> Timings,
                       llvm::ArrayRef<double> Predicted, double &Rms,
                       double &Max);

/// The median |Predicted/Measured - 1| over the timings.
double medianRelativeResidual(llvm::ArrayRef<PlanTiming> Timings,
                              llvm::ArrayRef<double> Predicted);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_PLANFIT_H
