//===- Interposer.cpp - libcollplan_mpi*.so: MPI collectives from plans ---===//
//
// Preloaded into an unmodified MPI program (mpirun -x LD_PRELOAD=... -x
// COLLPLAN_PLANS=DIR), this library serves MPI_Allreduce,
// MPI_Reduce_scatter_block, MPI_Allgather, MPI_Allgatherv, MPI_Alltoall,
// MPI_Alltoallv, MPI_Bcast and
// MPI_Reduce through the MPI profiling interface (the symbols themselves are
// in EntryPoints.cpp). The same source is built once per MPI ABI found:
// libcollplan_mpi.so against Open MPI, libcollplan_mpich.so against MPICH
// (MpiAbi.h). A call runs from a plan in DIR (plan/dispatch names the
// files), with the executor over the MPI transport on a private duplicate of
// the call's communicator, or calls the PMPI_ version. A process reads only
// its own rank's program of a plan (with the header and the whole plan's
// hash: RankSlice.h), so its memory does not grow with P.
//
// This file turns each collective's arguments into a call shape and the
// executor's view of its buffers; which path the call takes, the same on
// every rank, is CallDecision.h's. A buffer whose datatype is not plain
// contiguous bytes is packed into a staging area (MpiTypes.h) instead of
// being sent down another path. MPI_Alltoallv's counts are known to no rank
// whole (each has its row and column), so its ranks agree on every call
// (CallDecision.h, fromAgreedPlan). Not thread-safe: calls from several
// threads at once are not supported.
//
//===----------------------------------------------------------------------===//

#include "runtime/interposer/CallDecision.h"
#include "runtime/interposer/Interposed.h"
#include "runtime/interposer/MpiTypes.h"

#include "plan/dispatch/PairSizes.h"

#include <mpi.h>

#include <map>
#include <optional>
#include <type_traits>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::interposer;

namespace {

/// Room for Bytes bytes in Area, kept between calls.
char *room(std::vector<char> &Area, uint64_t Bytes) {
  if (Area.size() < Bytes)
    Area.resize(Bytes);
  return Area.data();
}

/// The executor's view of a reduction: MPI_IN_PLACE (SendBuf) is the
/// contract's in place.
CallArgs reductionArgs(const void *SendBuf, void *RecvBuf, uint64_t Count,
                       Datatype Type, ReduceOp Op) {
  CallArgs A;
  A.Input = SendBuf == MPI_IN_PLACE ? nullptr : SendBuf;
  A.Output = RecvBuf;
  A.Count = Count;
  A.Type = Type;
  A.Op = Operator::predefined(Op);
  return A;
}

/// The executor's view of a data movement: bytes. Input null is in place.
CallArgs byteArgs(const void *Input, void *Output, uint64_t Bytes) {
  CallArgs A;
  A.Input = Input;
  A.Output = Output;
  A.Count = Bytes;
  A.Type = Datatype::UInt8;
  return A;
}

/// A predefined operator on a type it is defined on, as ours.
struct TypedOp {
  Datatype Type;
  ReduceOp Op;
};

/// The call's type and operator when a plan may combine them; otherwise the
/// call is left to MPI (MPI requires the same datatype and operator on every
/// rank of a reduction, so every rank refuses alike).
std::optional<TypedOp> typedOpOf(const Call &C, MPI_Datatype Type, MPI_Op Op,
                                 int Count) {
  std::optional<Datatype> T = reducibleTypeOf(Type);
  std::optional<ReduceOp> O = reduceOpOf(Op);
  if (Count < 0)
    refuse(C, "a negative count");
  else if (!O)
    refuse(C, "a user-defined operator");
  else if (!T)
    refuse(C, "a datatype plans do not reduce (derived or pair type)");
  else if (!supports(*T, *O))
    refuse(C, "an operator not defined on the datatype");
  else
    return TypedOp{*T, *O};
  return std::nullopt;
}

bool isIntercommunicator(MPI_Comm Comm) {
  int Inter = 0;
  PMPI_Comm_test_inter(Comm, &Inter);
  return Inter != 0;
}

/// The input of a gather: null when in place, the send buffer when its bytes
/// can be read directly, else its bytes packed into the send staging area.
const void *gatherInput(const void *SendBuf, int SendCount,
                        MPI_Datatype SendType, CommState &S, MPI_Comm Comm) {
  if (SendBuf == MPI_IN_PLACE)
    return nullptr;
  TypeLayout L = layoutOf(SendType);
  if (L.Contiguous)
    return SendBuf;
  char *Packed = room(S.SendStaging, uint64_t(SendCount) * L.Size);
  packBytes(SendBuf, uint64_t(SendCount), SendType, L, Packed, Comm);
  return Packed;
}

/// A handle of this build's mpi.h from the word the entry point received:
/// Open MPI's are pointers; the MPICH ABI's are ints in the word's low half
/// (the caller leaves the upper half unspecified).
template <typename Handle> Handle handle(interposer::HandleWord W) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<Handle>(W);
  else
    return static_cast<Handle>(static_cast<uint32_t>(W));
}

} // namespace

