//===- MpiTypes.cpp - MPI datatypes and operators as the plans see them ---===//

#include "runtime/interposer/MpiTypes.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <utility>

namespace collplan::runtime {

std::optional<Datatype> reducibleTypeOf(MPI_Datatype T) {
  // The fixed-width types, then C's named types by their size here.
  auto Sized = [](size_t Size, bool Signed) {
    switch (Size) {
    case 1:
      return Signed ? Datatype::Int8 : Datatype::UInt8;
    case 2:
      return Signed ? Datatype::Int16 : Datatype::UInt16;
    case 4:
      return Signed ? Datatype::Int32 : Datatype::UInt32;
    default:
      return Signed ? Datatype::Int64 : Datatype::UInt64;
    }
  };
  // Built once: it is searched on every reduction call.
  static const std::pair<MPI_Datatype, Datatype> Table[] = {
      {MPI_INT8_T, Datatype::Int8},
      {MPI_INT16_T, Datatype::Int16},
      {MPI_INT32_T, Datatype::Int32},
      {MPI_INT64_T, Datatype::Int64},
      {MPI_UINT8_T, Datatype::UInt8},
      {MPI_UINT16_T, Datatype::UInt16},
      {MPI_UINT32_T, Datatype::UInt32},
      {MPI_UINT64_T, Datatype::UInt64},
      {MPI_FLOAT, Datatype::Float},
      {MPI_DOUBLE, Datatype::Double},
      {MPI_SIGNED_CHAR, Datatype::Int8},
      {MPI_UNSIGNED_CHAR, Datatype::UInt8},
      {MPI_SHORT, Sized(sizeof(short), true)},
      {MPI_UNSIGNED_SHORT, Sized(sizeof(short), false)},
      {MPI_INT, Sized(sizeof(int), true)},
      {MPI_UNSIGNED, Sized(sizeof(int), false)},
      {MPI_LONG, Sized(sizeof(long), true)},
      {MPI_UNSIGNED_LONG, Sized(sizeof(long), false)},
      {MPI_LONG_LONG, Sized(sizeof(long long), true)},
      {MPI_UNSIGNED_LONG_LONG, Sized(sizeof(long long), false)},
  };
  for (const auto &[Mpi, Ours] : Table)
    if (Mpi == T)
      return Ours;
  return std::nullopt;
}

std::optional<ReduceOp> reduceOpOf(MPI_Op Op) {
  static const std::pair<MPI_Op, ReduceOp> Table[] = {
      {MPI_SUM, ReduceOp::Sum},   {MPI_PROD, ReduceOp::Prod},
      {MPI_MIN, ReduceOp::Min},   {MPI_MAX, ReduceOp::Max},
      {MPI_BAND, ReduceOp::Band}, {MPI_BOR, ReduceOp::Bor},
      {MPI_BXOR, ReduceOp::Bxor}, {MPI_LAND, ReduceOp::Land},
      {MPI_LOR, ReduceOp::Lor},   {MPI_LXOR, ReduceOp::Lxor}};
  for (const auto &[Mpi, Ours] : Table)
    if (Mpi == Op)
      return Ours;
  return std::nullopt;
}

/// The layouts of the predefined types seen so far. A predefined type never
/// changes and its handle is never freed, so its layout is computed once
/// instead of with four MPI queries on every call; a derived type's handle
/// may be freed and reused, so it is never kept.
struct KnownLayout {
  MPI_Datatype Type;
  TypeLayout Layout;
};
static KnownLayout Known[8];
static size_t NumKnown = 0;

TypeLayout layoutOf(MPI_Datatype T) {
  for (size_t I = 0; I < NumKnown; ++I)
    if (Known[I].Type == T)
      return Known[I].Layout;
  TypeLayout L;
  int Size = 0;
  PMPI_Type_size(T, &Size);
  L.Size = uint64_t(std::max(Size, 0));
  MPI_Aint Lb = 0, TrueLb = 0, TrueExtent = 0;
  PMPI_Type_get_extent(T, &Lb, &L.Extent);
  PMPI_Type_get_true_extent(T, &TrueLb, &TrueExtent);
  // Only a predefined type is known to store its bytes in type-map order; a
  // derived type without holes may still list them in another order.
  int Integers, Addresses, Types, Combiner;
  PMPI_Type_get_envelope(T, &Integers, &Addresses, &Types, &Combiner);
  L.Predefined = Combiner == MPI_COMBINER_NAMED;
  L.Contiguous = L.Predefined && Lb == 0 && TrueLb == 0 &&
                 MPI_Aint(L.Size) == L.Extent && TrueExtent == L.Extent;
  if (Combiner == MPI_COMBINER_NAMED && NumKnown < std::size(Known))
    Known[NumKnown++] = {T, L};
  return L;
}

/// Runs Fn(first element, elements) over Count elements in pieces whose bytes
/// fit MPI_Pack's int sizes.
template <typename Fn>
static void inPieces(uint64_t Count, const TypeLayout &L, Fn Piece) {
  uint64_t Per = std::max<uint64_t>(1, INT_MAX / std::max<uint64_t>(L.Size, 1));
  for (uint64_t I = 0; I < Count; I += Per)
    Piece(I, int(std::min(Per, Count - I)));
}

void packBytes(const void *Buffer, uint64_t Count, MPI_Datatype T,
               const TypeLayout &L, char *Out, MPI_Comm Comm) {
  // No bytes (a count of 0 or a datatype of size 0): the staging area may
  // not exist, and MPI_Pack may refuse a buffer of no size.
  if (Count * L.Size == 0)
    return;
  if (L.Contiguous) {
    std::memcpy(Out, Buffer, Count * L.Size);
    return;
  }
  inPieces(Count, L, [&](uint64_t First, int N) {
    int Position = 0;
    PMPI_Pack(static_cast<const char *>(Buffer) + First * L.Extent, N, T,
              Out + First * L.Size, int(N * L.Size), &Position, Comm);
  });
}

void unpackBytes(const char *In, uint64_t Count, MPI_Datatype T,
                 const TypeLayout &L, void *Buffer, MPI_Comm Comm) {
  if (Count * L.Size == 0) // As in packBytes.
    return;
  if (L.Contiguous) {
    std::memcpy(Buffer, In, Count * L.Size);
    return;
  }
  inPieces(Count, L, [&](uint64_t First, int N) {
    int Position = 0;
    PMPI_Unpack(In + First * L.Size, int(N * L.Size), &Position,
                static_cast<char *>(Buffer) + First * L.Extent, N, T, Comm);
  });
}

} // namespace collplan::runtime
