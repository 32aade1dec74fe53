//===- CompileHelper.h - Compiling a plan by name in tests ------*- C++ -*-===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H
#define COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H

#include "compiler/algorithms/Algorithm.h"

#include "doctest/doctest.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan::test {

/// Algorithm Name's plan for Kind on Topo; fails the test (and returns an
/// empty plan) when it cannot be compiled.
inline Plan compileOn(llvm::StringRef Name, Collective Kind,
                      const Topology &Topo,
                      std::map<std::string, std::string> Params = {},
                      std::optional<uint32_t> Root = std::nullopt,
                      std::vector<uint64_t> Weights = {}) {
  const Algorithm *A = findAlgorithm(Name);
  REQUIRE(A != nullptr);
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topo;
  Req.Params = std::move(Params);
  Req.Root = Root;
  Req.Weights = std::move(Weights);
  llvm::Expected<Plan> Result = compilePlan(*A, Req);
  if (!Result) {
    FAIL_CHECK(llvm::toString(Result.takeError()));
    return Plan();
  }
  return std::move(*Result);
}

/// Algorithm Name's plan for Kind on P ranks of a flat topology.
inline Plan compileFlat(llvm::StringRef Name, Collective Kind, uint32_t P,
                        std::optional<uint32_t> Root = std::nullopt,
                        std::vector<uint64_t> Weights = {}) {
  return compileOn(Name, Kind, Topology::flat(P), {}, Root, std::move(Weights));
}

/// Name's allreduce on Nodes nodes of PerNode ranks.
inline Plan compileNodes(llvm::StringRef Name, uint32_t Nodes, uint32_t PerNode,
                         RankMapping Mapping = RankMapping::Block,
                         std::map<std::string, std::string> Params = {}) {
  return compileOn(Name, Collective::Allreduce,
                   Topology::nodes(Nodes, PerNode, Mapping), std::move(Params));
}

/// The operations of Rank in round Index, or none.
inline llvm::ArrayRef<Op> opsAt(const Plan &P, uint32_t Rank, uint32_t Index) {
  for (const Round &Rd : P.Programs[Rank].Rounds)
    if (Rd.Index == Index)
      return Rd.Ops;
  return {};
}

/// The round indices in which Rank does anything.
inline std::vector<uint32_t> activeRounds(const Plan &P, uint32_t Rank) {
  std::vector<uint32_t> Out;
  for (const Round &Rd : P.Programs[Rank].Rounds)
    Out.push_back(Rd.Index);
  return Out;
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H
