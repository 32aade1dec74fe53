//===- TcpTransport.cpp - The transport over loopback TCP sockets ---------===//

#include "runtime/tcp/TcpTransport.h"
#include "plan/ir/Error.h"
#include "runtime/tcp/SocketIo.h"

#include "llvm/ADT/SmallVector.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace collplan::runtime {

namespace {

/// The messages of one round to or from one peer, and how far each
/// direction has got: messages go in order on the pair's stream.
struct PeerProgress {
  uint32_t Peer;
  int Fd;
  llvm::SmallVector<const Message *, 2> Out, In;
  size_t OutMsg = 0, OutSeg = 0, OutOff = 0;
  size_t InMsg = 0, InSeg = 0, InOff = 0;

  /// Skips past finished segments and messages; true while work remains.
  static bool settle(llvm::ArrayRef<const Message *> Queue, size_t &Msg,
                     size_t &Seg, size_t &Off) {
    while (Msg < Queue.size()) {
      const Message &M = *Queue[Msg];
      while (Seg < M.Segments.size() && Off == M.Segments[Seg].Bytes) {
        ++Seg;
        Off = 0;
      }
      if (Seg < M.Segments.size())
        return true;
      ++Msg;
      Seg = Off = 0;
    }
    return false;
  }
  bool sending() { return settle(Out, OutMsg, OutSeg, OutOff); }
  bool receiving() { return settle(In, InMsg, InSeg, InOff); }
};

constexpr int YieldsBeforeSleep = 10;

llvm::Error lostPeer(uint32_t Me, uint32_t Peer, const char *Why) {
  return makeError(ErrorKind::Runtime,
                   "rank %u: connection to rank %u lost: %s (did it "
                   "exit or crash?)",
                   Me, Peer, Why);
}

} // namespace

llvm::Expected<std::unique_ptr<TcpTransport>>
TcpTransport::connect(const TcpConfig &Config) {
  llvm::Expected<std::vector<int>> Sockets = rendezvous(Config);
  if (!Sockets)
    return Sockets.takeError();
  for (int Fd : *Sockets)
    if (Fd >= 0)
      fcntl(Fd, F_SETFL, fcntl(Fd, F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<TcpTransport>(
      new TcpTransport(Config, std::move(*Sockets)));
}

TcpTransport::~TcpTransport() {
  for (int Fd : Sockets)
    if (Fd >= 0)
      close(Fd);
}

llvm::Error TcpTransport::exchange(llvm::ArrayRef<Message> Sends,
                                   llvm::ArrayRef<Message> Receives,
                                   ArrivalFn Arrived) {
  uint32_t Me = Config.Rank;
  if (Broken)
    return makeError(ErrorKind::Runtime,
                     "rank %u: the TCP transport failed earlier", Me);
  llvm::SmallVector<PeerProgress, 8> Peers;
  auto Slot = [&](uint32_t Peer) -> PeerProgress & {
    for (PeerProgress &P : Peers)
      if (P.Peer == Peer)
        return P;
    Peers.push_back(PeerProgress{Peer, Sockets[Peer], {}, {}});
    return Peers.back();
  };
  for (const Message &M : Sends)
    Slot(M.Peer).Out.push_back(&M);
  for (const Message &M : Receives)
    Slot(M.Peer).In.push_back(&M);

  auto Fail = [&](llvm::Error E) {
    Broken = true;
    return E;
  };
  auto LastProgress = std::chrono::steady_clock::now();
  llvm::SmallVector<pollfd, 8> Polls;
  int Yields = 0;
  while (true) {
    bool Progress = false, Pending = false;
    for (PeerProgress &P : Peers) {
      while (P.sending()) {
        const Segment &S = P.Out[P.OutMsg]->Segments[P.OutSeg];
        ssize_t N = send(P.Fd, S.Data + P.OutOff, S.Bytes - P.OutOff,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (N > 0) {
          P.OutOff += size_t(N);
          Progress = true;
          continue;
        }
        if (errno == EAGAIN || errno == EINTR)
          break;
        return Fail(lostPeer(Me, P.Peer, std::strerror(errno)));
      }
      while (P.receiving()) {
        const Message *M = P.In[P.InMsg];
        const Segment &S = M->Segments[P.InSeg];
        // A streamed receive without memory goes through the staging
        // buffer; either is handed over at once (Transport.h).
        bool Staged = !S.Data;
        char *To = Staged ? Staging.data() : S.Data + P.InOff;
        size_t Want = S.Bytes - P.InOff;
        if (Staged)
          Want = std::min(Want, Staging.size());
        ssize_t N = recv(P.Fd, To, Want, MSG_DONTWAIT);
        if (N > 0) {
          P.InOff += size_t(N);
          if (M->Streamed)
            Arrived(size_t(M - Receives.data()), To, size_t(N));
          Progress = true;
          continue;
        }
        if (N == 0)
          return Fail(lostPeer(Me, P.Peer, "it closed the connection"));
        if (errno == EAGAIN || errno == EINTR)
          break;
        return Fail(lostPeer(Me, P.Peer, std::strerror(errno)));
      }
      Pending |= P.sending() || P.receiving();
    }
    if (!Pending)
      return llvm::Error::success();
    auto Now = std::chrono::steady_clock::now();
    if (Progress)
      LastProgress = Now;
    auto Idle = std::chrono::duration_cast<std::chrono::milliseconds>(
        Now - LastProgress);
    if (Idle >= Config.Timeout) {
      std::string Waiting;
      for (PeerProgress &P : Peers)
        if (P.sending() || P.receiving())
          Waiting += (Waiting.empty() ? "" : ", ") + std::to_string(P.Peer);
      return Fail(makeError(
          ErrorKind::Runtime,
          "rank %u: no progress for %lld ms waiting for rank(s) %s (stalled "
          "or gone; COLLPLAN_TIMEOUT sets the limit)",
          Me, (long long)Config.Timeout.count(), Waiting.c_str()));
    }
    if (Progress)
      continue;
    // Before sleeping in poll(), give the CPU away a few times: the peer is
    // often about to answer, and with more ranks than cores (a 4-rank job on
    // 2 cores) a sleeping rank wakes up late. Open MPI yields when idle for
    // the same reason. Measured by tools/bench-tcp.sh: 1 MiB on 4 ranks
    // 2.1 -> 1.0 ms.
    if (Yields++ < YieldsBeforeSleep) {
      sched_yield();
      continue;
    }
    Yields = 0;
    Polls.clear();
    for (PeerProgress &P : Peers) {
      short Events = (P.sending() ? POLLOUT : 0) | (P.receiving() ? POLLIN : 0);
      if (Events)
        Polls.push_back({P.Fd, Events, 0});
    }
    int Wait = int((Config.Timeout - Idle).count());
    if (poll(Polls.data(), Polls.size(), Wait) < 0 && errno != EINTR)
      return Fail(errnoError("poll"));
  }
}

} // namespace collplan::runtime
