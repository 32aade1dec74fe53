//===- Tuner.h - One compile pipeline: candidates, prices, the best plan --===//
//
// The tuner is the only place that chooses: it asks each family for the
// parameter settings worth trying (Algorithm::candidates), prices every
// (family, setting) with the one cost model, and builds the fastest. Families
// only enumerate and build (as MPICH keeps coll/selection apart from
// coll/allreduce/*). `collplan compile`, `select` and `tune` call it, and
// so can a launcher, with Finalize.h for the stamped plan file.
//
// A Compilation is the session's cache: every candidate priced at every size
// asked in one pass, with its header, rank 0's program, its plan when built
// (kept within a memory bound), its cost report and the verifier's verdict
// once choosing took one. Choosing, `--explain`'s table by size, `select`
// and `tune` read it, so a plan is built once and verified once, and the
// bytes written come from one encoding (Finalize.h).
//
// Ties: times within TieTolerance are equal, and go to fewer rounds, then
// the simpler family (the registry's order), then the parameters' text
// (lessByTieRule; docs/algorithms/README.md).
//
// Pricing: a candidate whose plan holds at most MaxOpsToPrice operations
// (rank 0's program times P) is built and priced by evaluateCost. A larger
// one is priced from rank 0's rounds when the family says its plan is rank
// symmetric and the topology is flat with one rank per node: every rank then
// runs rank 0's program relabelled, in lockstep, so the critical path is the
// sum over rank 0's rounds of alpha + beta * bytes + gamma * reduced bytes
// (exact when the vector splits into equal blocks). Otherwise it is skipped,
// with the reason. A built allreduce candidate whose ranks the verifier
// finds combining a block in different orders is skipped too, unless the
// request allows rank-dependent rounding (CompileRequest::IdenticalResults);
// so is a plan of a reducing collective that leaves the canonical tree when
// the request asks for reproducible results (CompileRequest::Reproducible).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SELECT_TUNER_H
#define COLLPLAN_SELECT_TUNER_H

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// Plans with more operations than this are priced from rank 0 or skipped,
/// not built just to be priced.
constexpr uint64_t MaxOpsToPrice = 20'000'000;

/// Times within this fraction of each other are a tie: the cost model sums
/// the same terms in a different order for different plans, so equal costs
/// can differ in their last bits.
constexpr double TieTolerance = 1e-9;

/// One (family, parameter setting) the tuner tried, and what pricing it
/// computed, kept so that choosing, `--explain`, `select` and `tune` consult
/// it rather than compute it again (a small analysis cache, as LLVM's
/// analysis managers keep results per function).
struct Candidate {
  const Algorithm *Algo = nullptr;
  /// The parameters as prepare() resolved them.
  std::map<std::string, std::string> Params;
  /// The predicted time at the request's size (Compilation::Sizes.front()).
  double PredictedTime = 0;
  uint32_t Rounds = 0;
  /// Priced from rank 0's rounds rather than from the whole plan.
  bool FromRankZero = false;
  /// Why the candidate was not priced (or may not be chosen); empty when it
  /// was priced.
  std::string Skipped;

  /// The request the candidate's plan is built from.
  CompileRequest Request;
  /// The predicted time at each of Compilation::Sizes; empty when skipped.
  std::vector<double> Times;
  /// prepare()'s header and rank 0's program, as the size estimate built it.
  std::shared_ptr<const PlanHeader> Header;
  std::shared_ptr<const Program> RankZero;
  /// The whole plan: built to be priced or to be chosen, and kept while the
  /// plans kept stay under MaxOpsToPrice operations in all (the fastest are
  /// kept); otherwise built again when needed.
  std::shared_ptr<Plan> Built;
  /// The cost model's report at the request's size, for a built candidate.
  std::optional<CostReport> Report;
  /// The verifier's verdict on the plan (default mode), once choosing it
  /// took a verification: the identical-results check.
  std::optional<VerifyResult> Verdict;
  /// Whether the candidate may be chosen (Compilation::mayChoose); unknown
  /// until asked. When not, why.
  std::optional<bool> Choosable;
  std::string WhyNotChoosable;
};

