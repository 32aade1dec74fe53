//===- CostModel.cpp - Critical-path time of a plan -----------------------===//

#include "compiler/cost/CostModel.h"

#include "plan/ir/BlockLayout.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace collplan {

namespace {

/// One rank's round, in global round order.
struct RankRound {
  uint32_t Index;
  uint32_t Rank;
  const Round *Ops;
};

} // namespace

CostReport evaluateCost(const Plan &P, uint64_t Bytes, const CostParams &C) {
  const PlanHeader &H = P.Header;
  CostReport Report;
  Report.LowerBound = lowerBound(H.Kind, H.Ranks, Bytes, C);
  BlockLayout Layout(H, Bytes);

  std::vector<RankRound> Order;
  for (uint32_t R = 0; R < P.Programs.size(); ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      Order.push_back({Rd.Index, R, &Rd});
  std::stable_sort(
      Order.begin(), Order.end(),
      [](const RankRound &A, const RankRound &B) { return A.Index < B.Index; });

  std::vector<double> Clock(H.Ranks, 0.0), Start(H.Ranks, 0.0);
  std::vector<double> Sent(H.Ranks, 0.0), Received(H.Ranks, 0.0);
  for (size_t First = 0; First < Order.size();) {
    size_t Last = First;
    while (Last < Order.size() && Order[Last].Index == Order[First].Index)
      ++Last;
    // Every participant starts the round when it finished its previous one.
    for (size_t I = First; I < Last; ++I)
      Start[Order[I].Rank] = Clock[Order[I].Rank];
    RoundCost RC{Order[First].Index, 0, 0};
    for (size_t I = First; I < Last; ++I) {
      uint32_t R = Order[I].Rank;
      double Done = Start[R], Reduced = 0, SentNow = 0;
      for (const Op &O : Order[I].Ops->Ops) {
        double B = double(Layout.size(O.Blocks));
        if (O.Kind == OpKind::Send) {
          SentNow += B;
          continue;
        }
        if (O.Mode == Combine::Reduce)
          Reduced += B;
        if (O.Kind == OpKind::Local)
          continue;
        // A message leaves once both ends have reached this round; the
        // sender is busy until it is delivered too.
        bool SameNode = H.Topo.nodeOf(O.Peer) == H.Topo.nodeOf(R);
        double Arrival = std::max(Start[R], Start[O.Peer]) +
                         C.alphaFor(SameNode) + C.betaFor(SameNode) * B;
        Done = std::max(Done, Arrival);
        Clock[O.Peer] = std::max(Clock[O.Peer], Arrival);
        Received[R] += B;
      }
      Clock[R] = std::max(Clock[R], Done + C.Gamma * Reduced);
      Sent[R] += SentNow;
      RC.MaxBytesSent = std::max(RC.MaxBytesSent, SentNow);
    }
    for (size_t I = First; I < Last; ++I)
      RC.Finish = std::max(RC.Finish, Clock[Order[I].Rank]);
    Report.Rounds.push_back(RC);
    First = Last;
  }

  for (uint32_t R = 0; R < H.Ranks; ++R) {
    Report.Time = std::max(Report.Time, Clock[R]);
    Report.MaxBytesSent = std::max(Report.MaxBytesSent, Sent[R]);
    Report.MaxBytesRecv = std::max(Report.MaxBytesRecv, Received[R]);
    Report.MeanBytesSent += Sent[R] / H.Ranks;
    Report.MeanBytesRecv += Received[R] / H.Ranks;
  }
  return Report;
}

double lowerBound(Collective Kind, uint32_t Ranks, uint64_t Bytes,
                  const CostParams &C) {
  if (Ranks <= 1)
    return 0;
  return llvm::Log2_64_Ceil(Ranks) * C.Alpha +
         contractOf(Kind).bandwidthShare(Ranks) * double(Bytes) * C.Beta;
}

} // namespace collplan
