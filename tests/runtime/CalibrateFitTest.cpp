//===- CalibrateFitTest.cpp - The alpha-beta fit of collplan calibrate ----===//
//
// Oracles: a noiseless line is recovered exactly; where noise tilts the
// unconstrained fit below zero, the result is the minimiser of the weighted
// objective on the boundary, computed here from its closed form.
//
//===----------------------------------------------------------------------===//

#include "runtime/calibrate/Calibrate.h"

#include <doctest/doctest.h>

#include <vector>

using namespace collplan;
using namespace collplan::runtime;

TEST_CASE("a noiseless line is recovered") {
  std::vector<PingPongSample> S;
  for (uint64_t M : {8u, 512u, 65536u, 4194304u})
    S.push_back({M, 2e-6 + 1e-9 * double(M)});
  LinkFit F = fitAlphaBeta(S);
  CHECK(F.Measured);
  CHECK(F.Alpha == doctest::Approx(2e-6).epsilon(1e-9));
  CHECK(F.Beta == doctest::Approx(1e-9).epsilon(1e-9));
  CHECK(F.R2 == doctest::Approx(1.0));
}

TEST_CASE("noise never makes alpha or beta negative") {
  // Small messages delayed more than large ones (a loaded machine): the
  // unconstrained line falls with size. Beta = 0, alpha = the weighted mean
  // sum(1/t) / sum(1/t^2).
  std::vector<PingPongSample> Falling = {
      {8, 1e-3}, {4096, 5e-4}, {1 << 20, 4e-4}};
  LinkFit F = fitAlphaBeta(Falling);
  CHECK(F.Beta == 0);
  double Num = 0, Den = 0;
  for (const PingPongSample &X : Falling) {
    Num += 1 / X.Seconds;
    Den += 1 / (X.Seconds * X.Seconds);
  }
  CHECK(F.Alpha == doctest::Approx(Num / Den));

  // A line through a negative intercept: alpha = 0, beta = sum(m/t) /
  // sum(m^2/t^2).
  std::vector<PingPongSample> Below = {{1000000, 1e-3 - 1e-7},
                                       {4000000, 4e-3 - 1e-7}};
  F = fitAlphaBeta(Below);
  CHECK(F.Alpha == 0);
  Num = Den = 0;
  for (const PingPongSample &X : Below) {
    double M = double(X.Bytes);
    Num += M / X.Seconds;
    Den += M * M / (X.Seconds * X.Seconds);
  }
  CHECK(F.Beta == doctest::Approx(Num / Den));
  CHECK(F.Beta > 0);
}
