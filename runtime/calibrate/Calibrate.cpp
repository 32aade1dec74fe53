//===- Calibrate.cpp - Measuring the cost model's alpha, beta, gamma ------===//

#include "runtime/calibrate/Calibrate.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>

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

/// Repetitions for one size: enough to take a median of small messages,
/// few enough that the megabyte sizes take a fraction of a second.
unsigned repetitionsFor(uint64_t Bytes) {
  uint64_t R = (uint64_t(32) << 20) / std::max<uint64_t>(Bytes, 1);
  return unsigned(std::clamp<uint64_t>(R, 8, 200));
}

/// Rank A times Reps round trips with rank B; returns half the median.
llvm::Expected<double> pingPong(Transport &T, uint32_t A, uint32_t B,
                                uint64_t Bytes, unsigned Reps) {
  std::vector<char> Buf(Bytes, 1);
  uint32_t Me = T.rank();
  uint32_t Peer = Me == A ? B : A;
  Message M = messageTo(Peer, Buf, Bytes);
  std::vector<double> Times;
  const unsigned Warmup = 2;
  for (unsigned I = 0; I < Warmup + Reps; ++I) {
    Clock::time_point T0 = Clock::now();
    if (Me == A) {
      if (Error E = T.exchange({M}, {}))
        return E;
      if (Error E = T.exchange({}, {M}))
        return E;
    } else {
      if (Error E = T.exchange({}, {M}))
        return E;
      if (Error E = T.exchange({M}, {}))
        return E;
    }
    if (I >= Warmup)
      Times.push_back(secondsSince(T0) / 2);
  }
  std::nth_element(Times.begin(), Times.begin() + Times.size() / 2,
                   Times.end());
  return Times[Times.size() / 2];
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

std::string formatMicros(double Seconds) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.2f us", Seconds * 1e6);
  return S;
}

} // namespace

LinkFit fitAlphaBeta(llvm::ArrayRef<PingPongSample> Samples) {
  LinkFit F;
  F.Samples.assign(Samples.begin(), Samples.end());
  double S0 = 0, S1 = 0, S2 = 0, T0 = 0, T1 = 0;
  for (const PingPongSample &X : Samples) {
    double W = 1 / (X.Seconds * X.Seconds), M = double(X.Bytes);
    S0 += W;
    S1 += W * M;
    S2 += W * M * M;
    T0 += W * X.Seconds;
    T1 += W * M * X.Seconds;
  }
  double Det = S0 * S2 - S1 * S1;
  if (Samples.size() < 2 || Det == 0)
    return F;
  F.Alpha = (S2 * T0 - S1 * T1) / Det;
  F.Beta = (S0 * T1 - S1 * T0) / Det;
  // Noise (a loaded machine delaying small messages more than large ones)
  // can tilt the line below zero at one end. Neither cost can be negative:
  // the constrained optimum then lies on that boundary, where the other
  // coefficient has a closed form.
  if (F.Beta < 0) {
    F.Beta = 0;
    F.Alpha = T0 / S0;
  } else if (F.Alpha < 0) {
    F.Alpha = 0;
    F.Beta = T1 / S2;
  }
  double Mean = 0;
  for (const PingPongSample &X : Samples)
    Mean += X.Seconds / double(Samples.size());
  double SsRes = 0, SsTot = 0, Rel = 0;
  for (const PingPongSample &X : Samples) {
    double Fit = F.Alpha + F.Beta * double(X.Bytes);
    SsRes += (Fit - X.Seconds) * (Fit - X.Seconds);
    SsTot += (X.Seconds - Mean) * (X.Seconds - Mean);
    Rel += (Fit - X.Seconds) * (Fit - X.Seconds) / (X.Seconds * X.Seconds);
  }
  F.R2 = SsTot > 0 ? 1 - SsRes / SsTot : 1;
  F.RmsRelativeResidual = std::sqrt(Rel / double(Samples.size()));
  F.Measured = true;
  return F;
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

llvm::Expected<Calibration> calibrate(Transport &T, llvm::StringRef Name,
                                      const CalibrateSettings &S) {
  Calibration C;
  C.TransportName = Name.str();
  C.Ranks = T.size();
  C.Type = S.Type;
  C.Op = S.Op;
  auto Progress = [&](const std::string &Line) {
    if (T.rank() == 0 && S.Progress)
      S.Progress(Line);
  };
  llvm::Expected<std::vector<std::string>> Hosts = exchangeHostNames(T);
  if (!Hosts)
    return Hosts.takeError();
  std::vector<std::string> Distinct = *Hosts;
  std::sort(Distinct.begin(), Distinct.end());
  C.Nodes = uint32_t(std::unique(Distinct.begin(), Distinct.end()) -
                     Distinct.begin());
  // Rank 0 and the first rank on its node; rank 0 and the first rank on
  // another node. Every rank computes the same pairs from the same names.
  uint32_t IntraPeer = 0, InterPeer = 0;
  for (uint32_t Q = T.size(); Q-- > 1;) {
    if ((*Hosts)[Q] == (*Hosts)[0])
      IntraPeer = Q;
    else
      InterPeer = Q;
  }
  for (auto [Fit, Peer, What] :
       {std::make_tuple(&C.Intra, IntraPeer, "intra-node"),
        std::make_tuple(&C.Inter, InterPeer, "inter-node")}) {
    if (Peer == 0)
      continue;
    std::vector<PingPongSample> Samples;
    for (uint64_t Bytes : S.Sizes) {
      double Seconds = 0;
      if (T.rank() == 0 || T.rank() == Peer) {
        llvm::Expected<double> R =
            pingPong(T, 0, Peer, Bytes, repetitionsFor(Bytes));
        if (!R)
          return R.takeError();
        Seconds = *R;
      }
      Samples.push_back({Bytes, Seconds});
      Progress(std::string("ping-pong ") + What + " " + std::to_string(Bytes) +
               " B: " + formatMicros(Seconds));
    }
    if (T.rank() == 0) {
      *Fit = fitAlphaBeta(Samples);
    }
    Fit->Measured = Fit->Measured || T.rank() == Peer;
    Fit->RankA = 0;
    Fit->RankB = Peer;
  }
  if (T.rank() == 0) {
    C.GammaBytes = 4 << 20;
    C.Gamma = measureGamma(S.Type, S.Op, C.GammaBytes);
    Progress("reduction " + datatypeName(S.Type).str() + " " +
             reduceOpName(S.Op).str() + ": " + formatMicros(C.Gamma * 1e6) +
             " per MB");
  }
  return C;
}

} // namespace collplan::runtime
