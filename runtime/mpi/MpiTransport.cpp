//===- MpiTransport.cpp - The transport over an MPI communicator ----------===//

#include "runtime/mpi/MpiTransport.h"

#include "plan/ir/Error.h"
#include "plan/ir/LingeringSends.h"

#include <algorithm>
#include <cstring>

// Every call goes to the PMPI_ entry points: the interposer runs plans
// through this transport, and a profiling tool stacked beside it should see
// the application's collective, not collplan's point-to-point traffic.

namespace collplan::runtime {

namespace {

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
                                   llvm::ArrayRef<Message> Receives,
                                   ArrivalFn Arrived) {
  // A round of one small contiguous message each way at most (a tree's or a
  // ring's round) is one blocking MPI call, as in MPI's own collectives:
  // it completes exactly when the batch below would, without a request per
  // message and a wait loop. The receive is reported once, whole. Only for
  // small messages: a send that small completes at once (eagerly), so
  // waiting for it delays no combining of the receive, as it might for a
  // large one.
  auto Single = [](llvm::ArrayRef<Message> Ms) -> const Segment * {
    if (Ms.size() != 1 || Ms[0].Segments.size() != 1 ||
        Ms[0].Segments[0].Bytes > BlockingBytes)
      return nullptr;
    return &Ms[0].Segments[0];
  };
  const Segment *Send = Single(Sends), *Recv = Single(Receives);
  if ((Send || Sends.empty()) && (Recv || Receives.empty())) {
    int Code = MPI_SUCCESS;
    if (Send && Recv)
      Code = PMPI_Sendrecv(Send->Data, int(Send->Bytes), MPI_BYTE,
                           int(Sends[0].Peer), Tag, Recv->Data,
                           int(Recv->Bytes), MPI_BYTE, int(Receives[0].Peer),
                           Tag, Comm, MPI_STATUS_IGNORE);
    else if (Send)
      Code = PMPI_Send(Send->Data, int(Send->Bytes), MPI_BYTE,
                       int(Sends[0].Peer), Tag, Comm);
    else if (Recv)
      Code = PMPI_Recv(Recv->Data, int(Recv->Bytes), MPI_BYTE,
                       int(Receives[0].Peer), Tag, Comm, MPI_STATUS_IGNORE);
    if (Code != MPI_SUCCESS)
      return mpiError(Code,
                      Send && Recv ? "MPI_Sendrecv"
                      : Send       ? "MPI_Send"
                                   : "MPI_Recv",
                      Recv ? Receives[0].Peer : Sends[0].Peer);
    if (Recv)
      Arrived(0, Recv->Bytes);
    return llvm::Error::success();
  }

  Requests.clear();
  RequestReceive.clear();
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
  auto Post = [&](const Message &M, char *Data, int Receive) -> llvm::Error {
    bool IsSend = Receive < 0;
    // A packed send's buffer is reused next round: it never lingers.
    size_t Bytes = M.bytes(), Step = M.Pipelined ? PieceBytes : MaxPieceBytes;
    bool Lingers = IsSend && M.MayLinger && M.Segments.size() == 1 &&
                   Bytes <= LingerLimitBytes;
    for (size_t Off = 0; Off < Bytes; Off += Step) {
      int N = int(std::min(Step, Bytes - Off));
      MPI_Request Req;
      int Code = IsSend ? PMPI_Isend(Data + Off, N, MPI_BYTE, int(M.Peer), Tag,
                                     Comm, &Req)
                        : PMPI_Irecv(Data + Off, N, MPI_BYTE, int(M.Peer), Tag,
                                     Comm, &Req);
      if (Code != MPI_SUCCESS)
        return mpiError(Code, IsSend ? "MPI_Isend" : "MPI_Irecv", M.Peer);
      if (Lingers) {
        Lingering.push_back(Req);
        continue;
      }
      Requests.push_back(Req);
      RequestReceive.push_back(Receive);
    }
    return llvm::Error::success();
  };

  // Receives first, so arriving data finds a posted buffer. A receive's
  // pieces are consecutive requests from FirstRequest[I].
  llvm::SmallVector<char *, 4> ReceiveData;
  llvm::SmallVector<size_t, 4> FirstRequest, NextPiece;
  for (size_t I = 0; I < Receives.size(); ++I) {
    ReceiveData.push_back(Contiguous(Receives[I], false));
    FirstRequest.push_back(Requests.size());
    NextPiece.push_back(Requests.size());
    if (llvm::Error E = Post(Receives[I], ReceiveData.back(), int(I)))
      return E;
  }
  FirstRequest.push_back(Requests.size());
  for (const Message &M : Sends)
    if (llvm::Error E = Post(M, Contiguous(M, true), -1))
      return E;

  // Completed requests become MPI_REQUEST_NULL; a receive has arrived up to
  // its first piece still pending (pieces may complete out of order).
  Completed.resize(Requests.size());
  size_t Pending = Requests.size();
  while (Pending > 0) {
    int Count = 0;
    int Code = PMPI_Waitsome(int(Requests.size()), Requests.data(), &Count,
                             Completed.data(), MPI_STATUSES_IGNORE);
    if (Code != MPI_SUCCESS)
      return mpiError(Code, "MPI_Waitsome", Rank);
    if (Count == MPI_UNDEFINED)
      break;
    Pending -= size_t(Count);
    for (int C = 0; C < Count; ++C) {
      int I = RequestReceive[size_t(Completed[size_t(C)])];
      // A packed receive is reported once, after unpacking below.
      if (I < 0 || Receives[size_t(I)].Segments.size() != 1)
        continue;
      size_t &Next = NextPiece[size_t(I)];
      size_t Before = Next;
      while (Next < FirstRequest[size_t(I) + 1] &&
             Requests[Next] == MPI_REQUEST_NULL)
        ++Next;
      size_t Step = Receives[size_t(I)].Pipelined ? PieceBytes : MaxPieceBytes;
      if (Next != Before)
        Arrived(size_t(I), std::min((Next - FirstRequest[size_t(I)]) * Step,
                                    Receives[size_t(I)].bytes()));
    }
  }
  for (size_t I = 0; I < Receives.size(); ++I) {
    const Message &M = Receives[I];
    if (M.Segments.size() == 1)
      continue;
    const char *In = ReceiveData[I];
    for (const Segment &S : M.Segments) {
      std::memcpy(S.Data, In, S.Bytes);
      In += S.Bytes;
    }
    Arrived(I, M.bytes());
  }
  return llvm::Error::success();
}

llvm::Error MpiTransport::completeSends() {
  if (Lingering.empty())
    return llvm::Error::success();
  int Code = PMPI_Waitall(int(Lingering.size()), Lingering.data(),
                          MPI_STATUSES_IGNORE);
  Lingering.clear();
  if (Code != MPI_SUCCESS)
    return mpiError(Code, "MPI_Waitall", Rank);
  return llvm::Error::success();
}

} // namespace collplan::runtime
