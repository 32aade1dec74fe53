//===- RunRegions.h - Runs of a chunk that share their slots ----*- C++ -*-===//
//
// The replay keeps, per (rank, buffer), a run of slots for the blocks of the
// chunk (ContributionStore.h). Where a run's slots differ (say a combine
// tree per block), a step that copies the run whole used to copy every
// slot, and an allgather passes each chunk on whole from rank to rank, so
// its rounds cost P x blocks slot copies however the chunks were cut. Here a
// run names a region of slots instead, and a whole copy lets the destination
// share the source's region until either is written (copy on write). What
// the end-state checks learn of a region holds for every run that shares
// it, so it is kept per region.
//
// A run whose slots all hold one state (Replay::Uniform) keeps it in one
// slot of its own instead, and most runs are uniform: the stores hold one
// slot per run, then the regions of ChunkBlocks slots that the chunk has
// needed so far. Regions in use never outnumber the runs, so the worst case
// is the memory of one region per run, as chunkBlocks() budgets.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_RUNREGIONS_H
#define COLLPLAN_VERIFY_RUNREGIONS_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collplan {
namespace verify {

/// What is known of one region's slots while no run writes it; offsets are
/// slots from the region's first, which fit 32 bits as a chunk's state must
/// fit memory.
struct RegionFacts {
  static constexpr uint32_t Unknown = UINT32_MAX;
  int8_t AllEqual = -1;          ///< -1 unknown, else whether all slots are.
  uint32_t FirstEmpty = Unknown; ///< Of the whole run.
  uint32_t HoldsLo = Unknown, HoldsHi = 0; ///< The slots last checked,
  int32_t HoldsWant = 0;                   ///< the set checked for,
  uint32_t HoldsK = 0;                     ///< and the first that failed.
  uint32_t TreesAgainst = Unknown;         ///< The region last compared with,
  uint32_t TreesK = 0; ///< and the first slot that differed.
};

class RunRegions {
public:
  RunRegions(uint64_t Runs, uint64_t ChunkBlocks)
      : Runs(Runs), ChunkBlocks(ChunkBlocks), Region(Runs, Narrow) {}

  /// Every region free: a new chunk.
  void reset() {
    Next = 0;
    Free.clear();
  }
  /// The slots the stores must hold: one per run, then the regions'.
  uint64_t slots() const { return Runs + Users.size() * ChunkBlocks; }
  /// Where Run's state starts: its own slot while it is uniform, else its
  /// region.
  uint64_t firstSlot(uint64_t Run) const {
    uint32_t R = Region[Run];
    return R == Narrow ? Run : Runs + uint64_t(R) * ChunkBlocks;
  }
  bool wide(uint64_t Run) const { return Region[Run] != Narrow; }
  /// Whether Run's region is read by other runs too.
  bool shared(uint64_t Run) const {
    return wide(Run) && Users[Region[Run]] > 1;
  }
  /// The region of a wide run, its facts.
  uint32_t of(uint64_t Run) const { return Region[Run]; }
  RegionFacts &facts(uint64_t Run) { return Facts[Region[Run]]; }

  /// Run is new to the chunk: its own slot, or a region of its own (its
  /// slots undefined).
  void start(uint64_t Run, bool Wide) { Region[Run] = Wide ? take() : Narrow; }
  /// Run keeps its state in its own slot from now on.
  void narrow(uint64_t Run) {
    if (wide(Run))
      leave(Run);
    Region[Run] = Narrow;
  }
  /// Gives Run a region of its own (its slots undefined), leaving the one it
  /// had; returns where that one started.
  uint64_t widen(uint64_t Run) {
    uint64_t Old = firstSlot(Run);
    if (wide(Run))
      leave(Run);
    Region[Run] = take();
    return Old;
  }
  /// Dst reads Src's region from now on.
  void share(uint64_t Dst, uint64_t Src) {
    if (Region[Dst] == Region[Src])
      return;
    if (wide(Dst))
      leave(Dst);
    Region[Dst] = Region[Src];
    ++Users[Region[Dst]];
  }
  /// Run, alone in its region, is about to write it.
  void forget(uint64_t Run) {
    if (wide(Run))
      Facts[Region[Run]] = RegionFacts();
  }

private:
  static constexpr uint32_t Narrow = UINT32_MAX;
  uint64_t Runs, ChunkBlocks;
  std::vector<uint32_t> Region; ///< Per run: Narrow, or its region.
  std::vector<uint32_t> Users;  ///< Per region: the runs that read it.
  std::vector<RegionFacts> Facts;
  std::vector<uint32_t> Free;
  uint32_t Next = 0; ///< Regions from here on have not been used this chunk.

  uint32_t take() {
    uint32_t R;
    if (!Free.empty()) {
      R = Free.back();
      Free.pop_back();
    } else {
      R = Next++;
      // Grown as needed: regions in use never outnumber the runs.
      if (R == Users.size()) {
        uint64_t More =
            std::min<uint64_t>(Runs, std::max<uint64_t>(16, 2 * Users.size()));
        Users.resize(More);
        Facts.resize(More);
      }
    }
    Users[R] = 1;
    Facts[R] = RegionFacts();
    return R;
  }
  void leave(uint64_t Run) {
    if (--Users[Region[Run]] == 0)
      Free.push_back(Region[Run]);
  }
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_RUNREGIONS_H
