//===- Select.cpp - Pick the best algorithm for a request -----------------===//

#include "compiler/select/Select.h"

#include "compiler/cost/CostModel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

namespace collplan {

llvm::Expected<Selection> selectAlgorithm(const CompileRequest &Request) {
  Selection Result;
  std::optional<double> BestTime;
  std::string Reasons;
  for (const Algorithm *A : allAlgorithms()) {
    if (!A->supports(Request.Kind))
      continue;
    Candidate C{A, 0, ""};
    // Parameters are per algorithm: pass on only those this one knows.
    CompileRequest Own = Request;
    std::vector<ParamInfo> Known = A->params();
    std::erase_if(Own.Params, [&](const auto &KV) {
      return llvm::none_of(
          Known, [&](const ParamInfo &I) { return I.Name == KV.first; });
    });
    if (llvm::Error E = checkRequest(*A, Own)) {
      C.Skipped = llvm::toString(std::move(E));
      Result.Candidates.push_back(C);
      continue;
    }
    llvm::Expected<PlanHeader> Header = A->prepare(Own);
    if (!Header) {
      C.Skipped = llvm::toString(Header.takeError());
      Result.Candidates.push_back(C);
      continue;
    }
    // Rank 0's program stands for every rank's size: skip plans too large to
    // build just for ranking (ring at large P has P^2 operations).
    uint64_t Estimate = A->buildRank(*Header, 0).numOps() * Header->Ranks;
    if (Estimate > MaxOpsToRank) {
      C.Skipped = "about " + std::to_string(Estimate) +
                  " operations: too large to rank";
      Result.Candidates.push_back(C);
      continue;
    }
    llvm::Expected<Plan> P = compilePlan(*A, Own);
    if (!P) {
      C.Skipped = llvm::toString(P.takeError());
      Result.Candidates.push_back(C);
      continue;
    }
    C.PredictedTime = evaluateCost(*P, Request.Bytes, Request.Cost).Time;
    if (!BestTime || C.PredictedTime < *BestTime) {
      BestTime = C.PredictedTime;
      Result.Best = std::move(*P);
    }
    Result.Candidates.push_back(C);
  }
  if (!BestTime) {
    for (const Candidate &C : Result.Candidates)
      Reasons += "\n  " + C.Algo->name().str() + ": " + C.Skipped;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no algorithm can compile %s for P = %u%s",
                                   collectiveName(Request.Kind).str().c_str(),
                                   Request.ranks(), Reasons.c_str());
  }
  std::stable_sort(Result.Candidates.begin(), Result.Candidates.end(),
                   [](const Candidate &A, const Candidate &B) {
                     if (A.Skipped.empty() != B.Skipped.empty())
                       return A.Skipped.empty();
                     return A.PredictedTime < B.PredictedTime;
                   });
  return Result;
}

} // namespace collplan
