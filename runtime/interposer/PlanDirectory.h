//===- PlanDirectory.h - The interposer's cache of plan slices --*- C++ -*-===//
//
// The interposer reads plans from the directory named by COLLPLAN_PLANS.
// Which file serves which call is the directory's rules (plan/dispatch:
// file names and plans.index); this class keeps, per file, the slices read
// so far: a process reads only the programs of the ranks it is in the
// communicators that use a plan (readRankSlice), not all P of them, and
// reads each on first use.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H
#define COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H

#include "plan/dispatch/CallShape.h"
#include "plan/dispatch/DispatchRule.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan::runtime {

struct PlanEntry {
  DispatchRule Rule;
  std::string Path;
  /// The slices read so far, by rank; each is read on first use.
  std::map<uint32_t, std::unique_ptr<RankSlice>> Slices;
  bool Failed = false;
};

/// The plan a call runs: its file and the calling rank's slice of it; or,
/// for a library rule, no slice: the library's own collective on purpose.
struct FoundPlan {
  const PlanEntry *Entry;
  const RankSlice *Slice;

  bool library() const { return Slice == nullptr; }
};

class PlanDirectory {
public:
  /// Reads Dir's rules (no plan yet).
  static llvm::Expected<PlanDirectory> open(const std::string &Dir);

  /// The plan for Call at rank Rank: the first rule by precedence that
  /// covers the call and is a library rule or names a file whose header
  /// fit()s it, reading Rank's slice if needed. Files that fail to load, whose
  /// contents contradict their rule, or that carry no valid verification stamp
  /// are reported once through Warn and skipped; so is a plan that only how
  /// it rounds keeps from serving (AskedRounding), and, for a floating-point
  /// sum or product asked to be reproducible, a library rule: the library
  /// promises no bits across sizes. Every rank reads the same file, so every
  /// rank skips it.
  std::optional<FoundPlan>
  find(const CallShape &Call, uint32_t Rank,
       const std::function<void(const std::string &)> &Warn);

  /// The first plan file by precedence that holds a plan of Kind for P
  /// ranks, whatever its size and weights, with Rank's slice loaded: for a
  /// call whose shape no rank knows whole (alltoallv's counts), which each
  /// rank then tests against its own part (PairSizes.h). No library rule.
  std::optional<FoundPlan>
  findForRanks(Collective Kind, uint32_t Ranks, uint32_t Rank,
               const std::function<void(const std::string &)> &Warn);

  /// Every plan file that serves Call at Rank (each file once, in
  /// precedence order); no library rule. Measured tuning times them all.
  std::vector<FoundPlan>
  findEveryPlan(const CallShape &Call, uint32_t Rank,
                const std::function<void(const std::string &)> &Warn);

  size_t size() const { return Entries.size(); }
  /// The files and rules, in precedence order.
  const std::vector<std::unique_ptr<PlanEntry>> &entries() const {
    return Entries;
  }
  /// Run plans without a valid verification stamp (COLLPLAN_TRUST_UNVERIFIED);
  /// otherwise find() skips them, through Warn, saying to verify them.
  bool TrustUnverified = false;
  /// What floating-point sums and products ask of the plans that serve them:
  /// the index's choice (the tune that wrote it), else identical bits on
  /// every rank; the interposer's COLLPLAN_REPRODUCIBLE and
  /// COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING override it.
  Rounding AskedRounding = Rounding::Identical;
  /// Skip measured rules (the library's and plans'): collplan_tune_mpi
  /// measures again what the model chose.
  bool IgnoreMeasured = false;
  /// "ignoring PATH: why", one per misnamed file or unusable index entry.
  const std::vector<std::string> &misnamed() const { return Misnamed; }

private:
  /// E, when it serves Call at Rank: a library rule, or a file whose
  /// Rank's slice loads and fit()s.
  std::optional<FoundPlan>
  serves(PlanEntry &E, const CallShape &Call, uint32_t Rank,
         const std::function<void(const std::string &)> &Warn);
  /// E's slice for Rank, read and checked on first use; null (reported)
  /// when E cannot serve.
  const RankSlice *
  sliceOf(PlanEntry &E, uint32_t Rank,
          const std::function<void(const std::string &)> &Warn);

  std::vector<std::unique_ptr<PlanEntry>> Entries;
  std::vector<std::string> Misnamed;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_INTERPOSER_PLANDIRECTORY_H
