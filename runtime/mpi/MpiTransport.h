//===- MpiTransport.h - The transport over an MPI communicator --*- C++ -*-===//
//
// A round of at most one small contiguous message each way (BlockingBytes)
// is one blocking MPI_Sendrecv, MPI_Send or MPI_Recv. Any other round is one
// batch of MPI_Irecv / MPI_Isend on the given communicator, completed with
// MPI_Waitsome. Pipelined messages are cut into pieces of PieceBytes, the
// others into pieces of MaxPieceBytes, which keeps every count within MPI's
// int; both sides cut them the same way. A streamed receive lands in a ring
// of at most StagingSlots slots of PieceBytes owned by the transport (no
// more than its size): each piece is handed over as it arrives and its slot
// reposted for a later piece. One with memory of its own (a first combine,
// Transport.h) keeps as many pieces in flight, each landing in its own place
// there: posting every piece at once was slower for a 16 MiB reduce on two
// ranks (1.07 times Open MPI's time against 0.88) and a window of 8 no
// faster than 4 (docs/measured-tuning.md). A
// lingering contiguous send of at most LingerLimitBytes
// (plan/ir/LingeringSends.h) is completed by completeSends(), with every other
// lingering one. MPI's non-overtaking rule between a pair of ranks on one tag
// gives the in-order matching the executor relies on. Messages made of several
// segments are packed into one contiguous buffer.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_MPI_MPITRANSPORT_H
#define COLLPLAN_RUNTIME_MPI_MPITRANSPORT_H

#include "runtime/Transport.h"

#include <mpi.h>

#include <vector>

namespace collplan::runtime {

class MpiTransport final : public Transport {
public:
  /// Runs on Comm with tag Tag. Comm must stay valid; a caller sharing Comm
  /// with other traffic should pass a duplicate (MPI_Comm_dup).
  explicit MpiTransport(MPI_Comm Comm, int Tag = 0x4350);

  uint32_t rank() const override { return Rank; }
  uint32_t size() const override { return Size; }
  using Transport::exchange;
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives,
                       ArrivalFn Arrived) override;
  llvm::Error completeSends() override;

  /// Messages move in pieces of this many bytes (the last may be shorter),
  /// each its own MPI request, so a streamed receive's head is combined
  /// while its tail is in flight. Every rank must use the same size: a
  /// piece is matched by one receive of the same length. 512 KiB: smaller
  /// pieces, each its own rendezvous, were slower at every size measured
  /// (docs/measured-tuning.md, the executor).
  static constexpr size_t PieceBytes = size_t(512) << 10;
  /// A streamed receive has this many pieces in flight, so one is combined
  /// while the next arrive: 4 (2 MiB) measured faster than 2; 8 was not
  /// clearly faster and doubles the footprint.
  static constexpr size_t StagingSlots = 4;
  /// Messages not pipelined move whole, up to this (within MPI's int).
  static constexpr size_t MaxPieceBytes = size_t(1) << 30;
  /// A round of one message each way at most, each this small (a common
  /// eager limit), is one blocking MPI call rather than a batch.
  static constexpr size_t BlockingBytes = 4096;

private:
  MPI_Comm Comm;
  int Tag;
  uint32_t Rank = 0;
  uint32_t Size = 1;
  std::vector<MPI_Request> Requests;
  std::vector<int> Completed;
  /// Sends in flight past their round (Message::MayLinger).
  std::vector<MPI_Request> Lingering;
  /// At least Bytes of staging for streamed receives, reused across rounds.
  char *reserveStaging(size_t Bytes);
  std::vector<char> SlotMemory;
  /// Pack buffers of multi-segment messages, reused across rounds.
  std::vector<std::vector<char>> Packed;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_MPI_MPITRANSPORT_H
