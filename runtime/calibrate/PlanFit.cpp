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
  double Typical = Key == "alpha_intra" || Key == "overhead" ? Defaults.Alpha
                   : Key == "beta_intra" || Key == "overhead_per_byte"
                       ? Defaults.Beta
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
  auto Objective = [&](const CostParams &C) {
    double Sum = 0;
    for (const PlanTiming &T : Timings)
      if (T.Seconds > 0) {
        double R = modelTime(Plans[T.Plan], T.Bytes, C) / T.Seconds - 1;
        Sum += std::fabs(R);
      }
    return Sum;
  };
  // One descent from X: linearise along the current critical paths, solve,
  // repeat; the best point seen wins (a step can cross a kink).
  unsigned Iterations = 0;
  auto Descend = [&](CostParams X) {
    CostParams Best = X;
    double BestObjective = Objective(X);
    for (unsigned Iter = 0; Iter < 20; ++Iter, ++Iterations) {
      std::vector<LinearSample> Samples;
      for (const PlanTiming &T : Timings) {
        if (T.Seconds <= 0)
          continue;
        const Plan &P = Plans[T.Plan];
        double Here = modelTime(P, T.Bytes, X);
        LinearSample S;
        S.Target = T.Seconds;
        // Iteratively reweighted: 1 / (t^2 |r|) makes the least squares
        // step minimise sum |r| (r = Here / t - 1) at its fixed point.
        S.Weight = 1 / (T.Seconds * T.Seconds *
                        std::max(std::fabs(Here / T.Seconds - 1), 0.01));
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
      double Change = 0;
      for (size_t I = 0; I < Keys.size() && !Solution.empty(); ++I) {
        double *F = costParamField(X, Keys[I]);
        Change = std::max(Change, std::fabs(Solution[I] - *F) /
                                      std::max({*F, Solution[I], 1e-300}));
        *F = Solution[I];
      }
      double Obj = Objective(X);
      if (Obj < BestObjective) {
        BestObjective = Obj;
        Best = X;
      }
      if (Change < 1e-9)
        break;
    }
    return std::make_pair(Best, BestObjective);
  };
  // Terms inside a max (a rank's overhead against its messages' arrivals)
  // have no slope where they do not bind, so a descent started with one at
  // 0 never moves it, and one started with it too small never sees it bind.
  // So: fit without the overhead terms first, then start again from that
  // fit with the overhead at several fractions of the wire's alpha and
  // beta, the wire as fitted or a quarter of it. The best end wins.
  CostParams Given = Start;
  auto Fits = [&](llvm::StringRef Key) {
    return llvm::is_contained(Keys, Key);
  };
  // The intra-node fields are "unset" when negative; a fit of them starts
  // at the values they stand in for.
  if (Fits("alpha_intra") && Given.AlphaIntra < 0)
    Given.AlphaIntra = Given.Alpha;
  if (Fits("beta_intra") && Given.BetaIntra < 0)
    Given.BetaIntra = Given.Beta;
  std::pair<CostParams, double> Best = Descend(Given);
  if (Fits("overhead") || Fits("overhead_per_byte")) {
    std::vector<std::string> WireKeys;
    for (const std::string &K : Keys)
      if (K != "overhead" && K != "overhead_per_byte")
        WireKeys.push_back(K);
    CostParams Wire =
        WireKeys.empty()
            ? Given
            : fitPlanTimings(Plans, Timings, Given, WireKeys).Params;
    double Alpha = std::max(Wire.Alpha, stepFor("alpha", 0) * 1e6);
    double Beta = std::max(Wire.Beta, stepFor("beta", 0) * 1e6);
    for (double WireShare : {1.0, 0.25})
      for (double Share : {0.25, 0.5, 0.75, 1.0, 1.5}) {
        CostParams From = Wire;
        for (const std::string &K : WireKeys)
          if (K != "gamma")
            *costParamField(From, K) *= WireShare;
        if (Fits("overhead"))
          From.Overhead = Share * Alpha;
        if (Fits("overhead_per_byte"))
          From.OverheadPerByte = Share * Beta;
        std::pair<CostParams, double> End = Descend(From);
        if (End.second < Best.second)
          Best = End;
      }
  }
  // Polish: where the fit sits on a kink the linearisation cannot see past
  // (a term that binds for some timings and not others), a pattern search
  // moves each parameter up and down by a shrinking factor, or from 0 to a
  // small fraction of its typical value, keeping what lowers the objective.
  CostParams X = Best.first;
  double Obj = Best.second;
  for (double Factor = 0.5; Factor > 1e-4; Factor /= 2) {
    bool Improved = true;
    for (unsigned Sweep = 0; Improved && Sweep < 20; ++Sweep) {
      Improved = false;
      for (const std::string &Key : Keys) {
        double Here = *costParamField(X, Key);
        double Floor = stepFor(Key, 0) * 1e6 * Factor;
        for (double Try :
             {Here * (1 + Factor), Here * (1 - Factor), Here + Floor}) {
          CostParams Moved = X;
          *costParamField(Moved, Key) = std::max(Try, 0.0);
          double MovedObj = Objective(Moved);
          if (MovedObj < Obj * (1 - 1e-12)) {
            X = Moved;
            Obj = MovedObj;
            Improved = true;
            break;
          }
        }
      }
    }
  }
  PlanFitResult Result;
  Result.Params = X;
  Result.Iterations = Iterations;
  Result.Predicted = predictTimings(Plans, Timings, Result.Params);
  relativeResiduals(Timings, Result.Predicted, Result.RmsRelativeResidual,
                    Result.MaxRelativeResidual);
  return Result;
}

} // namespace collplan::runtime
