//===- PersonalisedReplay.cpp - Where each block of an alltoall is --------===//
//
// Plan.h's round semantics on the places that hold each block: per global
// round every Recv (reading its matched sender's places: the overlap rule,
// checked in Matching.cpp, keeps a round's receives off what its sends
// read), then every rank's Local copies in listed order. The places only
// grow: a copy puts its block somewhere and takes it from nowhere, and a
// read of a place that holds no data is diagnosed where it happens.
//
// A block's sender's `data` holds it from the start and is no entry at all.
// Its addressee's `data`, nearly every place a direct schedule (pairwise)
// ever puts a block, is a bit per block. Anywhere else (a forwarding rank,
// a scratch buffer) a block's latest place is a word per block, the one a
// forwarding schedule (Bruck) reads next; the places it left are appended
// to a log, made a hash set only if a read ever asks for one of them. So a
// step of pairwise or Bruck costs a few array accesses, not hash look-ups.
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/PersonalisedReplay.h"
#include "plan/ir/Parallel.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace collplan {
namespace verify {
namespace {

/// What a chunk keeps per block (Latest) and per place a block leaves
/// (Older); the index of Older, built only for a plan that reads a block
/// where it was before, adds a hash set's 24 bytes per place at worst.
constexpr uint64_t BytesPerBlock = 8, BytesPerPlace = 8;

class PersonalisedChunk {
public:
  PersonalisedChunk(const Plan &P, const MatchedPlan &M, size_t MaxErrors,
                    std::vector<Diagnostic> &Errors)
      : H(P.Header), M(M), MaxErrors(MaxErrors), Errors(Errors),
        PairBlocks(H.pairBlocks()), RowBlocks(PairBlocks * H.Ranks),
        NumBuffers(H.Buffers.size()) {}

  /// Replays blocks [Begin, End) of the vector.
  void run(uint64_t Begin, uint64_t End) {
    C0 = Begin;
    C1 = End;
    ChunkErrors = 0;
    AtAddressee.clear();
    AtAddressee.resize(C1 - C0);
    Latest.assign(C1 - C0, 0);
    Older.clear();
    OlderIndex.clear();
    Indexed = 0;
    for (const Step &St : M.Steps)
      copy(St);
    checkEndState();
  }

private:
  const PlanHeader &H;
  const MatchedPlan &M;
  size_t MaxErrors;
  std::vector<Diagnostic> &Errors;
  uint64_t PairBlocks, RowBlocks, NumBuffers;
  uint64_t C0 = 0, C1 = 0; ///< The chunk: blocks [C0, C1).
  size_t ChunkErrors = 0;
  /// Per block of the chunk: whether its addressee's `data` holds it.
  llvm::BitVector AtAddressee;
  /// Per block of the chunk: the place other than those that took it last
  /// (placeCode), 0 if none did.
  std::vector<uint64_t> Latest;
  /// The places blocks of the chunk left in Latest (placeKey), in order,
  /// and Older[0, Indexed) as a set once a read needed it.
  std::vector<uint64_t> Older;
  llvm::DenseSet<uint64_t> OlderIndex;
  size_t Indexed = 0;

  /// A block's sender and addressee.
  struct Pair {
    uint32_t Sender, Addressee;
  };
  Pair pairOf(uint64_t B) const {
    return {uint32_t(B / RowBlocks), uint32_t(B / PairBlocks % H.Ranks)};
  }
  /// A place as Latest keeps it, never 0.
  uint64_t placeCode(uint32_t Rank, uint16_t Buffer) const {
    return uint64_t(Buffer) * H.Ranks + Rank + 1;
  }
  /// A place of block B of the chunk, unique over the chunk.
  uint64_t placeKey(uint64_t Code, uint64_t B) const {
    return (B - C0) * NumBuffers * H.Ranks + Code - 1;
  }

  bool holds(uint32_t Rank, uint16_t Buffer, uint64_t B, Pair Of) {
    if (Buffer == DataBuffer) {
      if (Of.Sender == Rank)
        return true;
      if (Of.Addressee == Rank)
        return AtAddressee[B - C0];
    }
    uint64_t Code = placeCode(Rank, Buffer);
    if (Latest[B - C0] == Code)
      return true;
    if (Older.empty())
      return false;
    for (; Indexed < Older.size(); ++Indexed)
      OlderIndex.insert(Older[Indexed]);
    return OlderIndex.count(placeKey(Code, B));
  }

  void put(uint32_t Rank, uint16_t Buffer, uint64_t B, Pair Of) {
    if (Buffer == DataBuffer) {
      if (Of.Sender == Rank)
        return;
      if (Of.Addressee == Rank) {
        AtAddressee.set(B - C0);
        return;
      }
    }
    uint64_t Code = placeCode(Rank, Buffer);
    uint64_t &Last = Latest[B - C0];
    if (Last == Code)
      return;
    if (Last)
      Older.push_back(placeKey(Last, B));
    Last = Code;
  }

