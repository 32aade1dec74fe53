//===- MpiTransport.cpp - The transport over an MPI communicator ----------===//

#include "runtime/mpi/MpiTransport.h"
#include "plan/ir/Error.h"

#include <algorithm>
#include <cstring>

// Every call goes to the PMPI_ entry points: the interposer runs plans
// through this transport, and a profiling tool stacked beside it should see
// the application's collective, not collplan's point-to-point traffic.

namespace collplan::runtime {

namespace {

/// The largest piece one MPI call moves: MPI counts are ints.
constexpr size_t MaxPiece = size_t(1) << 30;

llvm::Error mpiError(int Code, const char *What, uint32_t Peer) {
  char Text[MPI_MAX_ERROR_STRING];
  int Length = 0;
  PMPI_Error_string(Code, Text, &Length);
  return makeError(ErrorKind::Runtime, "%s with rank %u failed: %.*s", What,
                   Peer, Length, static_cast<const char *>(Text));
}

} // namespace

MpiTransport::MpiTransport(MPI_Comm Comm, int Tag) : Comm(Comm), Tag(Tag) {
  int R = 0, S = 1;
  PMPI_Comm_rank(Comm, &R);
  PMPI_Comm_size(Comm, &S);
  Rank = uint32_t(R);
  Size = uint32_t(S);
}

llvm::Error MpiTransport::exchange(llvm::ArrayRef<Message> Sends,
                                   llvm::ArrayRef<Message> Receives) {
  Requests.clear();
  size_t NumPacked = 0;
  auto Contiguous = [&](const Message &M, bool IsSend) -> char * {
    if (M.Segments.size() == 1)
      return M.Segments[0].Data;
    if (Packed.size() <= NumPacked)
      Packed.emplace_back();
    std::vector<char> &Buf = Packed[NumPacked++];
    Buf.resize(M.bytes());
    if (IsSend) {
      char *Out = Buf.data();
      for (const Segment &S : M.Segments) {
        std::memcpy(Out, S.Data, S.Bytes);
        Out += S.Bytes;
      }
    }
    return Buf.data();
  };
  auto Post = [&](const Message &M, char *Data, bool IsSend) -> llvm::Error {
    size_t Bytes = M.bytes();
    for (size_t Off = 0; Off < Bytes; Off += MaxPiece) {
      int N = int(std::min(MaxPiece, Bytes - Off));
      MPI_Request Req;
      int Code = IsSend ? PMPI_Isend(Data + Off, N, MPI_BYTE, int(M.Peer), Tag,
                                     Comm, &Req)
                        : PMPI_Irecv(Data + Off, N, MPI_BYTE, int(M.Peer), Tag,
                                     Comm, &Req);
      if (Code != MPI_SUCCESS)
        return mpiError(Code, IsSend ? "MPI_Isend" : "MPI_Irecv", M.Peer);
      Requests.push_back(Req);
    }
    return llvm::Error::success();
  };

  // Receives first, so arriving data finds a posted buffer.
  llvm::SmallVector<char *, 4> ReceiveData;
  for (const Message &M : Receives) {
    ReceiveData.push_back(Contiguous(M, false));
    if (llvm::Error E = Post(M, ReceiveData.back(), false))
      return E;
  }
  for (const Message &M : Sends)
    if (llvm::Error E = Post(M, Contiguous(M, true), true))
      return E;
  int Code =
      PMPI_Waitall(int(Requests.size()), Requests.data(), MPI_STATUSES_IGNORE);
  if (Code != MPI_SUCCESS)
    return mpiError(Code, "MPI_Waitall", Rank);
  for (size_t I = 0; I < Receives.size(); ++I) {
    const Message &M = Receives[I];
    if (M.Segments.size() == 1)
      continue;
    const char *In = ReceiveData[I];
    for (const Segment &S : M.Segments) {
      std::memcpy(S.Data, In, S.Bytes);
      In += S.Bytes;
    }
  }
  return llvm::Error::success();
}

} // namespace collplan::runtime
