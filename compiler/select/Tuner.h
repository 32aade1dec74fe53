//===- Tuner.h - One compile pipeline: candidates, prices, the best plan --===//
//
// The tuner is the only place that chooses: it asks each family for the
// parameter settings worth trying (Algorithm::candidates), prices every
// (family, setting) with the one cost model, and builds the fastest. Families
// only enumerate and build (as MPICH keeps coll/selection apart from
// coll/allreduce/*). `collplan compile`, `select` and `tune` call
// compile().
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
// request allows rank-dependent rounding (CompileRequest::IdenticalResults).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SELECT_TUNER_H
#define COLLPLAN_SELECT_TUNER_H

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// Plans with more operations than this are priced from rank 0 or skipped,
/// not built just to be priced.
constexpr uint64_t MaxOpsToPrice = 20'000'000;

struct Candidate {
  const Algorithm *Algo = nullptr;
  /// The parameters as prepare() resolved them.
  std::map<std::string, std::string> Params;
  double PredictedTime = 0;
  uint32_t Rounds = 0;
  /// Priced from rank 0's rounds rather than from the whole plan.
  bool FromRankZero = false;
  /// Why the candidate was not priced; empty when it was.
  std::string Skipped;
};

struct Compilation {
  Plan Best;
  const Algorithm *Chosen = nullptr;
  /// Every candidate of every family tried, fastest first, skipped last.
  std::vector<Candidate> Candidates;
  /// Best's verdict when choosing it took a full verification (the
  /// identical-results check): verifying Best again would repeat it.
  std::optional<VerifyResult> Verified;
  /// With `--algorithm auto`: each requested parameter and the families that
  /// know it (and so took it); the others ignore it.
  std::map<std::string, std::vector<std::string>> ParamTakers;
};

/// Prices every candidate of Families (every family implementing the
/// collective when empty: `--algorithm auto`) and builds the fastest. With
/// several families, each receives only the request's parameters it knows;
/// a parameter that no family implementing the collective knows is a usage
/// error.
llvm::Expected<Compilation> compile(
    const CompileRequest &Request,
    llvm::ArrayRef<const Algorithm *> Families = {},
    llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress = nullptr,
    llvm::function_ref<void(uint32_t Priced, uint32_t Total)> Pricing =
        nullptr);

/// Sizes [From, To] (inclusive, among the sizes asked) whose best candidate
/// is Algo with Params.
struct SizeRange {
  uint64_t From = 0, To = 0;
  const Algorithm *Algo = nullptr;
  std::map<std::string, std::string> Params;
};

/// The best candidate at each of Sizes, adjacent sizes with the same choice
/// merged: where the choice switches (Swing-L to Swing-B, nap to smp). Each
/// candidate is built once, for Request.Bytes, and priced at every size, so
/// parameters that depend on the size (circulant's block count) stay as
/// chosen for Request.Bytes.
/// Verified, if given, receives every plan that choosing took a full
/// verification of (the identical-results check), with the verdict, so a
/// caller that writes the same plan need not verify it again.
using VerifiedFn =
    llvm::function_ref<void(const Plan &P, const VerifyResult &Verdict)>;
llvm::Expected<std::vector<SizeRange>> choiceBySize(
    const CompileRequest &Request, llvm::ArrayRef<const Algorithm *> Families,
    llvm::ArrayRef<uint64_t> Sizes,
    llvm::function_ref<void(uint32_t Priced, uint32_t Total)> Pricing = nullptr,
    VerifiedFn Verified = nullptr);

/// The candidates as a table for `--explain`: one line each, with the
/// predicted time, rounds and parameters, or why it was skipped.
std::string candidateTable(llvm::ArrayRef<Candidate> Candidates);

/// What the tuner charges a rank-symmetric plan on a flat topology: rank 0's
/// rounds priced one after another (see above).
double rankZeroTime(const PlanHeader &H, const Program &Rank0,
                    const CompileRequest &Request);

} // namespace collplan

#endif // COLLPLAN_SELECT_TUNER_H
