//===- Matching.cpp - Send/receive matching and per-round rules -----------===//
//
// Matching looks each Recv's Send up at its sender: the sender's round by its
// index (by subtraction where the sender's rounds have no gaps; through a
// table of positions where they have a few, as a reduce-broadcast's ranks
// do; else by a binary search of its rounds), then the Send in that round
// (a scan of a short round, a sorted table of a wide one: a linear broadcast
// puts P - 1 sends in one round, and scanning it for each would be
// quadratic). So it costs a look-up per message, the sender's round fetched
// some rounds ahead, rather than sorting every send and receive (which took
// most of the verifier's time on plans of millions of single-block
// operations, and as much memory again as the plan). Every receive pairs
// with at most one send, so counting the pairs tells whether any send is
// left over; only then are the sends looked up the other way.
//
// The steps go straight to their places in replay order: a first pass
// counts each global round's receives and locals, a second writes them.
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

std::string ordinal(uint32_t Ordinal) {
  if (Ordinal == 0)
    return "";
  return "#" + std::to_string(Ordinal + 1) + " ";
}

/// Rounds with more operations than this get a sorted table of their sends
/// and receives for look-ups; shorter ones are scanned.
constexpr size_t WideRound = 16;

/// A send or receive that pairs with nothing, or a pair whose blocks differ,
/// under the FIFO rule's key; reported in key order, the first MaxErrors.
struct Unpaired {
  enum Kind : uint8_t { Send, Recv, Blocks };
  uint32_t Round, From, To, Ordinal;
  Kind What;
  uint32_t Rank, Pos, OpIdx;           ///< The operation reported.
  uint32_t SendPos = 0, SendOpIdx = 0; ///< Blocks: the matching send.

  auto key() const { return std::make_tuple(Round, From, To, Ordinal); }
};

class Matcher {
public:
  Matcher(const Plan &P, size_t MaxErrors, MatchedPlan &Out)
      : P(P), H(P.Header), MaxErrors(MaxErrors), Out(Out) {}

  void run() {
    mapRounds();
    scan();
    emit();
    if (PairedRecvs < Sends)
      findUnpairedSends();
    reportUnpaired();
    sortDiagnostics(Out.Errors, MaxErrors);
  }

private:
  const Plan &P;
  const PlanHeader &H;
  size_t MaxErrors;
  MatchedPlan &Out;
  /// Per-category caps keep one flood (say, overlapping receives) from
  /// hiding the others before the final sort picks the earliest.
  size_t StaticErrors = 0;
  uint64_t Sends = 0, PairedRecvs = 0;
  std::vector<Unpaired> Found;

  /// Per rank: where its round with a given global index is. Round Pos has
  /// index First + Pos when the rank's rounds have no gaps (Table = NoTable);
  /// else, when they are not much sparser than that, PositionOf[Table +
  /// Index - First] holds its position (Absent if none); else (Table =
  /// Search) a binary search finds it.
  struct RankRounds {
    uint32_t First = 0;
    uint32_t Span = 0;
    uint64_t Table = NoTable;
  };
  static constexpr uint64_t NoTable = UINT64_MAX, Search = UINT64_MAX - 1;
  static constexpr uint32_t Absent = UINT32_MAX;
  std::vector<RankRounds> Ranks;
  std::vector<uint32_t> PositionOf;

  /// Global round indices as slots 0, 1, ...: Index - MinIndex when the
  /// indices are not much sparser than the rounds, else by rank among the
  /// distinct indices.
  uint32_t MinIndex = 0;
  std::vector<uint32_t> SparseIndices; ///< Sorted, distinct; or empty.
  /// Per slot: first the counts of its receives, locals and their ranges,
  /// then (emit) where the next of each goes.
  struct SlotFill {
    uint64_t Recvs = 0, RecvRanges = 0, Locals = 0, LocalRanges = 0;
    bool Active = false;
  };
  std::vector<SlotFill> Slots;

