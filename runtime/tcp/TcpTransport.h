//===- TcpTransport.h - The transport over loopback TCP sockets -*- C++ -*-===//
//
// One connection per pair of ranks, set up by a rendezvous at rank 0 (see
// Rendezvous.h), then driven with nonblocking sockets: a round pushes and
// pulls every message at once, polling only when nothing moves, so two ranks
// sending each other large messages never deadlock. A peer that closes its
// end ends the round at once with an error naming it; a peer that stalls
// ends it after the configured timeout without progress.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TCP_TCPTRANSPORT_H
#define COLLPLAN_RUNTIME_TCP_TCPTRANSPORT_H

#include "runtime/Transport.h"
#include "runtime/tcp/Rendezvous.h"

#include <memory>
#include <vector>

namespace collplan::runtime {

class TcpTransport final : public Transport {
public:
  /// Connects to every other rank as Config describes (blocking, bounded by
  /// Config.Timeout).
  static llvm::Expected<std::unique_ptr<TcpTransport>>
  connect(const TcpConfig &Config);
  ~TcpTransport() override;

  uint32_t rank() const override { return Config.Rank; }
  uint32_t size() const override { return Config.Size; }
  using Transport::exchange;
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives,
                       ArrivalFn Arrived) override;

private:
  TcpTransport(TcpConfig Config, std::vector<int> Sockets)
      : Config(std::move(Config)), Sockets(std::move(Sockets)) {}

  TcpConfig Config;
  /// Sockets[q] is the connection to rank q; -1 for this rank.
  std::vector<int> Sockets;
  bool Broken = false;
  /// Where streamed receives land, a socket read at a time: small enough to
  /// stay in cache until the executor has combined it.
  std::vector<char> Staging = std::vector<char>(size_t(64) << 10);
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TCP_TCPTRANSPORT_H
