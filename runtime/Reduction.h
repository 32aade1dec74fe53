//===- Reduction.h - Element types, operators, kernels ----------*- C++ -*-===//
//
// The MPI predefined element types and reduction operators the runtime
// supports, and the kernels that combine two vectors element by element.
// The kernels are plain loops over typed pointers so the compiler vectorises
// them; there is one instantiation per (type, operator).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_REDUCTION_H
#define COLLPLAN_RUNTIME_REDUCTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace collplan::runtime {

enum class Datatype : uint8_t {
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float,
  Double,
};

enum class ReduceOp : uint8_t {
  Sum,
  Prod,
  Min,
  Max,
  Band, ///< Bitwise and: integer types only (as in MPI).
  Bor,
  Bxor,
  Land, ///< Logical and: integer types only (as in MPI); results are 0 or 1.
  Lor,
  Lxor,
};

/// "int8" ... "uint64", "float", "double".
llvm::StringRef datatypeName(Datatype T);
std::optional<Datatype> parseDatatype(llvm::StringRef Name);
llvm::ArrayRef<Datatype> allDatatypes();
size_t sizeOf(Datatype T);
bool isFloatingPoint(Datatype T);

/// Calls F with a value-initialised object of T's C++ type and returns what
/// F returns: the one place a Datatype turns into a type.
template <typename Fn> decltype(auto) visitDatatype(Datatype T, Fn &&F) {
  switch (T) {
  case Datatype::Int8:
    return F(int8_t());
  case Datatype::Int16:
    return F(int16_t());
  case Datatype::Int32:
    return F(int32_t());
  case Datatype::Int64:
    return F(int64_t());
  case Datatype::UInt8:
    return F(uint8_t());
  case Datatype::UInt16:
    return F(uint16_t());
  case Datatype::UInt32:
    return F(uint32_t());
  case Datatype::UInt64:
    return F(uint64_t());
  case Datatype::Float:
    return F(float());
  case Datatype::Double:
    break;
  }
  return F(double());
}

/// "sum", "prod", "min", "max", "band", "bor", "bxor", "land", "lor", "lxor".
llvm::StringRef reduceOpName(ReduceOp Op);
std::optional<ReduceOp> parseReduceOp(llvm::StringRef Name);
llvm::ArrayRef<ReduceOp> allReduceOps();

/// Whether MPI defines Op on T: bitwise and logical operators apply to
/// integer types only.
bool supports(Datatype T, ReduceOp Op);

/// InOut[i] = InOut[i] (Op) In[i] for i < Count. Signed integer sums and
/// products wrap (two's complement), like every MPI library's. The type and
/// operator must be supported(); the ranges must not overlap.
void reduceInto(void *InOut, const void *In, size_t Count, Datatype T,
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
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_REDUCTION_H
