//===- Calibrate.cpp - Fitting alpha, beta and gamma to real plans --------===//

#include "runtime/calibrate/Calibrate.h"

#include "compiler/cost/CostParamsFile.h"
#include "runtime/Executor.h"
#include "runtime/calibrate/SubsetTransport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <thread>

using llvm::Error;

namespace collplan::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point T0) {
  return std::chrono::duration<double>(Clock::now() - T0).count();
}

Message messageTo(uint32_t Peer, std::vector<char> &Buf, size_t Bytes) {
  Message M;
  M.Peer = Peer;
  M.Segments.push_back(Segment{Buf.data(), Bytes});
  return M;
}

/// Every rank learns every rank's host name (an all-to-all of fixed-size
/// buffers, one round).
llvm::Expected<std::vector<std::string>> exchangeHostNames(Transport &T) {
  constexpr size_t Len = 256;
  char Name[Len] = {};
  if (gethostname(Name, Len - 1) != 0)
    std::strcpy(Name, "unknown");
  std::vector<char> Mine(Name, Name + Len);
  uint32_t P = T.size(), Me = T.rank();
  std::vector<std::vector<char>> Theirs(P, std::vector<char>(Len));
  llvm::SmallVector<Message, 8> Sends, Receives;
  for (uint32_t Q = 0; Q < P; ++Q) {
    if (Q == Me)
      continue;
    Sends.push_back(messageTo(Q, Mine, Len));
    Receives.push_back(messageTo(Q, Theirs[Q], Len));
  }
  if (Error E = T.exchange(Sends, Receives))
    return E;
  std::vector<std::string> Names(P);
  for (uint32_t Q = 0; Q < P; ++Q)
    Names[Q] =
        Q == Me ? std::string(Name)
                : std::string(Theirs[Q].data(), strnlen(Theirs[Q].data(), Len));
  return Names;
}

/// Node numbers in order of first appearance, from host names.
std::vector<uint32_t> nodeNumbers(const std::vector<std::string> &Hosts) {
  std::vector<std::string> Seen;
  std::vector<uint32_t> Node;
  for (const std::string &H : Hosts) {
    auto It = std::find(Seen.begin(), Seen.end(), H);
    Node.push_back(uint32_t(It - Seen.begin()));
    if (It == Seen.end())
      Seen.push_back(H);
  }
  return Node;
}

std::string formatMicros(double Seconds) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.2f us", Seconds * 1e6);
  return S;
}

} // namespace

llvm::Expected<double> timePlan(Transport &T, const Plan &P, uint64_t Bytes,
                                Datatype Type, ReduceOp Op) {
  uint32_t Me = T.rank();
  Executor Ex(P.Header, P.Programs[Me], Me);
  uint64_t Count = Bytes / sizeOf(Type);
  std::vector<char> In(Count * sizeOf(Type)), Out(Count * sizeOf(Type));
  CallArgs Args;
  Args.Input = In.data();
  Args.Output = Out.data();
  Args.Count = Count;
  Args.Type = Type;
  Args.Op = Operator::predefined(Op);
  // One call at a time, each rank timing itself from the barrier before
  // it to its own end; the call took the slowest rank's time. The model
  // prices one call from a common start to its last rank's end. Calls back
  // to back would overlap where sends are eager (an MPI broadcast of 8 B
  // "took" 0.1 us a call that way), and closing each call with a barrier
  // would hide a broadcast's eager message under the barrier's own. More
  // repetitions for small calls, the same on every rank.
  unsigned Reps = unsigned(std::clamp<uint64_t>(
      (uint64_t(4) << 20) / std::max<uint64_t>(Bytes, 1), 5, 30));
  if (Error E = Ex.run(T, Args)) // warm-up: connections, page faults
    return E;
  // Each rank's fastest: on a machine shared with other work, the others'
  // load only ever adds time, so the minimum is the plan's own time and the
  // estimate that repeats (medians moved by 2x here under load).
  double Mine = INFINITY;
  for (unsigned R = 0; R < Reps; ++R) {
    if (Error E = checkSameHash(T, 0))
      return E;
    Clock::time_point T0 = Clock::now();
    if (Error E = Ex.run(T, Args))
      return E;
    Mine = std::min(Mine, secondsSince(T0));
  }
  // Rank 0 gathers every rank's time.
  std::vector<double> All(T.size(), Mine);
  llvm::SmallVector<Message, 8> Sends, Receives;
  if (Me == 0) {
    for (uint32_t Q = 1; Q < T.size(); ++Q)
      Receives.push_back(
          {Q, {{reinterpret_cast<char *>(&All[Q]), sizeof(double)}}});
  } else {
    Sends.push_back({0, {{reinterpret_cast<char *>(&Mine), sizeof(double)}}});
  }
  if (Error E = T.exchange(Sends, Receives))
    return E;
  return *std::max_element(All.begin(), All.end());
}

