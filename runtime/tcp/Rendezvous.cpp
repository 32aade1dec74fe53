//===- Rendezvous.cpp - How TCP ranks find each other ---------------------===//

#include "runtime/tcp/Rendezvous.h"
#include "plan/ir/Error.h"
#include "runtime/tcp/JobSecret.h"
#include "runtime/tcp/SocketIo.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/ADT/StringRef.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <thread>

namespace collplan::runtime {

namespace {

constexpr uint32_t HelloMagic = 0x4e4c5043; // "CPLN"
constexpr uint32_t ProtocolVersion = 4;

/// What a listener sends first on every connection it accepts: the nonce
/// the connecting rank must sign (JobSecret.h).
struct Challenge {
  uint32_t Magic = HelloMagic;
  uint32_t Version = ProtocolVersion;
  uint8_t Nonce[16] = {};
};

/// The connecting rank's answer; Mac signs the listener's nonce and the
/// fields above it, its own nonce included.
struct Hello {
  uint32_t Magic = HelloMagic;
  uint32_t Version = ProtocolVersion;
  uint32_t Size = 0;
  uint32_t Rank = 0;
  uint32_t Port = 0;
  uint32_t Addr = 0;      ///< IPv4, network order, of the rank's listener.
  uint8_t Nonce[16] = {}; ///< The listener must sign it: Verdict.
  HelloMac Mac{};
};

/// The listener's answer to a hello that claimed a rank. Admitted, its Mac
/// signs both nonces: the connecting rank learns that the listener knows
/// the secret too, so a process squatting on a rank's port cannot admit
/// ranks. Refused, it carries no proof; the rank fails at once.
struct Verdict {
  uint32_t Magic = HelloMagic;
  uint32_t Admitted = 0;
  HelloMac Mac{};
};

/// Where a rank listens, as rank 0 tells every rank.
struct Endpoint {
  uint32_t Addr = 0; ///< IPv4, network order.
  uint32_t Port = 0;
};
static_assert(sizeof(Hello) == 72 && offsetof(Hello, Mac) == 40 &&
                  sizeof(Verdict) == 40,
              "the messages are sent as raw bytes, without padding");

HelloMac signHello(const Hello &H, const uint8_t (&Nonce)[16],
                   const std::string &Secret) {
  return helloMac(
      Secret, {llvm::ArrayRef<uint8_t>(Nonce),
               llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&H),
                                       offsetof(Hello, Mac))});
}

/// The listener's proof: a label (so that no hello's MAC is ever one), the
/// connecting rank's nonce, then the listener's.
HelloMac signAdmission(const uint8_t (&RankNonce)[16],
                       const uint8_t (&ListenerNonce)[16],
                       const std::string &Secret) {
  static const uint8_t Label[] = {'a', 'd', 'm', 'i', 't'};
  return helloMac(Secret, {llvm::ArrayRef<uint8_t>(Label),
                           llvm::ArrayRef<uint8_t>(RankNonce),
                           llvm::ArrayRef<uint8_t>(ListenerNonce)});
}

/// A stranger or an unsigned hello may sit on a connection this long before
/// it is closed; ranks send theirs at once. Others are served meanwhile.
constexpr std::chrono::milliseconds HelloWithin{5000};
/// Connections still saying nothing, at most: past that the oldest is
/// closed, so a flood of connections cannot exhaust the descriptors.
constexpr size_t MaxPending = 64;

llvm::Expected<sockaddr_in> addressOf(const std::string &Host, uint16_t Port) {
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_port = htons(Port);
  std::string H = Host == "localhost" ? "127.0.0.1" : Host;
  if (inet_pton(AF_INET, H.c_str(), &A.sin_addr) != 1)
    return makeError(ErrorKind::Runtime,
                     "'%s' is not an IPv4 address (the TCP transport "
                     "works on loopback, e.g. 127.0.0.1)",
                     Host.c_str());
  return A;
}

void tune(int Fd) {
  int One = 1;
  setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof(One));
}

