//===- SymbolicExecution.cpp - Replay a matched plan on contribution sets -===//
//
// Plan.h's round semantics, replayed on contribution sets for one chunk of
// blocks at a time (every round, only the operations' part in the chunk):
//   1. every Recv of the round, reading the matched sender's state directly:
//      the overlap rule (checked in Matching.cpp) guarantees no Recv of the
//      round writes what any Send of the round reads, so the sender's state
//      is still the state at the start of the round;
//   2. then every rank's Local operations in listed order.
// Only the receive side of a message does work, so the cost is at most one
// pass per block transfer; a transfer of a whole chunk between uniform runs
// (every block in the same state, Replay::Uniform) costs one slot, and a
// whole copy of a run that is not uniform shares its slots (RunRegions.h).
//
// A collective that does not reduce (allgather, broadcast, ...) may not
// combine (Matching.cpp refuses a Reduce), and every operation carries block
// names unchanged, so a slot of block b can only ever hold contributorOf(b)'s
// input or nothing. The replay then keeps one mark, "holds its contributor's
// input", for every contributor (Replay::holding): a run of blocks from
// different contributors is one state, so an allgather's rounds move
// uniform runs of one slot instead of P distinct sets per rank, and the end
// state is one comparison per promised range.
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/SymbolicExecution.h"
#include "compiler/verify/BlockAtoms.h"
#include "compiler/verify/CombineTrees.h"
#include "compiler/verify/ContributionStore.h"
#include "compiler/verify/RankIntervals.h"
#include "compiler/verify/ReplayIndex.h"
#include "compiler/verify/RunRegions.h"
#include "plan/ir/Parallel.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace collplan {
namespace verify {
namespace {

/// Whether the replay checks operand order (RankIntervals.h): only a plan
/// that reduces and claims not to need a commutative operator pays for it.
bool claimsRankOrder(const PlanHeader &H) {
  return reduces(H.Kind) && !H.RequiresCommutative;
}

/// Whether the replay keeps each slot's combine tree (CombineTrees.h): for
/// every collective that reduces, whose promised blocks are then checked
/// against the canonical tree.
bool tracksTrees(const PlanHeader &H) { return reduces(H.Kind) && H.Ranks > 1; }

/// Whether the replay compares the ranks' combine trees with each other:
/// only where several ranks end with the same reduced blocks (allreduce).
bool comparesTrees(const PlanHeader &H) {
  return tracksTrees(H) && contractOf(H.Kind).Output == VectorPart::Whole;
}

template <class Store> class Replay {
public:
  Replay(const PlanHeader &H, const ReplayIndex &X, size_t MaxErrors, Store &S,
         std::vector<Diagnostic> &Errors, TreeVerdict &Verdict)
      : H(H), X(X), MaxErrors(MaxErrors), S(S), CB(X.ChunkBlocks),
        NumBuffers(H.Buffers.size()), Errors(Errors), Verdict(Verdict),
        Touched(uint64_t(H.Ranks) * NumBuffers, 0),
        Uniform(uint64_t(H.Ranks) * NumBuffers, 0),
        Regions(uint64_t(H.Ranks) * NumBuffers, CB),
        StoreSlots(Regions.slots()), Reduces(reduces(H.Kind)) {
    if (claimsRankOrder(H))
      Order.emplace(StoreSlots);
    if (tracksTrees(H)) {
      Trees.emplace(StoreSlots);
      Canonical = CombineTrees::canonicalTree(H.Ranks);
    }
  }

  /// Replays chunks First, First + Stride, ...: chunks are independent, so
  /// threads split them. Done counts the chunks finished by every thread;
  /// Progress, if any, is called with it after each chunk.
  void run(uint64_t First, uint64_t Stride, std::atomic<uint64_t> &Done,
           const std::function<void(uint64_t, uint64_t)> *Progress,
           std::atomic<bool> *Stop, const VerifyOptions &Options) {
    uint64_t Total = X.Chunks;
    for (uint64_t Chunk = X.FirstChunk + First; Chunk < X.EndChunk;
         Chunk += Stride) {
      if (Stop && *Stop)
        break;
      C0 = X.ChunkStart[Chunk];
      N = X.ChunkStart[Chunk + 1] - C0;
      ChunkErrors = 0;
      Doubles.clear();
      ++Generation;
      Regions.reset();
      uint64_t End = X.ChunkBegin[Chunk - X.FirstChunk + 1];
      for (uint64_t E = X.ChunkBegin[Chunk - X.FirstChunk]; E < End; ++E) {
        // A chunk's steps lie scattered over the plan, and the runs of state
        // they combine over the chunk's: fetch ahead what the coming ones
        // read, or the replay waits on memory for every step.
        if (E + 2 * PrefetchDistance < End)
          __builtin_prefetch(&X.Steps[X.entry(E + 2 * PrefetchDistance)]);
        if (E + PrefetchDistance < End) {
          const Step &Ahead = X.Steps[X.entry(E + PrefetchDistance)];
          __builtin_prefetch(&X.Ranges[Ahead.FirstRange]);
          prefetchState(Ahead);
        }
        step(X.Steps[X.entry(E)]);
      }
      checkEndState();
      compareTrees();
      checkCanonicalTrees();
      if (Stop &&
          ((Options.StopAtDifferentOrders &&
            !Verdict.DifferentOrders.empty()) ||
           (Options.StopAtNonCanonicalTree && !Verdict.NonCanonical.empty())))
        *Stop = true;
      uint64_t Finished = ++Done;
      if (Progress)
        (*Progress)(Finished, Total);
      // Later chunks could only add more of the same; the caller sorts.
      if (Errors.size() >= MaxErrors)
        break;
    }
  }

private:
  const PlanHeader &H;
  const ReplayIndex &X;
  size_t MaxErrors;
  Store &S;
  uint64_t CB;
  uint64_t NumBuffers;
  static constexpr uint64_t PrefetchDistance = 8;
  std::vector<Diagnostic> &Errors;
  std::optional<RankIntervals> Order; ///< Plans that claim rank order only.
  std::optional<CombineTrees> Trees;  ///< Reducing collectives only.
  uint32_t Canonical = 0; ///< With Trees: the canonical tree's hash.
  /// The first blocks found in different or non-canonical trees.
  TreeVerdict &Verdict;
  /// Reduces of this chunk that counted a contribution twice, diagnosed only
  /// if their result reaches a promised block (ContributionStore.h); a
  /// store's doubling tag is an index into this plus one.
  struct Double {
    Diagnostic Found;
    bool Shown = false;
  };
  std::vector<Double> Doubles;
  static constexpr size_t MaxDoubles = 256;
  uint64_t C0 = 0, N = 0; ///< The chunk: atoms [C0, C0 + N).
  /// Per (rank, buffer): the chunk's Generation once touch() set it up.
  std::vector<uint32_t> Touched;
  /// Per (rank, buffer) touched: whether every slot of its run in the chunk
  /// holds the same state, which is then kept in one slot of the run's own
  /// (RunRegions.h).
  /// Most runs are: a step that moves a whole chunk moves every block of it
  /// alike, and blocks start alike unless an input ends inside the chunk.
  /// An operation on such runs costs one slot rather than a chunk's worth;
  /// spread() writes the other slots before anything reads them apart.
  std::vector<uint8_t> Uniform;
  /// Per (rank, buffer) touched: where its slots are; a run is wide (has a
  /// region) exactly when it is not uniform.
  RunRegions Regions;
  uint64_t StoreSlots; ///< The slots each store holds.
  uint32_t Generation = 0;
  size_t ChunkErrors = 0;
  bool Reduces; ///< Else a slot holds its contributor's input or nothing.

  /// The set a rank's input blocks start with: {Rank} where contributions
  /// are combined; else one mark for every contributor (the file comment),
  /// rank 0's set.
  uint32_t holding(uint32_t Rank) const { return Reduces ? Rank : 0; }

  static constexpr uint32_t Unknown = RegionFacts::Unknown;

  uint64_t runOf(uint32_t Rank, uint16_t Buffer) const {
    return uint64_t(Rank) * NumBuffers + Buffer;
  }
  /// Block's slot of a wide run, or a uniform run's one slot (Block = C0).
  uint64_t slot(uint32_t Rank, uint16_t Buffer, uint64_t Block) const {
    return Regions.firstSlot(runOf(Rank, Buffer)) + (Block - C0);
  }
  uint64_t firstSlot(uint64_t Run) const { return Regions.firstSlot(Run); }

  /// Gives Run a region of its own, growing the stores if the chunk needs
  /// more regions than it had so far; returns where its state was.
  uint64_t widen(uint64_t Run) {
    uint64_t Old = Regions.widen(Run);
    fitStores();
    return Old;
  }
  void fitStores() {
    if (Regions.slots() > StoreSlots) {
      StoreSlots = Regions.slots();
      eachStore([&](auto &Slots) { Slots.resize(StoreSlots); });
    }
  }
  /// A wide run whose slots all hold one state keeps it in its own slot.
  void narrow(uint64_t Run) {
    copyRun(Run, firstSlot(Run), 1);
    Regions.narrow(Run);
    Uniform[Run] = 1;
  }

  void report(PlanLocation Where, std::string Message) {
    if (ChunkErrors++ < MaxErrors)
      Errors.push_back({Where, std::move(Message)});
  }

  /// Names an atom by its first block: the first block that went wrong.
  std::string blockOf(uint64_t Atom, uint16_t Buffer) const {
    return "block " + std::to_string(X.Atoms.firstBlock(Atom)) + " of " +
           H.Buffers[Buffer];
  }

  void prefetchState(const Step &St) const {
    for (uint64_t Slot :
         {slot(St.Rank, St.Buffer, C0), slot(St.From, St.Source, C0)}) {
      S.prefetch(Slot);
      if (Order)
        Order->prefetch(Slot);
      if (Trees)
        Trees->prefetch(Slot);
    }
  }

  /// Gives Rank's Buffer the contract's initial state in this chunk the
  /// first time the chunk touches it: its contribution in its input blocks
  /// of `data`, every other block empty. Lazily, because a chunk touches
  /// few of the P x buffers runs when a plan has many buffers (Swing's odd
  /// ring: one per member of the odd rank's largest group, about P / 2),
  /// and setting them all up for every chunk took most of the replay.
  void touch(uint32_t Rank, uint16_t Buf) {
    uint64_t Run = uint64_t(Rank) * NumBuffers + Buf;
    uint32_t &Seen = Touched[Run];
    if (Seen == Generation)
      return;
    Seen = Generation;
    llvm::ArrayRef<BlockRange> In;
    if (Buf == DataBuffer)
      In = X.Inputs.of(Rank);
    uint64_t Covered = 0;
    for (const BlockRange &Rg : In)
      Covered += std::min(Rg.End, C0 + N) -
                 std::min(std::max(Rg.Begin, C0), std::min(Rg.End, C0 + N));
    // Every block alike (the usual case): one slot.
    if (Covered == 0 || Covered == N) {
      Uniform[Run] = 1;
      Regions.start(Run, false);
      uint64_t First = slot(Rank, Buf, C0);
      if (Covered)
        setSingleRun(First, 1, holding(Rank));
      else
        clearRun(First, 1);
      return;
    }
    Uniform[Run] = 0;
    Regions.start(Run, true);
    fitStores();
    clearRun(slot(Rank, Buf, C0), N);
    for (const BlockRange &Rg : In) {
      uint64_t Lo = std::max(Rg.Begin, C0), Hi = std::min(Rg.End, C0 + N);
      if (Lo < Hi)
        setSingleRun(slot(Rank, DataBuffer, Lo), Hi - Lo, holding(Rank));
    }
  }

  /// Fn on each store kept per slot: the contributions, and the order runs
  /// and combine trees when the plan's verdicts need them.
  template <typename Fn> void eachStore(Fn F) {
    F(S);
    if (Order)
      F(*Order);
    if (Trees)
      F(*Trees);
  }
  void clearRun(uint64_t Slot, uint64_t Count) {
    eachStore([&](auto &Slots) { Slots.clearRun(Slot, Count); });
  }
  void setSingleRun(uint64_t Slot, uint64_t Count, uint32_t Rank) {
    eachStore([&](auto &Slots) { Slots.setSingleRun(Slot, Count, Rank); });
  }
  void copyRun(uint64_t Dst, uint64_t Src, uint64_t Count) {
    eachStore([&](auto &Slots) { Slots.copy(Dst, Src, Count); });
  }
  bool allEqual(uint64_t Slot, uint64_t Count) const {
    return S.allEqual(Slot, Count) &&
           (!Order || Order->allEqual(Slot, Count)) &&
           (!Trees || Trees->allEqual(Slot, Count));
  }

  bool isUniform(uint32_t Rank, uint16_t Buf) const {
    return Uniform[uint64_t(Rank) * NumBuffers + Buf];
  }

  /// Before Run writes its region: one of its own, its state copied out
  /// of the region it shared.
  void own(uint64_t Run) {
    if (!Regions.shared(Run)) {
      Regions.forget(Run);
      return;
    }
    uint64_t Old = widen(Run);
    copyRun(firstSlot(Run), Old, N);
  }

  /// Writes a uniform run's state into each of its slots.
  void spread(uint32_t Rank, uint16_t Buf) {
    uint64_t Run = runOf(Rank, Buf);
    uint8_t &U = Uniform[Run];
    if (!U)
      return;
    U = 0;
    uint64_t Old = widen(Run);
    uint64_t First = firstSlot(Run);
    copyRun(First, Old, 1);
    for (uint64_t Done = 1; Done < N; Done *= 2)
      copyRun(First + Done, First, std::min(Done, N - Done));
  }

  /// Whether a run that is not uniform holds one state in every slot all
  /// the same, found once per region: it then becomes uniform.
  bool settle(uint64_t Run) {
    RegionFacts &F = Regions.facts(Run);
    if (F.AllEqual < 0)
      F.AllEqual = allEqual(firstSlot(Run), N);
    if (!F.AllEqual)
      return false;
    narrow(Run);
    return true;
  }

  /// A whole Replace from a run that is not uniform: the destination shares
  /// the source's region. The source's first empty slot, which the copy
  /// would have diagnosed, is found once per region.
  void share(const Step &St, uint64_t Dst, uint64_t Src, bool &Reported) {
    if (!Reported) {
      RegionFacts &F = Regions.facts(Src);
      if (F.FirstEmpty == Unknown)
        F.FirstEmpty = uint32_t(S.firstEmpty(firstSlot(Src), N));
      if (F.FirstEmpty < N) {
        Reported = true;
        diagnose(St, C0 + F.FirstEmpty, firstSlot(Dst) + F.FirstEmpty,
                 firstSlot(Src) + F.FirstEmpty);
      }
    }
    Regions.share(Dst, Src);
    Uniform[Dst] = 0;
  }

  void step(const Step &St) {
    llvm::ArrayRef<BlockRange> Ranges(X.Ranges.data() + St.FirstRange,
                                      St.NumRanges);
    const BlockRange *It =
        std::partition_point(Ranges.begin(), Ranges.end(),
                             [&](const BlockRange &R) { return R.End <= C0; });
    bool Reported = false;
    for (; It != Ranges.end() && It->Begin < C0 + N; ++It) {
      uint64_t Lo = std::max(It->Begin, C0), Hi = std::min(It->End, C0 + N);
      if (Lo < Hi)
        apply(St, Lo, Hi - Lo, Reported);
    }
  }

  /// Combines Count sets from the step's source into its destination,
  /// diagnosing the first bad block of the step in this chunk.
  void apply(const Step &St, uint64_t Lo, uint64_t Count, bool &Reported) {
    touch(St.Rank, St.Buffer);
    touch(St.From, St.Source);
    uint64_t Dst = runOf(St.Rank, St.Buffer), Src = runOf(St.From, St.Source);
    uint8_t &DstUniform = Uniform[Dst];
    bool Whole = Count == N;
    bool Replace = St.Mode == Combine::Replace;
    // A whole copy of a run that is not uniform shares it (RunRegions.h);
    // a gather's late rounds often copy runs that became uniform again.
    if (Whole && Replace && Dst != Src && !Uniform[Src] && !settle(Src)) {
      share(St, Dst, Src, Reported);
      return;
    }
    if (Whole && Uniform[Src] && (DstUniform || Replace)) {
      // Every slot alike on both sides: the first stands for all, and so
      // does its first bad block.
      if (Replace)
        Regions.narrow(Dst);
      combine(St, Lo, 1, Reported);
      DstUniform = 1;
      return;
    }
    spread(St.From, St.Source);
    spread(St.Rank, St.Buffer);
    own(Dst);
    combine(St, Lo, Count, Reported);
    // Copies of a whole run often make it uniform again (a gather's late
    // rounds): one pass over it saves one per later step.
    if (Whole && allEqual(firstSlot(Dst), N))
      narrow(Dst);
  }

  /// apply() on Count slots from Lo, each its own state.
  void combine(const Step &St, uint64_t Lo, uint64_t Count, bool &Reported) {
    uint64_t Dst = slot(St.Rank, St.Buffer, Lo);
    uint64_t Src = slot(St.From, St.Source, Lo);
    uint64_t K = Count, OutOfOrder = Count;
    uint32_t Tag = UntaggedDouble;
    if (!Reported) {
      K = St.Mode == Combine::Replace
              ? S.firstEmpty(Src, Count)
              : firstEmptyOperand(St, Lo, Dst, Src, Count, Tag);
      if (Order && St.Mode == Combine::Reduce)
        OutOfOrder = Order->firstOutOfOrder(Dst, Src, Count);
    }
    if (OutOfOrder < K) {
      Reported = true;
      report({St.Rank, St.Round, St.OpIdx},
             Order->whyOutOfOrder(Dst + OutOfOrder, Src + OutOfOrder,
                                  blockOf(Lo + OutOfOrder, St.Buffer)));
    } else if (K < Count) {
      Reported = true;
      diagnose(St, Lo + K, Dst + K, Src + K);
    }
    if (St.Mode == Combine::Replace)
      S.copy(Dst, Src, Count);
    else
      S.reduce(Dst, Src, Count, Tag);
    if (Trees && St.Mode == Combine::Replace)
      Trees->copy(Dst, Src, Count);
    else if (Trees)
      Trees->reduce(Dst, Src, Count);
    if (!Order)
      return;
    if (St.Mode == Combine::Replace)
      Order->copy(Dst, Src, Count);
    else
      Order->reduce(Dst, Src, Count);
  }

  /// The first of Count slot pairs a reduce may not combine because a side
  /// is empty, or Count. Pairs that count a contribution twice are recorded
  /// in Doubles instead (the first of the step's in this chunk sets Tag).
  uint64_t firstEmptyOperand(const Step &St, uint64_t Lo, uint64_t Dst,
                             uint64_t Src, uint64_t Count, uint32_t &Tag) {
    if constexpr (!Store::SeesDoubles) {
      return S.firstBadReduce(Dst, Src, Count);
    } else {
      for (uint64_t From = 0;;) {
        uint64_t J =
            From + S.firstBadReduce(Dst + From, Src + From, Count - From);
        if (J == Count || S.empty(Dst + J) || S.empty(Src + J))
          return J;
        if (Tag == UntaggedDouble && Doubles.size() < MaxDoubles) {
          std::string With = St.Kind == OpKind::Recv
                                 ? "rank " + std::to_string(St.From) + "'s"
                                 : H.Buffers[St.Source];
          Diagnostic Found{{St.Rank, St.Round, St.OpIdx},
                           "combining " + blockOf(Lo + J, St.Buffer) +
                               " with " + With + " " +
                               S.whyNotCombinable(Dst + J, Src + J)};
          Doubles.push_back({std::move(Found), false});
          Tag = uint32_t(Doubles.size());
        }
        From = J + 1;
      }
    }
  }

  void diagnose(const Step &St, uint64_t Block, uint64_t Dst, uint64_t Src) {
    PlanLocation Here{St.Rank, St.Round, St.OpIdx};
    bool Recv = St.Kind == OpKind::Recv;
    bool Reduce = St.Mode == Combine::Reduce;
    if (S.empty(Src)) {
      if (Recv)
        report({St.From, St.Round, St.FromOpIdx},
               "sends " + blockOf(Block, St.Source) + ", which holds no data");
      else
        report(Here, (Reduce ? "reduces with " : "copies ") +
                         blockOf(Block, St.Source) + ", which holds no data");
    } else {
      report(Here, "reduces into " + blockOf(Block, St.Buffer) +
                       ", which holds no data");
    }
  }

  /// Records the first block of the chunk that some rank combined in
  /// another tree than rank 0 did (the plan may still be valid).
  void compareTrees() {
    if (!comparesTrees(H) || !Verdict.DifferentOrders.empty())
      return;
    // Rank by rank, so each comparison is one run of consecutive slots.
    for (uint32_t R = 1; R < H.Ranks; ++R) {
      uint64_t K;
      if (isUniform(R, DataBuffer) && isUniform(0, DataBuffer)) {
        K = Trees->firstDifferent(slot(R, DataBuffer, C0),
                                  slot(0, DataBuffer, C0), 1) == 0
                ? 0
                : N;
      } else {
        spread(R, DataBuffer);
        spread(0, DataBuffer);
        // Ranks that share a region compare alike (RunRegions.h).
        RegionFacts &F = Regions.facts(runOf(R, DataBuffer));
        uint32_t Zero = Regions.of(runOf(0, DataBuffer));
        if (Regions.of(runOf(R, DataBuffer)) == Zero) {
          K = N;
        } else if (F.TreesAgainst == Zero) {
          K = F.TreesK;
        } else {
          K = Trees->firstDifferent(slot(R, DataBuffer, C0),
                                    slot(0, DataBuffer, C0), N);
          F.TreesAgainst = Zero;
          F.TreesK = uint32_t(K);
        }
      }
      if (K < N) {
        Verdict.DifferentOrders = "ranks 0 and " + std::to_string(R) +
                                  " combine " + blockOf(C0 + K, DataBuffer) +
                                  " in different orders";
        return;
      }
    }
  }

  /// Records the first promised block of the chunk, and its rank, whose
  /// tree is not the canonical one (the plan may still be valid).
  void checkCanonicalTrees() {
    if (!Trees || !Verdict.NonCanonical.empty())
      return;
    for (uint32_t R = 0; R < H.Ranks; ++R)
      for (const BlockRange &Rg : X.Outputs.of(R)) {
        uint64_t Lo = std::max(Rg.Begin, C0), Hi = std::min(Rg.End, C0 + N);
        if (Lo >= Hi)
          continue;
        uint64_t K = isUniform(R, DataBuffer)
                         ? (Trees->firstOtherThan(slot(R, DataBuffer, C0), 1,
                                                  Canonical) == 0
                                ? 0
                                : Hi - Lo)
                         : Trees->firstOtherThan(slot(R, DataBuffer, Lo),
                                                 Hi - Lo, Canonical);
        if (K < Hi - Lo) {
          Verdict.NonCanonical = "rank " + std::to_string(R) + " combines " +
                                 blockOf(Lo + K, DataBuffer) +
                                 " in another tree than the canonical one";
          return;
        }
      }
  }

  /// The contract's promise: every rank's output blocks of `data` hold all
  /// contributions exactly once (reducing collectives) or their
  /// contributor's input.
  void checkEndState() {
    // Reports the first bad block per rank and chunk: enough to locate it.
    auto ExpectRun = [&](uint32_t Rank, uint64_t Lo, uint64_t Hi,
                         ExpectedSet E) {
      Lo = std::max(Lo, C0);
      Hi = std::min(Hi, C0 + N);
      if (Lo >= Hi)
        return true;
      uint64_t Slot = slot(Rank, DataBuffer, Lo);
      uint64_t K;
      if (isUniform(Rank, DataBuffer)) {
        // The first slot stands for every block: Slot + K below names it.
        Slot = slot(Rank, DataBuffer, C0);
        K = S.firstNotHolding(Slot, 1, E) == 0 ? 0 : Hi - Lo;
      } else {
        // Ranks that share a region hold alike (RunRegions.h).
        RegionFacts &F = Regions.facts(runOf(Rank, DataBuffer));
        uint32_t From = uint32_t(Lo - C0), To = uint32_t(Hi - C0);
        if (F.HoldsLo != From || F.HoldsHi != To ||
            F.HoldsWant != int32_t(E.Single)) {
          F.HoldsLo = From;
          F.HoldsHi = To;
          F.HoldsWant = int32_t(E.Single);
          F.HoldsK = uint32_t(S.firstNotHolding(Slot, Hi - Lo, E));
        }
        K = F.HoldsK;
      }
      if (K == Hi - Lo)
        return true;
      // A double count reaching a promised block is diagnosed where it
      // happened, once.
      uint32_t Tag = S.doubledBy(Slot + K);
      if (Tag && Tag != UntaggedDouble && !Doubles[Tag - 1].Shown) {
        Double &D = Doubles[Tag - 1];
        D.Shown = true;
        report(D.Found.Where,
               D.Found.Message + ", and rank " + std::to_string(Rank) +
                   " ends with the result in " + blockOf(Lo + K, DataBuffer));
        return false;
      }
      // Without reduces the one way to fail is to hold nothing: name the
      // block's own contributor.
      if (!Reduces)
        E = ExpectedSet{int64_t(H.contributorOf(X.Atoms.firstBlock(Lo + K)))};
      report({Rank, -1, -1}, "at the end, " + blockOf(Lo + K, DataBuffer) +
                                 " " + S.whyNotHolding(Slot + K, E));
      return false;
    };
    // compareTrees reads every rank's data too.
    for (uint32_t R = 0; R < H.Ranks; ++R)
      touch(R, DataBuffer);
    for (uint32_t R = 0; R < H.Ranks; ++R)
      for (const BlockRange &Rg : X.Outputs.of(R)) {
        uint64_t Lo = std::max(Rg.Begin, C0), Hi = std::min(Rg.End, C0 + N);
        if (Lo < Hi &&
            !ExpectRun(R, Lo, Hi,
                       Reduces ? ExpectedSet{} : ExpectedSet{holding(0)}))
          break;
      }
  }
};

/// Replays every chunk in Threads parts, each with its own store from
/// MakeStore(); diagnostics are gathered per thread and appended in thread
/// order (the caller sorts them). The per-chunk lists cost 4 bytes per
/// (step, chunk touched), which at P = 65536 is gigabytes: they are built
/// for a window of chunks at a time, a quarter of the budget each, rather
/// than made coarser, so chunks keep their length however many steps touch
/// them. Touches holds each chunk's count of them.
template <class MakeStoreFn>
void replayWith(const PlanHeader &H, ReplayIndex &X,
                llvm::ArrayRef<uint64_t> Touches, const VerifyOptions &Options,
                unsigned Threads, MakeStoreFn MakeStore,
                std::vector<Diagnostic> &Errors, TreeVerdict &Verdict) {
  std::vector<std::vector<Diagnostic>> Found(Threads);
  std::vector<TreeVerdict> Trees(Threads);
  std::atomic<uint64_t> Done{0};
  std::atomic<bool> Stop{false};
  uint64_t MaxEntries =
      std::max<uint64_t>(Options.MemoryBudget / 4 / sizeof(uint32_t), 1);
  for (uint64_t From = 0; From < X.Chunks;) {
    uint64_t To = From, Entries = 0;
    while (To < X.Chunks && (To == From || Entries + Touches[To] <= MaxEntries))
      Entries += Touches[To++];
    X.bucket(From, To);
    From = To;
    unsigned Active =
        unsigned(std::min<uint64_t>(Threads, X.EndChunk - X.FirstChunk));
    // One part per worker thread (Parallel.h); inside another parallel
    // loop the parts run one after another on the caller's thread.
    parallelFor(Active, [&](size_t Part) {
      unsigned T = unsigned(Part);
      auto S = MakeStore();
      // Only one part reports progress.
      const auto *Progress =
          T == 0 && Options.Progress ? &Options.Progress : nullptr;
      Replay<decltype(S)>(H, X, Options.MaxErrors, S, Found[T], Trees[T])
          .run(T, Active, Done, Progress,
               Options.StopAtDifferentOrders || Options.StopAtNonCanonicalTree
                   ? &Stop
                   : nullptr,
               Options);
    });
    if (Stop || llvm::any_of(Found, [&](const std::vector<Diagnostic> &F) {
          return F.size() >= Options.MaxErrors;
        }))
      break;
  }
  for (std::vector<Diagnostic> &F : Found)
    Errors.insert(Errors.end(), std::make_move_iterator(F.begin()),
                  std::make_move_iterator(F.end()));
  for (TreeVerdict &T : Trees) {
    if (Verdict.DifferentOrders.empty())
      Verdict.DifferentOrders = std::move(T.DifferentOrders);
    if (Verdict.NonCanonical.empty())
      Verdict.NonCanonical = std::move(T.NonCanonical);
  }
}

} // namespace

uint64_t chunkBlocks(const PlanHeader &H, VerifyMode Mode, uint64_t Budget) {
  uint64_t PerSet = Mode == VerifyMode::Exact
                        ? ExactStore::bytesPerSet(H.Ranks)
                        : HashedStore::bytesPerSet(H.Ranks);
  if (claimsRankOrder(H))
    PerSet += RankIntervals::bytesPerSet();
  if (tracksTrees(H))
    PerSet += CombineTrees::bytesPerSet();
  uint64_t PerBlock = PerSet * H.Ranks * H.Buffers.size();
  return std::clamp<uint64_t>(Budget / std::max<uint64_t>(PerBlock, 1), 1,
                              std::max<uint64_t>(H.Blocks, 1));
}

void executeSymbolically(const Plan &P, MatchedPlan &&Matched, VerifyMode Mode,
                         const VerifyOptions &Options,
                         std::vector<Diagnostic> &Errors,
                         TreeVerdict &Verdict) {
  const PlanHeader &H = P.Header;
  ReplayIndex X(P, std::move(Matched));
  // One part per worker thread, each with its own store: the budget is
  // shared.
  unsigned Threads = workerThreads();
  uint64_t Atoms = std::max<uint64_t>(X.Atoms.size(), 1);
  // Chunks as long as the budget allows were it all regions: each step pays
  // per chunk it touches, and uniform runs keep one slot whatever the length
  // (RunRegions.h), so the memory used is usually far less.
  std::vector<uint64_t> Touches = X.touchesPerChunk(
      std::min(Atoms, chunkBlocks(H, Mode, Options.MemoryBudget / Threads)));
  Threads = unsigned(
      std::clamp<uint64_t>(Threads, 1, std::max<uint64_t>(X.Chunks, 1)));
  uint32_t Buffers = H.Buffers.size();
  if (Mode == VerifyMode::Exact)
    replayWith(
        H, X, Touches, Options, Threads,
        [&] { return ExactStore(H.Ranks, Buffers, 1); }, Errors, Verdict);
  else
    replayWith(
        H, X, Touches, Options, Threads,
        [&] { return HashedStore(H.Ranks, Buffers, 1, Options.Seed); }, Errors,
        Verdict);
}

} // namespace verify
} // namespace collplan
