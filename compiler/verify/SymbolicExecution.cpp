//===- SymbolicExecution.cpp - Replay a matched plan on contribution sets -===//
//
// Plan.h's round semantics, replayed on contribution sets for one chunk of
// blocks at a time (every round, only the operations' part in the chunk):
//   1. every Recv of the round, reading the matched sender's state directly:
//      the overlap rule (checked in Matching.cpp) guarantees no Recv of the
//      round writes what any Send of the round reads, so the sender's state
//      is still the state at the start of the round;
//   2. then every rank's Local operations in listed order.
// Only the receive side of a message does work, so the cost is one pass per
// block transfer.
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/SymbolicExecution.h"
#include "compiler/verify/ContributionStore.h"

#include <algorithm>
#include <string>

namespace collplan {
namespace verify {
namespace {

template <class Store> class Replay {
public:
  Replay(const Plan &P, const MatchedPlan &M, const VerifyOptions &Options,
         Store &S, uint64_t ChunkBlocks, std::vector<Diagnostic> &Errors)
      : P(P), H(P.Header), M(M), MaxErrors(Options.MaxErrors), S(S),
        CB(ChunkBlocks), NumBuffers(H.Buffers.size()), Errors(Errors) {}

  void run() {
    for (C0 = 0; C0 < H.Blocks; C0 += CB) {
      N = std::min(CB, H.Blocks - C0);
      ChunkErrors = 0;
      runChunk();
      // Later chunks could only add more of the same; the caller sorts.
      if (Errors.size() >= MaxErrors)
        break;
    }
  }

private:
  const Plan &P;
  const PlanHeader &H;
  const MatchedPlan &M;
  size_t MaxErrors;
  Store &S;
  uint64_t CB;
  uint64_t NumBuffers;
  std::vector<Diagnostic> &Errors;
  uint64_t C0 = 0, N = 0; ///< The chunk: blocks [C0, C0 + N).
  size_t ChunkErrors = 0;

  uint64_t slot(uint32_t Rank, uint16_t Buffer, uint64_t Block) const {
    return (uint64_t(Rank) * NumBuffers + Buffer) * CB + (Block - C0);
  }

  void report(PlanLocation Where, std::string Message) {
    if (ChunkErrors++ < MaxErrors)
      Errors.push_back({Where, std::move(Message)});
  }

  std::string blockOf(uint64_t Block, uint16_t Buffer) const {
    return "block " + std::to_string(Block) + " of " + H.Buffers[Buffer];
  }

  /// Calls F(Begin, Count) for every run of Blocks inside the chunk.
  template <typename Fn> void forEachRun(const BlockSet &Blocks, Fn F) const {
    llvm::ArrayRef<BlockRange> Ranges = Blocks.ranges();
    const BlockRange *It = std::partition_point(
        Ranges.begin(), Ranges.end(),
        [&](const BlockRange &R) { return R.End <= C0; });
    for (; It != Ranges.end() && It->Begin < C0 + N; ++It) {
      uint64_t Lo = std::max(It->Begin, C0), Hi = std::min(It->End, C0 + N);
      if (Lo < Hi)
        F(Lo, Hi - Lo);
    }
  }

  void initialise() {
    S.clear();
    uint32_t Ranks = H.Ranks;
    auto Fill = [&](uint32_t Rank, uint64_t Lo, uint64_t Hi) {
      for (uint64_t B = std::max(Lo, C0); B < std::min(Hi, C0 + N); ++B)
        S.setSingle(slot(Rank, DataBuffer, B), Rank);
    };
    switch (H.Kind) {
    case Collective::Allreduce:
    case Collective::ReduceScatter:
    case Collective::Reduce:
      for (uint32_t R = 0; R < Ranks; ++R)
        Fill(R, 0, H.Blocks);
      break;
    case Collective::Allgather:
    case Collective::Allgatherv:
      for (uint32_t R = 0; R < Ranks; ++R)
        for (const BlockRange &Rg : H.ownedBy(R).ranges())
          Fill(R, Rg.Begin, Rg.End);
      break;
    case Collective::Broadcast:
      Fill(*H.Root, 0, H.Blocks);
      break;
    }
  }

  void runChunk() {
    initialise();
    const auto &Sched = M.Schedule;
    for (size_t I = 0; I < Sched.size();) {
      size_t E = I;
      while (E < Sched.size() && Sched[E].Index == Sched[I].Index)
        ++E;
      for (size_t K = I; K < E; ++K)
        receives(Sched[K]);
      for (size_t K = I; K < E; ++K)
        locals(Sched[K]);
      I = E;
    }
    checkEndState();
  }

  void receives(const ActiveRound &A) {
    const Round &Rd = P.Programs[A.Rank].Rounds[A.RoundPos];
    for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
      const Op &O = Rd.Ops[I];
      if (O.Kind != OpKind::Recv)
        continue;
      const OpRef &From = M.SenderOf[A.FirstOp + I];
      const Op &SendOp =
          P.Programs[From.Rank].Rounds[From.RoundPos].Ops[From.OpIdx];
      PlanLocation Here{A.Rank, A.Index, I};
      PlanLocation Sender{From.Rank, A.Index, From.OpIdx};
      bool Reported = false;
      forEachRun(O.Blocks, [&](uint64_t Lo, uint64_t Count) {
        apply(O.Mode, slot(A.Rank, O.Buffer, Lo),
              slot(From.Rank, SendOp.Buffer, Lo), Count, Reported,
              [&](uint64_t B, bool SourceEmpty) {
                if (SourceEmpty)
                  report(Sender, "sends " + blockOf(B, SendOp.Buffer) +
                                     ", which holds no data");
                else if (O.Mode == Combine::Reduce && S.empty(slot(A.Rank, O.Buffer, B)))
                  report(Here, "reduces into " + blockOf(B, O.Buffer) +
                                   ", which holds no data");
                else
                  report(Here, "combining " + blockOf(B, O.Buffer) +
                                   " with rank " + std::to_string(From.Rank) +
                                   "'s " +
                                   S.whyNotCombinable(
                                       slot(A.Rank, O.Buffer, B),
                                       slot(From.Rank, SendOp.Buffer, B)));
              });
      });
    }
  }