double measureGamma(Datatype T, ReduceOp Op, uint64_t Bytes) {
  size_t Count = Bytes / sizeOf(T);
  std::vector<char> InOut(Count * sizeOf(T)), In(Count * sizeOf(T));
  // Small integers: no overflow traps, no denormals, for every type.
  for (size_t I = 0; I < InOut.size(); ++I) {
    InOut[I] = char(I % 3);
    In[I] = char(I % 5);
  }
  double Best = INFINITY;
  Clock::time_point Start = Clock::now();
  for (unsigned Pass = 0; Pass < 3 || secondsSince(Start) < 0.1; ++Pass) {
    Clock::time_point T0 = Clock::now();
    reduceInto(InOut.data(), In.data(), Count, T, Op);
    Best = std::min(Best, secondsSince(T0));
    if (Pass > 1000)
      break;
  }
  return Best / double(Count * sizeOf(T));
}

const std::vector<std::string> &fittableKeys() {
  // Every key of the parameters file but the topology's own (the hop
  // latency, the injection bandwidth), which plans timed on one machine's
  // ranks cannot show, and the machine's cores, which are counted.
  static const std::vector<std::string> Keys = [] {
    std::vector<std::string> Out;
    for (const std::string &K : costParamKeys())
      if (K != "alpha_hop" && K != "injection_bandwidth" &&
          K != "cores_per_node")
        Out.push_back(K);
    return Out;
  }();
  return Keys;
}

llvm::Expected<Calibration> calibrate(Transport &T, llvm::StringRef Name,
                                      const PlanSource &Source,
                                      const CalibrateSettings &S) {
  Calibration C;
  C.TransportName = Name.str();
  C.Ranks = T.size();
  C.Type = S.Type;
  C.Op = S.Op;
  uint32_t Me = T.rank();
  auto Progress = [&](const std::string &Line) {
    if (Me == 0 && S.Progress)
      S.Progress(Line);
  };
  llvm::Expected<std::vector<std::string>> Hosts = exchangeHostNames(T);
  if (!Hosts)
    return Hosts.takeError();
  std::vector<uint32_t> NodeOf = nodeNumbers(*Hosts);
  C.Nodes = *std::max_element(NodeOf.begin(), NodeOf.end()) + 1;
  // Rank 0's machine speaks for every node.
  C.CoresPerNode =
      S.CoresPerNode.value_or(double(std::thread::hardware_concurrency()));
  for (uint32_t P = std::max(S.MinRanks, 2u); P <= T.size(); ++P) {
    // One node: every message is between two ranks of it, priced by alpha
    // and beta (alpha_intra and beta_intra stay unset), its ranks sharing
    // its cores. Several: the job's own map, so messages within a node take
    // alpha_intra and beta_intra.
    Topology Topo = C.Nodes == 1
                        ? Topology::nodes(1, P)
                        : Topology::explicitNodes(std::vector<uint32_t>(
                              NodeOf.begin(), NodeOf.begin() + P));
    llvm::Expected<std::vector<Plan>> Plans = Source(Topo);
    if (!Plans)
      return Plans.takeError();
    for (Plan &Pl : *Plans) {
      uint32_t Index = uint32_t(C.Plans.size());
      std::string What = Pl.Header.Algorithm + " " +
                         collectiveName(Pl.Header.Kind).str() +
                         " P=" + std::to_string(P);
      C.Plans.push_back(std::move(Pl));
      for (uint64_t Bytes : S.Sizes) {
        double Seconds = 0;
        if (Me < P) {
          SubsetTransport Sub(T, P);
          llvm::Expected<double> R =
              timePlan(Sub, C.Plans.back(), Bytes, S.Type, S.Op);
          if (!R)
            return R.takeError();
          Seconds = *R;
        }
        // The ranks past P wait here, a point at a time, never long
        // enough for the transport to call them stalled.
        if (Error E = checkSameHash(T, 0))
          return E;
        C.Timings.push_back({Index, Bytes, Seconds});
        Progress(What + " " + std::to_string(Bytes) +
                 " B: " + formatMicros(Seconds));
      }
    }
  }
  if (Me != 0)
    return C;
  fitCalibration(C, S);
  return C;
}

void fitCalibration(Calibration &C, const CalibrateSettings &S) {
  C.KernelGammaBytes = 4 << 20;
  C.KernelGamma = measureGamma(C.Type, C.Op, C.KernelGammaBytes);
  C.Keys = {"alpha", "beta", "gamma", "overhead", "overhead_per_byte"};
  if (C.Nodes > 1)
    C.Keys.insert(C.Keys.begin() + 3, {"alpha_intra", "beta_intra"});
  if (!S.Keys.empty())
    C.Keys = S.Keys;
  if (S.Evaluate) {
    C.Fitted = false;
    C.Params = *S.Evaluate;
    C.Params.ElementBytes = uint32_t(sizeOf(C.Type));
    C.Fit.Params = C.Params;
    C.Fit.Predicted = predictTimings(C.Plans, C.Timings, C.Params);
    relativeResiduals(C.Timings, C.Fit.Predicted, C.Fit.RmsRelativeResidual,
                      C.Fit.MaxRelativeResidual);
    return;
  }
  CostParams Start;
  Start.CoresPerNode = C.CoresPerNode;
  Start.Gamma = C.KernelGamma;
  Start.ElementBytes = uint32_t(sizeOf(C.Type));
  C.Fit = fitPlanTimings(C.Plans, C.Timings, Start, C.Keys);
  C.Params = C.Fit.Params;
}

} // namespace collplan::runtime
