//===- CalibrateFitTest.cpp - The fits of collplan calibrate --------------===//
//
// Oracles: the non-negative least squares recovers a noiseless system
// exactly, and where noise tilts the unconstrained fit below zero it returns
// the boundary minimiser, computed here from its closed form. The plan fit
// recovers known alpha, beta and gamma from timings written by hand from the
// plans' textbook times (not from the cost model): on P = 2, ring allreduce
// of m bytes takes 2 alpha + beta m + gamma m / 2 (two rounds of m/2 bytes,
// one of them reducing), recursive doubling alpha + beta m + gamma m, and a
// binomial broadcast alpha + beta m; with a protocol switch each message
// takes the alpha and beta of its own size.
//
//===----------------------------------------------------------------------===//

#include "compiler/select/CalibrationPlans.h"
#include "runtime/calibrate/NonNegativeFit.h"
#include "runtime/calibrate/PlanFit.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;

namespace {

/// t = alpha + beta m, weighted by 1/t^2 (relative error), as samples.
std::vector<LinearSample>
lineSamples(std::initializer_list<std::pair<double, double>> BytesAndSeconds) {
  std::vector<LinearSample> Out;
  for (auto [M, T] : BytesAndSeconds)
    Out.push_back({{1.0, M}, T, 1 / (T * T)});
  return Out;
}

} // namespace

TEST_CASE("a noiseless line is recovered") {
  std::vector<LinearSample> S;
  for (double M : {8.0, 512.0, 65536.0, 4194304.0}) {
    double T = 2e-6 + 1e-9 * M;
    S.push_back({{1.0, M}, T, 1 / (T * T)});
  }
  std::vector<double> X = fitNonNegative(S);
  REQUIRE(X.size() == 2);
  CHECK(X[0] == doctest::Approx(2e-6).epsilon(1e-9));
  CHECK(X[1] == doctest::Approx(1e-9).epsilon(1e-9));
}

TEST_CASE("three unknowns of different scales are recovered") {
  // Columns 1, m and m/2 scaled apart by ten orders of magnitude.
  std::vector<LinearSample> S;
  for (double M : {8.0, 4096.0, 1048576.0})
    for (double Rounds : {1.0, 2.0}) {
      double T = Rounds * 3e-6 + 2e-10 * M + 5e-11 * M / Rounds;
      S.push_back({{Rounds, M, M / Rounds}, T, 1 / (T * T)});
    }
  std::vector<double> X = fitNonNegative(S);
  CHECK(X[0] == doctest::Approx(3e-6).epsilon(1e-7));
  CHECK(X[1] == doctest::Approx(2e-10).epsilon(1e-7));
  CHECK(X[2] == doctest::Approx(5e-11).epsilon(1e-7));
}

TEST_CASE("noise never makes a parameter negative") {
  // Small messages delayed more than large ones (a loaded machine): the
  // unconstrained line falls with size. Beta = 0, alpha = the weighted mean
  // sum(1/t) / sum(1/t^2).
  std::vector<LinearSample> Falling =
      lineSamples({{8, 1e-3}, {4096, 5e-4}, {1 << 20, 4e-4}});
  std::vector<double> X = fitNonNegative(Falling);
  CHECK(X[1] == 0);
  double Num = 0, Den = 0;
  for (const LinearSample &S : Falling) {
    Num += 1 / S.Target;
    Den += 1 / (S.Target * S.Target);
  }
  CHECK(X[0] == doctest::Approx(Num / Den));

  // A line through a negative intercept: alpha = 0, beta = sum(m/t) /
  // sum(m^2/t^2).
  std::vector<LinearSample> Below =
      lineSamples({{1000000, 1e-3 - 1e-7}, {4000000, 4e-3 - 1e-7}});
  X = fitNonNegative(Below);
  CHECK(X[0] == 0);
  Num = Den = 0;
  for (const LinearSample &S : Below) {
    double M = S.Coefficients[1];
    Num += M / S.Target;
    Den += M * M / (S.Target * S.Target);
  }
  CHECK(X[1] == doctest::Approx(Num / Den));
  CHECK(X[1] > 0);
}