  /// Wide rounds' sends and receives as (Peer * 2 + is-receive) << 32 | op
  /// index, sorted; each wide round's run of them.
  std::vector<uint64_t> WideOps;
  llvm::DenseMap<const Round *, std::pair<uint64_t, uint32_t>> WideRuns;

  static uint64_t wideKey(OpKind Kind, uint32_t Peer) {
    return (uint64_t(Peer) * 2 + (Kind == OpKind::Recv)) << 32;
  }

  uint64_t slotOf(uint32_t Index) const {
    if (SparseIndices.empty())
      return Index - MinIndex;
    return std::lower_bound(SparseIndices.begin(), SparseIndices.end(), Index) -
           SparseIndices.begin();
  }

  void reportStatic(PlanLocation Where, std::string Message) {
    if (StaticErrors++ < MaxErrors)
      Out.Errors.push_back({Where, std::move(Message)});
  }

  /// Ranks' round layouts and the slots of the global round indices.
  void mapRounds() {
    Ranks.resize(H.Ranks);
    uint64_t Total = 0;
    uint32_t MaxIndex = 0;
    MinIndex = UINT32_MAX;
    for (uint32_t R = 0; R < H.Ranks; ++R) {
      const std::vector<Round> &Rounds = P.Programs[R].Rounds;
      if (Rounds.empty())
        continue;
      Total += Rounds.size();
      uint32_t First = Rounds.front().Index, Last = Rounds.back().Index;
      uint64_t Span = uint64_t(Last) - First + 1;
      RankRounds &RR = Ranks[R];
      RR.First = First;
      RR.Span = uint32_t(std::min<uint64_t>(Span, UINT32_MAX));
      if (Span > Rounds.size() && Span <= 2 * Rounds.size() + 16) {
        RR.Table = PositionOf.size();
        PositionOf.resize(PositionOf.size() + Span, Absent);
        for (uint32_t Pos = 0; Pos < Rounds.size(); ++Pos)
          PositionOf[RR.Table + Rounds[Pos].Index - First] = Pos;
      } else if (Span > Rounds.size()) {
        RR.Table = Search;
      }
      MinIndex = std::min(MinIndex, First);
      MaxIndex = std::max(MaxIndex, Last);
    }
    if (Total == 0)
      return;
    uint64_t Span = uint64_t(MaxIndex) - MinIndex + 1;
    if (Span <= 2 * Total + 1024) {
      Slots.resize(Span);
      return;
    }
    SparseIndices.reserve(Total);
    for (const Program &Prog : P.Programs)
      for (const Round &Rd : Prog.Rounds)
        SparseIndices.push_back(Rd.Index);
    std::sort(SparseIndices.begin(), SparseIndices.end());
    SparseIndices.erase(std::unique(SparseIndices.begin(), SparseIndices.end()),
                        SparseIndices.end());
    Slots.resize(SparseIndices.size());
  }

