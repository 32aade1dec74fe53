//===- PlanFactory.h - Compiling a plan by family name in tests -*- C++ -*-===//
//
// The one way a test asks a family for a plan: by name, as `collplan compile
// --algorithm NAME` does, with a failure of the test (and the compiler's
// message) when the family is unknown or refuses the request. Header-only,
// so that a test links only the libraries it already names (the families).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_SUPPORT_PLANFACTORY_H
#define COLLPLAN_TESTS_SUPPORT_PLANFACTORY_H

#include "compiler/algorithms/Algorithm.h"

#include "doctest/doctest.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan::test {

/// The registered family called Name; fails the test when there is none.
inline const Algorithm &algorithmNamed(llvm::StringRef Name) {
  const Algorithm *A = findAlgorithm(Name);
  REQUIRE_MESSAGE(A != nullptr, "no algorithm called " << Name.str());
  return *A;
}

/// The request for Kind on Topo, with the defaults of `collplan compile`
/// (1 MiB, default cost parameters) unless the caller changes them.
inline CompileRequest requestFor(Collective Kind, const Topology &Topo,
                                 std::map<std::string, std::string> Params = {},
                                 std::optional<uint32_t> Root = std::nullopt,
                                 std::vector<uint64_t> Weights = {}) {
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topo;
  Req.Params = std::move(Params);
  Req.Root = Root;
  Req.Weights = std::move(Weights);
  return Req;
}

/// A's plan for Req; fails the test with the compiler's message when A
/// refuses it.
inline Plan compileWith(const Algorithm &A, const CompileRequest &Req) {
  llvm::Expected<Plan> Result = compilePlan(A, Req);
  if (!Result) {
    std::string Message = llvm::toString(Result.takeError());
    FAIL(Message);
  }
  return std::move(*Result);
}

/// The plan of the family called Name for Req.
inline Plan compileWith(llvm::StringRef Name, const CompileRequest &Req) {
  return compileWith(algorithmNamed(Name), Req);
}

/// The plan of the family called Name for Kind on Topo.
inline Plan compileOn(llvm::StringRef Name, Collective Kind,
                      const Topology &Topo,
                      std::map<std::string, std::string> Params = {},
                      std::optional<uint32_t> Root = std::nullopt,
                      std::vector<uint64_t> Weights = {}) {
  return compileWith(Name, requestFor(Kind, Topo, std::move(Params), Root,
                                      std::move(Weights)));
}

/// The plan of the family called Name for Kind on P ranks of a flat
/// topology.
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

} // namespace collplan::test

#endif // COLLPLAN_TESTS_SUPPORT_PLANFACTORY_H
