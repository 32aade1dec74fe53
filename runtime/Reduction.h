//===- Reduction.h - Reduction kernels --------------------------*- C++ -*-===//
//
// The kernels that combine two vectors element by element, for the element
// types and operators of plan/ir/CallTypes.h.
// The kernels are plain loops over typed pointers so the compiler vectorises
// them; there is one instantiation per (type, operator).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_REDUCTION_H
#define COLLPLAN_RUNTIME_REDUCTION_H

#include "plan/ir/CallTypes.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace collplan::runtime {

/// InOut[i] = InOut[i] (Op) In[i] for i < Count. Signed integer sums and
/// products wrap (two's complement), like every MPI library's. The type and
/// operator must be supported(); the ranges must not overlap.
void reduceInto(void *InOut, const void *In, size_t Count, Datatype T,
                ReduceOp Op);
/// Out[i] = X[i] (Op) Y[i]: the same, leaving X alone, so a rank's first
/// combine reads its input where the user left it instead of copying it
/// first. Out must not overlap X or Y.
void reduceTo(void *Out, const void *X, const void *Y, size_t Count, Datatype T,
              ReduceOp Op);
/// InOut[i] = X[i] (Op) InOut[i]: reduceTo with Out == Y, for a received
/// vector that landed where its combine goes (Open MPI's ompi_op_reduce
/// order). Each element has reduceTo's operands, in reduceTo's order, so
/// the bits are reduceTo's. The ranges must not overlap.
void reduceOnto(void *InOut, const void *X, size_t Count, Datatype T,
                ReduceOp Op);

/// An operator as the executor sees it: a predefined one, or a user function
/// that may not be commutative (MPI_Op_create's commute = false).
struct Operator {
  using UserFn = void (*)(void *InOut, const void *In, size_t Count,
                          void *Context);

  ReduceOp Kind = ReduceOp::Sum;
  /// When set, replaces the predefined Kind: InOut = InOut (op) In.
  UserFn User = nullptr;
  void *Context = nullptr;
  bool Commutative = true;

  static Operator predefined(ReduceOp Kind) { return Operator{Kind}; }
  void apply(void *InOut, const void *In, size_t Count, Datatype T) const {
    if (User)
      User(InOut, In, Count, Context);
    else
      reduceInto(InOut, In, Count, T, Kind);
  }
  /// Out = X (op) Y; Out must not overlap X, and may be Y itself only for
  /// a predefined operator. A user function takes two operands: X is copied
  /// to Out first.
  void apply(void *Out, const void *X, const void *Y, size_t Count,
             Datatype T) const {
    if (Out == Y) {
      assert(!User && "a user function cannot combine into its right operand");
      reduceOnto(Out, X, Count, T, Kind);
    } else if (User) {
      std::memcpy(Out, X, Count * sizeOf(T));
      User(Out, Y, Count, Context);
    } else {
      reduceTo(Out, X, Y, Count, T, Kind);
    }
  }
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_REDUCTION_H
