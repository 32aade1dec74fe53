//===- Calibrate.h - Measuring alpha, beta and gamma ------------*- C++ -*-===//
//
// `collplan calibrate` (TCP) and collplan_calibrate_mpi (MPI) measure the
// parameters of the alpha-beta-gamma model (compiler/cost/CostParams.h) on
// whatever Transport they are given: alpha and beta from a ping-pong at
// several sizes, fitted by least squares, and gamma from the reduction
// kernels' throughput. Ranks exchange host names first, so a job spanning
// nodes measures an intra-node pair and an inter-node pair separately.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H
#define COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H

#include "runtime/Reduction.h"
#include "runtime/Transport.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collplan::runtime {

/// One ping-pong size: half the median round-trip time.
struct PingPongSample {
  uint64_t Bytes = 0;
  double Seconds = 0;
};

/// t(m) = Alpha + Beta m fitted to Samples.
struct LinkFit {
  bool Measured = false;
  uint32_t RankA = 0, RankB = 0; ///< the pair measured
  double Alpha = 0, Beta = 0;
  /// Coefficient of determination of the fit on the times (1 = exact).
  double R2 = 0;
  /// Root mean square of (fit - measured) / measured over the sizes.
  double RmsRelativeResidual = 0;
  std::vector<PingPongSample> Samples;
};

/// The weighted least-squares fit minimising the sum of squared relative
/// residuals ((Alpha + Beta m - t) / t)^2: an unweighted fit would let the
/// megabyte sizes decide alpha, which small messages measure. Alpha and
/// Beta are constrained to be non-negative.
LinkFit fitAlphaBeta(llvm::ArrayRef<PingPongSample> Samples);

struct Calibration {
  std::string TransportName; ///< "tcp" or "mpi"
  uint32_t Ranks = 0;
  uint32_t Nodes = 0; ///< distinct host names among the ranks
  LinkFit Intra, Inter;
  Datatype Type = Datatype::Float;
  ReduceOp Op = ReduceOp::Sum;
  double Gamma = 0;        ///< seconds per reduced byte
  uint64_t GammaBytes = 0; ///< buffer size gamma was measured on
};

struct CalibrateSettings {
  std::vector<uint64_t> Sizes = {8,     64,     512,     4096,
                                 32768, 262144, 1 << 20, 4 << 20};
  Datatype Type = Datatype::Float;
  ReduceOp Op = ReduceOp::Sum;
  /// Rank 0's progress lines ("ping-pong intra-node 4.00 KiB: 12.3 us").
  std::function<void(const std::string &)> Progress;
};

/// Collective: every rank of T calls it. The result is complete on rank 0;
/// other ranks get only what they took part in.
llvm::Expected<Calibration> calibrate(Transport &T, llvm::StringRef Name,
                                      const CalibrateSettings &S);

/// Seconds per byte of reduceInto(T, Op) over a Bytes-sized buffer (the
/// best of several passes, the buffer warm in cache or not as it falls).
double measureGamma(Datatype T, ReduceOp Op, uint64_t Bytes);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H
