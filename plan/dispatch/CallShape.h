//===- CallShape.h - A call, as its plan is chosen by ----------*- C++ -*-===//
//
// What a plan is chosen by: everything about a call that MPI guarantees is
// equal on every rank of it (so every rank chooses alike), and the one test
// of whether a plan's header serves such a call. The plan directory's rules
// (DispatchRule.h) narrow the files to read; fit() is the authority once a
// header is read.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_CALLSHAPE_H
#define COLLPLAN_DISPATCH_CALLSHAPE_H

#include "plan/ir/CallTypes.h"
#include "plan/ir/Plan.h"

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace collplan {

struct CallShape {
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 0;
  /// The whole vector's bytes (allgather(v): gathered; reduce-scatter:
  /// scattered).
  uint64_t Bytes = 0;
  /// Reductions: the operator.
  std::optional<ReduceOp> Op;
  /// Reductions: the element type, since a floating-point sum or product
  /// needs a plan that rounds as the directory's Rounding asks (fit()).
  std::optional<Datatype> Type;
  /// Broadcast and reduce.
  std::optional<uint32_t> Root;
  /// Allgatherv: the bytes each rank contributes. Empty for the other
  /// collectives that split the vector among ranks: equal parts.
  std::vector<uint64_t> Counts;

  auto fields() const {
    return std::tie(Kind, Ranks, Bytes, Op, Type, Root, Counts);
  }
  friend bool operator<(const CallShape &A, const CallShape &B) {
    return A.fields() < B.fields();
  }
  friend bool operator==(const CallShape &A, const CallShape &B) {
    return A.fields() == B.fields();
  }
};

enum class Fit {
  Serves,
  /// The plan is for another collective, P, root or layout of counts.
  OtherCall,
  /// The plan would serve, but its ranks may end with different bits of a
  /// floating-point sum or product (its stamp does not promise identical
  /// results), which MPI's own allreduce never gives.
  RankDependentRounding,
  /// The plan would serve, but Rounding::Reproducible asks for the same bits
  /// at every message size and its stamp does not promise them.
  NotReproducible,
};

/// Whether the plan with header H serves call C, whose floating-point sums
/// and products ask for R (Rounding::Identical: MPI's own promise).
Fit fit(const PlanHeader &H, const CallShape &C,
        Rounding R = Rounding::Identical);

inline bool serves(const PlanHeader &H, const CallShape &C) {
  return fit(H, C) == Fit::Serves;
}

} // namespace collplan

#endif // COLLPLAN_DISPATCH_CALLSHAPE_H