  void locals(const ActiveRound &A) {
    const Round &Rd = P.Programs[A.Rank].Rounds[A.RoundPos];
    for (uint32_t I = 0; I < Rd.Ops.size(); ++I) {
      const Op &O = Rd.Ops[I];
      if (O.Kind != OpKind::Local)
        continue;
      PlanLocation Here{A.Rank, A.Index, I};
      bool Reported = false;
      forEachRun(O.Blocks, [&](uint64_t Lo, uint64_t Count) {
        apply(O.Mode, slot(A.Rank, O.Buffer, Lo), slot(A.Rank, O.Source, Lo),
              Count, Reported, [&](uint64_t B, bool SourceEmpty) {
                uint64_t Dst = slot(A.Rank, O.Buffer, B);
                if (SourceEmpty)
                  report(Here, (O.Mode == Combine::Reduce ? "reduces with "
                                                          : "copies ") +
                                   blockOf(B, O.Source) +
                                   ", which holds no data");
                else if (O.Mode == Combine::Reduce && S.empty(Dst))
                  report(Here, "reduces into " + blockOf(B, O.Buffer) +
                                   ", which holds no data");
                else
                  report(Here, "combining " + blockOf(B, O.Buffer) + " with " +
                                   H.Buffers[O.Source] + " " +
                                   S.whyNotCombinable(
                                       Dst, slot(A.Rank, O.Source, B)));
              });
      });
    }
  }

