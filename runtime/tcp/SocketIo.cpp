//===- SocketIo.cpp - Blocking socket I/O with a deadline -----------------===//

#include "runtime/tcp/SocketIo.h"
#include "plan/ir/Error.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace collplan::runtime {

namespace {

std::string peerName(uint32_t Peer) {
  return Peer == ~0u ? std::string("a peer") : "rank " + std::to_string(Peer);
}

/// Waits until Fd is ready for Events or the deadline passes.
llvm::Error waitFor(int Fd, short Events, const Deadline &Until, uint32_t Peer,
                    const char *Doing) {
  while (true) {
    pollfd P{Fd, Events, 0};
    int N = poll(&P, 1, Until.remainingMs());
    if (N > 0)
      return llvm::Error::success();
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errnoError("poll");
    return makeError(ErrorKind::Runtime, "timed out after %lld ms %s %s",
                     (long long)Until.total().count(), Doing,
                     peerName(Peer).c_str());
  }
}

} // namespace

int Deadline::remainingMs() const {
  auto Left =
      std::chrono::duration_cast<std::chrono::milliseconds>(End - Clock::now());
  return Left.count() < 0 ? 0 : int(Left.count());
}

llvm::Error errnoError(const char *What) {
  return makeError(ErrorKind::Runtime, "%s: %s", What, std::strerror(errno));
}

llvm::Error sendAll(int Fd, const void *Data, size_t Bytes,
                    const Deadline &Until, uint32_t Peer) {
  const char *P = static_cast<const char *>(Data);
  while (Bytes) {
    if (llvm::Error E = waitFor(Fd, POLLOUT, Until, Peer, "sending to"))
      return E;
    ssize_t N = send(Fd, P, Bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (N < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if (N < 0)
      return makeError(ErrorKind::Runtime, "sending to %s failed: %s",
                       peerName(Peer).c_str(), std::strerror(errno));
    P += N;
    Bytes -= size_t(N);
  }
  return llvm::Error::success();
}

llvm::Error receiveAll(int Fd, void *Data, size_t Bytes, const Deadline &Until,
                       uint32_t Peer) {
  char *P = static_cast<char *>(Data);
  while (Bytes) {
    if (llvm::Error E = waitFor(Fd, POLLIN, Until, Peer, "receiving from"))
      return E;
    ssize_t N = recv(Fd, P, Bytes, MSG_DONTWAIT);
    if (N < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if (N == 0)
      return makeError(ErrorKind::Runtime, "%s closed the connection",
                       peerName(Peer).c_str());
    if (N < 0)
      return makeError(ErrorKind::Runtime, "receiving from %s failed: %s",
                       peerName(Peer).c_str(), std::strerror(errno));
    P += N;
    Bytes -= size_t(N);
  }
  return llvm::Error::success();
}

} // namespace collplan::runtime
