//===- Verifier.cpp - Symbolic execution of a plan ------------------------===//
//
// The three stages of ARCHITECTURE.md, "What \"verified\" means", each stopping
// the next when it fails (later stages assume what earlier ones establish):
// structure (Plan.h checkStructure), matching and the per-round rules
// (Matching.h) with, for alltoall, each block's single arrival
// (SingleArrival.h), then the symbolic replay and end state
// (SymbolicExecution.h; for alltoall, PersonalisedReplay.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/Verifier.h"
#include "compiler/verify/Matching.h"
#include "compiler/verify/PersonalisedReplay.h"
#include "compiler/verify/SingleArrival.h"
#include "compiler/verify/SymbolicExecution.h"

#include <chrono>

namespace collplan {

/// Up to this many ranks the exact sets cost at most 64 bytes per block.
static constexpr uint32_t MaxExactRanksForAuto = 512;

llvm::StringRef verifyModeName(VerifyMode M) {
  switch (M) {
  case VerifyMode::Auto:
    return "auto";
  case VerifyMode::Exact:
    return "exact";
  case VerifyMode::Hashed:
    return "hashed";
  }
  return "unknown";
}

namespace {

void verifyStages(const Plan &P, const VerifyOptions &Options,
                  VerifyResult &Result) {
  VerifyStats &Stats = Result.Stats;
  const PlanHeader &H = P.Header;
  Stats.Ranks = H.Ranks;
  Stats.Blocks = H.Blocks;
  Stats.ModeUsed = Options.Mode;
  if (Options.Mode == VerifyMode::Auto)
    Stats.ModeUsed = H.Ranks <= MaxExactRanksForAuto ? VerifyMode::Exact
                                                     : VerifyMode::Hashed;
  size_t MaxErrors = std::max<size_t>(Options.MaxErrors, 1);

  Result.Errors = checkStructure(P, MaxErrors);
  if (!Result.Errors.empty())
    return;

  verify::MatchedPlan Matched = verify::matchPlan(P, MaxErrors);
  Stats.Rounds = Matched.Rounds;
  Stats.Messages = Matched.Messages;
  Stats.BlockTransfers = Matched.BlockTransfers;
  if (!Matched.Errors.empty()) {
    Result.Errors = std::move(Matched.Errors);
    return;
  }
  verify::checkSingleArrival(P, MaxErrors, Result.Errors);
  if (!Result.Errors.empty())
    return;

  VerifyOptions Effective = Options;
  Effective.MaxErrors = MaxErrors;
  if (isPersonalised(H.Kind)) {
    // Nothing is combined, so the verdicts on trees hold trivially and the
    // replay of places is exact whatever the mode asked.
    Stats.ModeUsed = VerifyMode::Exact;
    verify::replayPersonalised(P, Matched, Effective, Result.Errors);
    verify::sortDiagnostics(Result.Errors, MaxErrors);
    Result.Valid = Result.Errors.empty();
    return;
  }
  verify::TreeVerdict Trees;
  verify::executeSymbolically(P, std::move(Matched), Stats.ModeUsed, Effective,
                              Result.Errors, Trees);
  Result.IdenticalResults = Trees.DifferentOrders.empty();
  Result.DifferentOrders = std::move(Trees.DifferentOrders);
  Result.Reproducible = Trees.NonCanonical.empty();
  Result.NonCanonical = std::move(Trees.NonCanonical);
  verify::sortDiagnostics(Result.Errors, MaxErrors);
  // A replay stopped at the first difference checked only part of the plan.
  bool Stopped = (Options.StopAtDifferentOrders && !Result.IdenticalResults) ||
                 (Options.StopAtNonCanonicalTree && !Result.Reproducible);
  Result.Valid = Result.Errors.empty() && !Stopped;
}

} // namespace

VerifyResult verifyPlan(const Plan &P, const VerifyOptions &Options) {
  auto Start = std::chrono::steady_clock::now();
  VerifyResult Result;
  verifyStages(P, Options, Result);
  Result.Stats.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Result;
}

} // namespace collplan
