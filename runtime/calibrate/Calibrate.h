//===- Calibrate.h - Fitting alpha, beta and gamma to real plans -*- C++
//-*-===//
//
// `collplan calibrate` (TCP) and collplan_calibrate_mpi (MPI) time a set of
// real plans (compiler/select/CalibrationPlans.h) on P = 2 up to every rank
// of the job, at 8 B .. 16 MiB, over whatever Transport they are given, and
// fit the cost model's parameters to those times (PlanFit.h): the
// parameters then price what plans do, several messages at once in both
// directions with reductions between, rather than what a ping-pong does.
// Ranks exchange host names first: a job spanning nodes times plans on its
// real rank -> node map and fits the intra-node parameters apart.
//
// The same timings, with the fit replaced by given parameters, are the
// fidelity check: predicted against measured per plan, P and size.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H
#define COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Plan.h"
#include "runtime/Reduction.h"
#include "runtime/Transport.h"
#include "runtime/calibrate/PlanFit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace collplan::runtime {

/// The plans to time on a topology (every rank must get the same list).
using PlanSource =
    std::function<llvm::Expected<std::vector<Plan>>(const Topology &)>;

struct Calibration {
  std::string TransportName; ///< "tcp" or "mpi"
  uint32_t Ranks = 0;
  uint32_t Nodes = 0; ///< distinct host names among the ranks
  /// The cores of a node the ranks ran on (CostParams::CoresPerNode; 0:
  /// unknown, the term off), a fact of the machine, not fitted.
  double CoresPerNode = 0;
  Datatype Type = Datatype::Float;
  ReduceOp Op = ReduceOp::Sum;
  /// Every plan timed, for P = 2 .. Ranks, and what each took.
  std::vector<Plan> Plans;
  std::vector<PlanTiming> Timings;
  /// Whether Params were fitted (else given: an evaluation).
  bool Fitted = true;
  /// The keys fitted (written to the parameters file).
  std::vector<std::string> Keys;
  CostParams Params;
  PlanFitResult Fit; ///< Predicted times and residuals under Params.
  /// The reduction kernel's own throughput, for comparison with the fitted
  /// gamma (which also pays for memory traffic under communication).
  double KernelGamma = 0;
  uint64_t KernelGammaBytes = 0;
};

struct CalibrateSettings {
  std::vector<uint64_t> Sizes = {8,       64,       512,      1 << 10,
                                 4 << 10, 16 << 10, 64 << 10, 256 << 10,
                                 1 << 20, 4 << 20,  16 << 20};
  Datatype Type = Datatype::Float;
  ReduceOp Op = ReduceOp::Sum;
  /// Plans are timed on P = MinRanks .. the job's ranks. The ranks past P
  /// wait meanwhile, and an MPI library's waiting ranks spin: on a machine
  /// of few cores they slow the P they are not part of (an MPI ring of 1 KiB
  /// on P = 2 took 2.4 us alone, 14 us beside two waiting ranks), so a
  /// benchmark there times each P in a job of its own.
  uint32_t MinRanks = 2;
  /// The keys to fit (costParamField's); empty: alpha, beta, gamma,
  /// overhead and overhead_per_byte, with alpha_intra and beta_intra when
  /// the job spans nodes.
  std::vector<std::string> Keys;
  /// The cores of each node: unset, the machine's own (its hardware
  /// threads, std::thread::hardware_concurrency) when timing, a timings
  /// file's when re-fitting one; 0 turns the term off.
  std::optional<double> CoresPerNode;
  /// Given: no fit, the timings are compared with these parameters.
  std::optional<CostParams> Evaluate;
  /// Rank 0's progress lines ("ring allreduce P=2 4096 B: 12.3 us").
  std::function<void(const std::string &)> Progress;
};

/// Every key CalibrateSettings::Keys may name, for the options that take
/// them.
const std::vector<std::string> &fittableKeys();

/// Collective: every rank of T calls it. The result is complete on rank 0;
/// other ranks get only the job's shape.
llvm::Expected<Calibration> calibrate(Transport &T, llvm::StringRef Name,
                                      const PlanSource &Plans,
                                      const CalibrateSettings &S);

/// Rank 0's end of calibrate(): fits C.Params to C.Timings (or, with
/// S.Evaluate, predicts them under the given parameters), and measures the
/// reduction kernel for comparison. Also what re-fits saved timings.
void fitCalibration(Calibration &C, const CalibrateSettings &S);

/// Seconds for one call of P on a vector of Bytes bytes of Type (reduced
/// with Op), on T's ranks (of P's size): each rank times itself from a
/// barrier to its own end, keeps its fastest of several repetitions, and
/// rank 0 returns the slowest rank's. Collective over T; the other ranks
/// return their own time.
llvm::Expected<double> timePlan(Transport &T, const Plan &P, uint64_t Bytes,
                                Datatype Type, ReduceOp Op);

/// Seconds per byte of reduceInto(T, Op) over a Bytes-sized buffer (the
/// best of several passes, the buffer warm in cache or not as it falls).
double measureGamma(Datatype T, ReduceOp Op, uint64_t Bytes);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_CALIBRATE_H
