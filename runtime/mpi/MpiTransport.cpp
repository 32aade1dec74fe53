//===- MpiTransport.cpp - The transport over an MPI communicator ----------===//

#include "runtime/mpi/MpiTransport.h"

#include "plan/ir/Error.h"
#include "plan/ir/LingeringSends.h"

#include <algorithm>
#include <cassert>
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
    // A streamed receive this small without memory lands in the first
    // staging slot.
    char *RecvData = nullptr;
    if (Recv)
      RecvData = Recv->Data ? Recv->Data : reserveStaging(Recv->Bytes);
    int Code = MPI_SUCCESS;
    if (Send && Recv)
      Code = PMPI_Sendrecv(Send->Data, int(Send->Bytes), MPI_BYTE,
                           int(Sends[0].Peer), Tag, RecvData, int(Recv->Bytes),
                           MPI_BYTE, int(Receives[0].Peer), Tag, Comm,
                           MPI_STATUS_IGNORE);
    else if (Send)
      Code = PMPI_Send(Send->Data, int(Send->Bytes), MPI_BYTE,
                       int(Sends[0].Peer), Tag, Comm);
    else if (Recv)
      Code = PMPI_Recv(RecvData, int(Recv->Bytes), MPI_BYTE,
                       int(Receives[0].Peer), Tag, Comm, MPI_STATUS_IGNORE);
    if (Code != MPI_SUCCESS)
      return mpiError(Code,
                      Send && Recv ? "MPI_Sendrecv"
                      : Send       ? "MPI_Send"
                                   : "MPI_Recv",
                      Recv ? Receives[0].Peer : Sends[0].Peer);
    if (Recv && Receives[0].Streamed)
      Arrived(0, RecvData, Recv->Bytes);
    return llvm::Error::success();
  }

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
  auto PostPiece = [&](bool IsSend, char *Data, size_t Bytes, uint32_t Peer,
                       MPI_Request &Req) -> llvm::Error {
    int N = int(Bytes);
    int Code = IsSend
                   ? PMPI_Isend(Data, N, MPI_BYTE, int(Peer), Tag, Comm, &Req)
                   : PMPI_Irecv(Data, N, MPI_BYTE, int(Peer), Tag, Comm, &Req);
    if (Code != MPI_SUCCESS)
      return mpiError(Code, IsSend ? "MPI_Isend" : "MPI_Irecv", Peer);
    return llvm::Error::success();
  };
  auto Post = [&](const Message &M, char *Data, bool IsSend) -> llvm::Error {
    // A packed send's buffer is reused next round: it never lingers.
    size_t Bytes = M.bytes(), Step = M.Pipelined ? PieceBytes : MaxPieceBytes;
    bool Lingers = IsSend && M.MayLinger && M.Segments.size() == 1 &&
                   Bytes <= LingerLimitBytes;
    for (size_t Off = 0; Off < Bytes; Off += Step) {
      MPI_Request Req;
      if (llvm::Error E = PostPiece(IsSend, Data + Off,
                                    std::min(Step, Bytes - Off), M.Peer, Req))
        return E;
      if (Lingers) {
        Lingering.push_back(Req);
        continue;
      }
      Requests.push_back(Req);
    }
    return llvm::Error::success();
  };

  // A streamed receive owns NumSlots consecutive requests from its
  // FirstRequest, one per slot: piece K lands in slot K % NumSlots, and
  // piece K + NumSlots is posted there once piece K is handed over. A small
  // message gets fewer and smaller slots: a round's staging never exceeds
  // its bytes. A receive with memory has the same requests in flight, but
  // piece K lands at its own place there, where it is combined.
  struct Stream {
    size_t Receive, Bytes, FirstRequest = 0;
    size_t NumSlots, SlotBytes;
    char *Memory = nullptr, *Slots = nullptr;
    size_t Posted = 0, Handed = 0;
  };
  llvm::SmallVector<Stream, 2> Streams;
  size_t SlotTotal = 0;
  for (size_t I = 0; I < Receives.size(); ++I) {
    // Its pieces must be cut as the sender cuts them.
    assert(!Receives[I].Streamed || Receives[I].Pipelined);
    if (!Receives[I].Streamed)
      continue;
    size_t Bytes = Receives[I].bytes();
    size_t Pieces = (Bytes + PieceBytes - 1) / PieceBytes;
    char *Memory = Receives[I].Segments[0].Data;
    Streams.push_back({I, Bytes, 0, std::min(StagingSlots, Pieces),
                       std::min(PieceBytes, Bytes), Memory});
    if (!Memory)
      SlotTotal += Streams.back().NumSlots * Streams.back().SlotBytes;
  }
  char *SlotMemory = reserveStaging(SlotTotal);
  auto PieceOf = [](const Stream &S, size_t K) {
    return std::min(PieceBytes, S.Bytes - K * PieceBytes);
  };
  auto LandingOf = [](const Stream &S, size_t K) {
    return S.Memory ? S.Memory + K * PieceBytes
                    : S.Slots + (K % S.NumSlots) * S.SlotBytes;
  };
  auto PostNext = [&](Stream &S, MPI_Request &Req) -> llvm::Error {
    if (llvm::Error E =
            PostPiece(false, LandingOf(S, S.Posted), PieceOf(S, S.Posted),
                      Receives[S.Receive].Peer, Req))
      return E;
    ++S.Posted;
    return llvm::Error::success();
  };

  // Receives first, so arriving data finds a posted buffer.
  llvm::SmallVector<char *, 4> ReceiveData(Receives.size(), nullptr);
  for (size_t I = 0, NextStream = 0, SlotsUsed = 0; I < Receives.size(); ++I) {
    if (!Receives[I].Streamed) {
      ReceiveData[I] = Contiguous(Receives[I], false);
      if (llvm::Error E = Post(Receives[I], ReceiveData[I], false))
        return E;
      continue;
    }
    Stream &S = Streams[NextStream++];
    if (!S.Memory) {
      S.Slots = SlotMemory + SlotsUsed;
      SlotsUsed += S.NumSlots * S.SlotBytes;
    }
    S.FirstRequest = Requests.size();
    for (size_t K = 0; K < S.NumSlots; ++K) {
      Requests.push_back(MPI_REQUEST_NULL);
      if (llvm::Error E = PostNext(S, Requests.back()))
        return E;
    }
  }
  for (const Message &M : Sends)
    if (llvm::Error E = Post(M, Contiguous(M, true), true))
      return E;

  // Completed requests become MPI_REQUEST_NULL. A stream's pieces are
  // handed over in order (they may complete out of order), each slot
  // reposted with the piece NumSlots further on as soon as it is free.
  Completed.resize(Requests.size());
  size_t Pending = 0;
  for (MPI_Request R : Requests)
    Pending += R != MPI_REQUEST_NULL;
  while (Pending > 0) {
    int Count = 0;
    int Code = PMPI_Waitsome(int(Requests.size()), Requests.data(), &Count,
                             Completed.data(), MPI_STATUSES_IGNORE);
    if (Code != MPI_SUCCESS)
      return mpiError(Code, "MPI_Waitsome", Rank);
    if (Count == MPI_UNDEFINED)
      break;
    Pending -= size_t(Count);
    for (Stream &S : Streams) {
      while (S.Handed < S.Posted) {
        size_t Slot = S.Handed % S.NumSlots;
        MPI_Request &Req = Requests[S.FirstRequest + Slot];
        if (Req != MPI_REQUEST_NULL)
          break;
        Arrived(S.Receive, LandingOf(S, S.Handed), PieceOf(S, S.Handed));
        ++S.Handed;
        if (S.Posted * PieceBytes < S.Bytes) {
          if (llvm::Error E = PostNext(S, Req))
            return E;
          ++Pending;
        }
      }
    }
  }
  for (size_t I = 0; I < Receives.size(); ++I) {
    const Message &M = Receives[I];
    if (M.Streamed || M.Segments.size() == 1)
      continue;
    const char *In = ReceiveData[I];
    for (const Segment &S : M.Segments) {
      std::memcpy(S.Data, In, S.Bytes);
      In += S.Bytes;
    }
  }
  return llvm::Error::success();
}

char *MpiTransport::reserveStaging(size_t Bytes) {
  if (SlotMemory.size() < Bytes)
    SlotMemory.resize(Bytes);
  return SlotMemory.data();
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
