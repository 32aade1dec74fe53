//===- CallTypes.h - Element types and reduction operators ------*- C++ -*-===//
//
// The vocabulary of a collective call that a plan may be chosen by: the MPI
// predefined element types and reduction operators collplan supports, with
// their names. It lives in the IR because the plan directory's index, the
// interposer's dispatch and the runtime's kernels (runtime/Reduction.h) all
// speak it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_CALLTYPES_H
#define COLLPLAN_IR_CALLTYPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace collplan {

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
/// "sum, prod, ... or lxor": for messages that list the choices.
const char *reduceOpChoices();

/// Whether MPI defines Op on T: bitwise and logical operators apply to
/// integer types only.
bool supports(Datatype T, ReduceOp Op);

/// Whether combining T with Op in different orders can give different bits:
/// floating-point sums and products round.
bool roundsByOrder(Datatype T, ReduceOp Op);

/// What a floating-point sum or product asks of the plan that serves it,
/// weakest first. The verifier's stamp says which a plan keeps
/// (VerificationStamp); a plan directory's index records which `tune`
/// chose by (PlanIndex.h), and the interposer serves such calls only from
/// plans that keep it.
enum class Rounding : uint8_t {
  /// Ranks may end with different bits (--allow-rank-dependent-rounding).
  RankDependent,
  /// Every rank ends with the same bits, as MPI's own allreduce gives: the
  /// default.
  Identical,
  /// The same bits at every message size too: every element combined in the
  /// canonical tree for P (--reproducible; docs/reproducibility.md).
  Reproducible,
};

/// "rank-dependent", "identical", "reproducible".
llvm::StringRef roundingName(Rounding R);
std::optional<Rounding> parseRounding(llvm::StringRef Name);

} // namespace collplan

#endif // COLLPLAN_IR_CALLTYPES_H
