//===- SocketIo.h - Blocking socket I/O with a deadline ---------*- C++ -*-===//
//
// The rendezvous talks in small blocking messages, but must never wait
// forever for a peer that does not come: every call here polls with the time
// left until a deadline.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TCP_SOCKETIO_H
#define COLLPLAN_RUNTIME_TCP_SOCKETIO_H

#include "llvm/Support/Error.h"

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace collplan::runtime {

class Deadline {
public:
  using Clock = std::chrono::steady_clock;
  explicit Deadline(std::chrono::milliseconds Budget)
      : Budget(Budget), End(Clock::now() + Budget) {}
  bool expired() const { return Clock::now() >= End; }
  /// Milliseconds left, for poll(); at least 0.
  int remainingMs() const;
  std::chrono::milliseconds total() const { return Budget; }

private:
  std::chrono::milliseconds Budget;
  Clock::time_point End;
};

/// "What: strerror(errno)".
llvm::Error errnoError(const char *What);

/// Sends or receives exactly Bytes before Until; Peer names the other side
/// in errors (~0u: not yet known).
llvm::Error sendAll(int Fd, const void *Data, size_t Bytes,
                    const Deadline &Until, uint32_t Peer);
llvm::Error receiveAll(int Fd, void *Data, size_t Bytes, const Deadline &Until,
                       uint32_t Peer);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TCP_SOCKETIO_H
