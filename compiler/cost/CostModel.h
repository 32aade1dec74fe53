//===- CostModel.h - Critical-path time of a plan ----------------*- C++
//-*-===//
//
// DESIGN.md "Cost model": alpha + beta*bytes + gamma*reduced-bytes per
// message, composed as the plan dictates. Every rank has a clock; a message
// of round k leaves when both ends have reached round k, and a rank finishes
// round k when its last message of the round is done and its reductions and
// local operations have run. The predicted time is the latest clock: a
// critical path, not a sum of per-algorithm guesses.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_COST_COSTMODEL_H
#define COLLPLAN_COST_COSTMODEL_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Plan.h"

#include <cstdint>
#include <vector>

namespace collplan {

struct RoundCost {
  uint32_t Index = 0;
  double Finish = 0;       ///< Latest rank clock after this round.
  double MaxBytesSent = 0; ///< By any one rank in this round.
};

struct CostReport {
  double Time = 0;       ///< Predicted completion time, seconds.
  double LowerBound = 0; ///< See lowerBound().
  std::vector<RoundCost> Rounds;
  double MaxBytesSent = 0, MeanBytesSent = 0; ///< Per rank, whole plan.
  double MaxBytesRecv = 0, MeanBytesRecv = 0;
};

/// Evaluates P for a vector of Bytes bytes.
CostReport evaluateCost(const Plan &P, uint64_t Bytes, const CostParams &C);

/// The classic lower bound for the collective on P ranks: ceil(log2 P) alpha
/// plus the contract's bandwidth term (CollectiveContract::bandwidthShare),
/// 2(P-1)/P m beta for allreduce, (P-1)/P m beta for reduce-scatter and
/// allgather(v), m beta for broadcast and reduce.
double lowerBound(Collective Kind, uint32_t Ranks, uint64_t Bytes,
                  const CostParams &C);

} // namespace collplan

#endif // COLLPLAN_COST_COSTMODEL_H