namespace collplan::interposer {

int allreduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord TypeW,
              HandleWord OpW, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::Allreduce, CommW, Count, TypeW, OpW, 0);
  Call C("MPI_Allreduce", Comm, Collective::Allreduce);
  if (std::optional<TypedOp> T = typedOpOf(C, Type, Op, Count)) {
    C.Raw = Raw; // A type plans reduce is predefined.
    C.Key.Bytes = uint64_t(Count) * sizeOf(T->Type);
    C.Key.Op = T->Op;
    // A floating-point sum or product needs a plan that rounds as the
    // directory asks (fit()).
    C.Key.Type = T->Type;
    if (std::optional<int> Result =
            fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &) {
              return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, uint64_t(Count),
                                              T->Type, T->Op));
            }))
      return *Result;
  }
  return PMPI_Allreduce(SendBuf, RecvBuf, Count, Type, Op, Comm);
}

int reduceScatterBlock(const void *SendBuf, void *RecvBuf, int RecvCount,
                       HandleWord TypeW, HandleWord OpW, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::ReduceScatter, CommW, RecvCount, TypeW, OpW, 0);
  // Without counts the call asks for equal parts (fit()): RecvCount
  // elements each.
  Call C("MPI_Reduce_scatter_block", Comm, Collective::ReduceScatter);
  if (std::optional<TypedOp> T = typedOpOf(C, Type, Op, RecvCount)) {
    C.Raw = Raw;
    int Size = 1;
    PMPI_Comm_size(Comm, &Size);
    uint64_t N = uint64_t(RecvCount) * uint64_t(Size);
    C.Key.Bytes = N * sizeOf(T->Type);
    C.Key.Op = T->Op;
    C.Key.Type = T->Type;
    if (std::optional<int> Result = fromPlan(C, [&](Executor &Ex, Transport &Tr,
                                                    CommState &) {
          return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, N, T->Type, T->Op));
        }))
      return *Result;
  }
  return PMPI_Reduce_scatter_block(SendBuf, RecvBuf, RecvCount, Type, Op, Comm);
}

int reduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord TypeW,
           HandleWord OpW, int Root, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::Reduce, CommW, Count, TypeW, OpW, Root);
  Call C("MPI_Reduce", Comm, Collective::Reduce);
  std::optional<TypedOp> T = typedOpOf(C, Type, Op, Count);
  if (T && Root < 0)
    refuse(C, "a negative root");
  else if (T) {
    C.Raw = Raw;
    C.Key.Bytes = uint64_t(Count) * sizeOf(T->Type);
    C.Key.Op = T->Op;
    C.Key.Type = T->Type;
    C.Key.Root = uint32_t(Root);
    // MPI_IN_PLACE is legal at the root only, where it means the input is
    // in RecvBuf: the contract's in place.
    if (std::optional<int> Result =
            fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &) {
              return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, uint64_t(Count),
                                              T->Type, T->Op));
            }))
      return *Result;
  }
  return PMPI_Reduce(SendBuf, RecvBuf, Count, Type, Op, Root, Comm);
}