TEST_CASE("the plan fit recovers alpha, beta and gamma from hand-computed "
          "timings") {
  llvm::Expected<std::vector<Plan>> Plans = calibrationPlans(Topology::flat(2));
  REQUIRE(bool(Plans));
  auto IndexOf = [&](llvm::StringRef Family) {
    for (uint32_t I = 0; I < Plans->size(); ++I)
      if ((*Plans)[I].Header.Algorithm == Family)
        return I;
    FAIL("no plan of " << Family.str());
    return 0u;
  };
  const double Alpha = 4e-6, Beta = 3e-10, Gamma = 6e-11;
  std::vector<PlanTiming> Timings;
  for (double M : {8.0, 1024.0, 65536.0, 1048576.0, 16777216.0}) {
    uint64_t Bytes = uint64_t(M);
    Timings.push_back(
        {IndexOf("ring"), Bytes, 2 * Alpha + Beta * M + Gamma * M / 2});
    Timings.push_back(
        {IndexOf("recursive-doubling"), Bytes, Alpha + Beta * M + Gamma * M});
    Timings.push_back({IndexOf("binomial"), Bytes, Alpha + Beta * M});
  }
  CostParams Start; // the defaults: alpha 2e-6, beta 1e-10, gamma 2e-11
  PlanFitResult F =
      fitPlanTimings(*Plans, Timings, Start, {"alpha", "beta", "gamma"});
  CHECK(F.Params.Alpha == doctest::Approx(Alpha).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(Beta).epsilon(1e-6));
  CHECK(F.Params.Gamma == doctest::Approx(Gamma).epsilon(1e-6));
  CHECK(F.MaxRelativeResidual < 1e-6);
  REQUIRE(F.Predicted.size() == Timings.size());
  CHECK(F.Predicted[0] == doctest::Approx(Timings[0].Seconds));
  // Fields not fitted keep the start's values.
  CHECK(F.Params.AlphaIntra == Start.AlphaIntra);
  CHECK(F.Params.AlphaHop == Start.AlphaHop);
}

TEST_CASE("the plan fit on P = 4 recovers the parameters the model was "
          "given") {
  // Every calibration plan on 4 ranks, timed by the model itself under
  // known parameters: the fit must find them again from the defaults.
  llvm::Expected<std::vector<Plan>> Plans = calibrationPlans(Topology::flat(4));
  REQUIRE(bool(Plans));
  CostParams Truth;
  Truth.Alpha = 7e-6;
  Truth.Beta = 5e-10;
  Truth.Gamma = 1e-10;
  Truth.ElementBytes = 4;
  std::vector<PlanTiming> Timings;
  for (uint32_t P = 0; P < Plans->size(); ++P)
    for (uint64_t Bytes : {8u, 4096u, 1u << 20, 16u << 20})
      Timings.push_back({P, Bytes, 0});
  std::vector<double> Times = predictTimings(*Plans, Timings, Truth);
  for (size_t I = 0; I < Timings.size(); ++I)
    Timings[I].Seconds = Times[I];
  CostParams Start;
  Start.ElementBytes = 4;
  PlanFitResult F =
      fitPlanTimings(*Plans, Timings, Start, {"alpha", "beta", "gamma"});
  CHECK(F.Params.Alpha == doctest::Approx(Truth.Alpha).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(Truth.Beta).epsilon(1e-6));
  CHECK(F.Params.Gamma == doctest::Approx(Truth.Gamma).epsilon(1e-6));
}

