//===- PlanIndex.h - A plan directory's index -------------------*- C++ -*-===//
//
// A plan directory may hold an index, `plans.index` (YAML, but not named
// .yaml so nothing takes it for a plan), listing the calls each plan file
// serves: collective, communicator size, byte range, operator, root and, for
// allgatherv, the counts. A file name can say the first four and a root
// (PlanFileNames.h) but not counts, and an index lists files of any name.
// `collplan tune` and `collplan index` write it; the interposer reads it beside
// the named files.
//
//   version: 1
//   rounding: reproducible  # optional: what tune chose plans to keep of
//                           #   floating-point sums and products (identical,
//                           #   rank-dependent or reproducible; CallTypes.h),
//                           #   and what the interposer then asks of them
//   plans:
//     - file: bcast-root3.cplan
//       collective: broadcast
//       ranks: 8
//       min_bytes: 0
//       max_bytes: inf        # exclusive; inf: no bound
//       op: sum               # optional: only this operator
//       root: 3               # broadcast and reduce: the plan's root
//       counts: equal         # allgatherv: equal, or each rank's weight
//       algorithm: binomial   # optional, for people: who chose what, why
//       params: {}
//       why: "..."
//     - library: true         # instead of file: calls the MPI library's
//       collective: allreduce #   own collective, measured faster here
//       ranks: 8
//       min_bytes: 4096
//       max_bytes: 65536
//       measured_bytes: 16384 # the evidence: median seconds per call
//       measured: {library: 2.1e-05, allreduce-p8-0-inf.cplan: 2.6e-05,
//                  candidates/allreduce-p8-ring-3.cplan: 2.4e-05}
//     - file: candidates/allreduce-p8-ring-3.cplan   # a measured plan rule:
//       collective: allreduce                        # the fastest contender
//       ranks: 8                                     # timed at 256 KiB
//       min_bytes: 131072
//       max_bytes: 524288
//       measured_bytes: 262144
//       measured: {library: 2.1e-04, candidates/allreduce-p8-ring-3.cplan: ...}
//
// A file is named relative to the directory (a folder inside it allowed,
// never a way out). The model's rule for a file is listed once; measured
// rules (library: true, or a file with measured:) outrank it, one per
// measured size, and a new measurement of their table replaces them all.
//
// counts: equal serves calls whose ranks all give the same count, at any
// size; a list [w0, w1, ...] serves calls whose counts are proportional to
// it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_PLANINDEX_H
#define COLLPLAN_DISPATCH_PLANINDEX_H

#include "plan/dispatch/DispatchRule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// The index's file name inside a plan directory.
constexpr const char *PlanIndexName = "plans.index";
/// The largest index read: some 150,000 short entries (every rank under the
/// interposer reads it, and the YAML tree takes some 60 times its size).
constexpr uint64_t MaxPlanIndexBytes = uint64_t(16) << 20;

struct PlanIndex {
  std::vector<DispatchRule> Plans;
  /// What the directory's plans were chosen to keep of floating-point sums
  /// and products: the interposer's default (its COLLPLAN_REPRODUCIBLE and
  /// COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING override it). None: identical.
  std::optional<Rounding> ChosenRounding;
  /// Adds E, replacing the entry for the same file, or for a library rule
  /// the library rule of the same table starting at the same size.
  void put(DispatchRule E);
};

/// Dir's index file.
std::string planIndexPath(llvm::StringRef Dir);
/// Parses an index; Name prefixes the errors (a usage error naming the
/// entry and what is wrong with it).
llvm::Expected<PlanIndex> parsePlanIndex(llvm::StringRef Text,
                                         llvm::StringRef Name);
/// Reads Dir's index: an empty index when there is none; a usage error when
/// it is not a regular file or is larger than MaxPlanIndexBytes.
llvm::Expected<PlanIndex> readPlanIndex(llvm::StringRef Dir);
/// The index as YAML, Preamble (may be empty) as comments on top.
std::string planIndexText(const PlanIndex &Index, llvm::StringRef Preamble);
/// Writes Dir's index whole or not at all.
llvm::Error writePlanIndex(llvm::StringRef Dir, const PlanIndex &Index,
                           llvm::StringRef Preamble = "");

} // namespace collplan

#endif // COLLPLAN_DISPATCH_PLANINDEX_H