int bcast(void *Buffer, int Count, HandleWord TypeW, int Root,
          HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::Broadcast, CommW, Count, TypeW, 0, Root);
  Call C("MPI_Bcast", Comm, Collective::Broadcast);
  if (Count < 0 || Root < 0) {
    refuse(C, "a negative count or root");
    return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
  }
  // Ranks may describe the same bytes with different datatypes: the plan
  // moves the bytes, packed where a rank's type is not contiguous.
  TypeLayout L = layoutOf(Type);
  if (L.Predefined)
    C.Raw = Raw;
  C.Key.Bytes = uint64_t(Count) * L.Size;
  C.Key.Root = uint32_t(Root);
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            if (L.Contiguous)
              return Ex.run(Tr, byteArgs(nullptr, Buffer, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            bool AtRoot = S.Rank == uint32_t(Root);
            if (AtRoot)
              packBytes(Buffer, uint64_t(Count), Type, L, Stage, Comm);
            llvm::Error E = Ex.run(Tr, byteArgs(nullptr, Stage, C.Key.Bytes));
            if (!E && !AtRoot)
              unpackBytes(Stage, uint64_t(Count), Type, L, Buffer, Comm);
            return E;
          }))
    return *Result;
  return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
}

int allgather(const void *SendBuf, int SendCount, HandleWord SendTypeW,
              void *RecvBuf, int RecvCount, HandleWord RecvTypeW,
              HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::Allgather, CommW, RecvCount, RecvTypeW, 0, 0);
  Call C("MPI_Allgather", Comm, Collective::Allgather);
  if (RecvCount < 0 || (SendBuf != MPI_IN_PLACE && SendCount < 0)) {
    refuse(C, "a negative count");
    return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                          RecvType, Comm);
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  // Each rank's part has the receive signature's bytes, whatever the types.
  TypeLayout L = layoutOf(RecvType);
  if (L.Predefined)
    C.Raw = Raw;
  uint64_t Part = uint64_t(RecvCount) * L.Size;
  C.Key.Bytes = Part * uint64_t(Size);
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            uint64_t Elements = uint64_t(RecvCount) * uint64_t(Size);
            if (L.Contiguous)
              return Ex.run(Tr, byteArgs(gatherInput(SendBuf, SendCount,
                                                     SendType, S, Comm),
                                         RecvBuf, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            if (SendBuf == MPI_IN_PLACE)
              packBytes(static_cast<char *>(RecvBuf) +
                            MPI_Aint(S.Rank) * RecvCount * L.Extent,
                        uint64_t(RecvCount), RecvType, L, Stage + S.Rank * Part,
                        Comm);
            llvm::Error E = Ex.run(
                Tr, byteArgs(gatherInput(SendBuf, SendCount, SendType, S, Comm),
                             Stage, C.Key.Bytes));
            if (!E)
              unpackBytes(Stage, Elements, RecvType, L, RecvBuf, Comm);
            return E;
          }))
    return *Result;
  return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                        RecvType, Comm);
}

