//===- Matching.cpp - Send/receive matching and per-round rules -----------===//
//
// Matching sorts every Send and every Recv by (round, sender, receiver,
// ordinal) and merges the two lists, so it costs O(n log n) in the number of
// operations whatever the shape of the plan (a linear broadcast puts P - 1
// sends in one round; scanning peers' rounds would be quadratic there).
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/Matching.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <string>
#include <tuple>

namespace collplan {
namespace verify {
namespace {

std::string blocksOf(const PlanHeader &H, uint16_t Buffer,
                     const BlockSet &Blocks) {
  return "blocks " + Blocks.str() + " of " + H.Buffers[Buffer];
}

/// One side of a message: the key of the FIFO rule and where the op sits.
struct Endpoint {
  uint32_t Round;
  uint32_t From;
  uint32_t To;
  uint32_t Ordinal; ///< The i-th op of this kind between From and To.
  uint64_t OpId;
  OpRef Ref;

  auto key() const { return std::make_tuple(Round, From, To, Ordinal); }
};

class Matcher {
public:
  Matcher(const Plan &P, size_t MaxErrors, MatchedPlan &Out)
      : P(P), H(P.Header), MaxErrors(MaxErrors), Out(Out) {}

  void run() {
    collect();
    matchEndpoints();
    buildSchedule();
    sortDiagnostics(Out.Errors, MaxErrors);
  }

private:
  const Plan &P;
  const PlanHeader &H;
  size_t MaxErrors;
  MatchedPlan &Out;
  std::vector<Endpoint> Sends, Recvs;
  /// Per-category caps keep one flood (say, unmatched sends) from hiding the
  /// others before the final sort picks the earliest.
  size_t StaticErrors = 0;

  const Op &opAt(const OpRef &R) const {
    return P.Programs[R.Rank].Rounds[R.RoundPos].Ops[R.OpIdx];
  }
  uint32_t roundOf(const OpRef &R) const {
    return P.Programs[R.Rank].Rounds[R.RoundPos].Index;
  }
  PlanLocation where(const OpRef &R) const {
    return {int64_t(R.Rank), int64_t(roundOf(R)), int64_t(R.OpIdx)};
  }

  void reportStatic(PlanLocation Where, std::string Message) {
    if (StaticErrors++ < MaxErrors)
      Out.Errors.push_back({Where, std::move(Message)});
  }

  void collect() {
    uint64_t OpId = 0;
    for (uint32_t Rank = 0; Rank < P.Programs.size(); ++Rank) {
      const auto &Rounds = P.Programs[Rank].Rounds;
      for (uint32_t Pos = 0; Pos < Rounds.size(); ++Pos) {
        const Round &Rd = Rounds[Pos];
        collectRound(Rank, Pos, Rd, OpId);
        checkOverlap(Rank, Rd);
        OpId += Rd.Ops.size();
      }
    }
    Out.SenderOf.resize(OpId);
  }

  void collectRound(uint32_t Rank, uint32_t Pos, const Round &Rd,
                    uint64_t FirstOp) {
    // The ordinal of each op among the same-kind ops to/from the same peer.
    // Rounds are short in practice; a map only for wide ones.
    llvm::DenseMap<uint64_t, uint32_t> Seen;
    bool Wide = Rd.Ops.size() > 16;
    for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
      const Op &O = Rd.Ops[I];
      if (O.Mode == Combine::Reduce && O.Kind != OpKind::Send &&
          !reduces(H.Kind))
        reportStatic({int64_t(Rank), int64_t(Rd.Index), int64_t(I)},
                     "reduces, but a " + collectiveName(H.Kind).str() +
                         " combines no contributions");
      if (O.Kind == OpKind::Local)
        continue;
      uint32_t Ordinal = 0;
      if (Wide) {
        Ordinal = Seen[(uint64_t(O.Kind) << 32) | O.Peer]++;
      } else {
        for (uint32_t J = 0; J < I; ++J)
          Ordinal += Rd.Ops[J].Kind == O.Kind && Rd.Ops[J].Peer == O.Peer;
      }
      OpRef Ref{Rank, Pos, I};
      if (O.Kind == OpKind::Send)
        Sends.push_back({Rd.Index, Rank, O.Peer, Ordinal, FirstOp + I, Ref});
      else
        Recvs.push_back({Rd.Index, O.Peer, Rank, Ordinal, FirstOp + I, Ref});
    }
  }