TEST_CASE("the plan fit finds a rank overhead the wire terms cannot "
          "express") {
  // Timings made by the model with a rank overhead that binds on exchange
  // rounds and not on one-way ones: a fit that starts without the overhead
  // (no slope there) must still find it, from its other starts.
  std::vector<Plan> Plans;
  for (uint32_t P : {2u, 4u}) {
    llvm::Expected<std::vector<Plan>> Some =
        calibrationPlans(Topology::flat(P));
    REQUIRE(bool(Some));
    for (Plan &Pl : *Some)
      Plans.push_back(std::move(Pl));
  }
  CostParams Truth;
  Truth.Alpha = 4e-6;
  Truth.Beta = 2e-10;
  Truth.Gamma = 5e-11;
  Truth.Overhead = 3e-6; // 2 o > alpha: binds where a rank sends and receives
  Truth.OverheadPerByte = 1.5e-10;
  Truth.ElementBytes = 4;
  std::vector<PlanTiming> Timings;
  for (uint32_t P = 0; P < Plans.size(); ++P)
    for (uint64_t Bytes : {8u, 1024u, 65536u, 1u << 20, 16u << 20})
      Timings.push_back({P, Bytes, 0});
  std::vector<double> Times = predictTimings(Plans, Timings, Truth);
  for (size_t I = 0; I < Timings.size(); ++I)
    Timings[I].Seconds = Times[I];
  CostParams Start;
  Start.ElementBytes = 4;
  PlanFitResult F = fitPlanTimings(
      Plans, Timings, Start,
      {"alpha", "beta", "gamma", "overhead", "overhead_per_byte"});
  CHECK(F.MaxRelativeResidual < 1e-3);
  CHECK(F.Params.Overhead == doctest::Approx(Truth.Overhead).epsilon(1e-3));
  CHECK(F.Params.OverheadPerByte ==
        doctest::Approx(Truth.OverheadPerByte).epsilon(1e-3));
  // Without the overhead the same timings cannot be met.
  PlanFitResult Wire =
      fitPlanTimings(Plans, Timings, Start, {"alpha", "beta", "gamma"});
  CHECK(Wire.MaxRelativeResidual > 0.1);
}

namespace {

/// Timings of ring, recursive doubling and binomial broadcast on P = 2,
/// written from their textbook times with a message of B bytes costing
/// Message(B) (ring: two rounds of m/2, one reducing; recursive doubling:
/// one exchange of m, reduced; binomial: one message of m).
std::vector<PlanTiming>
textbookTimings(const std::vector<Plan> &Plans, double Gamma,
                const std::function<double(double)> &Message) {
  auto IndexOf = [&](llvm::StringRef Family) {
    for (uint32_t I = 0; I < Plans.size(); ++I)
      if (Plans[I].Header.Algorithm == Family)
        return I;
    FAIL("no plan of " << Family.str());
    return 0u;
  };
  std::vector<PlanTiming> Timings;
  for (double M : {8.0, 1024.0, 4096.0, 8192.0, 16384.0, 65536.0, 1048576.0,
                   2097152.0, 4194304.0, 16777216.0}) {
    uint64_t Bytes = uint64_t(M);
    Timings.push_back(
        {IndexOf("ring"), Bytes, 2 * Message(M / 2) + Gamma * M / 2});
    Timings.push_back(
        {IndexOf("recursive-doubling"), Bytes, Message(M) + Gamma * M});
    Timings.push_back({IndexOf("binomial"), Bytes, Message(M)});
  }
  return Timings;
}

const std::vector<std::string> SizeRangeKeys = {"alpha",
                                                "beta",
                                                "gamma",
                                                "medium_message_bytes",
                                                "alpha_medium",
                                                "beta_medium",
                                                "large_message_bytes",
                                                "alpha_large",
                                                "beta_large"};

} // namespace

