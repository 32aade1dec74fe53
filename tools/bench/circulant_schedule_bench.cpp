//===- circulant_schedule_bench.cpp - Cost of Träff's circulant schedules -===//
//
// Prints how long one rank's receive and send schedules take at large P (the
// O(log P) per-rank construction a launcher runs at start-up), and how long a
// whole broadcast plan takes to compile and to verify.
//
//   circulant_schedule_bench [P ...]      default: 1048579 2147483647
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/CirculantSchedule.h"
#include "compiler/verify/Verifier.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <vector>

using namespace collplan;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

/// Mean microseconds per rank of F over Count pseudo-random ranks of P.
template <typename Fn> double perRank(uint64_t P, unsigned Count, Fn F) {
  uint64_t X = 0x9e3779b97f4a7c15ULL, Sink = 0;
  auto Start = Clock::now();
  for (unsigned I = 0; I < Count; ++I) {
    X ^= X << 13, X ^= X >> 7, X ^= X << 17;
    Sink += F(X % P);
  }
  double Micro = secondsSince(Start) * 1e6 / Count;
  // Keep the results alive so the loop is not optimised away.
  if (Sink == 42)
    llvm::outs() << "";
  return Micro;
}

void scheduleFigures(uint64_t P) {
  circulant::Skips S(P);
  constexpr unsigned Count = 20000;
  double Recv = perRank(P, Count, [&](uint64_t R) {
    return uint64_t(circulant::receiveSchedule(S, R)[0]);
  });
  double Send = perRank(P, Count, [&](uint64_t R) {
    return uint64_t(circulant::sendSchedule(S, R)[0]);
  });
  double Both = perRank(P, Count, [&](uint64_t R) {
    circulant::Skips Own(P);
    return uint64_t(circulant::baseblock(Own, R) +
                    circulant::receiveSchedule(Own, R)[0] +
                    circulant::sendSchedule(Own, R)[0]);
  });
  llvm::outs() << "P = " << P << " (q = " << S.q() << "): receive "
               << llvm::format("%.2f", Recv) << " us, send "
               << llvm::format("%.2f", Send) << " us, skips + baseblock + both "
               << llvm::format("%.2f", Both) << " us per rank (mean of "
               << Count << " random ranks)\n";
}

int planFigures(uint32_t P, uint64_t N) {
  const Algorithm *A = findAlgorithm("circulant");
  CompileRequest Req;
  Req.Kind = Collective::Broadcast;
  Req.Topo = Topology::flat(P);
  Req.Root = 0;
  Req.Params = {{"blocks", std::to_string(N)}};
  auto Start = Clock::now();
  llvm::Expected<Plan> Pl = compilePlan(*A, Req);
  double Compile = secondsSince(Start);
  if (!Pl) {
    llvm::errs() << "circulant_schedule_bench: "
                 << llvm::toString(Pl.takeError()) << "\n";
    return 1;
  }
  Start = Clock::now();
  VerifyResult V = verifyPlan(*Pl);
  double Verify = secondsSince(Start);
  llvm::outs() << "broadcast P = " << P << ", n = " << N << ": compile "
               << llvm::format("%.3f", Compile) << " s, verify ("
               << verifyModeName(V.Stats.ModeUsed) << ") "
               << llvm::format("%.3f", Verify) << " s, "
               << (V.Valid ? "valid" : "INVALID") << ", " << V.Stats.Rounds
               << " rounds, " << V.Stats.Messages << " messages\n";
  return V.Valid ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<uint64_t> Ps;
  for (int I = 1; I < Argc; ++I) {
    uint64_t P = 0;
    if (llvm::StringRef(Argv[I]).getAsInteger(10, P) || P < 1 ||
        P > circulant::MaxProcessors) {
      llvm::errs() << "circulant_schedule_bench: '" << Argv[I]
                   << "' is not a processor count in [1, 2^62]\n";
      return 2;
    }
    Ps.push_back(P);
  }
  if (Ps.empty())
    Ps = {(uint64_t(1) << 20) + 3, (uint64_t(1) << 31) - 1};
  for (uint64_t P : Ps)
    scheduleFigures(P);
  return planFigures(16384, 64);
}
