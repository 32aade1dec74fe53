//===- MeasuredRules.h - Library rules from measurements --------*- C++ -*-===//
//
// A job that measured its plans against the MPI library's own collective
// (collplan_tune_mpi) turns the sizes where the library was as fast or
// faster into library rules: calls of those sizes then go to the library on
// purpose. Each measured size speaks for the calls nearer it (geometrically)
// than any other measured size; the first reaches down to 0 bytes, the last
// up without bound.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_MEASUREDRULES_H
#define COLLPLAN_DISPATCH_MEASUREDRULES_H

#include "plan/dispatch/DispatchRule.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace collplan {

/// One size of one table, measured: the plan the directory chose there and
/// the library, median seconds per call of the slowest rank.
struct SizeMeasurement {
  uint64_t Bytes = 0;
  std::string PlanFile;
  double PlanSeconds = 0;
  double LibrarySeconds = 0;
};

/// Whether the library is faster than the plan, or within Noise (a
/// fraction: 0.05 is 5 %) of it: then the library's call is kept, since a
/// gain inside the noise is no gain.
bool libraryWins(const SizeMeasurement &M, double Noise);

/// The calls of [MinBytes, MaxBytes) that measurement I of Sizes (sorted
/// by Bytes) speaks for.
std::pair<uint64_t, uint64_t>
measuredRange(llvm::ArrayRef<SizeMeasurement> Sizes, size_t I);

/// The library rules of the table (Kind, Ranks, Root), one per size the
/// library wins, with the measurements as evidence.
std::vector<DispatchRule> libraryRules(Collective Kind, uint32_t Ranks,
                                       std::optional<uint32_t> Root,
                                       llvm::ArrayRef<SizeMeasurement> Sizes,
                                       double Noise);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_MEASUREDRULES_H
