//===- TcpTest.cpp - The executor over TCP in forked processes ------------===//
//
// Real processes on loopback sockets through the local launcher: every
// algorithm x collective for a few P compared with the test oracle, and the
// failure modes the transport promises to turn into errors within a bounded
// time: a killed peer, a stalled peer, a peer that never arrives, a listener
// that drops the handshake, ranks holding different plans; and port probes
// at the rendezvous, which must not end the job.
//
//===----------------------------------------------------------------------===//

#include "Oracle.h"

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/Error.h"
#include "runtime/Executor.h"
#include "runtime/launcher/LocalLauncher.h"
#include "runtime/tcp/JobSecret.h"
#include "runtime/tcp/RankEnvironment.h"
#include "runtime/tcp/TcpTransport.h"
#include "tests/support/PlanFactory.h"

#include "llvm/ADT/StringExtras.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;
using namespace std::chrono_literals;

namespace {

/// Algorithm's plan for K on P flat ranks, rooted at the last rank.
Plan compile(const char *Algorithm, Collective K, uint32_t P,
             std::vector<uint64_t> Weights = {}) {
  std::optional<uint32_t> Root;
  if (hasRoot(K))
    Root = P - 1;
  return collplan::test::compileFlat(Algorithm, K, P, Root, std::move(Weights));
}

/// Runs Pl in one child: Count elements of T under Op, compared with the
/// oracle. Reports "ok" or what went wrong.
int runAndCompare(const Plan &Pl, const TcpConfig &Config, uint64_t Count,
                  Datatype T, ReduceOp Op, std::string &Report) {
  llvm::Expected<std::unique_ptr<TcpTransport>> Tr =
      TcpTransport::connect(Config);
  if (!Tr) {
    Report = llvm::toString(Tr.takeError());
    return 5;
  }
  uint32_t R = Config.Rank;
  const PlanHeader &H = Pl.Header;
  Executor Ex(H, Pl.Programs[R], R);
  std::vector<char> In = oracleInputBuffer(H, R, Count, T, Op);
  std::vector<char> Out(Count * sizeOf(T));
  CallArgs A;
  A.Input = In.data();
  A.Output = Out.data();
  A.Count = Count;
  A.Type = T;
  A.Op = Operator::predefined(Op);
  for (int Call = 0; Call < 2; ++Call)
    if (llvm::Error E = Ex.run(**Tr, A)) {
      Report = llvm::toString(std::move(E));
      return 5;
    }
  std::vector<char> Want = oracleOutput(H, R, Count, T, Op);
  Out.resize(Want.size());
  if (Out != Want && !(H.Kind == Collective::Reduce && R != *H.Root)) {
    Report = "wrong result";
    return 1;
  }
  Report = "ok";
  return 0;
}

/// A socket connected to rank 0's rendezvous port, or -1.
int connectToRankZero(uint16_t Port) {
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  A.sin_port = htons(Port);
  int Fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(Fd, reinterpret_cast<sockaddr *>(&A), sizeof(A)) != 0) {
    close(Fd);
    return -1;
  }
  return Fd;
}

/// Plays a rank that does not know the job's secret: reads rank 0's
/// challenge and answers with a well-formed hello claiming Rank of Size,
/// signed with Secret (written here from the protocol, not with the
/// rendezvous' own code). Returns the socket, or -1.
int forgeHello(uint16_t Port, uint32_t Rank, uint32_t Size,
               const std::string &Secret) {
  int Fd = connectToRankZero(Port);
  if (Fd < 0)
    return -1;
  uint8_t Challenge[24];
  size_t Got = 0;
  while (Got < sizeof(Challenge)) {
    ssize_t N = read(Fd, Challenge + Got, sizeof(Challenge) - Got);
    if (N <= 0)
      return close(Fd), -1;
    Got += size_t(N);
  }
  uint32_t Fields[6] = {0x4e4c5043, 2, Size, Rank, 1, 0};
  llvm::ArrayRef<uint8_t> Nonce(Challenge + 8, 16);
  llvm::ArrayRef<uint8_t> Signed(reinterpret_cast<uint8_t *>(Fields),
                                 sizeof(Fields));
  HelloMac Mac = helloMac(Secret, {Nonce, Signed});
  if (write(Fd, Fields, sizeof(Fields)) != ssize_t(sizeof(Fields)) ||
      write(Fd, Mac.data(), Mac.size()) != ssize_t(Mac.size()))
    return close(Fd), -1;
  return Fd;
}

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

