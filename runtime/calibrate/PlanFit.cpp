//===- PlanFit.cpp - Cost parameters fitted to plans' times ---------------===//

#include "runtime/calibrate/PlanFit.h"

#include "compiler/cost/CostModel.h"
#include "compiler/cost/CostParamsFile.h"
#include "runtime/calibrate/NonNegativeFit.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

namespace collplan::runtime {
namespace {

double modelTime(const Plan &P, uint64_t Bytes, const CostParams &C) {
  return evaluateCost(P, Bytes, C).Time;
}

/// A step for the finite difference of a parameter near Value: small
/// against the parameter, or against its default when the fit has put it
/// at 0. The model is piecewise linear, so a step inside the current piece
/// gives the exact slope.
double stepFor(const std::string &Key, double Value) {
  CostParams Defaults;
  double Typical = Key == "alpha_intra"  ? Defaults.Alpha
                   : Key == "beta_intra" ? Defaults.Beta
                                         : *costParamField(Defaults, Key);
  return 1e-6 * std::max(Value, Typical);
}

} // namespace

std::vector<double> predictTimings(llvm::ArrayRef<Plan> Plans,
                                   llvm::ArrayRef<PlanTiming> Timings,
                                   const CostParams &Params) {
  std::vector<double> Out;
  Out.reserve(Timings.size());
  for (const PlanTiming &T : Timings)
    Out.push_back(modelTime(Plans[T.Plan], T.Bytes, Params));
  return Out;
}

void relativeResiduals(llvm::ArrayRef<PlanTiming> Timings,
                       llvm::ArrayRef<double> Predicted, double &Rms,
                       double &Max) {
  double Sum = 0;
  size_t N = 0;
  Max = 0;
  for (size_t I = 0; I < Timings.size(); ++I) {
    if (Timings[I].Seconds <= 0)
      continue;
    double R = Predicted[I] / Timings[I].Seconds - 1;
    Sum += R * R;
    Max = std::max(Max, std::fabs(R));
    ++N;
  }
  Rms = N ? std::sqrt(Sum / double(N)) : 0;
}

PlanFitResult fitPlanTimings(llvm::ArrayRef<Plan> Plans,
                             llvm::ArrayRef<PlanTiming> Timings,
                             const CostParams &Start,
                             llvm::ArrayRef<std::string> Keys) {
  PlanFitResult Result;
  CostParams X = Start;
  // The intra-node fields are "unset" when negative; a fit of them starts
  // at the values they stand in for.
  auto Fits = [&](llvm::StringRef Key) {
    return llvm::is_contained(Keys, Key);
  };
  if (Fits("alpha_intra") && X.AlphaIntra < 0)
    X.AlphaIntra = X.Alpha;
  if (Fits("beta_intra") && X.BetaIntra < 0)
    X.BetaIntra = X.Beta;
  auto Objective = [&](const CostParams &C) {
    double Sum = 0;
    for (const PlanTiming &T : Timings)
      if (T.Seconds > 0) {
        double R = modelTime(Plans[T.Plan], T.Bytes, C) / T.Seconds - 1;
        Sum += R * R;
      }
    return Sum;
  };
  CostParams Best = X;
  double BestObjective = Objective(X);
  for (unsigned Iter = 0; Iter < 20; ++Iter) {
    std::vector<LinearSample> Samples;
    for (const PlanTiming &T : Timings) {
      if (T.Seconds <= 0)
        continue;
      const Plan &P = Plans[T.Plan];
      double Here = modelTime(P, T.Bytes, X);
      LinearSample S;
      S.Target = T.Seconds;
      S.Weight = 1 / (T.Seconds * T.Seconds);
      // The slope of each fitted parameter, and the time the others
      // account for (the part of the model the fit cannot change).
      double Fixed = Here;
      for (const std::string &Key : Keys) {
        CostParams Moved = X;
        double *F = costParamField(Moved, Key);
        double H = stepFor(Key, *F);
        *F += H;
        double Slope = (modelTime(P, T.Bytes, Moved) - Here) / H;
        S.Coefficients.push_back(Slope);
        Fixed -= Slope * *costParamField(X, Key);
      }
      S.Target -= std::max(Fixed, 0.0);
      Samples.push_back(std::move(S));
    }
    std::vector<double> Solution = fitNonNegative(Samples);
    CostParams Next = X;
    double Change = 0;
    for (size_t I = 0; I < Keys.size(); ++I) {
      double *F = costParamField(Next, Keys[I]);
      double Old = *F;
      *F = Solution.empty() ? Old : Solution[I];
      Change =
          std::max(Change, std::fabs(*F - Old) / std::max({Old, *F, 1e-300}));
    }
    X = Next;
    Result.Iterations = Iter + 1;
    double Obj = Objective(X);
    if (Obj < BestObjective) {
      BestObjective = Obj;
      Best = X;
    }
    if (Change < 1e-9)
      break;
  }
  Result.Params = Best;
  Result.Predicted = predictTimings(Plans, Timings, Best);
  relativeResiduals(Timings, Result.Predicted, Result.RmsRelativeResidual,
                    Result.MaxRelativeResidual);
  return Result;
}

} // namespace collplan::runtime
