//===- PlanSamples.h - Plans the serializer tests write and read ----------===//
//
// Built by hand (every field the format has, including the awkward ones) or
// by compilePlan, and a field-by-field comparison that says which field
// differs.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_SERIALIZE_PLANSAMPLES_H
#define COLLPLAN_TESTS_SERIALIZE_PLANSAMPLES_H

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/Plan.h"

#include <doctest/doctest.h>
#ifndef DOCTEST_CONFIG_DISABLE
#include "tests/support/PlanFactory.h"
#endif

#include <string>

namespace collplan::test {

/// A reduce on a 2x3 torus of nodes with 2 ranks each (round-robin mapping):
/// weights (including 0 and large ones), a root, 17 buffers (so buffer
/// indices need more than four bits), local operations, multi-range block
/// sets, sparse round indices, and parameter strings a YAML writer must
/// quote. Structurally valid; not a correct reduce.
inline Plan handBuiltPlan() {
  Plan P;
  PlanHeader &H = P.Header;
  H.Kind = Collective::Reduce;
  H.Topo = Topology::torus({2, 3}, 2, RankMapping::RoundRobin);
  H.Ranks = H.Topo.ranks();
  H.Algorithm = "hand-built";
  H.Params = {{"segments", "4"},
              {"flag", "yes"},
              {"empty", ""},
              {"text", "a: b, [c] # d"},
              {"unicode", "\xc3\xa9t\xc3\xa9"},
              {"null", "~"},
              {"7", "leading digit key"}};
  H.Blocks = 24;
  for (uint64_t B = 0; B < H.Blocks; ++B)
    H.Weights.push_back(B % 5 == 0 ? 0 : (B * 1000003) % 9973 + (B << 33));
  H.Root = 2;
  H.Buffers = {"data", "tmp"};
  for (int I = 2; I < 17; ++I)
    H.Buffers.push_back("scratch" + std::to_string(I));
  H.RequiresCommutative = false;

  uint32_t N = H.Ranks;
  for (uint32_t R = 0; R < N; ++R) {
    Program Prog;
    BlockSet Two = BlockSet::range(0, 2);
    Two.insert(5, 7);
    Two.insert(20, 24);
    Prog.add(0, Op::send((R + 1) % N, Two));
    Prog.add(0, Op::recv((R + N - 1) % N, Two, Combine::Reduce, 1));
    Prog.add(3, Op::send((R + 5) % N, BlockSet::wrapped(R, 5, 24), 16));
    Prog.add(3, Op::send((R + 5) % N, BlockSet::single(23), 15));
    Prog.add(3, Op::recv((R + N - 5) % N, BlockSet::wrapped(R + 7, 5, 24),
                         Combine::Replace, 14));
    Prog.add(3, Op::local(14, 16, BlockSet::range(0, 24), Combine::Reduce));
    if (R % 3 == 0)
      Prog.add(1000000,
               Op::local(1, 0, BlockSet::range(3, 4), Combine::Replace));
    P.Programs.push_back(std::move(Prog));
  }
  return P;
}

#ifndef DOCTEST_CONFIG_DISABLE
/// The whole plan of Algorithm on Topo; fails the test if it cannot be made.
inline Plan compiledPlan(llvm::StringRef Algorithm, Collective Kind,
                         Topology Topo) {
  return compileOn(Algorithm, Kind, Topo);
}

/// Checks every field of B against A, naming the first difference.
inline void checkSamePlan(const Plan &A, const Plan &B) {
  const PlanHeader &X = A.Header, &Y = B.Header;
  CHECK(X.Kind == Y.Kind);
  CHECK(X.Ranks == Y.Ranks);
  CHECK(X.Topo == Y.Topo);
  CHECK(X.Algorithm == Y.Algorithm);
  CHECK(X.Params == Y.Params);
  CHECK(X.Blocks == Y.Blocks);
  CHECK(X.Weights == Y.Weights);
  CHECK(X.Root == Y.Root);
  CHECK(X.Buffers == Y.Buffers);
  CHECK(X.RequiresCommutative == Y.RequiresCommutative);
  REQUIRE(A.Programs.size() == B.Programs.size());
  for (size_t R = 0; R < A.Programs.size(); ++R) {
    const auto &RA = A.Programs[R].Rounds, &RB = B.Programs[R].Rounds;
    REQUIRE_MESSAGE(RA.size() == RB.size(), "rank " << R);
    for (size_t K = 0; K < RA.size(); ++K) {
      REQUIRE_MESSAGE(RA[K].Index == RB[K].Index, "rank " << R);
      REQUIRE_MESSAGE(RA[K].Ops.size() == RB[K].Ops.size(),
                      "rank " << R << " round " << RA[K].Index);
      for (size_t I = 0; I < RA[K].Ops.size(); ++I)
        REQUIRE_MESSAGE(RA[K].Ops[I] == RB[K].Ops[I], "rank " << R << " round "
                                                              << RA[K].Index
                                                              << " op " << I);
    }
  }
}

#endif // DOCTEST_CONFIG_DISABLE

} // namespace collplan::test

#endif // COLLPLAN_TESTS_SERIALIZE_PLANSAMPLES_H
