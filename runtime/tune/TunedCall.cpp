//===- TunedCall.cpp - One call collplan_tune_mpi times, both ways -------===//

#include "runtime/tune/TunedCall.h"

#include "runtime/interposer/Interposed.h"

#include "plan/ir/CollectiveContract.h"

#include <algorithm>
#include <type_traits>

namespace collplan {

TunedCall::TunedCall(Collective Kind, std::optional<uint32_t> Root,
                     uint64_t Bytes, int Rank, int Size)
    : Kind(Kind), Root(Root.value_or(0)) {
  uint64_t P = uint64_t(Size);
  switch (Kind) {
  case Collective::Allreduce:
  case Collective::Reduce:
    Elements = std::max<uint64_t>(1, Bytes / 4);
    Shape.Bytes = Elements * 4;
    break;
  case Collective::ReduceScatter:
    Part = std::max<uint64_t>(1, Bytes / (4 * P));
    Elements = Part * P;
    Shape.Bytes = Elements * 4;
    break;
  case Collective::Allgather:
  case Collective::Allgatherv:
    Part = std::max<uint64_t>(1, Bytes / P);
    Shape.Bytes = Part * P;
    Shape.Counts.assign(Kind == Collective::Allgatherv ? P : 0, Part);
    Displs.resize(P);
    for (uint64_t R = 0; R < P; ++R)
      Displs[R] = int(R * Part);
    Counts.assign(P, int(Part));
    break;
  case Collective::Broadcast:
    Shape.Bytes = Bytes;
    break;
  case Collective::Alltoall:
  case Collective::Alltoallv:
    // Bytes is the P x P matrix (CollectiveContract.h): Part per pair.
    Part = std::max<uint64_t>(1, Bytes / (P * P));
    Shape.Bytes = Part * P * P;
    Shape.Counts.assign(Kind == Collective::Alltoallv ? P * P : 0, Part);
    Displs.resize(P);
    for (uint64_t R = 0; R < P; ++R)
      Displs[R] = int(R * Part);
    Counts.assign(P, int(Part));
    break;
  }
  Shape.Kind = Kind;
  Shape.Ranks = uint32_t(Size);
  if (reduces(Kind))
    Shape.Op = ReduceOp::Sum;
  if (hasRoot(Kind))
    Shape.Root = this->Root;
  Send.assign(Shape.Bytes, char(Rank + 1));
  Recv.assign(Shape.Bytes, 0);
}

namespace {

/// MPI's own collectives.
struct LibraryApi {
  static constexpr auto &Allreduce = MPI_Allreduce;
  static constexpr auto &Reduce = MPI_Reduce;
  static constexpr auto &ReduceScatterBlock = MPI_Reduce_scatter_block;
  static constexpr auto &Allgather = MPI_Allgather;
  static constexpr auto &Allgatherv = MPI_Allgatherv;
  static constexpr auto &Bcast = MPI_Bcast;
  static constexpr auto &Alltoall = MPI_Alltoall;
  static constexpr auto &Alltoallv = MPI_Alltoallv;
};

/// A handle as the interposer's entry points receive it (Interposed.h).
template <typename Handle> interposer::HandleWord word(Handle H) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<interposer::HandleWord>(H);
  else
    return interposer::HandleWord(uint32_t(H));
}

/// The interposer's collectives, given MPI's arguments.
struct InterposerApi {
  static int Allreduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                       MPI_Comm C) {
    return interposer::allreduce(S, R, N, word(T), word(Op), word(C));
  }
  static int Reduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                    int Root, MPI_Comm C) {
    return interposer::reduce(S, R, N, word(T), word(Op), Root, word(C));
  }
  static int ReduceScatterBlock(const void *S, void *R, int N, MPI_Datatype T,
                                MPI_Op Op, MPI_Comm C) {
    return interposer::reduceScatterBlock(S, R, N, word(T), word(Op), word(C));
  }
  static int Allgather(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                       MPI_Datatype RT, MPI_Comm C) {
    return interposer::allgather(S, SN, word(ST), R, RN, word(RT), word(C));
  }
  static int Allgatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                        const int *RN, const int *D, MPI_Datatype RT,
                        MPI_Comm C) {
    return interposer::allgatherv(S, SN, word(ST), R, RN, D, word(RT), word(C));
  }
  static int Bcast(void *B, int N, MPI_Datatype T, int Root, MPI_Comm C) {
    return interposer::bcast(B, N, word(T), Root, word(C));
  }
  static int Alltoall(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                      MPI_Datatype RT, MPI_Comm C) {
    return interposer::alltoall(S, SN, word(ST), R, RN, word(RT), word(C));
  }
  static int Alltoallv(const void *S, const int *SN, const int *SD,
                       MPI_Datatype ST, void *R, const int *RN, const int *RD,
                       MPI_Datatype RT, MPI_Comm C) {
    return interposer::alltoallv(S, SN, SD, word(ST), R, RN, RD, word(RT),
                                 word(C));
  }
};

} // namespace

template <typename Api> int TunedCall::call(MPI_Comm Comm) {
  switch (Kind) {
  case Collective::Allreduce:
    return Api::Allreduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T,
                          MPI_SUM, Comm);
  case Collective::Reduce:
    return Api::Reduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T,
                       MPI_SUM, int(Root), Comm);
  case Collective::ReduceScatter:
    return Api::ReduceScatterBlock(Send.data(), Recv.data(), int(Part),
                                   MPI_INT32_T, MPI_SUM, Comm);
  case Collective::Allgather:
    return Api::Allgather(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                          int(Part), MPI_BYTE, Comm);
  case Collective::Allgatherv:
    return Api::Allgatherv(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                           Counts.data(), Displs.data(), MPI_BYTE, Comm);
  case Collective::Broadcast:
    return Api::Bcast(Recv.data(), int(Shape.Bytes), MPI_BYTE, int(Root), Comm);
  case Collective::Alltoall:
    return Api::Alltoall(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                         int(Part), MPI_BYTE, Comm);
  case Collective::Alltoallv:
    return Api::Alltoallv(Send.data(), Counts.data(), Displs.data(), MPI_BYTE,
                          Recv.data(), Counts.data(), Displs.data(), MPI_BYTE,
                          Comm);
  }
  return MPI_ERR_OTHER;
}

int TunedCall::library(MPI_Comm Comm) { return call<LibraryApi>(Comm); }

int TunedCall::interposed(MPI_Comm Comm) { return call<InterposerApi>(Comm); }

} // namespace collplan