int allgatherv(const void *SendBuf, int SendCount, HandleWord SendTypeW,
               void *RecvBuf, const int RecvCounts[], const int Displs[],
               HandleWord RecvTypeW, HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  Call C("MPI_Allgatherv", Comm, Collective::Allgatherv);
  // On an intercommunicator RecvCounts has the remote group's size: do not
  // read it by local ranks.
  if (isIntercommunicator(Comm)) {
    refuse(C, "an intercommunicator");
    return PMPI_Allgatherv(SendBuf, SendCount, SendType, RecvBuf, RecvCounts,
                           Displs, RecvType, Comm);
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  // The counts are the same on every rank; the displacements and the
  // receive type's layout are each rank's own.
  TypeLayout L = layoutOf(RecvType);
  std::vector<uint64_t> Begin(size_t(Size) + 1, 0);
  bool DirectLayout = L.Contiguous;
  C.Key.Counts.resize(size_t(Size));
  for (int R = 0; R < Size; ++R) {
    C.Key.Counts[R] = uint64_t(std::max(RecvCounts[R], 0)) * L.Size;
    Begin[R + 1] = Begin[R] + C.Key.Counts[R];
    DirectLayout &=
        uint64_t(std::max(Displs[R], 0)) * L.Size == Begin[R] && Displs[R] >= 0;
  }
  C.Key.Bytes = Begin[Size];
  auto PartOf = [&](int R) {
    return static_cast<char *>(RecvBuf) + MPI_Aint(Displs[R]) * L.Extent;
  };
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            if (DirectLayout)
              return Ex.run(Tr, byteArgs(gatherInput(SendBuf, SendCount,
                                                     SendType, S, Comm),
                                         RecvBuf, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            int Me = int(S.Rank);
            if (SendBuf == MPI_IN_PLACE)
              packBytes(PartOf(Me), uint64_t(RecvCounts[Me]), RecvType, L,
                        Stage + Begin[Me], Comm);
            llvm::Error E = Ex.run(
                Tr, byteArgs(gatherInput(SendBuf, SendCount, SendType, S, Comm),
                             Stage, C.Key.Bytes));
            for (int R = 0; !E && R < Size; ++R)
              unpackBytes(Stage + Begin[R], uint64_t(RecvCounts[R]), RecvType,
                          L, PartOf(R), Comm);
            return E;
          }))
    return *Result;
  return PMPI_Allgatherv(SendBuf, SendCount, SendType, RecvBuf, RecvCounts,
                         Displs, RecvType, Comm);
}

int alltoall(const void *SendBuf, int SendCount, HandleWord SendTypeW,
             void *RecvBuf, int RecvCount, HandleWord RecvTypeW,
             HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw(Collective::Alltoall, CommW, RecvCount, RecvTypeW, 0, 0);
  auto Library = [&] {
    return PMPI_Alltoall(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                         RecvType, Comm);
  };
  Call C("MPI_Alltoall", Comm, Collective::Alltoall);
  if (RecvCount < 0 || (SendBuf != MPI_IN_PLACE && SendCount < 0)) {
    refuse(C, "a negative count");
    return Library();
  }
  if (isIntercommunicator(Comm)) {
    refuse(C, "an intercommunicator");
    return Library();
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  if (SendBuf != MPI_IN_PLACE && int64_t(SendCount) * Size > INT_MAX) {
    refuse(C, "a send buffer of more than INT_MAX elements");
    return Library();
  }
  TypeLayout L = layoutOf(RecvType);
  if (L.Predefined)
    C.Raw = Raw;
  // The plan's vector is the P x P matrix (CollectiveContract.h): a rank's
  // row is its send buffer, its column its receive buffer, both packed.
  uint64_t Row = uint64_t(RecvCount) * L.Size * uint64_t(Size);
  C.Key.Bytes = Row * uint64_t(Size);
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            uint64_t Elements = uint64_t(RecvCount) * uint64_t(Size);
            const void *Input =
                gatherInput(SendBuf, SendCount * Size, SendType, S, Comm);
            if (L.Contiguous)
              return Ex.run(Tr, byteArgs(Input, RecvBuf, C.Key.Bytes));
            char *Stage = room(S.Staging, Row);
            if (SendBuf == MPI_IN_PLACE)
              packBytes(RecvBuf, Elements, RecvType, L, Stage, Comm);
            llvm::Error E = Ex.run(Tr, byteArgs(Input, Stage, C.Key.Bytes));
            if (!E)
              unpackBytes(Stage, Elements, RecvType, L, RecvBuf, Comm);
            return E;
          }))
    return *Result;
  return Library();
}

/// One side of an alltoallv as the executor reads it: each peer's bytes,
/// where they start when packed in rank order, and whether the user's
/// buffer already lies that way (else it goes through a staging area).
struct PackedSide {
  std::vector<uint64_t> Bytes, Begin;
  bool Direct = true;
  bool Valid = true;

