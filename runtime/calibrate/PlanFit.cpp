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
  double Typical =
      Key == "alpha_intra" || Key == "overhead" || Key == "alpha_large"
          ? Defaults.Alpha
      : Key == "beta_intra" || Key == "overhead_per_byte" || Key == "beta_large"
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

namespace {

/// The descent, the overhead's several starts and the polish, over one set
/// of keys (fitPlanTimings).
class PlanFitter {
public:
  PlanFitter(llvm::ArrayRef<Plan> Plans, llvm::ArrayRef<PlanTiming> Timings)
      : Plans(Plans), Timings(Timings) {}

  /// Sum over the timings of |predicted/measured - 1|.
  double objective(const CostParams &C) const {
    double Sum = 0;
    for (const PlanTiming &T : Timings)
      if (T.Seconds > 0) {
        double R = modelTime(Plans[T.Plan], T.Bytes, C) / T.Seconds - 1;
        Sum += std::fabs(R);
      }
    return Sum;
  }

  /// One descent from X: linearise along the current critical paths, solve,
  /// repeat; the best point seen wins (a step can cross a kink).
  std::pair<CostParams, double> descend(CostParams X,
                                        llvm::ArrayRef<std::string> Keys) {
    CostParams Best = X;
    double BestObjective = objective(X);
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
      double Obj = objective(X);
      if (Obj < BestObjective) {
        BestObjective = Obj;
        Best = X;
      }
      if (Change < 1e-9)
        break;
    }
    return {Best, BestObjective};
  }

  /// Where the fit sits on a kink the linearisation cannot see past (a
  /// term that binds for some timings and not others), a pattern search
  /// moves each parameter up and down by a shrinking factor, or from 0 to a
  /// small fraction of its typical value, keeping what lowers the
  /// objective.
  std::pair<CostParams, double> polish(std::pair<CostParams, double> Start,
                                       llvm::ArrayRef<std::string> Keys) const {
    auto [X, Obj] = Start;
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
            double MovedObj = objective(Moved);
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
    return {X, Obj};
  }

  /// The least-squares keys (every key but the threshold) from Given.
  std::pair<CostParams, double> fit(const CostParams &Given,
                                    llvm::ArrayRef<std::string> Keys) {
    auto Fits = [&](llvm::StringRef Key) {
      return llvm::is_contained(Keys, Key);
    };
    std::pair<CostParams, double> Best = descend(Given, Keys);
    // Terms inside a max (a rank's overhead against its messages' arrivals)
    // have no slope where they do not bind, so a descent started with one
    // at 0 never moves it, and one started with it too small never sees it
    // bind. So: fit without the overhead terms first, then start again from
    // that fit with the overhead at several fractions of the wire's alpha
    // and beta, the wire as fitted or a quarter of it. The best end wins.
    if (Fits("overhead") || Fits("overhead_per_byte")) {
      std::vector<std::string> WireKeys;
      for (const std::string &K : Keys)
        if (K != "overhead" && K != "overhead_per_byte")
          WireKeys.push_back(K);
      CostParams Wire = WireKeys.empty() ? Given : fit(Given, WireKeys).first;
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
          std::pair<CostParams, double> End = descend(From, Keys);
          if (End.second < Best.second)
            Best = End;
        }
    }
    return polish(Best, Keys);
  }

  unsigned Iterations = 0;

private:
  llvm::ArrayRef<Plan> Plans;
  llvm::ArrayRef<PlanTiming> Timings;
};

/// The thresholds worth trying for large_message_bytes: the powers of two
/// from the smallest non-empty message of the timings' plans to below their
/// largest, so each candidate puts some messages on either side. The
/// calibration's sizes are powers of two and its plans split them in powers
/// of two, so these separate every pair of sizes they have.
std::vector<double> thresholdCandidates(llvm::ArrayRef<Plan> Plans,
                                        llvm::ArrayRef<PlanTiming> Timings,
                                        uint32_t ElementBytes) {
  double Smallest = INFINITY, Largest = 0;
  for (const PlanTiming &T : Timings) {
    const Plan &P = Plans[T.Plan];
    MessageBytes Size(P.Header, T.Bytes, ElementBytes);
    for (const Program &Prog : P.Programs)
      for (const Round &Rd : Prog.Rounds)
        for (const Op &O : Rd.Ops)
          if (O.Kind == OpKind::Send) {
            double B = Size.of(O.Blocks);
            if (B > 0) {
              Smallest = std::min(Smallest, B);
              Largest = std::max(Largest, B);
            }
          }
  }
  std::vector<double> Out;
  for (double T = 1; T < Largest; T *= 2)
    if (T >= Smallest)
      Out.push_back(T);
  return Out;
}

} // namespace

double medianRelativeResidual(llvm::ArrayRef<PlanTiming> Timings,
                              llvm::ArrayRef<double> Predicted) {
  std::vector<double> R;
  for (size_t I = 0; I < Timings.size(); ++I)
    if (Timings[I].Seconds > 0)
      R.push_back(std::fabs(Predicted[I] / Timings[I].Seconds - 1));
  if (R.empty())
    return 0;
  std::sort(R.begin(), R.end());
  size_t N = R.size();
  return N % 2 ? R[N / 2] : (R[N / 2 - 1] + R[N / 2]) / 2;
}