  /// The first pass: the per-round rules, the wide rounds' tables and the
  /// count of each slot's steps.
  void scan() {
    for (uint32_t Rank = 0; Rank < H.Ranks; ++Rank)
      for (const Round &Rd : P.Programs[Rank].Rounds) {
        SlotFill &S = Slots[slotOf(Rd.Index)];
        S.Active = true;
        for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
          const Op &O = Rd.Ops[I];
          if (O.Mode == Combine::Reduce && O.Kind != OpKind::Send &&
              !reduces(H.Kind))
            reportStatic({int64_t(Rank), int64_t(Rd.Index), int64_t(I)},
                         "reduces, but a " + collectiveName(H.Kind).str() +
                             " combines no contributions");
          size_t NumRanges = O.Blocks.ranges().size();
          if (O.Kind == OpKind::Send) {
            ++Sends;
          } else if (O.Kind == OpKind::Recv) {
            ++S.Recvs;
            S.RecvRanges += NumRanges;
          } else {
            ++S.Locals;
            S.LocalRanges += NumRanges;
          }
        }
        if (Rd.Ops.size() > WideRound)
          tabulate(Rd);
        checkOverlap(Rank, Rd);
      }
  }

  void tabulate(const Round &Rd) {
    uint64_t Begin = WideOps.size();
    for (uint32_t I = 0; I < Rd.Ops.size(); ++I)
      if (Rd.Ops[I].Kind != OpKind::Local)
        WideOps.push_back(wideKey(Rd.Ops[I].Kind, Rd.Ops[I].Peer) | I);
    std::sort(WideOps.begin() + Begin, WideOps.end());
    WideRuns[&Rd] = {Begin, uint32_t(WideOps.size() - Begin)};
  }

  /// The number of ops before op I of Rd with its kind and peer: its place
  /// in the FIFO rule.
  uint32_t ordinalOf(const Round &Rd, uint32_t I) const {
    const Op &O = Rd.Ops[I];
    if (Rd.Ops.size() <= WideRound) {
      uint32_t Ordinal = 0;
      for (uint32_t J = 0; J < I; ++J)
        Ordinal += Rd.Ops[J].Kind == O.Kind && Rd.Ops[J].Peer == O.Peer;
      return Ordinal;
    }
    auto [Begin, Count] = WideRuns.find(&Rd)->second;
    const uint64_t *Run = WideOps.data() + Begin;
    uint64_t Key = wideKey(O.Kind, O.Peer);
    return std::lower_bound(Run, Run + Count, Key | I) -
           std::lower_bound(Run, Run + Count, Key);
  }

  /// Rank's round with global index Index, or null.
  const Round *roundAt(uint32_t Rank, uint32_t Index) const {
    const std::vector<Round> &Rounds = P.Programs[Rank].Rounds;
    const RankRounds &R = Ranks[Rank];
    if (Index < R.First || Index - R.First >= R.Span)
      return nullptr;
    if (R.Table == NoTable)
      return &Rounds[Index - R.First];
    if (R.Table != Search) {
      uint32_t Pos = PositionOf[R.Table + Index - R.First];
      return Pos == Absent ? nullptr : &Rounds[Pos];
    }
    auto It =
        std::partition_point(Rounds.begin(), Rounds.end(),
                             [&](const Round &Rd) { return Rd.Index < Index; });
    return It != Rounds.end() && It->Index == Index ? &*It : nullptr;
  }

  /// The Ordinal-th op of Kind with Peer in Rd, or -1.
  int64_t findOp(const Round &Rd, OpKind Kind, uint32_t Peer,
                 uint32_t Ordinal) const {
    if (Rd.Ops.size() <= WideRound) {
      for (uint32_t J = 0; J < Rd.Ops.size(); ++J)
        if (Rd.Ops[J].Kind == Kind && Rd.Ops[J].Peer == Peer && Ordinal-- == 0)
          return J;
      return -1;
    }
    auto [Begin, Count] = WideRuns.find(&Rd)->second;
    const uint64_t *Run = WideOps.data() + Begin;
    uint64_t Key = wideKey(Kind, Peer);
    const uint64_t *It = std::lower_bound(Run, Run + Count, Key);
    if (uint64_t(Run + Count - It) <= Ordinal ||
        (It[Ordinal] >> 32) != Key >> 32)
      return -1;
    return int64_t(uint32_t(It[Ordinal]));
  }

  /// A round of the plan, rank by rank: where emit() is, and how far ahead
  /// it fetches.
  struct Cursor {
    uint32_t Rank = 0, Pos = 0;
  };
  /// Moves C to the plan's next round; false past the last.
  bool advance(Cursor &C) const {
    for (++C.Pos; C.Rank < H.Ranks && C.Pos >= P.Programs[C.Rank].Rounds.size();
         C.Pos = 0)
      ++C.Rank;
    return C.Rank < H.Ranks;
  }
  /// Rounds between emit()'s round and the one whose senders' rounds it
  /// fetches; their entries of PositionOf are fetched twice as far ahead,
  /// since the rounds' addresses need them.
  static constexpr unsigned FetchAhead = 16;

  /// Fetches what the receives of C's round read at their senders: the
  /// senders' entries of PositionOf (Tables) or their rounds, so that the
  /// misses of many look-ups overlap.
  void prefetchSenders(Cursor C, bool Tables) const {
    if (C.Rank >= H.Ranks)
      return;
    const Round &Rd = P.Programs[C.Rank].Rounds[C.Pos];
    for (const Op &O : Rd.Ops) {
      if (O.Kind != OpKind::Recv)
        continue;
      const RankRounds &R = Ranks[O.Peer];
      if (R.Table == Search || Rd.Index < R.First ||
          Rd.Index - R.First >= R.Span || (Tables && R.Table == NoTable))
        continue;
      const char *At =
          Tables ? reinterpret_cast<const char *>(
                       &PositionOf[R.Table + Rd.Index - R.First])
                 : reinterpret_cast<const char *>(roundAt(O.Peer, Rd.Index));
      if (!At)
        continue;
      __builtin_prefetch(At);
      if (!Tables)
        __builtin_prefetch(At + 64);
      // The compiler drops a loop that only prefetches; an empty asm that
      // reads the address keeps it.
      asm volatile("" : : "r"(At));
    }
  }

  /// The second pass: every receive paired with its send, and every step
  /// written to its place in replay order.
  void emit() {
    uint64_t Step = 0, Range = 0;
    for (SlotFill &S : Slots) {
      Out.Rounds += S.Active;
      uint64_t Recvs = S.Recvs, Locals = S.Locals;
      uint64_t RecvRanges = S.RecvRanges, LocalRanges = S.LocalRanges;
      S.Recvs = Step;
      S.Locals = Step + Recvs;
      S.RecvRanges = Range;
      S.LocalRanges = Range + RecvRanges;
      Step += Recvs + Locals;
      Range += RecvRanges + LocalRanges;
    }
    Out.Steps.resize(Step);
    Out.Ranges.resize(Range);
    // Both start before the first round.
    Cursor Tables{0, ~0u}, Senders{0, ~0u};
    for (unsigned K = 0; K < 2 * FetchAhead; ++K) {
      advance(Tables);
      prefetchSenders(Tables, true);
    }
    for (unsigned K = 0; K < FetchAhead; ++K) {
      advance(Senders);
      prefetchSenders(Senders, false);
    }
    for (uint32_t Rank = 0; Rank < H.Ranks; ++Rank) {
      const std::vector<Round> &Rounds = P.Programs[Rank].Rounds;
      for (uint32_t Pos = 0; Pos < Rounds.size(); ++Pos) {
        if (advance(Tables))
          prefetchSenders(Tables, true);
        if (advance(Senders))
          prefetchSenders(Senders, false);
        const Round &Rd = Rounds[Pos];
        SlotFill &S = Slots[slotOf(Rd.Index)];
        for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
          const Op &O = Rd.Ops[I];
          if (O.Kind == OpKind::Send)
            continue;
          bool Recv = O.Kind == OpKind::Recv;
          uint64_t &At = Recv ? S.Recvs : S.Locals;
          uint64_t &RangeAt = Recv ? S.RecvRanges : S.LocalRanges;
          llvm::ArrayRef<BlockRange> Blocks = O.Blocks.ranges();
          verify::Step &St = Out.Steps[At++];
          St = {Rank,   Rank,     O.Buffer, O.Source, O.Kind,
                O.Mode, Rd.Index, I,        0,        uint32_t(Blocks.size()),
                RangeAt};
          std::copy(Blocks.begin(), Blocks.end(), Out.Ranges.begin() + RangeAt);
          RangeAt += Blocks.size();
          if (Recv)
            pair(Rank, Pos, Rd, I, St);
        }
      }
    }
  }

  /// Pairs receive I of Rank's round Rd (at Pos) with its send, filling in
  /// St's sender.
  void pair(uint32_t Rank, uint32_t Pos, const Round &Rd, uint32_t I,
            verify::Step &St) {
    const Op &RecvOp = Rd.Ops[I];
    uint32_t Ordinal = ordinalOf(Rd, I);
    Unpaired Key{Rd.Index,       RecvOp.Peer, Rank, Ordinal,
                 Unpaired::Recv, Rank,        Pos,  I};
    const Round *At = roundAt(RecvOp.Peer, Rd.Index);
    int64_t J = At ? findOp(*At, OpKind::Send, Rank, Ordinal) : -1;
    if (J < 0) {
      Found.push_back(Key);
      return;
    }
    const Op &SendOp = At->Ops[J];
    St.From = RecvOp.Peer;
    St.FromOpIdx = uint32_t(J);
    St.Source = SendOp.Buffer;
    if (SendOp.Blocks != RecvOp.Blocks) {
      Key.What = Unpaired::Blocks;
      Key.SendPos = uint32_t(At - P.Programs[RecvOp.Peer].Rounds.data());
      Key.SendOpIdx = uint32_t(J);
      Found.push_back(Key);
    }
    ++PairedRecvs;
    ++Out.Messages;
    Out.BlockTransfers += RecvOp.Blocks.count();
  }

  /// Some sends pair with no receive: the receives looked up from the sends.
  void findUnpairedSends() {
    for (uint32_t Rank = 0; Rank < H.Ranks; ++Rank) {
      const std::vector<Round> &Rounds = P.Programs[Rank].Rounds;
      for (uint32_t Pos = 0; Pos < Rounds.size(); ++Pos) {
        const Round &Rd = Rounds[Pos];
        for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
          const Op &O = Rd.Ops[I];
          if (O.Kind != OpKind::Send)
            continue;
          uint32_t Ordinal = ordinalOf(Rd, I);
          const Round *At = roundAt(O.Peer, Rd.Index);
          if (!At || findOp(*At, OpKind::Recv, Rank, Ordinal) < 0)
            Found.push_back({Rd.Index, Rank, O.Peer, Ordinal, Unpaired::Send,
                             Rank, Pos, I});
        }
      }
    }
  }

  /// The first MaxErrors of Found by the FIFO rule's key, as diagnostics.
  void reportUnpaired() {
    auto ByKey = [](const Unpaired &A, const Unpaired &B) {
      return A.key() < B.key();
    };
    size_t Keep = std::min(Found.size(), MaxErrors);
    std::partial_sort(Found.begin(), Found.begin() + Keep, Found.end(), ByKey);
    for (size_t K = 0; K < Keep; ++K) {
      const Unpaired &U = Found[K];
      const Op &O = P.Programs[U.Rank].Rounds[U.Pos].Ops[U.OpIdx];
      PlanLocation Where{int64_t(U.Rank), int64_t(U.Round), int64_t(U.OpIdx)};
      std::string Message;
      if (U.What == Unpaired::Send)
        Message = "sends " + blocksOf(H, O.Buffer, O.Blocks) + " to rank " +
                  std::to_string(U.To) + ", which posts no " +
                  ordinal(U.Ordinal) + "receive from rank " +
                  std::to_string(U.From) + " in round " +
                  std::to_string(U.Round);
      else if (U.What == Unpaired::Recv)
        Message = "receives " + blocksOf(H, O.Buffer, O.Blocks) +
                  " from rank " + std::to_string(U.From) + ", which posts no " +
                  ordinal(U.Ordinal) + "send to rank " + std::to_string(U.To) +
                  " in round " + std::to_string(U.Round);
      else
        Message =
            "receives blocks " + O.Blocks.str() + " from rank " +
            std::to_string(U.From) + ", whose matching send (op " +
            std::to_string(U.SendOpIdx) + ") carries blocks " +
            P.Programs[U.From].Rounds[U.SendPos].Ops[U.SendOpIdx].Blocks.str();
      Out.Errors.push_back({Where, std::move(Message)});
    }
    Found.clear();
  }

  /// Plan.h: Recv destinations may overlap neither each other nor the
  /// round's Send sources. A sweep over the ranges sorted by (buffer, begin)
  /// finds every overlap whose later range is a receive (against anything)
  /// or a send (against a receive).
  void checkOverlap(uint32_t Rank, const Round &Rd) {
    if (Rd.Ops.size() < 2)
      return;
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
    if (!AnyRecv)
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
