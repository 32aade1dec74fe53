//===- MessagePlan.h - Plans of whole-vector messages -----------*- C++ -*-===//

#ifndef COLLPLAN_TESTS_COST_MESSAGEPLAN_H
#define COLLPLAN_TESTS_COST_MESSAGEPLAN_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Plan.h"

#include <utility>
#include <vector>

namespace collplan::test {

/// A plan of one block on Topo whose rounds are lists of (from, to)
/// messages; each message carries the whole vector and lands per Mode. The
/// cost tests price these against hand computations.
inline Plan messagePlan(
    const Topology &Topo,
    const std::vector<std::vector<std::pair<uint32_t, uint32_t>>> &Rounds,
    Combine Mode = Combine::Replace) {
  Plan P;
  P.Header.Kind = Collective::Allreduce;
  P.Header.Ranks = Topo.ranks();
  P.Header.Topo = Topo;
  P.Header.Blocks = 1;
  P.Programs.resize(Topo.ranks());
  for (uint32_t K = 0; K < Rounds.size(); ++K) {
    for (auto [From, To] : Rounds[K])
      P.Programs[From].add(K, Op::send(To, BlockSet::single(0)));
    for (auto [From, To] : Rounds[K])
      P.Programs[To].add(K, Op::recv(From, BlockSet::single(0), Mode));
  }
  return P;
}

/// Round numbers for hand-worked cases: alpha = 1, beta = 0.01 per byte (a
/// 100-byte message alone arrives 2 after its round starts), no reduction
/// cost and no per-hop latency.
inline CostParams unitCosts() {
  CostParams C;
  C.Alpha = 1;
  C.Beta = 0.01;
  C.Gamma = 0;
  C.AlphaHop = 0;
  return C;
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_COST_MESSAGEPLAN_H