namespace {

/// The keys of one size range of CostParams: its threshold, alpha and beta.
struct SizeRange {
  const char *Bytes, *Alpha, *Beta;
};
constexpr SizeRange MediumRange = {"medium_message_bytes", "alpha_medium",
                                   "beta_medium"};
constexpr SizeRange LargeRange = {"large_message_bytes", "alpha_large",
                                  "beta_large"};

double &field(CostParams &P, const char *Key) {
  return *costParamField(P, Key);
}

/// Prices the messages above Threshold in Range, starting from the alpha
/// and beta they had: From's own price for them.
CostParams splitAt(CostParams From, const SizeRange &Range, double Threshold) {
  double Alpha = From.alphaFor(false, Threshold + 1);
  double Beta = From.betaFor(false, Threshold + 1);
  field(From, Range.Bytes) = Threshold;
  field(From, Range.Alpha) = Alpha;
  field(From, Range.Beta) = Beta;
  return From;
}

} // namespace

PlanFitResult fitPlanTimings(llvm::ArrayRef<Plan> Plans,
                             llvm::ArrayRef<PlanTiming> Timings,
                             const CostParams &Start,
                             llvm::ArrayRef<std::string> Keys) {
  PlanFitter Fitter(Plans, Timings);
  CostParams Given = Start;
  auto Fits = [&](llvm::StringRef Key) {
    return llvm::is_contained(Keys, Key);
  };
  // The intra-node and size-range fields are "unset" when negative; a fit
  // of them starts at the values they stand in for.
  if (Fits("alpha_intra") && Given.AlphaIntra < 0)
    Given.AlphaIntra = Given.Alpha;
  if (Fits("beta_intra") && Given.BetaIntra < 0)
    Given.BetaIntra = Given.Beta;
  for (const SizeRange &R : {MediumRange, LargeRange}) {
    if (Fits(R.Alpha) && field(Given, R.Alpha) < 0)
      field(Given, R.Alpha) = Given.Alpha;
    if (Fits(R.Beta) && field(Given, R.Beta) < 0)
      field(Given, R.Beta) = Given.Beta;
  }
  // The thresholds are steps, no slope: chosen from candidates, the rest
  // by least squares. A range whose threshold is fitted starts off.
  std::vector<const SizeRange *> Searched;
  for (const SizeRange *R : {&LargeRange, &MediumRange})
    if (Fits(R->Bytes)) {
      Searched.push_back(R);
      field(Given, R->Bytes) = 0;
    }
  // The keys the least squares fits with no range, and with every range.
  std::vector<std::string> Plain, Squares;
  for (const std::string &K : Keys) {
    bool Threshold = K == MediumRange.Bytes || K == LargeRange.Bytes;
    bool OfSearched = false;
    for (const SizeRange *R : Searched)
      OfSearched |= K == R->Alpha || K == R->Beta;
    if (!Threshold)
      Squares.push_back(K);
    if (!Threshold && !OfSearched)
      Plain.push_back(K);
  }
  std::vector<ThresholdTrial> Trials;
  auto Record = [&](const CostParams &X) {
    std::vector<double> Predicted = predictTimings(Plans, Timings, X);
    ThresholdTrial T;
    T.Medium = X.MediumMessageBytes;
    T.Large = X.LargeMessageBytes;
    relativeResiduals(Timings, Predicted, T.Rms, T.Max);
    T.Median = medianRelativeResidual(Timings, Predicted);
    Trials.push_back(T);
  };
  std::pair<CostParams, double> Best = Fitter.fit(Given, Plain);
  if (!Searched.empty()) {
    // Greedily: the best one split (as the first searched range), then the
    // best second split, below the first or above it (the first then
    // becomes the medium range). Each candidate starts its range's alpha
    // and beta at the price they had, and fits every least-squares key
    // again. A split is kept only where it lowers the sum of relative
    // errors by more than 1e-6 a timing: not for rounding.
    double Margin = 1e-6 * double(Timings.size());
    std::vector<double> Candidates =
        thresholdCandidates(Plans, Timings, Given.ElementBytes);
    Record(Best.first);
    auto Refit = [&](const CostParams &From) {
      std::pair<CostParams, double> End =
          Fitter.polish(Fitter.descend(From, Squares), Squares);
      Record(End.first);
      return End;
    };
    const std::pair<CostParams, double> Off = Best;
    for (double T : Candidates) {
      std::pair<CostParams, double> End =
          Refit(splitAt(Off.first, *Searched.front(), T));
      if (End.second < Best.second && End.second < Off.second - Margin)
        Best = End;
    }
    const std::pair<CostParams, double> One = Best;
    CostParams OneParams = One.first;
    double First = field(OneParams, Searched.front()->Bytes);
    if (Searched.size() == 2 && First > 0)
      for (double T : Candidates) {
        if (T == First)
          continue;
        CostParams From = One.first;
        if (T > First) {
          // The first split becomes the medium range, T the large one.
          From = splitAt(One.first, MediumRange, First);
          From.LargeMessageBytes = 0;
          From = splitAt(From, LargeRange, T);
        } else {
          From = splitAt(From, MediumRange, T);
        }
        std::pair<CostParams, double> End = Refit(From);
        if (End.second < Best.second && End.second < One.second - Margin)
          Best = End;
      }
  }
  PlanFitResult Result;
  Result.Params = Best.first;
  Result.Thresholds = std::move(Trials);
  Result.Iterations = Fitter.Iterations;
  Result.Predicted = predictTimings(Plans, Timings, Result.Params);
  relativeResiduals(Timings, Result.Predicted, Result.RmsRelativeResidual,
                    Result.MaxRelativeResidual);
  return Result;
}

} // namespace collplan::runtime