  /// Plan.h: Recv destinations may overlap neither each other nor the
  /// round's Send sources. A sweep over the ranges sorted by (buffer, begin)
  /// finds every overlap whose later range is a receive (against anything)
  /// or a send (against a receive).
  void checkOverlap(uint32_t Rank, const Round &Rd) {
    struct Piece {
      uint16_t Buffer;
      uint64_t Begin, End;
      uint32_t OpIdx;
      bool IsRecv;
    };
    llvm::SmallVector<Piece, 8> Pieces;
    bool AnyRecv = false;
    for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
      const Op &O = Rd.Ops[I];
      if (O.Kind == OpKind::Local)
        continue;
      AnyRecv |= O.Kind == OpKind::Recv;
      for (const BlockRange &R : O.Blocks.ranges())
        Pieces.push_back({O.Buffer, R.Begin, R.End, I, O.Kind == OpKind::Recv});
    }
    if (!AnyRecv || Rd.Ops.size() < 2)
      return;
    std::sort(Pieces.begin(), Pieces.end(), [](const Piece &A, const Piece &B) {
      return std::tie(A.Buffer, A.Begin) < std::tie(B.Buffer, B.Begin);
    });
    const Piece *ReachAny = nullptr, *ReachRecv = nullptr;
    uint32_t Reported = ~0u;
    for (const Piece &C : Pieces) {
      if (ReachAny && ReachAny->Buffer != C.Buffer)
        ReachAny = ReachRecv = nullptr;
      const Piece *Other = nullptr;
      if (C.IsRecv && ReachAny && C.Begin < ReachAny->End)
        Other = ReachAny;
      else if (!C.IsRecv && ReachRecv && C.Begin < ReachRecv->End)
        Other = ReachRecv;
      if (Other && Other->OpIdx != C.OpIdx) {
        // Report at the receive; once per round is enough.
        const Piece &Recv = C.IsRecv ? C : *Other;
        const Piece &With = C.IsRecv ? *Other : C;
        if (Reported != Recv.OpIdx) {
          Reported = Recv.OpIdx;
          const Op &RecvOp = Rd.Ops[Recv.OpIdx], &WithOp = Rd.Ops[With.OpIdx];
          reportStatic({int64_t(Rank), int64_t(Rd.Index), int64_t(Recv.OpIdx)},
                       "receives into " +
                           blocksOf(H, RecvOp.Buffer,
                                    RecvOp.Blocks.intersect(WithOp.Blocks)) +
                           ", which op " + std::to_string(With.OpIdx) +
                           (With.IsRecv ? " also receives into" : " sends") +
                           " in the same round");
        }
      }
      if (!ReachAny || C.End > ReachAny->End)
        ReachAny = &C;
      if (C.IsRecv && (!ReachRecv || C.End > ReachRecv->End))
        ReachRecv = &C;
    }
  }