/// One connection attempt that gives up when Until passes: a blocking
/// connect() would wait for the kernel's SYN retries (minutes) when the
/// listener drops the handshake (accept queue full, filtered address). Returns
/// the connected socket in blocking mode, or -1 with errno set.
int connectOnce(const sockaddr_in &A, const Deadline &Until) {
  int Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (Fd < 0)
    return -1;
  int Err = 0;
  if (::connect(Fd, reinterpret_cast<const sockaddr *>(&A), sizeof(A)) != 0) {
    Err = errno;
    while (Err == EINPROGRESS || Err == EINTR) {
      pollfd P{Fd, POLLOUT, 0};
      int N = poll(&P, 1, Until.remainingMs());
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0) {
        Err = errno;
        break;
      }
      if (N == 0) {
        Err = ETIMEDOUT;
        break;
      }
      socklen_t Len = sizeof(Err);
      if (getsockopt(Fd, SOL_SOCKET, SO_ERROR, &Err, &Len) != 0)
        Err = errno;
      break;
    }
  }
  if (Err != 0) {
    close(Fd);
    errno = Err;
    return -1;
  }
  fcntl(Fd, F_SETFL, fcntl(Fd, F_GETFL) & ~O_NONBLOCK);
  return Fd;
}

/// Connects to Host:Port, retrying while nobody listens yet, until Until.
llvm::Expected<int> connectWithRetry(const std::string &Host, uint16_t Port,
                                     const Deadline &Until, uint32_t Peer) {
  llvm::Expected<sockaddr_in> A = addressOf(Host, Port);
  if (!A)
    return A.takeError();
  while (true) {
    int Fd = connectOnce(*A, Until);
    if (Fd >= 0) {
      tune(Fd);
      return Fd;
    }
    int LastErrno = errno;
    if (LastErrno == EMFILE || LastErrno == ENFILE)
      return errnoError("socket");
    if (Until.expired())
      return makeError(
          ErrorKind::Runtime,
          "could not connect to rank %u at %s:%u within %lld ms: %s", Peer,
          Host.c_str(), unsigned(Port), (long long)Until.total().count(),
          std::strerror(LastErrno));
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::min(20, std::max(1, Until.remainingMs()))));
  }
}

} // namespace

llvm::Expected<int> listenOn(const std::string &Host, uint16_t &Port) {
  llvm::Expected<sockaddr_in> A = addressOf(Host, Port);
  if (!A)
    return A.takeError();
  int Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return errnoError("socket");
  int One = 1;
  setsockopt(Fd, SOL_SOCKET, SO_REUSEADDR, &One, sizeof(One));
  if (bind(Fd, reinterpret_cast<sockaddr *>(&*A), sizeof(*A)) != 0 ||
      listen(Fd, 1024) != 0) {
    llvm::Error E = errnoError(
        ("listening on " + Host + ":" + std::to_string(Port)).c_str());
    close(Fd);
    return E;
  }
  socklen_t Len = sizeof(*A);
  getsockname(Fd, reinterpret_cast<sockaddr *>(&*A), &Len);
  Port = ntohs(A->sin_port);
  return Fd;
}

