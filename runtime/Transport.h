//===- Transport.h - Moving one round's messages between ranks --*- C++ -*-===//
//
// The executor hands a transport all sends and receives of one round at once;
// the transport starts them all (nonblocking) and returns when every one has
// completed. Messages between a pair of ranks are matched in order: the i-th
// message rank A sends to B is the i-th message B receives from A, within a
// round and across rounds. Both sides know every message's size from the
// plan and the element count, so a stream transport needs no framing.
//
// Large messages are pipelined: a receive the executor combines is streamed
// (Message::Streamed), so the transport receives it into staging memory of
// its own, a few pieces at a time, and hands each piece to the executor as
// it arrives (ArrivalFn), which combines it into its destination while the
// next pieces are in flight (Open MPI's segmented reduce does the same). A
// piece is combined from a slot still in cache, and a large message needs
// no staging area of its size. Only messages of reducing collectives need
// that (Message::Pipelined); the others move whole into their memory.
// Where the destination holds nothing yet (a rank's first combine, out =
// input (op) received) the executor gives it as the streamed receive's
// memory: the pieces land there and are combined in place, as Open MPI's
// reduce receives its first child into the result, so the result is
// written once and no store goes to a line not already in cache.
//
// A send whose memory nothing writes before the call ends may outlive its
// round (Message::MayLinger): a tree's root then has all its sends in flight
// at once, as MPI libraries' binomial trees post them, instead of waiting for
// each child in turn. A transport decides which sends do (a large one would
// share its link with the next round's). The executor ends every call with
// completeSends().
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TRANSPORT_H
#define COLLPLAN_RUNTIME_TRANSPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace collplan::runtime {

/// A contiguous piece of a message in memory.
struct Segment {
  char *Data = nullptr;
  size_t Bytes = 0;
};

/// One message: the concatenation of its segments (a block set may map to
/// several element ranges). Never empty: the executor skips empty transfers.
struct Message {
  uint32_t Peer = 0;
  llvm::SmallVector<Segment, 2> Segments;
  /// Moved in pieces (a transport may cut it): set for every message of a
  /// reducing collective. Sender and receiver must set it alike.
  bool Pipelined = false;
  /// A receive handed to ArrivalFn piece by piece (receiver side only;
  /// Pipelined too). Its one segment gives its size and, in Data, where its
  /// pieces land, or nullptr: then the transport stages them in memory of
  /// its own.
  bool Streamed = false;
  /// A send whose memory nothing writes before completeSends(): exchange()
  /// may return before it completes.
  bool MayLinger = false;

  size_t bytes() const {
    size_t N = 0;
    for (const Segment &S : Segments)
      N += S.Bytes;
    return N;
  }
};

/// Arrived(I, Data, N): the next N bytes of streamed receive I, in order, lie
/// at Data (where they landed, if the receive has memory) until Arrived
/// returns. Every byte of the receive is handed over
/// exactly once, before exchange() returns; a piece may end inside an
/// element. Receives that are not streamed are not reported.
using ArrivalFn =
    llvm::function_ref<void(size_t Receive, const char *Data, size_t Bytes)>;

class Transport {
public:
  virtual ~Transport() = default;

  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;

  /// Starts every send and receive, then waits for all of them, handing
  /// each streamed receive's pieces to Arrived. A send's memory is read and
  /// a receive's written only during the call; from Arrived the caller may
  /// write anything no send of the round reads. Fails
  /// with a message naming the peer when a peer dies, stalls or the
  /// transport breaks; the transport is unusable afterwards.
  virtual llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                               llvm::ArrayRef<Message> Receives,
                               ArrivalFn Arrived) = 0;

  /// Completes the sends exchange() left in flight (Message::MayLinger).
  virtual llvm::Error completeSends() { return llvm::Error::success(); }

  /// The same, for a caller that only needs the round to complete.
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives) {
    return exchange(Sends, Receives, [](size_t, const char *, size_t) {});
  }
};

/// Every rank sends Hash to every other rank and compares what it receives:
/// all ranks fail, with a message naming both hashes, when any two differ,
/// instead of deadlocking later on mismatched rounds.
llvm::Error checkSameHash(Transport &T, uint64_t Hash);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TRANSPORT_H
