//===- Rendezvous.h - How TCP ranks find each other -------------*- C++ -*-===//
//
// Ranks meet at rank 0's address, like torchrun's MASTER_ADDR/MASTER_PORT;
// RankEnvironment.h reads the rank, P, the address, the timeout and the
// secret from the environment.
//
// Rank 0 listens at that address; every other rank connects to rank 0
// (retrying until the timeout), opens its own listener on an ephemeral port
// of its own interface (COLLPLAN_LISTEN_ADDR, else the local address of its
// connection to rank 0: the interface that reaches rank 0, so ranks on other
// hosts are reached at their own address) and says who it is and where it
// listens; rank 0 answers with every rank's address and port. Then rank i
// connects to ranks 1..i-1 and accepts ranks i+1..P-1, so each pair has
// exactly one connection.
//
// Admission, both ways: a listener greets every connection with a random
// nonce; the hello that answers it (magic, protocol version, P, rank,
// address, port and a nonce of the rank's own) is signed with HMAC-SHA256
// under the job's secret (COLLPLAN_SECRET, or the one the local launcher
// makes; JobSecret.h); the listener admits it with a verdict that signs the
// rank's nonce, so a rank joins only a listener that knows the secret too
// (a process squatting on rank 0's port admits nobody). Listeners serve all
// connections at once in one poll(), each with a deadline of its own (5 s),
// so a stranger that sends nothing or half a hello cannot stall the ranks;
// past 64 such connections the oldest is closed, and a rank whose
// connection was closed unheard connects again until the timeout, so a
// flood of connections does not fail the job. What is not a correctly
// signed hello is closed and ignored: a port probe, another program, a
// hello of another protocol version or signed with another secret (a second
// claim of a rank already admitted too); a hello that claimed a rank is told
// it is refused (that rank fails at once) and listed in the error if that
// rank never arrives. Only a signed hello can fail the rendezvous: one of
// another P, or a rank admitted twice.
// The secret authenticates ranks; it does not encrypt or sign the data.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_TCP_RENDEZVOUS_H
#define COLLPLAN_RUNTIME_TCP_RENDEZVOUS_H

#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan::runtime {

struct TcpConfig {
  uint32_t Rank = 0;
  uint32_t Size = 1;
  std::string Host = "127.0.0.1";
  uint16_t Port = 29500;
  std::chrono::milliseconds Timeout{30000};
  /// Rank 0 only: an already listening socket to use instead of binding
  /// Host:Port (the local launcher opens it before forking, so there is no
  /// race for the port).
  int ListenSocket = -1;
  /// Ranks > 0: the IPv4 address to listen on for higher ranks
  /// (COLLPLAN_LISTEN_ADDR); empty: the local address of the connection to
  /// rank 0.
  std::string ListenHost;
  /// The job's secret (COLLPLAN_SECRET; the local launcher makes one): a
  /// hello must be signed with it to be admitted. Empty signs with an empty
  /// key, which keeps out only what does not speak the protocol.
  std::string Secret;
  /// Where Rank, Size and Host:Port came from, for messages: e.g. "rank
  /// from OMPI_COMM_WORLD_RANK, size from OMPI_COMM_WORLD_SIZE, address
  /// from COLLPLAN_ADDR" (RankEnvironment.h); empty when set by code.
  std::string Source;
  /// The variable that gave Size, for messages about a wrong P.
  std::string SizeVariable = "COLLPLAN_SIZE";
};

/// A socket listening on Host:Port (0: an ephemeral port); its port is
/// stored in Port.
llvm::Expected<int> listenOn(const std::string &Host, uint16_t &Port);

/// Runs the rendezvous; returns Sockets[q] connected to rank q (blocking
/// mode, -1 at this rank's own index).
llvm::Expected<std::vector<int>> rendezvous(const TcpConfig &Config);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_TCP_RENDEZVOUS_H
