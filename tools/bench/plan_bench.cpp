//===- plan_bench.cpp - Time and memory to compile + verify plans ---------===//
//
// Prints, for each algorithm and P, the wall time to compile and to verify a
// plan, and the CPU time (user + system, every thread) and peak resident
// memory of doing both. Every case runs in a child process so its CPU time
// and peak memory are its own (wait4's rusage). On a machine shared with
// other work the CPU time is the steadier figure.
//
//   plan_bench [--collective allreduce] [--algorithms ring,rabenseifner]
//              [--ranks 1024,4096 | --topology torus:64x64,nodes:2048x16]
//              [--ppn K] [--bytes 1MiB] [--param k=v]
//              [--verify-mode auto|exact|hashed] [--format text|json]
//
// --ppn K places the P ranks on P / K nodes of K ranks (block mapping), for
// the node-aware families; without it the topology is flat.
//
// A parameter value "L" stands for ceil(log2 P) of each case, so
// `--algorithms permutation --param r=L` benchmarks the latency-optimal end.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace collplan;

namespace {

struct CaseResult {
  bool Ran = false;
  std::string Skipped;
  double CompileSeconds = 0, VerifySeconds = 0;
  uint64_t Rounds = 0, Messages = 0, BlockTransfers = 0;
  bool Valid = false;
  VerifyMode Mode = VerifyMode::Auto;
  double CpuSeconds = 0;
  double PeakMiB = 0;
};

double since(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
      .count();
}

/// Runs in the child: compile, verify, write the figures to Fd.
void runCase(const Algorithm &A, const CompileRequest &Req, VerifyMode Mode,
             int Fd) {
  // compilePlan refuses, with a reason, plans too large to hold (ring
  // allreduce at large P has 4P(P-1) operations).
  CaseResult R;
  auto T0 = std::chrono::steady_clock::now();
  llvm::Expected<Plan> P = compilePlan(A, Req);
  R.CompileSeconds = since(T0);
  if (!P) {
    R.Skipped = llvm::toString(P.takeError());
  } else {
    VerifyOptions VO;
    VO.Mode = Mode;
    auto T1 = std::chrono::steady_clock::now();
    VerifyResult V = verifyPlan(*P, VO);
    R.VerifySeconds = since(T1);
    R.Ran = true;
    R.Valid = V.Valid;
    R.Rounds = V.Stats.Rounds;
    R.Messages = V.Stats.Messages;
    R.BlockTransfers = V.Stats.BlockTransfers;
    R.Mode = V.Stats.ModeUsed;
  }
  std::string Line =
      std::to_string(R.Ran) + "\t" + std::to_string(R.Valid) + "\t" +
      std::to_string(R.CompileSeconds) + "\t" +
      std::to_string(R.VerifySeconds) + "\t" + std::to_string(R.Rounds) + "\t" +
      std::to_string(R.Messages) + "\t" + std::to_string(R.BlockTransfers) +
      "\t" + std::to_string(int(R.Mode)) + "\t" + R.Skipped;
  (void)!write(Fd, Line.data(), Line.size());
}

CaseResult runIsolated(const Algorithm &A, const CompileRequest &Req,
                       VerifyMode Mode) {
  int Pipe[2];
  CaseResult R;
  if (pipe(Pipe) != 0) {
    R.Skipped = "pipe failed";
    return R;
  }
  pid_t Child = fork();
  if (Child == 0) {
    close(Pipe[0]);
    runCase(A, Req, Mode, Pipe[1]);
    _exit(0);
  }
  close(Pipe[1]);
  std::string Text;
  char Buf[4096];
  ssize_t N;
  while ((N = read(Pipe[0], Buf, sizeof(Buf))) > 0)
    Text.append(Buf, size_t(N));
  close(Pipe[0]);
  int Status = 0;
  struct rusage Usage {};
  wait4(Child, &Status, 0, &Usage);
  R.PeakMiB = Usage.ru_maxrss / 1024.0;
  auto Seconds = [](const timeval &T) { return T.tv_sec + T.tv_usec / 1e6; };
  R.CpuSeconds = Seconds(Usage.ru_utime) + Seconds(Usage.ru_stime);
  llvm::SmallVector<llvm::StringRef, 9> F;
  llvm::StringRef(Text).split(F, '\t', 8);
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0 || F.size() < 9) {
    R.Skipped = "the case crashed or ran out of memory";
    return R;
  }
  R.Ran = F[0] == "1";
  R.Valid = F[1] == "1";
  R.CompileSeconds = std::stod(F[2].str());
  R.VerifySeconds = std::stod(F[3].str());
  F[4].getAsInteger(10, R.Rounds);
  F[5].getAsInteger(10, R.Messages);
  F[6].getAsInteger(10, R.BlockTransfers);
  int ModeNumber = 0;
  F[7].getAsInteger(10, ModeNumber);
  R.Mode = VerifyMode(ModeNumber);
  R.Skipped = F[8].str();
  return R;
}

} // namespace