/// The tuner's session for one request: every candidate priced at every size
/// asked, and the chosen plan.
struct Compilation {
  CompileRequest Request;
  /// The sizes priced; compile() puts the request's size first.
  std::vector<uint64_t> Sizes;
  /// Every candidate of every family tried; after compile(), fastest first
  /// (ties broken as lessByTieRule says), skipped last.
  std::vector<Candidate> Candidates;
  /// The chosen candidate's family; null before choosing.
  const Algorithm *Chosen = nullptr;
  /// The chosen candidate's index in Candidates.
  size_t ChosenIndex = 0;
  /// With `--algorithm auto`: each requested parameter and the families that
  /// know it (and so took it); the others ignore it.
  std::map<std::string, std::vector<std::string>> ParamTakers;

  /// The chosen plan.
  Plan &best() { return *Candidates[ChosenIndex].Built; }
  const Plan &best() const { return *Candidates[ChosenIndex].Built; }

  /// Candidate I's plan: the one kept, or built now (and kept).
  llvm::Expected<Plan *>
  plan(size_t I,
       llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress =
           nullptr);
  /// Whether candidate I may be chosen: priced, and, when the request asks
  /// for identical results of an allreduce, its ranks combine every block in
  /// the same order (a verification, done once, whose verdict is kept). A
  /// candidate priced from rank 0 is built and checked only with
  /// CheckUnbuilt.
  bool mayChoose(size_t I, bool CheckUnbuilt = false);
  /// Drops every kept plan but the chosen one's.
  void keepOnlyChosen();
};

/// Prices every candidate of Families (every family implementing the
/// collective when empty: `--algorithm auto`) at each of Sizes, on the
/// process's worker threads, and chooses nothing. With several families,
/// each receives only the request's parameters it knows; a parameter that
/// no family implementing the collective knows is a usage error.
llvm::Expected<Compilation> priceCandidates(
    const CompileRequest &Request, llvm::ArrayRef<const Algorithm *> Families,
    llvm::ArrayRef<uint64_t> Sizes,
    llvm::function_ref<void(uint32_t Priced, uint32_t Total)> Pricing =
        nullptr);

/// Prices every candidate at the request's size (and at MoreSizes, for
/// choiceBySize) and chooses the fastest that may be chosen, building its
/// plan only if pricing did not.
llvm::Expected<Compilation> compile(
    const CompileRequest &Request,
    llvm::ArrayRef<const Algorithm *> Families = {},
    llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress = nullptr,
    llvm::function_ref<void(uint32_t Priced, uint32_t Total)> Pricing = nullptr,
    llvm::ArrayRef<uint64_t> MoreSizes = {});

/// The order among candidates of (nearly) equal time, so that a choice is
/// the same on every run: fewer rounds first, then the simpler family (the
/// earlier in allAlgorithms(), which lists them from the textbook baselines
/// to the composed ones), then the parameters' text. Whether A goes before
/// B when their times are a tie.
bool lessByTieRule(const Candidate &A, const Candidate &B);

/// Indices into Candidates, the priced ones at size index K, fastest first;
/// times within TieTolerance of each other are ordered by lessByTieRule.
std::vector<size_t> rankAtSize(llvm::ArrayRef<Candidate> Candidates, size_t K);

/// Sizes [From, To] (inclusive, among the sizes asked) whose best candidate
/// is Candidates[Index], of family Algo with Params.
struct SizeRange {
  uint64_t From = 0, To = 0;
  const Algorithm *Algo = nullptr;
  std::map<std::string, std::string> Params;
  size_t Index = 0;
};

/// The best candidate of C at each of Sizes (every one among C.Sizes),
/// adjacent sizes with the same choice merged: where the choice switches
/// (Swing-L to Swing-B, nap to smp). Each candidate was built once, for
/// C.Request.Bytes, and priced at every size, so parameters that depend on
/// the size (circulant's block count) stay as chosen for that size.
std::vector<SizeRange> choiceBySize(Compilation &C,
                                    llvm::ArrayRef<uint64_t> Sizes);

/// The candidates as a table for `--explain`: one line each, with the
/// predicted time, rounds and parameters, or why it was skipped.
std::string candidateTable(llvm::ArrayRef<Candidate> Candidates);

/// What the tuner charges a rank-symmetric plan on a flat topology: rank 0's
/// rounds priced one after another (see above).
double rankZeroTime(const PlanHeader &H, const Program &Rank0,
                    const CompileRequest &Request);

} // namespace collplan

#endif // COLLPLAN_SELECT_TUNER_H
