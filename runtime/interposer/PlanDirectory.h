//===- PlanDirectory.h - Finding the plan for a collective call --*- C++
//-*-===//
//
// The interposer reads plans from the directory named by COLLPLAN_PLANS. A
// plan's file name says which calls it serves:
//
//   <collective>-p<P>-<min>-<max>[-<op>].<ext>
//
//   collective  allreduce, reduce-scatter, allgather, allgatherv, broadcast
//   P           the communicator size
//   min, max    the call's bytes (the whole vector: count x type size; for
//               allgather(v) and reduce-scatter the gathered / scattered
//               total) lie in [min, max); max may be "inf"
//   op          optional: sum, prod, min, max, band, bor, bxor, land, lor,
//               lxor; without it the plan serves every operator
//   ext         cplan, yaml, yml or json
//
// e.g. allreduce-p8-0-65536.cplan, allreduce-p8-65536-inf-sum.cplan. A name
// cannot say a root or allgatherv counts: the directory's index,
// plans.index (PlanIndex.h), lists files of any name with the calls they
// serve, roots and counts included; a file it lists is taken as it says,
// not by its name. When several files match a call, an operator-specific
// one wins, then one for the call's root, then one for its counts, then the
// narrowest byte range, then the name (so the choice is deterministic).
// Files with other extensions are ignored; a file with a plan extension and
// another name, and an index entry that cannot be used, are reported
// (misnamed()). Plans are read on first use and
// kept; a process reads only the programs of the ranks it is in the
// communicators that use a plan (readRankSlice), not all P of them.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H
#define COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H

#include "plan/ir/Plan.h"
#include "plan/serialize/PlanIndex.h"
#include "plan/serialize/RankSlice.h"
#include "runtime/Reduction.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan::runtime {

/// What a plan file's name promises.
struct PlanKey {
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 0;
  uint64_t MinBytes = 0;
  uint64_t MaxBytes = UINT64_MAX; ///< Exclusive; UINT64_MAX for "inf".
  std::optional<ReduceOp> Op;
};

/// Whether a file name (without directory) has a plan file's extension.
bool hasPlanExtension(llvm::StringRef FileName);
/// Parses a file name (without directory); an error says what in the name
/// does not follow the pattern.
llvm::Expected<PlanKey> parsePlanFileName(llvm::StringRef FileName);

struct PlanEntry {
  PlanKey Key;
  std::string Path;
  /// The index's entry for the file, when the index lists it.
  std::optional<PlanIndexEntry> Indexed;
  /// The slices read so far, by rank; each is read on first use.
  std::map<uint32_t, std::unique_ptr<RankSlice>> Slices;
  bool Failed = false;
};

/// The plan a call runs: its file and the calling rank's slice of it.
struct FoundPlan {
  const PlanEntry *Entry;
  const RankSlice *Slice;
};

class PlanDirectory {
public:
  /// Lists Dir's plan files (reading none of them yet). Files with a plan
  /// extension whose name does not follow the pattern are listed in
  /// misnamed(), not silently skipped.
  static llvm::Expected<PlanDirectory> open(const std::string &Dir);

  /// The best plan for a call at rank Rank of Ranks, reading Rank's slice
  /// if needed. Root and Counts (each rank's bytes, allgatherv) select among
  /// indexed files before any is read; Accept then filters on the plan's
  /// header (its root, its weights). Files that fail to load, whose contents
  /// contradict their name or index entry, or that carry no valid
  /// verification stamp are reported once through Warn and skipped. Every
  /// rank reads the same file, so every rank skips it.
  std::optional<FoundPlan>
  find(Collective Kind, uint32_t Ranks, uint32_t Rank, uint64_t Bytes,
       std::optional<ReduceOp> Op,
       const std::function<bool(const PlanHeader &)> &Accept,
       const std::function<void(const std::string &)> &Warn,
       std::optional<uint32_t> Root = std::nullopt,
       llvm::ArrayRef<uint64_t> Counts = {});

  size_t size() const { return Entries.size(); }
  /// Run plans without a valid verification stamp (COLLPLAN_TRUST_UNVERIFIED);
  /// otherwise find() skips them, through Warn, saying to verify them.
  bool TrustUnverified = false;
  /// "ignoring PATH: why", one per misnamed file or unusable index entry.
  const std::vector<std::string> &misnamed() const { return Misnamed; }

private:
  std::vector<std::unique_ptr<PlanEntry>> Entries;
  std::vector<std::string> Misnamed;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H