  std::string blockText(uint64_t B, uint16_t Buffer) const {
    Pair Of = pairOf(B);
    return "block " + std::to_string(B) + " of " + H.Buffers[Buffer] +
           " (rank " + std::to_string(Of.Sender) + "'s for rank " +
           std::to_string(Of.Addressee) + ")";
  }

  void report(PlanLocation Where, std::string Message) {
    if (ChunkErrors++ < MaxErrors)
      Errors.push_back({Where, std::move(Message)});
  }

  /// St's blocks in the chunk, from its source to its destination; the
  /// first that the source does not hold is diagnosed where it is read (a
  /// Recv's matched send).
  void copy(const Step &St) {
    PlanLocation Reader{St.Rank, St.Round, St.OpIdx};
    if (St.Kind == OpKind::Recv)
      Reader = {St.From, St.Round, St.FromOpIdx};
    llvm::ArrayRef<BlockRange> Ranges(M.Ranges.data() + St.FirstRange,
                                      St.NumRanges);
    const BlockRange *It =
        std::partition_point(Ranges.begin(), Ranges.end(),
                             [&](const BlockRange &R) { return R.End <= C0; });
    bool Reported = false;
    for (; It != Ranges.end() && It->Begin < C1; ++It)
      for (uint64_t B = std::max(It->Begin, C0), E = std::min(It->End, C1);
           B < E; ++B) {
        Pair Of = pairOf(B);
        if (holds(St.From, St.Source, B, Of)) {
          put(St.Rank, St.Buffer, B, Of);
          continue;
        }
        if (Reported)
          continue;
        Reported = true;
        report(Reader, (St.Kind == OpKind::Recv ? "sends " : "copies ") +
                           blockText(B, St.Source) + ", which holds no data");
      }
  }

  /// The contract's promise: every rank's `data` holds every block
  /// addressed to it (its sender's, the only value a block can carry).
  void checkEndState() {
    for (uint32_t R = 0; R < H.Ranks; ++R)
      for (uint64_t S = C0 / RowBlocks; S * RowBlocks < C1; ++S) {
        uint64_t Lo = std::max(C0, (S * H.Ranks + R) * PairBlocks);
        uint64_t Hi = std::min(C1, (S * H.Ranks + R + 1) * PairBlocks);
        uint64_t B = Lo;
        while (B < Hi && holds(R, DataBuffer, B, pairOf(B)))
          ++B;
        if (B < Hi) {
          report({R, -1, -1}, "at the end, " + blockText(B, DataBuffer) +
                                  " holds no data; it should hold only rank " +
                                  std::to_string(S) + "'s contribution");
          break;
        }
      }
  }
};

} // namespace

void replayPersonalised(const Plan &P, const MatchedPlan &Matched,
                        const VerifyOptions &Options,
                        std::vector<Diagnostic> &Errors) {
  const PlanHeader &H = P.Header;
  uint64_t Blocks = H.Blocks;
  if (Blocks == 0 || H.pairBlocks() == 0)
    return;
  // Chunks of blocks so that each thread's places fit its share of the
  // budget, were every block moved to a place of the hash set, and the
  // set's keys fit 62 bits; at least one chunk per thread.
  unsigned Threads = workerThreads();
  uint64_t PerThread = std::max<uint64_t>(Options.MemoryBudget / Threads, 1);
  uint64_t Places = Matched.BlockTransfers;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Local)
          Places += O.Blocks.count();
  uint64_t Chunks = std::max<uint64_t>(
      {Threads,
       (Places * BytesPerPlace + Blocks * BytesPerBlock) / PerThread + 1,
       Blocks / ((uint64_t(1) << 62) / (H.Buffers.size() * H.Ranks)) + 1});
  Chunks = std::min(Chunks, Blocks);
  Threads = unsigned(std::min<uint64_t>(Threads, Chunks));

  std::vector<std::vector<Diagnostic>> Found(Threads);
  std::atomic<uint64_t> Done{0};
  parallelFor(Threads, [&](size_t T) {
    PersonalisedChunk Replay(P, Matched, Options.MaxErrors, Found[T]);
    for (uint64_t C = T; C < Chunks && Found[T].size() < Options.MaxErrors;
         C += Threads) {
      Replay.run(Blocks * C / Chunks, Blocks * (C + 1) / Chunks);
      uint64_t Finished = ++Done;
      if (T == 0 && Options.Progress)
        Options.Progress(Finished, Chunks);
    }
  });
  for (std::vector<Diagnostic> &F : Found)
    Errors.insert(Errors.end(), std::make_move_iterator(F.begin()),
                  std::make_move_iterator(F.end()));
}

} // namespace verify
} // namespace collplan