TEST_CASE("the plan fit finds a protocol switch and both sides' alpha and "
          "beta") {
  // Eager up to 4 KiB (4 us, 3e-10 s/B), rendezvous above: three times
  // the latency, half the time per byte. The ring's m/2 messages cross the
  // threshold between 8 and 16 KiB, recursive doubling's between 4 and 8.
  llvm::Expected<std::vector<Plan>> Plans = calibrationPlans(Topology::flat(2));
  REQUIRE(bool(Plans));
  const double Alpha = 4e-6, Beta = 3e-10, AlphaL = 1.2e-5, BetaL = 1.5e-10,
               Gamma = 6e-11;
  std::vector<PlanTiming> Timings =
      textbookTimings(*Plans, Gamma, [&](double B) {
        return B > 4096 ? AlphaL + BetaL * B : Alpha + Beta * B;
      });
  CostParams Start;
  PlanFitResult F =
      fitPlanTimings(*Plans, Timings, Start,
                     {"alpha", "beta", "gamma", "large_message_bytes",
                      "alpha_large", "beta_large"});
  // 4096 is the one power of two in [4096, 8192), which every threshold
  // separating these timings' messages alike lies in.
  CHECK(F.Params.LargeMessageBytes == 4096);
  CHECK(F.Params.Alpha == doctest::Approx(Alpha).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(Beta).epsilon(1e-6));
  CHECK(F.Params.AlphaLarge == doctest::Approx(AlphaL).epsilon(1e-6));
  CHECK(F.Params.BetaLarge == doctest::Approx(BetaL).epsilon(1e-6));
  CHECK(F.Params.Gamma == doctest::Approx(Gamma).epsilon(1e-6));
  CHECK(F.MaxRelativeResidual < 1e-6);
  // One alpha and beta cannot meet the same timings.
  PlanFitResult Flat =
      fitPlanTimings(*Plans, Timings, Start, {"alpha", "beta", "gamma"});
  CHECK(Flat.MaxRelativeResidual > 0.1);
}

TEST_CASE("the plan fit finds a protocol and a cache step") {
  // Eager up to 4 KiB; rendezvous above, at 0.15 ns/B while the copy stays
  // in cache; above 1 MiB 0.6 ns/B (memory). One split leaves one of the
  // steps unpriced; the second split finds it.
  llvm::Expected<std::vector<Plan>> Plans = calibrationPlans(Topology::flat(2));
  REQUIRE(bool(Plans));
  const double Gamma = 6e-11;
  std::vector<PlanTiming> Timings =
      textbookTimings(*Plans, Gamma, [](double B) {
        return B > 1048576 ? 1.5e-5 + 6e-10 * B
               : B > 4096  ? 1.2e-5 + 1.5e-10 * B
                           : 4e-6 + 3e-10 * B;
      });
  PlanFitResult F =
      fitPlanTimings(*Plans, Timings, CostParams(), SizeRangeKeys);
  CHECK(F.Params.MediumMessageBytes == 4096);
  CHECK(F.Params.LargeMessageBytes == 1048576);
  CHECK(F.Params.Alpha == doctest::Approx(4e-6).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(3e-10).epsilon(1e-6));
  CHECK(F.Params.AlphaMedium == doctest::Approx(1.2e-5).epsilon(1e-6));
  CHECK(F.Params.BetaMedium == doctest::Approx(1.5e-10).epsilon(1e-6));
  CHECK(F.Params.AlphaLarge == doctest::Approx(1.5e-5).epsilon(1e-6));
  CHECK(F.Params.BetaLarge == doctest::Approx(6e-10).epsilon(1e-6));
  CHECK(F.Params.Gamma == doctest::Approx(Gamma).epsilon(1e-6));
  CHECK(F.MaxRelativeResidual < 1e-6);
  // The trials: no split, each single split, then each second one; the
  // best single split alone misses.
  REQUIRE(!F.Thresholds.empty());
  CHECK(F.Thresholds.front().Medium == 0);
  CHECK(F.Thresholds.front().Large == 0);
  double BestSingle = INFINITY;
  for (const ThresholdTrial &T : F.Thresholds)
    if (T.Medium == 0 && T.Large > 0)
      BestSingle = std::min(BestSingle, T.Rms);
  CHECK(BestSingle > 0.01);
}