namespace {

/// A connection accepted but not yet admitted: its nonce and the part of
/// its hello received so far.
struct PendingHello {
  int Fd = -1;
  std::chrono::steady_clock::time_point Until;
  uint8_t Nonce[16] = {};
  Hello H;
  size_t Got = 0;
};

/// What the listener does with a whole hello.
enum class Judgement { Admit, Refuse, Ignore };

/// Decides on a whole hello: Admit; Refuse, telling the rank (noting why
/// in Refused); Ignore, dropping what is not a collplan rank; or an error
/// that fails the rendezvous. Only a correctly signed hello can fail it:
/// whatever a stranger sends is dropped.
llvm::Expected<Judgement> judgeHello(const PendingHello &P, const TcpConfig &C,
                                     uint32_t Lo,
                                     const std::vector<int> &Sockets,
                                     std::vector<std::string> &Refused) {
  const Hello &H = P.H;
  auto Refuse = [&](std::string Why) {
    if (Refused.size() < 8)
      Refused.push_back("a connection claiming rank " + std::to_string(H.Rank) +
                        " was refused: " + Why);
    return Judgement::Refuse;
  };
  if (H.Magic != HelloMagic)
    return Judgement::Ignore; // Not a collplan rank: nothing to report.
  if (H.Version != ProtocolVersion)
    return Refuse("it speaks protocol version " + std::to_string(H.Version) +
                  ", this rank " + std::to_string(ProtocolVersion));
  if (!sameMac(signHello(H, P.Nonce, C.Secret), H.Mac))
    return Refuse("its hello is not signed with this job's secret (is "
                  "COLLPLAN_SECRET the same for every rank?)");
  if (H.Size != C.Size)
    return makeError(ErrorKind::Runtime,
                     "rank %u was started with a job size of %u, rank "
                     "%u with %u",
                     H.Rank, H.Size, C.Rank, C.Size);
  if (H.Rank >= C.Size)
    return makeError(ErrorKind::Runtime, "a peer claims rank %u of %u", H.Rank,
                     C.Size);
  if (H.Rank < Lo || Sockets[H.Rank] >= 0)
    return makeError(ErrorKind::Runtime,
                     "rank %u connected twice or out of order "
                     "(two processes with the same rank?)",
                     H.Rank);
  return Judgement::Admit;
}

/// Sends a fresh connection's verdict without waiting: its buffer is empty.
bool sendVerdict(int Fd, const Verdict &V) {
  return send(Fd, &V, sizeof(V), MSG_NOSIGNAL | MSG_DONTWAIT) ==
         ssize_t(sizeof(V));
}

/// The error of a rank whose peers did not all arrive: which are missing,
/// and what was refused meanwhile.
llvm::Error missingRanks(const TcpConfig &C, const Deadline &Until,
                         uint32_t Missing, uint32_t Lo,
                         const std::vector<int> &Sockets,
                         const std::vector<std::string> &Refused) {
  std::string Who;
  for (uint32_t Q = Lo; Q < C.Size; ++Q)
    if (Q != C.Rank && Sockets[Q] < 0)
      Who += (Who.empty() ? "" : ", ") + std::to_string(Q);
  std::string Text =
      "rank " + std::to_string(C.Rank) + " waited for " +
      std::to_string(Missing) + " more rank(s) to connect: timed out after " +
      std::to_string(Until.total().count()) + " ms without rank(s) " + Who;
  for (const std::string &R : Refused)
    Text += "; " + R;
  return makeError(ErrorKind::Runtime, Text);
}

/// Accepts Count ranks on Listener that introduce themselves with a rank in
/// [Lo, P), into Sockets (and where they listen into Endpoints, if given).
/// Every connection is served at once, in one poll(): a stranger that sends
/// nothing or half a hello holds only its own connection, until its
/// HelloWithin passes.
llvm::Error acceptRanks(int Listener, const TcpConfig &C, const Deadline &Until,
                        uint32_t Count, uint32_t Lo, std::vector<int> &Sockets,
                        std::vector<Endpoint> *Endpoints) {
  using Clock = std::chrono::steady_clock;
  fcntl(Listener, F_SETFL, fcntl(Listener, F_GETFL) | O_NONBLOCK);
  std::vector<PendingHello> Pending;
  std::vector<std::string> Refused;
  std::vector<pollfd> Polls;
  auto Fail = [&](llvm::Error E) {
    for (PendingHello &P : Pending)
      if (P.Fd >= 0)
        close(P.Fd);
    return E;
  };
  auto Drop = [](PendingHello &P) {
    close(P.Fd);
    P.Fd = -1;
  };
  uint32_t Joined = 0;
  while (Joined < Count) {
    if (Until.expired())
      return Fail(missingRanks(C, Until, Count - Joined, Lo, Sockets, Refused));
    auto Now = Clock::now();
    int Wait = Until.remainingMs();
    for (PendingHello &P : Pending) {
      if (P.Until <= Now)
        Drop(P); // Silent too long: not a rank.
      else
        Wait = std::min<int64_t>(
            Wait, 1 + std::chrono::duration_cast<std::chrono::milliseconds>(
                          P.Until - Now)
                          .count());
    }
    llvm::erase_if(Pending, [](const PendingHello &P) { return P.Fd < 0; });
    Polls.assign(1, {Listener, POLLIN, 0});
    for (const PendingHello &P : Pending)
      Polls.push_back({P.Fd, POLLIN, 0});
    int N = poll(Polls.data(), Polls.size(), Wait);
    if (N < 0 && errno != EINTR)
      return Fail(errnoError("poll"));
    if (N <= 0)
      continue;

    for (size_t I = 0; I < Pending.size(); ++I) {
      PendingHello &P = Pending[I];
      if (!Polls[I + 1].revents)
        continue;
      ssize_t Got = recv(P.Fd, reinterpret_cast<char *>(&P.H) + P.Got,
                         sizeof(Hello) - P.Got, MSG_DONTWAIT);
      if (Got < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (Got <= 0) {
        Drop(P); // Closed before a whole hello: a port probe (nc -z).
        continue;
      }
      P.Got += size_t(Got);
      if (P.Got < sizeof(Hello))
        continue;
      llvm::Expected<Judgement> J = judgeHello(P, C, Lo, Sockets, Refused);
      if (!J)
        return Fail(J.takeError());
      Verdict V;
      if (*J == Judgement::Admit) {
        V.Admitted = 1;
        V.Mac = signAdmission(P.H.Nonce, P.Nonce, C.Secret);
      }
      if (*J == Judgement::Refuse)
        sendVerdict(P.Fd, V);
      if (*J != Judgement::Admit || !sendVerdict(P.Fd, V)) {
        Drop(P);
        continue;
      }
      fcntl(P.Fd, F_SETFL, fcntl(P.Fd, F_GETFL) & ~O_NONBLOCK);
      Sockets[P.H.Rank] = P.Fd;
      if (Endpoints)
        (*Endpoints)[P.H.Rank] = {P.H.Addr, P.H.Port};
      P.Fd = -1;
      ++Joined;
    }
    llvm::erase_if(Pending, [](const PendingHello &P) { return P.Fd < 0; });

    if (!Polls[0].revents)
      continue;
    // A few at a time, then the hellos: a burst of strangers must not push
    // out a rank accepted just before them (MaxPending) unheard.
    for (size_t Taken = 0; Taken < MaxPending / 4; ++Taken) {
      int Fd =
          accept4(Listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (Fd < 0)
        break; // EAGAIN: all taken; anything else: try again next poll.
      tune(Fd);
      PendingHello P;
      P.Fd = Fd;
      P.Until = Clock::now() + std::min(HelloWithin, C.Timeout);
      if (llvm::Error E = randomBytes(P.Nonce, sizeof(P.Nonce))) {
        close(Fd);
        return Fail(std::move(E));
      }
      Challenge Ch;
      std::memcpy(Ch.Nonce, P.Nonce, sizeof(Ch.Nonce));
      // A fresh socket's buffer takes 24 bytes at once; if not, a stranger.
      if (send(Fd, &Ch, sizeof(Ch), MSG_NOSIGNAL | MSG_DONTWAIT) !=
          ssize_t(sizeof(Ch))) {
        close(Fd);
        continue;
      }
      if (Pending.size() == MaxPending) {
        close(Pending.front().Fd);
        Pending.erase(Pending.begin());
      }
      Pending.push_back(P);
    }
  }
  return llvm::Error::success();
}

/// Answers the challenge of the listener on Fd (rank Peer) with H, signed
/// with the job's secret, and checks the listener's proof that it knows the
/// secret too. False: the listener closed the connection without a verdict
/// (it had too many at once); the caller connects again.
llvm::Expected<bool> introduce(int Fd, Hello H, const TcpConfig &C,
                               const Deadline &Until, uint32_t Peer) {
  Challenge Ch;
  if (llvm::Error E = receiveAll(Fd, &Ch, sizeof(Ch), Until, Peer)) {
    if (Until.expired())
      return std::move(E);
    llvm::consumeError(std::move(E));
    return false;
  }
  if (Ch.Magic != HelloMagic || Ch.Version != ProtocolVersion)
    return makeError(ErrorKind::Runtime,
                     "rank %u: what listens for rank %u is not a collplan "
                     "rank of protocol version %u (another program on its "
                     "port, or another collplan version)",
                     C.Rank, Peer, ProtocolVersion);
  if (llvm::Error E = randomBytes(H.Nonce, sizeof(H.Nonce)))
    return std::move(E);
  H.Mac = signHello(H, Ch.Nonce, C.Secret);
  Verdict V;
  llvm::Error E = sendAll(Fd, &H, sizeof(H), Until, Peer);
  if (!E)
    E = receiveAll(Fd, &V, sizeof(V), Until, Peer);
  if (E) {
    if (Until.expired())
      return std::move(E);
    llvm::consumeError(std::move(E));
    return false;
  }
  if (V.Magic != HelloMagic || V.Admitted > 1)
    return makeError(ErrorKind::Runtime,
                     "rank %u: what listens for rank %u answered its hello "
                     "with something else than a verdict",
                     C.Rank, Peer);
  if (!V.Admitted)
    return makeError(ErrorKind::Runtime,
                     "rank %u: rank %u refused its hello: not signed with its "
                     "secret (is COLLPLAN_SECRET the same for every rank?), "
                     "or of another job size",
                     C.Rank, Peer);
  if (!sameMac(signAdmission(H.Nonce, Ch.Nonce, C.Secret), V.Mac))
    return makeError(ErrorKind::Runtime,
                     "rank %u: what listens for rank %u admitted it without "
                     "knowing this job's secret: another process on its port? "
                     "(COLLPLAN_SECRET)",
                     C.Rank, Peer);
  return true;
}

/// Is admitted by rank Peer at Host:Port on Connected (if not -1, else a
/// new connection), connecting again while the listener drops the
/// connection unheard, until Until.
llvm::Expected<int> join(const std::string &Host, uint16_t Port, const Hello &H,
                         const TcpConfig &C, const Deadline &Until,
                         uint32_t Peer, int Connected = -1) {
  while (true) {
    llvm::Expected<int> Fd = Connected >= 0
                                 ? llvm::Expected<int>(Connected)
                                 : connectWithRetry(Host, Port, Until, Peer);
    Connected = -1;
    if (!Fd)
      return Fd.takeError();
    llvm::Expected<bool> In = introduce(*Fd, H, C, Until, Peer);
    if (In && *In)
      return *Fd;
    close(*Fd);
    if (!In)
      return In.takeError();
    if (Until.expired())
      return makeError(ErrorKind::Runtime,
                       "rank %u: rank %u closed every connection before "
                       "answering its hello, for %lld ms (too many "
                       "connections to it?)",
                       C.Rank, Peer, (long long)Until.total().count());
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::min(20, std::max(1, Until.remainingMs()))));
  }
}

/// Rank 0: every other rank connects and says where it listens; rank 0
/// sends them the list of all.
llvm::Error gatherEndpoints(int Listener, const TcpConfig &C,
                            const Deadline &Until, std::vector<int> &Sockets) {
  std::vector<Endpoint> Endpoints(C.Size);
  if (llvm::Error E =
          acceptRanks(Listener, C, Until, C.Size - 1, 1, Sockets, &Endpoints))
    return E;
  for (uint32_t Q = 1; Q < C.Size; ++Q)
    if (llvm::Error E = sendAll(Sockets[Q], Endpoints.data(),
                                Endpoints.size() * sizeof(Endpoint), Until, Q))
      return E;
  return llvm::Error::success();
}

/// The IPv4 address (network order) a rank > 0 listens on: ListenHost, else
/// the local end of its connection to rank 0.
llvm::Expected<std::string> listenHostOf(const TcpConfig &C, int ToRankZero) {
  if (!C.ListenHost.empty())
    return C.ListenHost;
  sockaddr_in Local{};
  socklen_t Len = sizeof(Local);
  if (getsockname(ToRankZero, reinterpret_cast<sockaddr *>(&Local), &Len) != 0)
    return errnoError("getsockname");
  char Text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &Local.sin_addr, Text, sizeof(Text));
  return std::string(Text);
}

