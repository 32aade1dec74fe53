//===- TunedCall.cpp - One call collplan_tune_mpi times, both ways -------===//

#include "runtime/tune/TunedCall.h"

#include "plan/ir/CollectiveContract.h"

#include <algorithm>

namespace collplan {

using namespace runtime;

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

int TunedCall::library(MPI_Comm Comm) {
  switch (Kind) {
  case Collective::Allreduce:
    return MPI_Allreduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T,
                         MPI_SUM, Comm);
  case Collective::Reduce:
    return MPI_Reduce(Send.data(), Recv.data(), int(Elements), MPI_INT32_T,
                      MPI_SUM, int(Root), Comm);
  case Collective::ReduceScatter:
    return MPI_Reduce_scatter_block(Send.data(), Recv.data(), int(Part),
                                    MPI_INT32_T, MPI_SUM, Comm);
  case Collective::Allgather:
    return MPI_Allgather(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                         int(Part), MPI_BYTE, Comm);
  case Collective::Allgatherv:
    return MPI_Allgatherv(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                          Counts.data(), Displs.data(), MPI_BYTE, Comm);
  case Collective::Broadcast:
    return MPI_Bcast(Recv.data(), int(Shape.Bytes), MPI_BYTE, int(Root), Comm);
  case Collective::Alltoall:
    return MPI_Alltoall(Send.data(), int(Part), MPI_BYTE, Recv.data(),
                        int(Part), MPI_BYTE, Comm);
  case Collective::Alltoallv:
    return MPI_Alltoallv(Send.data(), Counts.data(), Displs.data(), MPI_BYTE,
                         Recv.data(), Counts.data(), Displs.data(), MPI_BYTE,
                         Comm);
  }
  return MPI_ERR_OTHER;
}

CallArgs TunedCall::planArgs() {
  CallArgs A;
  A.Input = Send.data();
  A.Output = Recv.data();
  if (reduces(Kind)) {
    A.Count = Elements;
    A.Type = Datatype::Int32;
    A.Op = Operator::predefined(ReduceOp::Sum);
  } else {
    A.Count = Shape.Bytes;
    A.Type = Datatype::UInt8;
    if (Kind == Collective::Broadcast)
      A.Input = nullptr;
  }
  return A;
}

} // namespace collplan
