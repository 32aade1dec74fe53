//===- CallTypes.cpp - Element types and reduction operators --------------===//

#include "plan/ir/CallTypes.h"

namespace collplan {

namespace {

struct TypeInfo {
  Datatype Type;
  const char *Name;
  size_t Size;
};

constexpr TypeInfo Types[] = {
    {Datatype::Int8, "int8", 1},     {Datatype::Int16, "int16", 2},
    {Datatype::Int32, "int32", 4},   {Datatype::Int64, "int64", 8},
    {Datatype::UInt8, "uint8", 1},   {Datatype::UInt16, "uint16", 2},
    {Datatype::UInt32, "uint32", 4}, {Datatype::UInt64, "uint64", 8},
    {Datatype::Float, "float", 4},   {Datatype::Double, "double", 8},
};

constexpr const char *OpNames[] = {"sum", "prod", "min",  "max", "band",
                                   "bor", "bxor", "land", "lor", "lxor"};

} // namespace

llvm::StringRef datatypeName(Datatype T) {
  return Types[static_cast<size_t>(T)].Name;
}

std::optional<Datatype> parseDatatype(llvm::StringRef Name) {
  for (const TypeInfo &I : Types)
    if (Name == I.Name)
      return I.Type;
  return std::nullopt;
}

llvm::ArrayRef<Datatype> allDatatypes() {
  static constexpr Datatype All[] = {
      Datatype::Int8,  Datatype::Int16,  Datatype::Int32,  Datatype::Int64,
      Datatype::UInt8, Datatype::UInt16, Datatype::UInt32, Datatype::UInt64,
      Datatype::Float, Datatype::Double};
  return All;
}

size_t sizeOf(Datatype T) { return Types[static_cast<size_t>(T)].Size; }

bool isFloatingPoint(Datatype T) {
  return T == Datatype::Float || T == Datatype::Double;
}

llvm::StringRef reduceOpName(ReduceOp Op) {
  return OpNames[static_cast<size_t>(Op)];
}

std::optional<ReduceOp> parseReduceOp(llvm::StringRef Name) {
  for (ReduceOp Op : allReduceOps())
    if (Name == reduceOpName(Op))
      return Op;
  return std::nullopt;
}

llvm::ArrayRef<ReduceOp> allReduceOps() {
  static constexpr ReduceOp All[] = {
      ReduceOp::Sum,  ReduceOp::Prod, ReduceOp::Min,  ReduceOp::Max,
      ReduceOp::Band, ReduceOp::Bor,  ReduceOp::Bxor, ReduceOp::Land,
      ReduceOp::Lor,  ReduceOp::Lxor};
  return All;
}

const char *reduceOpChoices() {
  return "sum, prod, min, max, band, bor, bxor, land, lor or lxor";
}

bool supports(Datatype T, ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
  case ReduceOp::Prod:
  case ReduceOp::Min:
  case ReduceOp::Max:
    return true;
  default:
    return !isFloatingPoint(T);
  }
}

bool roundsByOrder(Datatype T, ReduceOp Op) {
  return isFloatingPoint(T) && (Op == ReduceOp::Sum || Op == ReduceOp::Prod);
}

static constexpr const char *RoundingNames[] = {"rank-dependent", "identical",
                                                "reproducible"};

llvm::StringRef roundingName(Rounding R) {
  return RoundingNames[static_cast<size_t>(R)];
}

std::optional<Rounding> parseRounding(llvm::StringRef Name) {
  for (size_t I = 0; I < std::size(RoundingNames); ++I)
    if (Name == RoundingNames[I])
      return Rounding(I);
  return std::nullopt;
}

} // namespace collplan