/// Rank r > 0: connects to rank 0, listens on its own interface, says where
/// to rank 0, receives every rank's endpoint, connects to ranks 1..r-1 and
/// accepts ranks r+1..P-1. Sets Listener.
llvm::Error joinRanks(int &Listener, const TcpConfig &C, const Deadline &Until,
                      std::vector<int> &Sockets) {
  llvm::Expected<int> Fd = connectWithRetry(C.Host, C.Port, Until, 0);
  if (!Fd)
    return Fd.takeError();
  llvm::Expected<std::string> Host = listenHostOf(C, *Fd);
  if (!Host) {
    close(*Fd);
    return Host.takeError();
  }
  uint16_t MyPort = 0;
  llvm::Expected<int> L = listenOn(*Host, MyPort);
  if (!L) {
    close(*Fd);
    return L.takeError();
  }
  Listener = *L;
  llvm::Expected<sockaddr_in> Mine = addressOf(*Host, MyPort);
  if (!Mine)
    return Mine.takeError();
  Hello H;
  H.Size = C.Size;
  H.Rank = C.Rank;
  H.Port = MyPort;
  H.Addr = Mine->sin_addr.s_addr;
  llvm::Expected<int> Zero = join(C.Host, C.Port, H, C, Until, 0, *Fd);
  if (!Zero)
    return Zero.takeError();
  Sockets[0] = *Zero;
  std::vector<Endpoint> Endpoints(C.Size);
  if (llvm::Error E =
          receiveAll(*Zero, Endpoints.data(),
                     Endpoints.size() * sizeof(Endpoint), Until, 0)) {
    if (Until.expired())
      return E;
    return llvm::joinErrors(
        makeError(ErrorKind::Runtime,
                  "rank %u: rank 0 admitted it, then ended the rendezvous "
                  "(it failed):",
                  C.Rank),
        std::move(E));
  }
  for (uint32_t Q = 1; Q < C.Rank; ++Q) {
    char Text[INET_ADDRSTRLEN] = {};
    in_addr A{};
    A.s_addr = Endpoints[Q].Addr;
    inet_ntop(AF_INET, &A, Text, sizeof(Text));
    llvm::Expected<int> Peer =
        join(Text, uint16_t(Endpoints[Q].Port), H, C, Until, Q);
    if (!Peer)
      return Peer.takeError();
    Sockets[Q] = *Peer;
  }
  return acceptRanks(Listener, C, Until, C.Size - 1 - C.Rank, C.Rank + 1,
                     Sockets, nullptr);
}

} // namespace