std::string describe(const std::vector<RankOutcome> &Outcomes) {
  std::string S;
  for (size_t R = 0; R < Outcomes.size(); ++R)
    S += "rank " + std::to_string(R) + " exit " +
         std::to_string(Outcomes[R].ExitCode) + ": " + Outcomes[R].Report +
         Outcomes[R].Note + "\n";
  return S;
}

} // namespace

TEST_CASE("every algorithm and collective over TCP matches the oracle") {
  uint32_t Variant = 0;
  for (uint32_t P : {2u, 3u, 5u})
    for (const Algorithm *A : allAlgorithms())
      for (Collective K : A->collectives()) {
        CompileRequest Req;
        Req.Kind = K;
        Req.Topo = Topology::flat(P);
        if (hasRoot(K))
          Req.Root = Variant % P;
        // Allgatherv's ranks, alltoallv's pairs.
        for (uint64_t R = 0; R < weightCount(K, P); ++R)
          Req.Weights.push_back(R % P + 1);
        llvm::Expected<Plan> Pl = compilePlan(*A, Req);
        if (!Pl) {
          llvm::consumeError(Pl.takeError());
          continue;
        }
        ++Variant;
        Datatype T = allDatatypes()[Variant % allDatatypes().size()];
        ReduceOp Op = allReduceOps()[Variant % allReduceOps().size()];
        if (!supports(T, Op))
          Op = ReduceOp::Sum;
        uint64_t Count = Variant % 2 ? 100003 : 37;
        auto Outcomes = launchLocal(
            P, 10s, 60s, [&](const TcpConfig &C, std::string &Report) {
              return runAndCompare(*Pl, C, Count, T, Op, Report);
            });
        REQUIRE(bool(Outcomes));
        INFO(A->name().str()
             << " " << collectiveName(K).str() << " P=" << P << "\n"
             << describe(*Outcomes));
        for (const RankOutcome &O : *Outcomes)
          CHECK(O.ExitCode == 0);
      }
}

TEST_CASE("a killed peer ends the others' round with an error, not a hang") {
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 20s, 60s, [&](const TcpConfig &C, std::string &Report) {
        if (C.Rank == 1) {
          auto T = TcpTransport::connect(C);
          std::this_thread::sleep_for(200ms);
          raise(SIGKILL);
        }
        return runAndCompare(Pl, C, 1 << 20, Datatype::Float, ReduceOp::Sum,
                             Report);
      });
  REQUIRE(bool(Outcomes));
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  INFO(describe(*Outcomes));
  CHECK((*Outcomes)[1].ExitCode == 128 + SIGKILL);
  // Survivors fail; rank 1's neighbour names it (the other may see rank 0
  // leave first, as it fails and closes its sockets).
  for (uint32_t R : {0u, 2u}) {
    CHECK((*Outcomes)[R].ExitCode == 5);
    CHECK((*Outcomes)[R].Report.find("connection to rank") !=
          std::string::npos);
  }
  CHECK((
      (*Outcomes)[0].Report.find("connection to rank 1") != std::string::npos ||
      (*Outcomes)[2].Report.find("connection to rank 1") != std::string::npos));
  CHECK(Seconds < 10); // Closed sockets are noticed at once, not at 20 s.
}