  PackedSide(int Size, const int Counts[], const int Displs[],
             const TypeLayout &L)
      : Bytes(size_t(Size)), Begin(size_t(Size) + 1, 0) {
    Direct = L.Contiguous;
    for (int R = 0; R < Size; ++R) {
      Valid &= Counts[R] >= 0 && Displs[R] >= 0;
      Bytes[R] = uint64_t(std::max(Counts[R], 0)) * L.Size;
      Begin[R + 1] = Begin[R] + Bytes[R];
      Direct &=
          uint64_t(std::max(Displs[R], 0)) * uint64_t(L.Extent) == Begin[R];
    }
  }
};

int alltoallv(const void *SendBuf, const int SendCounts[],
              const int SendDispls[], HandleWord SendTypeW, void *RecvBuf,
              const int RecvCounts[], const int RecvDispls[],
              HandleWord RecvTypeW, HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  auto Library = [&] {
    return PMPI_Alltoallv(SendBuf, SendCounts, SendDispls, SendType, RecvBuf,
                          RecvCounts, RecvDispls, RecvType, Comm);
  };
  Call C("MPI_Alltoallv", Comm, Collective::Alltoallv);
  // Only what every rank sees alike may leave the call to MPI before the
  // ranks agree: the rest is each rank's verdict in the agreement.
  if (isIntercommunicator(Comm)) {
    refuse(C, "an intercommunicator");
    return Library();
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  bool InPlace = SendBuf == MPI_IN_PLACE;
  // Laid out only when the ranks agree: a call the back-off sends to MPI
  // (fromAgreedPlan) never needs them.
  TypeLayout RL, SL;
  std::optional<PackedSide> Row, Column;
  auto LayOut = [&] {
    RL = layoutOf(RecvType);
    SL = InPlace ? RL : layoutOf(SendType);
    Row.emplace(Size, InPlace ? RecvCounts : SendCounts,
                InPlace ? RecvDispls : SendDispls, SL);
    Column.emplace(Size, RecvCounts, RecvDispls, RL);
  };
  // Each plan's pair sizes are summed once: slices live as long as the
  // directory, which is never freed.
  static std::map<const PlanHeader *, PairSizes> PairsOf;
  if (std::optional<int> Result = fromAgreedPlan(
          C,
          [&](const PlanHeader &H, uint32_t Rank) -> std::optional<uint64_t> {
            LayOut();
            // In place, the row would be read from where the column lands.
            if (InPlace || !Row->Valid || !Column->Valid)
              return std::nullopt;
            auto It = PairsOf.try_emplace(&H, H).first;
            return It->second.bytesFor(Rank, Row->Bytes, Column->Bytes);
          },
          [&](Executor &Ex, Transport &Tr, CommState &S) {
            const void *Input = SendBuf;
            if (!Row->Direct) {
              char *Packed = room(S.SendStaging, Row->Begin[Size]);
              for (int R = 0; R < Size; ++R)
                packBytes(static_cast<const char *>(SendBuf) +
                              MPI_Aint(SendDispls[R]) * SL.Extent,
                          uint64_t(SendCounts[R]), SendType, SL,
                          Packed + Row->Begin[R], Comm);
              Input = Packed;
            }
            void *Output =
                Column->Direct ? RecvBuf : room(S.Staging, Column->Begin[Size]);
            llvm::Error E = Ex.run(Tr, byteArgs(Input, Output, C.Key.Bytes));
            for (int R = 0; !E && !Column->Direct && R < Size; ++R)
              unpackBytes(static_cast<char *>(Output) + Column->Begin[R],
                          uint64_t(RecvCounts[R]), RecvType, RL,
                          static_cast<char *>(RecvBuf) +
                              MPI_Aint(RecvDispls[R]) * RL.Extent,
                          Comm);
            return E;
          }))
    return *Result;
  return Library();
}

int finalize() {
  summarizeAll();
  return PMPI_Finalize();
}

} // namespace collplan::interposer
