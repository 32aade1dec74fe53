//===- ReplayIndex.h - A matched plan in replay order -----------*- C++ -*-===//
//
// What the symbolic replay (SymbolicExecution.cpp) walks: the plan's Recv and
// Local operations flattened into steps in round order, every rank's input
// and output ranges, all in atoms (BlockAtoms.h), and the chunks of atoms the
// replay takes one at a time, each with the steps that touch it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_REPLAYINDEX_H
#define COLLPLAN_VERIFY_REPLAYINDEX_H

#include "compiler/verify/BlockAtoms.h"
#include "compiler/verify/Matching.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collplan {
namespace verify {

/// Every rank's ranges of one kind (its input, or its output), stored flat.
struct RankRanges {
  std::vector<uint64_t> Begin{0}; ///< Into Ranges, one per rank + 1.
  std::vector<BlockRange> Ranges;

  RankRanges(uint32_t Ranks, llvm::function_ref<BlockSet(uint32_t)> Of) {
    for (uint32_t R = 0; R < Ranks; ++R) {
      BlockSet S = Of(R);
      Ranges.insert(Ranges.end(), S.ranges().begin(), S.ranges().end());
      Begin.push_back(Ranges.size());
    }
  }
  llvm::ArrayRef<BlockRange> of(uint32_t Rank) const {
    return llvm::ArrayRef(Ranges).slice(Begin[Rank],
                                        Begin[Rank + 1] - Begin[Rank]);
  }
};

/// The plan in replay order, in atoms (BlockAtoms.h) rather than blocks:
/// per global round, every Recv, then every Local in each rank's listed
/// order; and, per chunk of atoms (of the window of chunks being replayed),
/// the steps that touch it. A plan has many chunks at large P, so without
/// the per-chunk lists replaying every step for every chunk would dominate.
struct ReplayIndex {
  std::vector<Step> Steps;
  std::vector<BlockRange> Ranges;
  RankRanges Inputs, Outputs;
  BlockAtoms Atoms;
  /// Chunk C is atoms [ChunkStart[C], ChunkStart[C + 1]); ChunkOf maps an
  /// atom to its chunk. ChunkBlocks is the longest chunk, in atoms like
  /// every range here.
  std::vector<uint64_t> ChunkStart{0};
  std::vector<uint32_t> ChunkOf;
  uint64_t ChunkBlocks = 1;
  uint64_t Chunks = 0;
  /// The window of chunks whose lists are built: [FirstChunk, EndChunk).
  uint64_t FirstChunk = 0, EndChunk = 0;
  /// Into Entries, one per chunk of the window + 1.
  std::vector<uint64_t> ChunkBegin;
  std::vector<uint32_t> Entries; ///< Step indices, in replay order.
  /// The window is the plan's one chunk, which every step touches (none is
  /// empty): Entries would list them all, and is left empty.
  bool EveryStep = false;

  /// The step of entry E of the window's lists.
  uint64_t entry(uint64_t E) const { return EveryStep ? E : Entries[E]; }

  /// Takes the matcher's steps and ranges (Matching.h), in atoms from here
  /// on.
  ReplayIndex(const Plan &P, MatchedPlan &&M)
      : Steps(std::move(M.Steps)), Ranges(std::move(M.Ranges)),
        Inputs(P.Header.Ranks,
               [&](uint32_t R) { return P.Header.inputBlocks(R); }),
        Outputs(P.Header.Ranks,
                [&](uint32_t R) { return P.Header.outputBlocks(R); }),
        Atoms({Ranges, Inputs.Ranges, Outputs.Ranges}, P.Header.Blocks) {
    for (auto *List : {&Ranges, &Inputs.Ranges, &Outputs.Ranges})
      for (BlockRange &R : *List)
        R = Atoms.atomsOf(R);
  }

  /// Calls F(step index, chunk) once for every chunk in [From, To) a step
  /// touches.
  template <typename Fn>
  void forEachTouch(uint64_t From, uint64_t To, Fn F) const {
    for (uint32_t I = 0; I < Steps.size(); ++I) {
      uint64_t Last = ~uint64_t(0);
      const Step &S = Steps[I];
      for (uint64_t R = S.FirstRange; R < S.FirstRange + S.NumRanges; ++R)
        for (uint64_t
                 C = std::max<uint64_t>(
                     {ChunkOf[Ranges[R].Begin], Last + 1, From}),
                 E = std::min<uint64_t>(ChunkOf[Ranges[R].End - 1] + 1, To);
             C < E; ++C)
          F(I, Last = C);
    }
  }

  /// Cuts the atoms into chunks of at most MaxAtoms, each where the most
  /// ranges begin or end among the cuts that keep it over half that long.
  /// A step whose range covers a chunk whole moves it as one slot between
  /// uniform runs (Replay::Uniform), while one that ends inside it works
  /// slot by slot; cut at fixed multiples instead, a halving plan's aligned
  /// ranges of 2^k atoms (Rabenseifner, Swing) end inside most chunks.
  void cutChunks(uint64_t MaxAtoms) {
    uint64_t End = Atoms.size();
    std::vector<uint64_t> Ends(End + 1, 0);
    for (auto *List : {&Ranges, &Inputs.Ranges, &Outputs.Ranges})
      for (const BlockRange &R : *List) {
        ++Ends[R.Begin];
        ++Ends[R.End];
      }
    ChunkStart.assign(1, 0);
    ChunkBlocks = 1;
    for (uint64_t Begin = 0; Begin < End;) {
      uint64_t Cut = std::min(Begin + MaxAtoms, End);
      // Ties go to the longer chunk; the vector's end is always a cut.
      if (Cut < End)
        for (uint64_t C = Cut - 1; C > Begin + MaxAtoms / 2; --C)
          if (Ends[C] > Ends[Cut])
            Cut = C;
      ChunkBlocks = std::max(ChunkBlocks, Cut - Begin);
      ChunkStart.push_back(Cut);
      Begin = Cut;
    }
    Chunks = ChunkStart.size() - 1;
    ChunkOf.resize(End);
    for (uint64_t C = 0; C < Chunks; ++C)
      std::fill(ChunkOf.begin() + ChunkStart[C],
                ChunkOf.begin() + ChunkStart[C + 1], uint32_t(C));
  }

  /// The number of touches of each chunk, to cut the chunks into windows.
  std::vector<uint64_t> touchesPerChunk(uint64_t MaxAtoms) {
    cutChunks(MaxAtoms);
    if (Chunks == 1)
      return {Steps.size()};
    std::vector<uint64_t> Count(Chunks, 0);
    forEachTouch(0, Chunks, [&](uint32_t, uint64_t C) { ++Count[C]; });
    return Count;
  }

  /// Builds the per-chunk lists of chunks [From, To).
  void bucket(uint64_t From, uint64_t To) {
    FirstChunk = From;
    EndChunk = To;
    EveryStep = Chunks == 1;
    if (EveryStep) {
      ChunkBegin = {0, Steps.size()};
      return;
    }
    ChunkBegin.assign(To - From + 1, 0);
    forEachTouch(From, To,
                 [&](uint32_t, uint64_t C) { ++ChunkBegin[C - From + 1]; });
    for (uint64_t C = 0; C < To - From; ++C)
      ChunkBegin[C + 1] += ChunkBegin[C];
    Entries.resize(ChunkBegin.back());
    std::vector<uint64_t> Fill(ChunkBegin.begin(), ChunkBegin.end() - 1);
    forEachTouch(From, To, [&](uint32_t I, uint64_t C) {
      Entries[Fill[C - From]++] = I;
    });
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_REPLAYINDEX_H
