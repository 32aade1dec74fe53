//===- PlanBuilder.h - Hand-built plans for verifier tests ------*- C++ -*-===//

#ifndef COLLPLAN_TESTS_VERIFY_PLANBUILDER_H
#define COLLPLAN_TESTS_VERIFY_PLANBUILDER_H

#include "plan/ir/Plan.h"

#include <optional>
#include <string>
#include <vector>

namespace collplan {
namespace test {

/// A plan with no operations yet: add them with Programs[r].add(...).
inline Plan emptyPlan(Collective Kind, uint32_t Ranks, uint64_t Blocks,
                      std::optional<uint32_t> Root = std::nullopt,
                      std::vector<std::string> Buffers = {"data"}) {
  Plan P;
  P.Header.Kind = Kind;
  P.Header.Ranks = Ranks;
  P.Header.Topo = Topology::flat(Ranks);
  P.Header.Algorithm = "hand-built";
  P.Header.Blocks = Blocks;
  P.Header.Root = Root;
  P.Header.Buffers = std::move(Buffers);
  P.Programs.resize(Ranks);
  return P;
}

/// A message in round Index: From sends Blocks to To, which combines them
/// per Mode into its buffer ToBuffer.
inline void message(Plan &P, uint32_t Index, uint32_t From, uint32_t To,
                    BlockSet Blocks, Combine Mode, uint16_t FromBuffer = 0,
                    uint16_t ToBuffer = 0) {
  P.Programs[From].add(Index, Op::send(To, Blocks, FromBuffer));
  P.Programs[To].add(Index, Op::recv(From, Blocks, Mode, ToBuffer));
}

} // namespace test
} // namespace collplan

#endif // COLLPLAN_TESTS_VERIFY_PLANBUILDER_H
