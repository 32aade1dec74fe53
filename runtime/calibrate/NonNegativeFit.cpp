//===- NonNegativeFit.cpp - Weighted least squares, x >= 0 ----------------===//

#include "runtime/calibrate/NonNegativeFit.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace collplan::runtime {
namespace {

/// Solves the square system M y = B by Gaussian elimination with partial
/// pivoting; nullopt when it is singular.
std::optional<std::vector<double>> solve(std::vector<std::vector<double>> M,
                                         std::vector<double> B) {
  size_t N = B.size();
  for (size_t Col = 0; Col < N; ++Col) {
    size_t Pivot = Col;
    for (size_t Row = Col + 1; Row < N; ++Row)
      if (std::fabs(M[Row][Col]) > std::fabs(M[Pivot][Col]))
        Pivot = Row;
    if (std::fabs(M[Pivot][Col]) < 1e-12)
      return std::nullopt;
    std::swap(M[Col], M[Pivot]);
    std::swap(B[Col], B[Pivot]);
    for (size_t Row = Col + 1; Row < N; ++Row) {
      double F = M[Row][Col] / M[Col][Col];
      for (size_t K = Col; K < N; ++K)
        M[Row][K] -= F * M[Col][K];
      B[Row] -= F * B[Col];
    }
  }
  std::vector<double> Y(N);
  for (size_t Row = N; Row-- > 0;) {
    double S = B[Row];
    for (size_t K = Row + 1; K < N; ++K)
      S -= M[Row][K] * Y[K];
    Y[Row] = S / M[Row][Row];
  }
  return Y;
}

double objective(llvm::ArrayRef<LinearSample> Samples,
                 const std::vector<double> &X) {
  double Sum = 0;
  for (const LinearSample &S : Samples) {
    double Fit = 0;
    for (size_t I = 0; I < X.size(); ++I)
      Fit += S.Coefficients[I] * X[I];
    Sum += S.Weight * (Fit - S.Target) * (Fit - S.Target);
  }
  return Sum;
}

} // namespace

std::vector<double> fitNonNegative(llvm::ArrayRef<LinearSample> Samples) {
  size_t K = Samples.empty() ? 0 : Samples.front().Coefficients.size();
  assert(K <= 16 && "a handful of unknowns");
  // Columns differ by orders of magnitude (alpha ~ 1e-6 s per message,
  // beta ~ 1e-10 s per byte): each is scaled to unit weighted norm so the
  // normal equations stay well conditioned.
  std::vector<double> Scale(K, 0);
  for (const LinearSample &S : Samples)
    for (size_t I = 0; I < K; ++I)
      Scale[I] += S.Weight * S.Coefficients[I] * S.Coefficients[I];
  for (double &C : Scale)
    C = std::sqrt(C);
  std::vector<double> Best(K, 0);
  double BestObjective = objective(Samples, Best);
  for (unsigned Subset = 1; Subset < (1u << K); ++Subset) {
    std::vector<size_t> Free;
    for (size_t I = 0; I < K; ++I)
      if (Subset >> I & 1) {
        if (Scale[I] == 0)
          break; // an unused unknown stays 0
        Free.push_back(I);
      }
    if (Free.size() != size_t(__builtin_popcount(Subset)))
      continue;
    size_t N = Free.size();
    std::vector<std::vector<double>> M(N, std::vector<double>(N, 0));
    std::vector<double> B(N, 0);
    for (const LinearSample &S : Samples)
      for (size_t I = 0; I < N; ++I) {
        double Ai = S.Coefficients[Free[I]] / Scale[Free[I]];
        B[I] += S.Weight * Ai * S.Target;
        for (size_t J = 0; J < N; ++J)
          M[I][J] += S.Weight * Ai * S.Coefficients[Free[J]] / Scale[Free[J]];
      }
    std::optional<std::vector<double>> Y = solve(std::move(M), std::move(B));
    if (!Y)
      continue;
    std::vector<double> X(K, 0);
    bool Feasible = true;
    for (size_t I = 0; I < N; ++I) {
      X[Free[I]] = (*Y)[I] / Scale[Free[I]];
      Feasible = Feasible && X[Free[I]] >= 0;
    }
    if (!Feasible)
      continue;
    double Obj = objective(Samples, X);
    if (Obj < BestObjective) {
      BestObjective = Obj;
      Best = std::move(X);
    }
  }
  return Best;
}

} // namespace collplan::runtime