int main(int Argc, char **Argv) {
  CLI::App App{"Wall time and peak memory to compile + verify plans"};
  std::string CollectiveName = "allreduce";
  std::vector<std::string> Algorithms = {"ring", "recursive-doubling",
                                         "rabenseifner"};
  std::vector<uint32_t> RankCounts = {1024, 4096, 16384, 65536};
  std::vector<std::string> Params, TopologyTexts;
  std::string Format = "text", ModeName = "auto";
  uint64_t Bytes = 1 << 20;
  uint32_t PerNode = 1;
  App.add_option("--collective", CollectiveName)->capture_default_str();
  App.add_option("--algorithms", Algorithms)->delimiter(',');
  App.add_option("--ranks", RankCounts)->delimiter(',');
  App.add_option("--topology", TopologyTexts,
                 "topologies to run instead of flat --ranks, e.g. torus:64x64")
      ->delimiter(',');
  App.add_option("--ppn", PerNode, "ranks per node")->capture_default_str();
  App.add_option("--bytes", Bytes)->capture_default_str();
  App.add_option("--param", Params, "NAME=VALUE, repeatable");
  App.add_option("--verify-mode", ModeName)
      ->check(CLI::IsMember({"auto", "exact", "hashed"}));
  App.add_option("--format", Format)->check(CLI::IsMember({"text", "json"}));
  CLI11_PARSE(App, Argc, Argv);

  std::optional<Collective> Kind = parseCollective(CollectiveName);
  if (!Kind) {
    llvm::errs() << "plan_bench: unknown collective " << CollectiveName << "\n";
    return 2;
  }
  VerifyMode Mode = ModeName == "exact"    ? VerifyMode::Exact
                    : ModeName == "hashed" ? VerifyMode::Hashed
                                           : VerifyMode::Auto;
  std::vector<Topology> Topologies;
  for (const std::string &Text : TopologyTexts) {
    llvm::Expected<Topology> T =
        Topology::parse(Text, std::nullopt, PerNode, RankMapping::Block);
    if (!T) {
      llvm::errs() << "plan_bench: " << llvm::toString(T.takeError()) << "\n";
      return 2;
    }
    Topologies.push_back(*T);
  }
  if (Topologies.empty())
    for (uint32_t P : RankCounts) {
      llvm::Expected<Topology> T =
          Topology::parse("flat", P, PerNode, RankMapping::Block);
      if (!T) {
        llvm::errs() << "plan_bench: " << llvm::toString(T.takeError()) << "\n";
        return 2;
      }
      Topologies.push_back(*T);
    }
  bool Json = Format == "json";
  if (!Json)
    llvm::outs() << "algorithm                  P  rounds  compile_s   "
                    "verify_s    cpu_s    mode   peak_MiB  result\n";
  llvm::json::Array Rows;
  for (const std::string &Name : Algorithms) {
    const Algorithm *A = findAlgorithm(Name);
    if (!A) {
      llvm::errs() << "plan_bench: unknown algorithm " << Name << "\n";
      return 2;
    }
    for (const Topology &Topo : Topologies) {
      uint32_t P = Topo.ranks();
      CompileRequest Req;
      Req.Kind = *Kind;
      Req.Topo = Topo;
      Req.Bytes = Bytes;
      for (const std::string &KV : Params) {
        auto [K, V] = llvm::StringRef(KV).split('=');
        Req.Params[K.str()] =
            V == "L" ? std::to_string(llvm::Log2_64_Ceil(P)) : V.str();
      }
      if (hasRoot(*Kind))
        Req.Root = 0;
      CaseResult R = runIsolated(*A, Req, Mode);
      std::string Result = !R.Ran    ? "skipped: " + R.Skipped
                           : R.Valid ? "valid"
                                     : "INVALID";
      if (Json) {
        Rows.push_back(
            llvm::json::Object{{"algorithm", Name},
                               {"ranks", int64_t(P)},
                               {"topology", Topo.str()},
                               {"ran", R.Ran},
                               {"valid", R.Valid},
                               {"rounds", int64_t(R.Rounds)},
                               {"compile_seconds", R.CompileSeconds},
                               {"verify_seconds", R.VerifySeconds},
                               {"cpu_seconds", R.CpuSeconds},
                               {"verify_mode", verifyModeName(R.Mode)},
                               {"peak_mib", R.PeakMiB},
                               {"block_transfers", int64_t(R.BlockTransfers)},
                               {"note", R.Skipped}});
      } else {
        llvm::outs() << llvm::format(
            "%-20s %7u %7llu %10.3f %10.3f %8.2f %7s %10.1f  %s%s\n",
            Name.c_str(), P, (unsigned long long)R.Rounds, R.CompileSeconds,
            R.VerifySeconds, R.CpuSeconds,
            R.Ran ? verifyModeName(R.Mode).str().c_str() : "-", R.PeakMiB,
            Result.c_str(),
            Topo.kind() == TopologyKind::Torus ? (" " + Topo.str()).c_str()
                                               : "");
      }
      llvm::outs().flush();
    }
  }
  if (Json)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(Rows)))
                 << "\n";
  return 0;
}
