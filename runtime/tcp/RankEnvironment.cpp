//===- RankEnvironment.cpp - A TCP rank described by its environment ------===//

#include "runtime/tcp/RankEnvironment.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/StringRef.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <optional>

namespace collplan::runtime {

namespace {

struct RankVariables {
  const char *Rank;
  const char *Size;
};

/// In order of precedence: collplan's own, then the launchers', the most
/// specific first (mpirun under Slurm sets both OMPI_* and SLURM_*).
constexpr RankVariables Families[] = {
    {"COLLPLAN_RANK", "COLLPLAN_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
    {"RANK", "WORLD_SIZE"},
};

bool isSet(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V;
}

const RankVariables *familyInEnvironment() {
  for (const RankVariables &F : Families)
    if (isSet(F.Rank) || isSet(F.Size))
      return &F;
  return nullptr;
}

llvm::Expected<uint64_t> envNumber(const char *Name, uint64_t Min, uint64_t Max,
                                   std::optional<uint64_t> Default) {
  const char *V = std::getenv(Name);
  if (!V || !*V) {
    if (Default)
      return *Default;
    return makeError(ErrorKind::Usage, "%s is not set", Name);
  }
  uint64_t N = 0;
  if (llvm::StringRef(V).getAsInteger(10, N) || N < Min || N > Max)
    return makeError(ErrorKind::Usage,
                     "%s=%s: expected an integer in [%llu, %llu]", Name, V,
                     (unsigned long long)Min, (unsigned long long)Max);
  return N;
}

/// Host as a dotted IPv4 address: taken as is, or a name resolved with
/// getaddrinfo. Named in errors as Variable=Value.
llvm::Expected<std::string> ipv4Of(llvm::StringRef Host,
                                   const std::string &Variable,
                                   llvm::StringRef Value) {
  auto Refuse = [&](const std::string &Why) {
    return makeError(ErrorKind::Usage,
                     Variable + "=" + Value + ": " + Why +
                         " (the TCP transport takes an IPv4 address or a "
                         "host name with one, e.g. 127.0.0.1:29500)");
  };
  if (Host.startswith("[") || Host.contains(':'))
    return Refuse("IPv6 is not supported");
  in_addr A{};
  std::string H = Host.str();
  if (inet_pton(AF_INET, H.c_str(), &A) == 1)
    return H;
  addrinfo Hints{};
  Hints.ai_family = AF_INET;
  Hints.ai_socktype = SOCK_STREAM;
  addrinfo *Found = nullptr;
  if (int Err = getaddrinfo(H.c_str(), nullptr, &Hints, &Found))
    return Refuse("cannot resolve '" + H +
                  "' to an IPv4 address: " + gai_strerror(Err));
  char Text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(Found->ai_addr)->sin_addr,
            Text, sizeof(Text));
  freeaddrinfo(Found);
  return std::string(Text);
}

/// Host and port from COLLPLAN_ADDR, MASTER_ADDR/MASTER_PORT or the default;
/// says which in Source.
llvm::Error readAddress(TcpConfig &C, std::string &Source) {
  std::string Variable = "COLLPLAN_ADDR";
  std::string Value;
  if (isSet("COLLPLAN_ADDR")) {
    Value = std::getenv("COLLPLAN_ADDR");
  } else if (isSet("MASTER_ADDR")) {
    const char *Port = std::getenv("MASTER_PORT");
    Variable = "MASTER_ADDR:MASTER_PORT";
    Value = std::string(std::getenv("MASTER_ADDR")) + ":" +
            (Port && *Port ? Port : "29500");
  } else {
    Variable = "the default address";
    Value = "127.0.0.1:29500";
  }
  Source = "address from " + Variable;
  llvm::StringRef A(Value);
  auto [Host, PortText] = A.rsplit(':');
  unsigned Port = 0;
  if (Host.empty() || PortText.getAsInteger(10, Port) || Port == 0 ||
      Port > 65535)
    return makeError(ErrorKind::Usage,
                     Variable + "=" + Value +
                         ": expected host:port, e.g. 127.0.0.1:29500");
  llvm::Expected<std::string> Ip = ipv4Of(Host, Variable, Value);
  if (!Ip)
    return Ip.takeError();
  C.Host = *Ip;
  C.Port = uint16_t(Port);
  return llvm::Error::success();
}

} // namespace

bool environmentNamesRank() { return familyInEnvironment() != nullptr; }

llvm::Expected<TcpConfig> tcpConfigFromEnvironment() {
  TcpConfig C;
  const RankVariables *F = familyInEnvironment();
  if (!F)
    return makeError(ErrorKind::Usage,
                     "no rank in the environment: set COLLPLAN_RANK and "
                     "COLLPLAN_SIZE, or start the rank with mpirun, srun or "
                     "torchrun");
  llvm::Expected<uint64_t> Size = envNumber(F->Size, 0, 1 << 20, {});
  if (!Size)
    return Size.takeError();
  llvm::Expected<uint64_t> Rank = envNumber(F->Rank, 0, 1 << 20, {});
  if (!Rank)
    return Rank.takeError();
  if (*Size == 0 || *Rank >= *Size)
    return makeError(ErrorKind::Usage, "%s=%llu is not a rank of %s=%llu",
                     F->Rank, (unsigned long long)*Rank, F->Size,
                     (unsigned long long)*Size);
  // 0 would fail every wait at once: at least a second.
  llvm::Expected<uint64_t> Timeout =
      envNumber("COLLPLAN_TIMEOUT", 1, 86400, uint64_t(30));
  if (!Timeout)
    return Timeout.takeError();
  C.Size = uint32_t(*Size);
  C.Rank = uint32_t(*Rank);
  C.Timeout = std::chrono::seconds(*Timeout);
  C.SizeVariable = F->Size;
  if (const char *Secret = std::getenv("COLLPLAN_SECRET"))
    C.Secret = Secret;
  std::string AddressSource;
  if (llvm::Error E = readAddress(C, AddressSource))
    return E;
  // Where this rank listens for higher ranks, when the interface that
  // reaches rank 0 is not the one to use.
  if (isSet("COLLPLAN_LISTEN_ADDR")) {
    const char *Value = std::getenv("COLLPLAN_LISTEN_ADDR");
    llvm::Expected<std::string> Ip =
        ipv4Of(Value, "COLLPLAN_LISTEN_ADDR", Value);
    if (!Ip)
      return Ip.takeError();
    C.ListenHost = *Ip;
  }
  C.Source = std::string("rank from ") + F->Rank + ", size from " + F->Size +
             ", " + AddressSource;
  return C;
}

} // namespace collplan::runtime