llvm::Expected<std::vector<int>> rendezvous(const TcpConfig &C) {
  std::vector<int> Sockets(C.Size, -1);
  if (C.Size == 1)
    return Sockets;
  Deadline Until(C.Timeout);
  int Listener = C.Rank == 0 ? C.ListenSocket : -1;
  auto Fail = [&](llvm::Error E) -> llvm::Expected<std::vector<int>> {
    if (!C.Source.empty()) // Which variables made this rank what it is.
      E = llvm::joinErrors(std::move(E),
                           makeError(ErrorKind::Runtime, "(rank %u of %u: %s)",
                                     C.Rank, C.Size, C.Source.c_str()));
    for (int Fd : Sockets)
      if (Fd >= 0)
        close(Fd);
    if (Listener >= 0)
      close(Listener);
    return E;
  };
  if (C.Rank == 0 && Listener < 0) {
    uint16_t Port = C.Port;
    llvm::Expected<int> L = listenOn(C.Host, Port);
    if (!L)
      return Fail(L.takeError());
    Listener = *L;
  }
  if (llvm::Error E = C.Rank == 0 ? gatherEndpoints(Listener, C, Until, Sockets)
                                  : joinRanks(Listener, C, Until, Sockets))
    return Fail(std::move(E));
  close(Listener);
  return Sockets;
}

} // namespace collplan::runtime