  void matchEndpoints() {
    auto ByKey = [](const Endpoint &A, const Endpoint &B) {
      return A.key() < B.key();
    };
    std::sort(Sends.begin(), Sends.end(), ByKey);
    std::sort(Recvs.begin(), Recvs.end(), ByKey);
    size_t Unmatched = 0;
    auto Report = [&](PlanLocation Where, std::string Message) {
      if (Unmatched++ < MaxErrors)
        Out.Errors.push_back({Where, std::move(Message)});
    };
    size_t I = 0, J = 0;
    while (I < Sends.size() || J < Recvs.size()) {
      if (J == Recvs.size() ||
          (I < Sends.size() && Sends[I].key() < Recvs[J].key())) {
        const Endpoint &S = Sends[I++];
        Report(where(S.Ref),
               "sends " + blocksOf(H, opAt(S.Ref).Buffer, opAt(S.Ref).Blocks) +
                   " to rank " + std::to_string(S.To) + ", which posts no " +
                   ordinal(S.Ordinal) + "receive from rank " +
                   std::to_string(S.From) + " in round " +
                   std::to_string(S.Round));
        continue;
      }
      if (I == Sends.size() || Recvs[J].key() < Sends[I].key()) {
        const Endpoint &R = Recvs[J++];
        Report(
            where(R.Ref),
            "receives " + blocksOf(H, opAt(R.Ref).Buffer, opAt(R.Ref).Blocks) +
                " from rank " + std::to_string(R.From) + ", which posts no " +
                ordinal(R.Ordinal) + "send to rank " + std::to_string(R.To) +
                " in round " + std::to_string(R.Round));
        continue;
      }
      const Endpoint &S = Sends[I++], &R = Recvs[J++];
      const Op &SendOp = opAt(S.Ref), &RecvOp = opAt(R.Ref);
      if (SendOp.Blocks != RecvOp.Blocks)
        Report(where(R.Ref), "receives blocks " + RecvOp.Blocks.str() +
                                 " from rank " + std::to_string(R.From) +
                                 ", whose matching send (op " +
                                 std::to_string(S.Ref.OpIdx) +
                                 ") carries blocks " + SendOp.Blocks.str());
      Out.SenderOf[R.OpId] = S.Ref;
      ++Out.Messages;
      Out.BlockTransfers += RecvOp.Blocks.count();
    }
    Sends.clear();
    Sends.shrink_to_fit();
    Recvs.clear();
    Recvs.shrink_to_fit();
  }

  static std::string ordinal(uint32_t Ordinal) {
    if (Ordinal == 0)
      return "";
    return "#" + std::to_string(Ordinal + 1) + " ";
  }

  void buildSchedule() {
    uint64_t OpId = 0;
    for (uint32_t Rank = 0; Rank < P.Programs.size(); ++Rank) {
      const auto &Rounds = P.Programs[Rank].Rounds;
      for (uint32_t Pos = 0; Pos < Rounds.size(); ++Pos) {
        Out.Schedule.push_back({Rounds[Pos].Index, Rank, Pos, OpId});
        OpId += Rounds[Pos].Ops.size();
      }
    }
    // Ranks were pushed in order, so a stable sort keeps (Index, Rank).
    std::stable_sort(Out.Schedule.begin(), Out.Schedule.end(),
                     [](const ActiveRound &A, const ActiveRound &B) {
                       return A.Index < B.Index;
                     });
    for (size_t I = 0; I < Out.Schedule.size(); ++I)
      Out.Rounds +=
          I == 0 || Out.Schedule[I].Index != Out.Schedule[I - 1].Index;
  }
};

} // namespace

void sortDiagnostics(std::vector<Diagnostic> &Errors, size_t MaxErrors) {
  auto Key = [](const Diagnostic &D) {
    // Unsigned casts put -1 (no round: the end state) last.
    return std::make_tuple(uint64_t(D.Where.Round), uint64_t(D.Where.Rank),
                           uint64_t(D.Where.Op));
  };
  std::stable_sort(Errors.begin(), Errors.end(),
                   [&](const Diagnostic &A, const Diagnostic &B) {
                     return Key(A) < Key(B);
                   });
  if (Errors.size() > MaxErrors)
    Errors.resize(MaxErrors);
}

MatchedPlan matchPlan(const Plan &P, size_t MaxErrors) {
  MatchedPlan Out;
  Matcher(P, MaxErrors, Out).run();
  return Out;
}

} // namespace verify
} // namespace collplan