TEST_CASE("a stalled peer gives a timeout error within the configured time") {
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 1s, 8s, [&](const TcpConfig &C, std::string &Report) {
        if (C.Rank == 2) {
          auto T = TcpTransport::connect(C);
          std::this_thread::sleep_for(30s); // The launcher kills it at 8 s.
          return 0;
        }
        return runAndCompare(Pl, C, 1000, Datatype::Int32, ReduceOp::Sum,
                             Report);
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  // The stalled rank's neighbour times out; the other survivor may time out
  // too or, if the neighbour exits first, see its connection close.
  auto TimedOut = [&](uint32_t R) {
    return (*Outcomes)[R].Report.find("no progress for 1000 ms") !=
           std::string::npos;
  };
  for (uint32_t R : {0u, 1u}) {
    CHECK((*Outcomes)[R].ExitCode == 5);
    CHECK((TimedOut(R) || (*Outcomes)[R].Report.find("connection to rank") !=
                              std::string::npos));
  }
  CHECK((TimedOut(0) || TimedOut(1)));
  CHECK((*Outcomes)[2].ExitCode == 128 + SIGKILL);
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  CHECK(Seconds < 12);
}

TEST_CASE("the launcher kills a stopped rank a timeout and a margin after "
          "the others failed") {
  // A stopped rank never exits on its own: the others time out and exit,
  // then the launcher waits a timeout and a margin more (1 s + 1 s) and kills
  // it, naming it, rather than wait for it for ever (here: until the 60 s
  // deadline).
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 1s, 60s, [&](const TcpConfig &C, std::string &Report) {
        if (C.Rank == 1) {
          auto T = TcpTransport::connect(C);
          raise(SIGSTOP);
          return 0;
        }
        return runAndCompare(Pl, C, 1000, Datatype::Int32, ReduceOp::Sum,
                             Report);
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  CHECK((*Outcomes)[0].ExitCode == 5);
  CHECK((*Outcomes)[2].ExitCode == 5);
  CHECK((*Outcomes)[1].ExitCode == 128 + SIGKILL);
  CHECK((*Outcomes)[1].Note.find("still running 2000 ms after rank") !=
        std::string::npos);
  CHECK((*Outcomes)[0].Note.empty());
  CHECK(secondsSince(Start) < 15);
}

TEST_CASE("a peer that never arrives fails the rendezvous within the timeout") {
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 1s, 20s, [&](const TcpConfig &C, std::string &Report) {
        if (C.Rank == 2)
          return 0; // Never connects.
        return runAndCompare(Pl, C, 10, Datatype::Int32, ReduceOp::Sum, Report);
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  CHECK((*Outcomes)[0].ExitCode == 5);
  CHECK((*Outcomes)[0].Report.find("waited for 1 more rank") !=
        std::string::npos);
  CHECK((*Outcomes)[1].ExitCode == 5);
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  CHECK(Seconds < 10);
}

TEST_CASE("connecting to a listener that drops the handshake gives up in "
          "time") {
  // A listener with a full accept queue drops new SYNs: a blocking connect()
  // would hang for the kernel's SYN retries (about two minutes), far past
  // the 1 s the rank was given.
  int Listener = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(Listener >= 0);
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(Listener, reinterpret_cast<sockaddr *>(&A), sizeof(A)) == 0);
  REQUIRE(listen(Listener, 0) == 0);
  socklen_t Len = sizeof(A);
  getsockname(Listener, reinterpret_cast<sockaddr *>(&A), &Len);
  std::vector<int> Fillers;
  for (int I = 0; I < 4; ++I) {
    int Fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(Fd, reinterpret_cast<sockaddr *>(&A), sizeof(A));
    Fillers.push_back(Fd);
  }
  std::this_thread::sleep_for(100ms);
  auto Start = std::chrono::steady_clock::now();
  // In a child the launcher kills at 40 s, so a hang fails the test.
  auto Outcomes =
      launchLocal(1, 1s, 40s, [&](const TcpConfig &, std::string &Report) {
        TcpConfig C;
        C.Rank = 1;
        C.Size = 2;
        C.Port = ntohs(A.sin_port);
        C.Timeout = 1s;
        auto T = TcpTransport::connect(C);
        if (T)
          return 0;
        Report = llvm::toString(T.takeError());
        return 5;
      });
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  for (int Fd : Fillers)
    close(Fd);
  close(Listener);
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  CHECK((*Outcomes)[0].ExitCode == 5);
  // (A kernel that completed the handshake anyway would leave the rank
  // waiting for rank 0's answer instead, also bounded by the timeout.)
  CHECK((*Outcomes)[0].Report.find("rank 0") != std::string::npos);
  CHECK(Seconds < 30); // 1 s asked; generous for a loaded machine.
}

TEST_CASE("a port probe or a stranger at the rendezvous does not end the job") {
  // Scripts wait for rank 0's port with `nc -z` (connect, close at once);
  // other programs may knock on it. Neither is a rank: ignore them.
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Outcomes =
      launchLocal(3, 10s, 60s, [&](const TcpConfig &C, std::string &Report) {
        if (C.Rank == 1) {
          sockaddr_in A{};
          A.sin_family = AF_INET;
          A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
          A.sin_port = htons(C.Port);
          int Probe = socket(AF_INET, SOCK_STREAM, 0);
          if (connect(Probe, reinterpret_cast<sockaddr *>(&A), sizeof(A)) != 0)
            return 9;
          close(Probe);
          int Stranger = socket(AF_INET, SOCK_STREAM, 0);
          if (connect(Stranger, reinterpret_cast<sockaddr *>(&A), sizeof(A)) !=
              0)
            return 9;
          const char Junk[] = "GET / HTTP/1.0\r\nHost: collplan\r\n\r\n";
          if (write(Stranger, Junk, sizeof(Junk)) != ssize_t(sizeof(Junk)))
            return 9;
          close(Stranger);
        }
        return runAndCompare(Pl, C, 1000, Datatype::Int32, ReduceOp::Sum,
                             Report);
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  for (const RankOutcome &O : *Outcomes)
    CHECK(O.ExitCode == 0);
}

TEST_CASE("a silent stranger and a forged hello do not disturb the job") {
  // One stranger connects and sends 4 bytes, then nothing: it must hold
  // only its own connection, not the rendezvous. Another answers the
  // challenge with a well-formed hello claiming rank 1, signed with the
  // wrong secret: refused, and the real rank 1 is still admitted.
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 10s, 60s, [&](const TcpConfig &C, std::string &Report) {
        int Silent = -1, Forged = -1;
        if (C.Rank == 1) {
          Silent = connectToRankZero(C.Port);
          if (Silent < 0 || write(Silent, "CPLN", 4) != 4)
            return 9;
          Forged = forgeHello(C.Port, 1, C.Size, "not the job's secret");
          if (Forged < 0)
            return 9;
        }
        int Code =
            runAndCompare(Pl, C, 1000, Datatype::Int32, ReduceOp::Sum, Report);
        if (Silent >= 0)
          close(Silent); // Only now: the job finished while it was open.
        if (Forged >= 0)
          close(Forged);
        return Code;
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  for (const RankOutcome &O : *Outcomes)
    CHECK(O.ExitCode == 0);
  // Well under the 5 s a silent connection may last, and the 10 s timeout.
  CHECK(secondsSince(Start) < 4);
}

TEST_CASE("a rank with the wrong secret is refused and named at the timeout") {
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Start = std::chrono::steady_clock::now();
  auto Outcomes =
      launchLocal(3, 2s, 30s, [&](const TcpConfig &C, std::string &Report) {
        TcpConfig Mine = C;
        if (C.Rank == 2)
          Mine.Secret = "another job's secret";
        return runAndCompare(Pl, Mine, 10, Datatype::Int32, ReduceOp::Sum,
                             Report);
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  const std::string &Zero = (*Outcomes)[0].Report;
  CHECK((*Outcomes)[0].ExitCode == 5);
  CHECK(Zero.find("without rank(s) 2") != std::string::npos);
  CHECK(Zero.find("claiming rank 2 was refused") != std::string::npos);
  CHECK(Zero.find("COLLPLAN_SECRET") != std::string::npos);
  // The refused rank learns at once, not at the timeout.
  CHECK((*Outcomes)[2].ExitCode == 5);
  CHECK((*Outcomes)[2].Report.find("COLLPLAN_SECRET") != std::string::npos);
  CHECK((*Outcomes)[1].ExitCode == 5);
  CHECK(secondsSince(Start) < 10);
}

TEST_CASE("a process squatting on rank 0's port cannot admit a rank") {
  // It greets like rank 0 and admits whatever hello comes, but cannot sign
  // the admission: rank 1 must refuse it at once (it used to go on, and
  // exit 0 with its own data echoed as the allreduce result).
  uint16_t Port = 0;
  llvm::Expected<int> Listener = listenOn("127.0.0.1", Port);
  REQUIRE(bool(Listener));
  std::thread Squatter([Fd = *Listener] {
    int Conn = accept(Fd, nullptr, nullptr);
    if (Conn < 0)
      return;
    uint32_t Challenge[6] = {0x4e4c5043, 4, 1, 2, 3, 4};
    uint8_t Hello[72];
    uint32_t Verdict[10] = {0x4e4c5043, 1}; // Admitted, an unsigned "proof".
    size_t Got = 0;
    if (write(Conn, Challenge, sizeof(Challenge)) == ssize_t(sizeof(Challenge)))
      for (ssize_t N; Got < sizeof(Hello) &&
                      (N = read(Conn, Hello + Got, sizeof(Hello) - Got)) > 0;)
        Got += size_t(N);
    if (Got == sizeof(Hello) &&
        write(Conn, Verdict, sizeof(Verdict)) == ssize_t(sizeof(Verdict))) {
      char Byte;
      (void)!read(Conn, &Byte, 1); // Until rank 1 hangs up.
    }
    close(Conn);
  });
  TcpConfig C;
  C.Rank = 1;
  C.Size = 2;
  C.Port = Port;
  C.Timeout = 5s;
  C.Secret = "the job's secret";
  auto Start = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<int>> Sockets = rendezvous(C);
  double Seconds = secondsSince(Start);
  Squatter.join();
  close(*Listener);
  REQUIRE(!Sockets);
  std::string Message = llvm::toString(Sockets.takeError());
  CHECK_MESSAGE(Message.find("without knowing this job's secret") !=
                    std::string::npos,
                Message);
  CHECK(Seconds < 2);
}

TEST_CASE("a flood of connections to rank 0's port does not fail the job") {
  // Strangers open connections as fast as they can and hold them, saying
  // nothing, while the ranks meet: rank 0 drops the oldest past 64, which
  // could be a rank's before it was heard (all ranks then failed, rank 1
  // told its hello was unsigned). Ranks now reconnect, and rank 0 reads
  // hellos between bursts of accepts.
  Plan Pl = compile("ring", Collective::Allreduce, 3);
  auto Outcomes =
      launchLocal(3, 10s, 60s, [&](const TcpConfig &C, std::string &Report) {
        std::atomic<bool> Stop{false};
        std::thread Flood;
        if (C.Rank == 1)
          Flood = std::thread([&] {
            std::deque<int> Open;
            while (!Stop) {
              int Fd = connectToRankZero(C.Port);
              if (Fd >= 0)
                Open.push_back(Fd);
              if (Open.size() > 256 || (Fd < 0 && !Open.empty())) {
                close(Open.front());
                Open.pop_front();
              }
            }
            for (int Fd : Open)
              close(Fd);
          });
        if (C.Rank != 0)
          std::this_thread::sleep_for(200ms); // The flood first.
        int Code =
            runAndCompare(Pl, C, 1000, Datatype::Int32, ReduceOp::Sum, Report);
        Stop = true;
        if (Flood.joinable())
          Flood.join();
        return Code;
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  for (const RankOutcome &O : *Outcomes)
    CHECK(O.ExitCode == 0);
}

TEST_CASE("the hello MAC is HMAC-SHA256") {
  // RFC 4231, test case 2.
  llvm::StringRef Msg = "what do ya want for nothing?";
  HelloMac Mac = helloMac(
      "Jefe", {llvm::ArrayRef<uint8_t>(
                  reinterpret_cast<const uint8_t *>(Msg.data()), Msg.size())});
  CHECK(llvm::toHex(Mac, true) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("ranks holding different plans fail naming both hashes") {
  auto Outcomes =
      launchLocal(4, 5s, 20s, [&](const TcpConfig &C, std::string &Report) {
        auto T = TcpTransport::connect(C);
        if (!T) {
          Report = llvm::toString(T.takeError());
          return 5;
        }
        uint64_t Hash = C.Rank == 3 ? 0xabcdef : 0x123456;
        llvm::Error E = checkSameHash(**T, Hash);
        bool Failed = bool(E);
        Report = Failed ? llvm::toString(std::move(E)) : "agreed";
        return Failed ? 5 : 0;
      });
  REQUIRE(bool(Outcomes));
  INFO(describe(*Outcomes));
  for (const RankOutcome &O : *Outcomes) {
    CHECK(O.ExitCode == 5);
    CHECK(O.Report.find("0000000000abcdef") != std::string::npos);
    CHECK(O.Report.find("0000000000123456") != std::string::npos);
  }
}

namespace {

/// Clears every variable RankEnvironment.h reads, before and after a test.
void clearRankEnvironment() {
  for (const char *V :
       {"COLLPLAN_RANK", "COLLPLAN_SIZE", "COLLPLAN_ADDR", "COLLPLAN_TIMEOUT",
        "COLLPLAN_SECRET", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
        "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "RANK",
        "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"})
    unsetenv(V);
}

std::string errorOf(llvm::Expected<TcpConfig> C, ErrorKind &Kind) {
  REQUIRE(!C);
  ErrorReport R = takeErrorReport(C.takeError(), ErrorKind::Runtime);
  Kind = R.Kind;
  return R.Message;
}

} // namespace

TEST_CASE("the environment describes a rank") {
  clearRankEnvironment();
  setenv("COLLPLAN_RANK", "2", 1);
  setenv("COLLPLAN_SIZE", "4", 1);
  setenv("COLLPLAN_ADDR", "127.0.0.1:29611", 1);
  setenv("COLLPLAN_TIMEOUT", "7", 1);
  setenv("COLLPLAN_SECRET", "s3cret", 1);
  llvm::Expected<TcpConfig> C = tcpConfigFromEnvironment();
  REQUIRE(bool(C));
  CHECK(C->Rank == 2);
  CHECK(C->Size == 4);
  CHECK(C->Host == "127.0.0.1");
  CHECK(C->Port == 29611);
  CHECK(C->Timeout == 7s);
  CHECK(C->Secret == "s3cret");
  CHECK(C->Source == "rank from COLLPLAN_RANK, size from COLLPLAN_SIZE, "
                     "address from COLLPLAN_ADDR");
  ErrorKind Kind;
  setenv("COLLPLAN_RANK", "4", 1);
  CHECK(errorOf(tcpConfigFromEnvironment(), Kind).find("COLLPLAN_RANK=4") !=
        std::string::npos);
  CHECK(Kind == ErrorKind::Usage);
  setenv("COLLPLAN_RANK", "1", 1);
  setenv("COLLPLAN_TIMEOUT", "0", 1); // Would fail every wait at once.
  CHECK(errorOf(tcpConfigFromEnvironment(), Kind).find("COLLPLAN_TIMEOUT=0") !=
        std::string::npos);
  setenv("COLLPLAN_TIMEOUT", "7", 1);
  setenv("COLLPLAN_ADDR", "127.0.0.1", 1);
  CHECK(errorOf(tcpConfigFromEnvironment(), Kind).find("COLLPLAN_ADDR") !=
        std::string::npos);
  CHECK(Kind == ErrorKind::Usage);
  clearRankEnvironment();
}

TEST_CASE("a rank address that is not IPv4 is a usage error; names resolve") {
  clearRankEnvironment();
  setenv("COLLPLAN_RANK", "0", 1);
  setenv("COLLPLAN_SIZE", "2", 1);
  ErrorKind Kind;
  for (const char *Addr : {"[::1]:29500", "::1:29500"}) {
    setenv("COLLPLAN_ADDR", Addr, 1);
    std::string E = errorOf(tcpConfigFromEnvironment(), Kind);
    CHECK(Kind == ErrorKind::Usage);
    CHECK(E.find("IPv6") != std::string::npos);
  }
  setenv("COLLPLAN_ADDR", "no-such-host.invalid:29500", 1);
  CHECK(errorOf(tcpConfigFromEnvironment(), Kind).find("cannot resolve") !=
        std::string::npos);
  CHECK(Kind == ErrorKind::Usage);
  setenv("COLLPLAN_ADDR", "localhost:29501", 1);
  llvm::Expected<TcpConfig> C = tcpConfigFromEnvironment();
  REQUIRE(bool(C));
  CHECK(C->Host == "127.0.0.1");
  CHECK(C->Port == 29501);
  clearRankEnvironment();
}

TEST_CASE("a rank started by mpirun, srun or torchrun reads their variables") {
  struct Family {
    const char *Rank, *Size;
  };
  for (Family F :
       {Family{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        Family{"PMI_RANK", "PMI_SIZE"}, Family{"SLURM_PROCID", "SLURM_NTASKS"},
        Family{"RANK", "WORLD_SIZE"}}) {
    INFO(F.Rank);
    clearRankEnvironment();
    CHECK(!environmentNamesRank());
    setenv(F.Rank, "3", 1);
    setenv(F.Size, "5", 1);
    CHECK(environmentNamesRank());
    llvm::Expected<TcpConfig> C = tcpConfigFromEnvironment();
    REQUIRE(bool(C));
    CHECK(C->Rank == 3);
    CHECK(C->Size == 5);
    CHECK(C->SizeVariable == F.Size);
    CHECK(C->Source.find(std::string("rank from ") + F.Rank) !=
          std::string::npos);
    CHECK(C->Host == "127.0.0.1");
    CHECK(C->Port == 29500);
    // Half a family is an error naming the missing half, not a mix with
    // the next family's variable.
    unsetenv(F.Size);
    setenv("SLURM_NTASKS", "8", 1);
    setenv("WORLD_SIZE", "8", 1);
    ErrorKind Kind;
    if (std::string(F.Size) != "SLURM_NTASKS" &&
        std::string(F.Size) != "WORLD_SIZE") {
      CHECK(errorOf(tcpConfigFromEnvironment(), Kind).find(F.Size) !=
            std::string::npos);
      CHECK(Kind == ErrorKind::Usage);
    }
  }
  clearRankEnvironment();

  // COLLPLAN_* win over a launcher's; Open MPI's over Slurm's (mpirun under
  // srun sets both).
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  setenv("SLURM_PROCID", "0", 1);
  setenv("SLURM_NTASKS", "2", 1);
  llvm::Expected<TcpConfig> Mpirun = tcpConfigFromEnvironment();
  REQUIRE(bool(Mpirun));
  CHECK(Mpirun->Rank == 1);
  CHECK(Mpirun->Size == 4);
  setenv("COLLPLAN_RANK", "2", 1);
  setenv("COLLPLAN_SIZE", "3", 1);
  llvm::Expected<TcpConfig> Own = tcpConfigFromEnvironment();
  REQUIRE(bool(Own));
  CHECK(Own->Rank == 2);
  CHECK(Own->Size == 3);
  CHECK(Own->SizeVariable == "COLLPLAN_SIZE");
  clearRankEnvironment();

  // torchrun's address, unless COLLPLAN_ADDR is set.
  setenv("RANK", "0", 1);
  setenv("WORLD_SIZE", "2", 1);
  setenv("MASTER_ADDR", "127.0.0.2", 1);
  setenv("MASTER_PORT", "29777", 1);
  llvm::Expected<TcpConfig> Torch = tcpConfigFromEnvironment();
  REQUIRE(bool(Torch));
  CHECK(Torch->Host == "127.0.0.2");
  CHECK(Torch->Port == 29777);
  CHECK(Torch->Source.find("MASTER_ADDR") != std::string::npos);
  setenv("COLLPLAN_ADDR", "127.0.0.3:29778", 1);
  llvm::Expected<TcpConfig> Ours = tcpConfigFromEnvironment();
  REQUIRE(bool(Ours));
  CHECK(Ours->Host == "127.0.0.3");
  CHECK(Ours->Port == 29778);
  clearRankEnvironment();
}
