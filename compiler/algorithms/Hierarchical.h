//===- Hierarchical.h - Plans of plans on sub-communicators -----*- C++ -*-===//
//
// A hierarchical collective (MPICH's SMP allreduce, and its relatives) runs
// whole collectives on subsets of the ranks one after the other: a reduce
// inside every node, an allreduce among the nodes' leaders, a broadcast
// inside every node. Any registered algorithm can play each part: it
// compiles a plan for the subset as if it were a job of its own (sub-ranks
// 0..k-1 on a flat topology), and the composition places that plan inside the
// big one by renaming each sub-rank to the global rank that plays it,
// shifting its rounds past the earlier stages, giving its scratch buffers
// names of their own and rescaling its blocks.
//
// Blocks: every stage works on the same vector, so the composed plan splits
// it into B = lcm of the stages' block counts, and a stage with b blocks sees
// each of its blocks as B / b consecutive global blocks (block [0, 1) of a
// one-block reduce is [0, B) of a plan whose allreduce uses B blocks).
//
// A stage's round count is rank-independent but not in its header, so it is
// measured once by building every sub-rank, and remembered: a launcher that
// builds one rank pays for it once per sub-plan shape.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_HIERARCHICAL_H
#define COLLPLAN_ALGORITHMS_HIERARCHICAL_H

#include "compiler/algorithms/Algorithm.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace collplan {

/// What one stage runs: an algorithm and a request on a sub-communicator
/// (Request.Topo gives its size). Name prefixes its buffers and, in the
/// composed header, its resolved parameters ("inter.r").
struct StageSpec {
  const Algorithm *Algo = nullptr;
  CompileRequest Request;
  std::string Name;
  /// The stage runs as Slices instances at once, instance i on the i-th of
  /// Slices equal parts of the vector (1: one instance on all of it).
  uint32_t Slices = 1;
};

/// A stage placed in the composed plan.
struct PlacedStage {
  const Algorithm *Algo = nullptr;
  PlanHeader Header; ///< The stage's own plan header.
  std::string Name;
  uint32_t FirstRound = 0; ///< Global round of the stage's round 0.
  uint32_t Rounds = 0;     ///< Rounds the stage spans.
  uint32_t Slices = 1;     ///< As in StageSpec.
  uint64_t BlockScale = 1; ///< Global blocks per stage block.
  /// Global buffer of each of the stage's buffers (data stays data).
  llvm::SmallVector<uint16_t, 4> BufferMap;
};

class Composition {
public:
  /// Prepares every stage and lays them out one after another. Sets
  /// Composed's Blocks and Buffers, and records each stage's resolved
  /// parameters as "Name.param". Fails when a stage fails to prepare, when a
  /// stage weighs its blocks, or when the block counts' lcm exceeds
  /// MaxBlocks.
  static llvm::Expected<Composition> compose(llvm::ArrayRef<StageSpec> Specs,
                                             PlanHeader &Composed);

  /// The largest composed block count.
  static constexpr uint64_t MaxBlocks = uint64_t(1) << 24;

  llvm::ArrayRef<PlacedStage> stages() const { return Stages; }
  /// Rounds of the whole composition.
  uint32_t rounds() const {
    return Stages.empty() ? 0 : Stages.back().FirstRound + Stages.back().Rounds;
  }

  /// Appends sub-rank SubRank's program of stage StageIndex to Prog, with
  /// every peer p renamed GlobalOf(p), rounds shifted, buffers renamed and
  /// blocks rescaled into part Slice of the vector.
  void append(Program &Prog, size_t StageIndex, uint32_t SubRank,
              llvm::function_ref<uint32_t(uint32_t)> GlobalOf,
              uint32_t Slice = 0) const;

private:
  std::vector<PlacedStage> Stages;
};

/// The parameters a composed header recorded for stage Name (see compose),
/// with the prefix removed: what rebuilds the same stage header.
std::map<std::string, std::string>
stageParams(const std::map<std::string, std::string> &Composed,
            llvm::StringRef Name);

/// The number of rounds a plan spans (1 + its largest round index, 0 when it
/// has no rounds), built once per distinct header and remembered.
llvm::Expected<uint32_t> planRoundSpan(const Algorithm &A, const PlanHeader &H);

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_HIERARCHICAL_H
