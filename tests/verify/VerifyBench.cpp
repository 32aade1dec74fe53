//===- VerifyBench.cpp - Time and memory of compile + verify --------------===//
//
// verify_bench [algorithm] [P] [auto|exact|hashed] [collective]
// Defaults: rabenseifner 16384 auto allreduce, the target of the verifier
// (under 5 s and 2 GiB for compile + verify).
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>

using namespace collplan;

int main(int Argc, char **Argv) {
  std::string Name = Argc > 1 ? Argv[1] : "rabenseifner";
  uint32_t P = Argc > 2 ? std::strtoul(Argv[2], nullptr, 10) : 16384;
  std::string ModeText = Argc > 3 ? Argv[3] : "auto";
  std::string KindText = Argc > 4 ? Argv[4] : "allreduce";
  const Algorithm *A = findAlgorithm(Name);
  std::optional<Collective> Kind = parseCollective(KindText);
  if (!A || !Kind) {
    std::fprintf(stderr, "unknown algorithm '%s' or collective '%s'\n",
                 Name.c_str(), KindText.c_str());
    return 2;
  }
  VerifyOptions Options;
  Options.Mode = ModeText == "exact"    ? VerifyMode::Exact
                 : ModeText == "hashed" ? VerifyMode::Hashed
                                        : VerifyMode::Auto;
  CompileRequest Req;
  Req.Kind = *Kind;
  Req.Topo = Topology::flat(P);
  if (hasRoot(*Kind))
    Req.Root = 0;

  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  llvm::Expected<Plan> Compiled = compilePlan(*A, Req);
  if (!Compiled) {
    std::fprintf(stderr, "%s\n", llvm::toString(Compiled.takeError()).c_str());
    return 2;
  }
  auto T1 = Clock::now();
  VerifyResult R = verifyPlan(*Compiled, Options);
  auto T2 = Clock::now();
  struct rusage Usage;
  getrusage(RUSAGE_SELF, &Usage);
  auto Secs = [](auto D) { return std::chrono::duration<double>(D).count(); };
  std::printf("%s %s P=%u B=%llu mode=%s: %s; %llu rounds, %llu messages, "
              "%llu block transfers\n",
              Name.c_str(), KindText.c_str(), P,
              (unsigned long long)R.Stats.Blocks,
              verifyModeName(R.Stats.ModeUsed).str().c_str(),
              R.Valid ? "valid" : "INVALID", (unsigned long long)R.Stats.Rounds,
              (unsigned long long)R.Stats.Messages,
              (unsigned long long)R.Stats.BlockTransfers);
  // CPU time beside wall time: the machine may be shared.
  double Cpu = Usage.ru_utime.tv_sec + Usage.ru_utime.tv_usec / 1e6 +
               Usage.ru_stime.tv_sec + Usage.ru_stime.tv_usec / 1e6;
  std::printf("compile %.3f s, verify %.3f s, total %.3f s wall (%.3f s "
              "CPU), peak RSS %.1f MiB\n",
              Secs(T1 - T0), Secs(T2 - T1), Secs(T2 - T0), Cpu,
              Usage.ru_maxrss / 1024.0);
  for (const Diagnostic &D : R.Errors)
    std::printf("  %s\n", D.str().c_str());
  return R.Valid ? 0 : 1;
}
