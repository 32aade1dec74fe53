//===- MeasuredRules.h - Rules from measurements on the job's ranks -*- C++
//-*-===//
//
// A job that timed its plan directory against the MPI library's own
// collective (collplan_tune_mpi) turns each measured size into a measured
// rule: the library where it was as fast as the fastest plan or within the
// noise band of it (calls of those sizes then go to the library on
// purpose), else the fastest plan timed, the model's choice or a runner-up.
// Each measured size speaks for the calls nearer it (geometrically) than
// any other measured size; the first reaches down to 0 bytes, the last up
// without bound.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_MEASUREDRULES_H
#define COLLPLAN_DISPATCH_MEASUREDRULES_H

#include "plan/dispatch/DispatchRule.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <utility>
#include <vector>

namespace collplan {

/// One size of one table, measured: median seconds per call of the slowest
/// rank, for the library and for each plan timed (its rule, as the
/// directory states it).
struct SizeMeasurement {
  uint64_t Bytes = 0;
  double LibrarySeconds = 0;
  std::vector<std::pair<DispatchRule, double>> Plans;

  /// The fastest plan (the first listed on a tie); null when none was
  /// timed.
  const std::pair<DispatchRule, double> *fastestPlan() const;
};

/// Whether the library is faster than the fastest plan, or within Noise (a
/// fraction: 0.05 is 5 %) of it: then the library's call is kept, since a
/// gain inside the noise is no gain.
bool libraryWins(const SizeMeasurement &M, double Noise);

/// The calls of [MinBytes, MaxBytes) that measurement I of Sizes (sorted
/// by Bytes) speaks for.
std::pair<uint64_t, uint64_t>
measuredRange(llvm::ArrayRef<SizeMeasurement> Sizes, size_t I);

/// The measured rules of the table (Kind, Ranks, Root): one per size, the
/// library's or the fastest plan's, with every contender's time as
/// evidence.
std::vector<DispatchRule> measuredRules(Collective Kind, uint32_t Ranks,
                                        std::optional<uint32_t> Root,
                                        llvm::ArrayRef<SizeMeasurement> Sizes,
                                        double Noise);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_MEASUREDRULES_H
