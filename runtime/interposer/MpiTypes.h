//===- MpiTypes.h - MPI datatypes and operators as the plans see them -*- C++
//-*-===//
//
// A plan moves bytes and combines elements of our own Datatype with our own
// ReduceOp. Collectives that only move data run on bytes: MPI guarantees
// that every rank's type signature has the same size, not that the ranks use
// the same datatype or lay their buffers out alike, so a buffer whose type is
// not plain contiguous bytes is packed into a contiguous staging area before
// the plan runs and unpacked after (MPI_Pack / MPI_Unpack), never sent down
// another path than its peers'.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_INTERPOSER_MPITYPES_H
#define COLLPLAN_RUNTIME_INTERPOSER_MPITYPES_H

#include "runtime/Reduction.h"

#include <mpi.h>

#include <cstdint>
#include <optional>

namespace collplan::runtime {

/// A predefined MPI type our reductions know; nullopt for every other type
/// (derived, pair types such as MPI_DOUBLE_INT, MPI_LONG_DOUBLE, ...).
std::optional<Datatype> reducibleTypeOf(MPI_Datatype T);
/// A predefined MPI operator as ours; nullopt for user-defined operators.
std::optional<ReduceOp> reduceOpOf(MPI_Op Op);

/// How Count elements of a type sit in memory.
struct TypeLayout {
  uint64_t Size = 0;   ///< Bytes of data in one element (MPI_Type_size).
  MPI_Aint Extent = 0; ///< Stride between consecutive elements.
  /// Whether Count elements are exactly Count * Size consecutive bytes in
  /// type-map order, so the buffer can be used as bytes in place.
  bool Contiguous = false;
  /// A predefined (named) type: its handle never changes meaning.
  bool Predefined = false;
};
TypeLayout layoutOf(MPI_Datatype T);

/// Copies Count elements of T at Buffer into Out, Count * Size bytes.
void packBytes(const void *Buffer, uint64_t Count, MPI_Datatype T,
               const TypeLayout &L, char *Out, MPI_Comm Comm);
/// The inverse of packBytes.
void unpackBytes(const char *In, uint64_t Count, MPI_Datatype T,
                 const TypeLayout &L, void *Buffer, MPI_Comm Comm);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_INTERPOSER_MPITYPES_H