TEST_CASE("the plan fit leaves the split off where the timings have no "
          "step") {
  llvm::Expected<std::vector<Plan>> Plans = calibrationPlans(Topology::flat(2));
  REQUIRE(bool(Plans));
  std::vector<PlanTiming> Timings =
      textbookTimings(*Plans, 6e-11, [](double B) { return 4e-6 + 3e-10 * B; });
  PlanFitResult F =
      fitPlanTimings(*Plans, Timings, CostParams(), SizeRangeKeys);
  CHECK(F.Params.MediumMessageBytes == 0);
  CHECK(F.Params.LargeMessageBytes == 0);
  CHECK(F.Params.Alpha == doctest::Approx(4e-6).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(3e-10).epsilon(1e-6));
  CHECK(F.MaxRelativeResidual < 1e-6);
}

TEST_CASE("the plan fit prices four ranks on two cores and recovers the "
          "wire") {
  // Calibration on one node of two cores (its ranks share them), P = 2 and
  // 4. P = 2: two busy ranks, no stretch (textbookTimings). P = 4: every
  // rank of ring and recursive doubling takes part in every round, four
  // busy ranks on two cores, so each copy and reduction takes twice as
  // long: ring 2 (P - 1) = 6 rounds of alpha + 2 beta m/4, 3 of them
  // reducing m/4 (2 gamma m/4): 6 alpha + 3 beta m + 1.5 gamma m;
  // recursive doubling 2 rounds of alpha + 2 beta m + 2 gamma m.
  std::vector<Plan> Plans;
  for (uint32_t P : {2u, 4u}) {
    llvm::Expected<std::vector<Plan>> Some =
        calibrationPlans(Topology::nodes(1, P));
    REQUIRE(bool(Some));
    for (Plan &Pl : *Some)
      Plans.push_back(std::move(Pl));
  }
  const double Alpha = 4e-6, Beta = 3e-10, Gamma = 6e-11;
  std::vector<PlanTiming> Timings =
      textbookTimings(Plans, Gamma, [&](double B) { return Alpha + Beta * B; });
  auto IndexOf = [&](llvm::StringRef Family, uint32_t Ranks) {
    for (uint32_t I = 0; I < Plans.size(); ++I)
      if (Plans[I].Header.Algorithm == Family && Plans[I].Header.Ranks == Ranks)
        return I;
    FAIL("no plan of " << Family.str());
    return 0u;
  };
  for (double M : {1024.0, 65536.0, 1048576.0, 16777216.0}) {
    uint64_t Bytes = uint64_t(M);
    Timings.push_back({IndexOf("ring", 4), Bytes,
                       6 * Alpha + 3 * Beta * M + 1.5 * Gamma * M});
    Timings.push_back({IndexOf("recursive-doubling", 4), Bytes,
                       2 * Alpha + 4 * Beta * M + 4 * Gamma * M});
  }
  CostParams Start;
  Start.CoresPerNode = 2;
  PlanFitResult F =
      fitPlanTimings(Plans, Timings, Start, {"alpha", "beta", "gamma"});
  CHECK(F.Params.Alpha == doctest::Approx(Alpha).epsilon(1e-6));
  CHECK(F.Params.Beta == doctest::Approx(Beta).epsilon(1e-6));
  CHECK(F.Params.Gamma == doctest::Approx(Gamma).epsilon(1e-6));
  CHECK(F.Params.CoresPerNode == 2); // a fact, carried through
  CHECK(F.MaxRelativeResidual < 1e-6);
  // Without the cores the same timings cannot be met.
  PlanFitResult Unshared =
      fitPlanTimings(Plans, Timings, CostParams(), {"alpha", "beta", "gamma"});
  CHECK(Unshared.MaxRelativeResidual > 0.1);
}
