//===- PlanDirectory.cpp - The interposer's cache of plan slices ----------===//

#include "runtime/interposer/PlanDirectory.h"

#include "plan/dispatch/PlanDirectoryRules.h"
#include "plan/serialize/PlanFile.h"

namespace collplan::runtime {

llvm::Expected<PlanDirectory> PlanDirectory::open(const std::string &Dir) {
  llvm::Expected<PlanDirectoryRules> Rules = readPlanDirectoryRules(Dir);
  if (!Rules)
    return Rules.takeError();
  PlanDirectory D;
  D.Misnamed = std::move(Rules->Problems);
  D.AskedRounding = Rules->ChosenRounding.value_or(Rounding::Identical);
  for (DispatchRule &R : Rules->Rules) {
    auto E = std::make_unique<PlanEntry>();
    E->Path = Rules->pathOf(R);
    E->Rule = std::move(R);
    D.Entries.push_back(std::move(E));
  }
  return D;
}

const RankSlice *
PlanDirectory::sliceOf(PlanEntry &E, uint32_t Rank,
                       const std::function<void(const std::string &)> &Warn) {
  std::unique_ptr<RankSlice> &Slice = E.Slices[Rank];
  if (Slice)
    return Slice.get();
  auto Skip = [&](const std::string &Why) -> const RankSlice * {
    Warn("ignoring " + Why);
    E.Slices.erase(Rank);
    E.Failed = true;
    return nullptr;
  };
  // The rule promises P: a plan for fewer ranks has no program for Rank,
  // which the reader reports as such.
  llvm::Expected<RankSlice> S = readRankSlice(E.Path, Rank);
  if (!S)
    return Skip(E.Path + ": " + llvm::toString(S.takeError()));
  if (!E.Rule.describes(S->Header))
    return Skip(
        E.Path + ": it holds a " + collectiveName(S->Header.Kind).str() +
        " plan for P = " + std::to_string(S->Header.Ranks) +
        (S->Header.Root ? " from root " + std::to_string(*S->Header.Root)
                        : "") +
        ", not what its " + (E.Rule.FromIndex ? "index entry" : "name") +
        " says");
  if (!TrustUnverified)
    if (llvm::Error Err = checkStamp(S->Header, S->Hash, E.Path))
      return Skip(llvm::toString(std::move(Err)));
  Slice = std::make_unique<RankSlice>(std::move(*S));
  return Slice.get();
}

std::optional<FoundPlan>
PlanDirectory::serves(PlanEntry &E, const CallShape &Call, uint32_t Rank,
                      const std::function<void(const std::string &)> &Warn) {
  if (E.Failed || !E.Rule.covers(Call) || (IgnoreMeasured && E.Rule.measured()))
    return std::nullopt;
  bool Rounds = Call.Type && Call.Op && roundsByOrder(*Call.Type, *Call.Op);
  if (E.Rule.Library && Rounds && AskedRounding == Rounding::Reproducible) {
    Warn("not following the measured rule that gives " +
         collectiveName(Call.Kind).str() + " of " + std::to_string(Call.Ranks) +
         " ranks to the library: its floating-point sums and products are "
         "asked to be reproducible, which the library does not promise");
    return std::nullopt;
  }
  if (E.Rule.Library)
    return FoundPlan{&E, nullptr};
  const RankSlice *Slice = sliceOf(E, Rank, Warn);
  if (!Slice)
    return std::nullopt;
  auto Plan = [&] {
    return "the " + Slice->Header.Algorithm + " plan " + E.Path +
           " for P = " + std::to_string(Slice->Header.Ranks);
  };
  switch (fit(Slice->Header, Call, AskedRounding)) {
  case Fit::Serves:
    return FoundPlan{&E, Slice};
  case Fit::RankDependentRounding:
    Warn("not running " + Plan() +
         " for floating-point sums and products: its ranks may end with "
         "different bits (the verifier's verdict); "
         "COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING=1 allows it");
    return std::nullopt;
  case Fit::NotReproducible:
    Warn("not running " + Plan() +
         " for floating-point sums and products: they are asked to be "
         "reproducible (COLLPLAN_REPRODUCIBLE=1, or the index's 'rounding: "
         "reproducible'), and the verifier found the plan leaves the "
         "canonical tree");
    return std::nullopt;
  case Fit::OtherCall:
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<FoundPlan>
PlanDirectory::find(const CallShape &Call, uint32_t Rank,
                    const std::function<void(const std::string &)> &Warn) {
  for (std::unique_ptr<PlanEntry> &E : Entries)
    if (std::optional<FoundPlan> Found = serves(*E, Call, Rank, Warn))
      return Found;
  return std::nullopt;
}

std::optional<FoundPlan> PlanDirectory::findForRanks(
    Collective Kind, uint32_t Ranks, uint32_t Rank,
    const std::function<void(const std::string &)> &Warn) {
  for (std::unique_ptr<PlanEntry> &E : Entries) {
    const DispatchRule &R = E->Rule;
    if (E->Failed || R.Library || R.Kind != Kind || R.Ranks != Ranks ||
        (IgnoreMeasured && R.measured()))
      continue;
    if (const RankSlice *Slice = sliceOf(*E, Rank, Warn))
      return FoundPlan{E.get(), Slice};
  }
  return std::nullopt;
}

std::vector<FoundPlan> PlanDirectory::findEveryPlan(
    const CallShape &Call, uint32_t Rank,
    const std::function<void(const std::string &)> &Warn) {
  std::vector<FoundPlan> Out;
  for (std::unique_ptr<PlanEntry> &E : Entries)
    if (std::optional<FoundPlan> Found = serves(*E, Call, Rank, Warn);
        Found && !Found->library() &&
        llvm::none_of(Out, [&](const FoundPlan &F) {
          return F.Entry->Path == Found->Entry->Path;
        }))
      Out.push_back(*Found);
  return Out;
}

} // namespace collplan::runtime
