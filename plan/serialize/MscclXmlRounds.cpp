//===- MscclXmlRounds.cpp - Placing simulated MSCCL phases in rounds ------===//
//
// Each phase gets the earliest round its predecessors allow
// (MscclXmlSchedule.h explains the three moments of a round); a message's
// send and receive share the later of the two rounds they could run in.
// The constraints are monotone, so sweeping the phases in simulation order
// until nothing changes finds the least solution; a sweep count past the
// number of phases means a cycle that grows forever.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/MscclXmlSchedule.h"
#include "plan/serialize/PlanFile.h"

#include "plan/ir/Error.h"

#include <algorithm>
#include <map>
#include <set>

namespace collplan::msccl {

using llvm::Expected;
using llvm::StringRef;

namespace {

uint32_t roundAtLeast(int64_t Time) {
  return Time <= 0 ? 0 : uint32_t((Time + 2) / 3);
}

/// One sweep over the phases; returns the index of the last phase whose
/// placement changed, or -1.
int64_t sweep(Schedule &S) {
  std::vector<Phase> &Ph = S.Phases;
  int64_t Changed = -1;
  for (uint32_t I = 0; I < Ph.size(); ++I) {
    Phase &P = Ph[I];
    int64_t L = 0;
    for (const Pred &Q : P.Preds) {
      const Phase &From = Ph[Q.Phase];
      // A write after a send's read: a local operation may share the
      // send's round (it runs after the read), a receive may not.
      int64_t T = Q.AfterRead ? 3 * int64_t(From.Round) +
                                    (P.Kind == PhaseKind::Recv ? 1 : 0)
                              : From.Done;
      L = std::max(L, T);
    }
    uint32_t OldRound = P.Round;
    int64_t OldDone = P.Done;
    switch (P.Kind) {
    case PhaseKind::Nop:
      P.Done = L;
      break;
    case PhaseKind::Local:
      P.Round = L <= 2 ? 0 : roundAtLeast(L - 2);
      P.Done = 3 * int64_t(P.Round) + 2;
      break;
    case PhaseKind::Send: {
      // Eager: the sender goes on once the send could start.
      P.Ready = roundAtLeast(L);
      P.Done = 3 * int64_t(P.Ready);
      P.Round = std::max(P.Ready, Ph[S.Messages[P.Msg].RecvPhase].Ready);
      break;
    }
    case PhaseKind::Recv: {
      P.Ready = roundAtLeast(L);
      Phase &Sender = Ph[S.Messages[P.Msg].SendPhase];
      P.Round = std::max(P.Ready, Sender.Ready);
      if (Sender.Round != P.Round) {
        Sender.Round = P.Round;
        Changed = I;
      }
      P.Done = 3 * int64_t(P.Round) + (P.Locals.empty() ? 1 : 2);
      break;
    }
    }
    if (P.Round != OldRound || P.Done != OldDone)
      Changed = I;
  }
  return Changed;
}

struct RoundOps {
  std::vector<std::pair<int64_t, Op>> Transfers; ///< Keyed by message.
  std::vector<Op> Locals;
};

} // namespace

Expected<Plan> assemblePlan(Schedule S, StringRef Name) {
  size_t MaxSweeps = S.Phases.size() + 2;
  for (size_t Sweep = 0;; ++Sweep) {
    int64_t Changed = sweep(S);
    if (Changed < 0)
      break;
    if (Sweep >= MaxSweeps) {
      const Phase &P = S.Phases[size_t(Changed)];
      return makeError(ErrorKind::CannotCompile,
                       Name + ": gpu " + llvm::Twine(P.Gpu) + ", threadblock " +
                           llvm::Twine(P.Tb) + ", step " + llvm::Twine(P.Step) +
                           ": the steps cannot be placed in rounds: a send "
                           "whose source is overwritten before its receiver "
                           "is ready lies on a cycle of dependencies");
    }
  }

  uint32_t Ranks = S.Header.Ranks;
  std::vector<std::map<uint32_t, RoundOps>> ByRank(Ranks);
  for (const Phase &P : S.Phases) {
    if (P.Kind == PhaseKind::Nop)
      continue;
    RoundOps &R = ByRank[P.Gpu][P.Round];
    // Sends before receives (the executor's order does not matter, the
    // i-th send of a pair must meet the i-th receive: both follow the
    // message order).
    int64_t Key = P.Msg + (P.Kind == PhaseKind::Recv ? (int64_t(1) << 40) : 0);
    for (const Op &O : P.Transfers)
      R.Transfers.push_back({Key, O});
    for (const Op &O : P.Locals)
      R.Locals.push_back(O);
  }
  if (S.OutBuffer)
    for (uint32_t R = 0; R < Ranks; ++R) {
      BlockSet Out = S.Header.outputBlocks(R);
      if (Out.empty())
        continue;
      uint32_t Last = ByRank[R].empty() ? 0 : ByRank[R].rbegin()->first;
      ByRank[R][Last].Locals.push_back(
          Op::local(*S.OutBuffer, DataBuffer, Out, Combine::Replace));
    }
  // Rounds in which no rank does anything are dropped.
  std::set<uint32_t> Used;
  for (const auto &Rounds : ByRank)
    for (const auto &[Index, Ops] : Rounds)
      Used.insert(Index);
  std::map<uint32_t, uint32_t> Dense;
  for (uint32_t Index : Used)
    Dense.emplace(Index, uint32_t(Dense.size()));

  Plan Out;
  Out.Header = std::move(S.Header);
  Out.Programs.resize(Ranks);
  for (uint32_t R = 0; R < Ranks; ++R)
    for (auto &[Index, Ops] : ByRank[R]) {
      std::stable_sort(
          Ops.Transfers.begin(), Ops.Transfers.end(),
          [](const auto &X, const auto &Y) { return X.first < Y.first; });
      for (const auto &[Key, O] : Ops.Transfers)
        Out.Programs[R].add(Dense[Index], O);
      for (const Op &O : Ops.Locals)
        Out.Programs[R].add(Dense[Index], O);
    }
  std::vector<Diagnostic> Problems = checkStructure(Out, 2);
  if (!Problems.empty())
    return structureError(Name, Problems);
  return Out;
}

} // namespace collplan::msccl