  /// Combines Count sets from Src into Dst per Mode, calling
  /// Diagnose(block, source empty?) for the first bad block of the op.
  template <typename DiagnoseFn>
  void apply(Combine Mode, uint64_t Dst, uint64_t Src, uint64_t Count,
             bool &Reported, DiagnoseFn Diagnose) {
    if (Mode == Combine::Replace) {
      uint64_t K = Reported ? Count : S.firstEmpty(Src, Count);
      if (K < Count) {
        Reported = true;
        Diagnose(blockAt(Dst, K), true);
      }
      S.copy(Dst, Src, Count);
      return;
    }
    uint64_t K = Reported ? Count : S.firstBadReduce(Dst, Src, Count);
    if (K < Count) {
      Reported = true;
      Diagnose(blockAt(Dst, K), S.empty(Src + K));
    }
    S.reduce(Dst, Src, Count);
  }

  /// The block of slot Slot + K (slots of one run are consecutive blocks).
  uint64_t blockAt(uint64_t Slot, uint64_t K) const {
    return C0 + (Slot % CB) + K;
  }

  void checkEndState() {
    auto Expect = [&](uint32_t Rank, uint64_t Lo, uint64_t Hi, auto Want) {
      for (uint64_t B = std::max(Lo, C0); B < std::min(Hi, C0 + N); ++B) {
        uint64_t Slot = slot(Rank, DataBuffer, B);
        ExpectedSet E = Want(B);
        if (!S.holds(Slot, E)) {
          // The first bad block per rank and chunk: enough to locate it.
          report({Rank, -1, -1}, "at the end, " + blockOf(B, DataBuffer) +
                                     " " + S.whyNotHolding(Slot, E));
          return;
        }
      }
    };
    auto All = [](uint64_t) { return ExpectedSet{}; };
    switch (H.Kind) {
    case Collective::Allreduce:
      for (uint32_t R = 0; R < H.Ranks; ++R)
        Expect(R, 0, H.Blocks, All);
      break;
    case Collective::ReduceScatter:
      for (uint32_t R = 0; R < H.Ranks; ++R)
        for (const BlockRange &Rg : H.ownedBy(R).ranges())
          Expect(R, Rg.Begin, Rg.End, All);
      break;
    case Collective::Reduce:
      Expect(*H.Root, 0, H.Blocks, All);
      break;
    case Collective::Allgather:
    case Collective::Allgatherv:
      for (uint32_t R = 0; R < H.Ranks; ++R)
        Expect(R, 0, H.Blocks,
               [&](uint64_t B) { return ExpectedSet{H.ownerOf(B)}; });
      break;
    case Collective::Broadcast:
      for (uint32_t R = 0; R < H.Ranks; ++R)
        Expect(R, 0, H.Blocks,
               [&](uint64_t) { return ExpectedSet{int64_t(*H.Root)}; });
      break;
    }
  }
};

template <class Store>
void replayWith(const Plan &P, const MatchedPlan &M,
                const VerifyOptions &Options, Store &&S, uint64_t CB,
                std::vector<Diagnostic> &Errors) {
  Replay<std::remove_reference_t<Store>>(P, M, Options, S, CB, Errors).run();
}

} // namespace

uint64_t chunkBlocks(const PlanHeader &H, VerifyMode Mode, uint64_t Budget) {
  uint64_t PerSet = Mode == VerifyMode::Exact
                        ? ExactStore::bytesPerSet(H.Ranks)
                        : HashedStore::bytesPerSet(H.Ranks);
  uint64_t PerBlock = PerSet * H.Ranks * H.Buffers.size();
  return std::clamp<uint64_t>(Budget / std::max<uint64_t>(PerBlock, 1), 1,
                              std::max<uint64_t>(H.Blocks, 1));
}

void executeSymbolically(const Plan &P, const MatchedPlan &Matched,
                         VerifyMode Mode, const VerifyOptions &Options,
                         std::vector<Diagnostic> &Errors) {
  const PlanHeader &H = P.Header;
  uint64_t CB = chunkBlocks(H, Mode, Options.MemoryBudget);
  uint32_t Buffers = H.Buffers.size();
  if (Mode == VerifyMode::Exact)
    replayWith(P, Matched, Options, ExactStore(H.Ranks, Buffers, CB), CB,
               Errors);
  else
    replayWith(P, Matched, Options,
               HashedStore(H.Ranks, Buffers, CB, Options.Seed), CB, Errors);
}

} // namespace verify
} // namespace collplan
