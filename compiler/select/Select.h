//===- Select.h - Pick the best algorithm for a request ----------*- C++ -*-===//
//
// The selection layer, apart from the algorithms (as MPICH keeps coll/
// selection apart from coll/allreduce/*): it compiles every algorithm that
// implements the requested collective and ranks the plans by the cost model.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SELECT_SELECT_H
#define COLLPLAN_SELECT_SELECT_H

#include "compiler/algorithms/Algorithm.h"

#include <string>
#include <vector>

namespace collplan {

struct Candidate {
  const Algorithm *Algo = nullptr;
  double PredictedTime = 0;
  /// Why the candidate was not considered; empty when it was.
  std::string Skipped;
};

struct Selection {
  Plan Best;
  /// Every algorithm that implements the collective, fastest first, skipped
  /// ones last.
  std::vector<Candidate> Candidates;
};

/// Plans with more operations than this are not built just to be ranked.
constexpr uint64_t MaxOpsToRank = 20'000'000;

/// Compiles every algorithm implementing Request.Kind (with Request.Params
/// applied only where the algorithm knows them) and keeps the one the cost
/// model predicts fastest for Request.Bytes.
llvm::Expected<Selection> selectAlgorithm(const CompileRequest &Request);

} // namespace collplan

#endif // COLLPLAN_SELECT_SELECT_H
