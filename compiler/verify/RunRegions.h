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
// A chunk never holds more regions than runs, so the stores keep as many
// regions as runs, each ChunkBlocks slots long, as they kept runs.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_RUNREGIONS_H
#define COLLPLAN_VERIFY_RUNREGIONS_H

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
  explicit RunRegions(uint64_t Runs)
      : Region(Runs, 0), Users(Runs, 0), Facts(Runs) {}

  /// Every region free: a new chunk.
  void reset() {
    Next = 0;
    Free.clear();
  }
  uint32_t of(uint64_t Run) const { return Region[Run]; }
  bool shared(uint64_t Run) const { return Users[Region[Run]] > 1; }
  RegionFacts &facts(uint64_t Run) { return Facts[Region[Run]]; }

  /// Gives Run a region of its own, its slots undefined; Run had none in
  /// this chunk.
  void assign(uint64_t Run) { Region[Run] = take(); }
  /// Gives Run a new region of its own, leaving the one it had; returns
  /// that one.
  uint32_t renew(uint64_t Run) {
    uint32_t Old = Region[Run];
    leave(Run);
    Region[Run] = take();
    return Old;
  }
  /// Dst reads Src's region from now on.
  void share(uint64_t Dst, uint64_t Src) {
    if (Region[Dst] == Region[Src])
      return;
    leave(Dst);
    Region[Dst] = Region[Src];
    ++Users[Region[Dst]];
  }
  /// Run, alone in its region, is about to write it.
  void forget(uint64_t Run) { Facts[Region[Run]] = RegionFacts(); }

private:
  std::vector<uint32_t> Region; ///< Per run, valid once the chunk assigned it.
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
