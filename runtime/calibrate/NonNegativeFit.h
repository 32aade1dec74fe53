//===- NonNegativeFit.h - Weighted least squares, x >= 0 --------*- C++ -*-===//
//
// The one least-squares solver calibration uses: min sum_s w_s (a_s . x -
// t_s)^2 subject to x >= 0, for the few unknowns of the cost model (alpha,
// beta, gamma and their intra-node variants: at most a handful). A cost
// cannot be negative, and noise on a loaded machine can tilt an
// unconstrained fit below zero; the constrained optimum lies on a face of
// the orthant, so every subset of free unknowns is solved and the best
// feasible one kept (2^k solves of a k x k system: exact, and cheap for k
// this small).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_NONNEGATIVEFIT_H
#define COLLPLAN_RUNTIME_CALIBRATE_NONNEGATIVEFIT_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace collplan::runtime {

/// One observation: t = Coefficients . x, with weight Weight.
struct LinearSample {
  std::vector<double> Coefficients;
  double Target = 0;
  double Weight = 1;
};

/// The non-negative x minimising the weighted squared residuals, of the
/// samples' width (at most 16 unknowns); all zeros when no sample constrains
/// anything. Unknowns no sample uses stay 0.
std::vector<double> fitNonNegative(llvm::ArrayRef<LinearSample> Samples);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_NONNEGATIVEFIT_H
