//===- Executor.h - Runs one rank's program on a user buffer -----*- C++
//-*-===//
//
// The executor maps a plan's blocks onto a vector of Count elements
// (BlockLayout), then runs the rank's rounds with the semantics documented at
// the top of plan/ir/Plan.h: sends read the round-start state, Replace
// receives land in place, Reduce receives land in a staging area and are
// combined after the round's communication, Local operations run last.
//
// The user's buffers follow the collective's contract (CollectiveContract.h;
// Count is always the length of the whole vector, in elements): Input holds
// the rank's input blocks packed (allgather: its own blocks; broadcast: the
// vector at the root), Output receives its output blocks packed
// (reduce-scatter: its own blocks at the start; reduce: nothing away from
// the root). Input == nullptr means in place (MPI_IN_PLACE): the input
// already sits in Output at its place in the whole vector.
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_EXECUTOR_H
#define COLLPLAN_RUNTIME_EXECUTOR_H

#include "plan/ir/Plan.h"
#include "runtime/Reduction.h"
#include "runtime/ScratchMemory.h"
#include "runtime/Transport.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace collplan::runtime {

struct CallArgs {
  const void *Input = nullptr; ///< Null: in place.
  void *Output = nullptr;
  uint64_t Count = 0;
  Datatype Type = Datatype::Int32;
  Operator Op;
};

class Executor {
public:
  /// Runs Prog, rank Rank's program of a plan with header Header. Both must
  /// outlive the executor. Its own buffers come from Memory.
  Executor(const PlanHeader &Header, const Program &Prog, uint32_t Rank,
           MemorySource Memory = {});

  /// One collective call. Fails, before communicating, when the call does
  /// not fit the plan (transport size or rank, unsupported type and
  /// operator, a non-commutative operator for a plan that needs one), and
  /// with the transport's error when communication fails.
  llvm::Error run(Transport &T, const CallArgs &Args);

  /// The elements of the rank's input (allgather) or output (reduce-scatter)
  /// for a vector of Count elements; Count for the other collectives.
  uint64_t localCount(uint64_t Count) const;

  const PlanHeader &header() const { return Header; }
  uint32_t rank() const { return Rank; }

private:
  llvm::Error checkCall(Transport &T, const CallArgs &Args) const;
  llvm::Error runRounds(Transport &T, char *Data, const CallArgs &Args);

  const PlanHeader &Header;
  const Program &Prog;
  uint32_t Rank;
  /// Scratch buffers Header.Buffers[1..], and the whole-vector work area of
  /// collectives whose output is not the whole vector; reused across calls.
  ScratchBuffer Scratch;
  ScratchBuffer Work;
  ScratchBuffer Staging;
};

/// Whether the plan's rank programs need Op to be commutative, and Op is not.
bool violatesCommutativity(const PlanHeader &Header, const Operator &Op);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_EXECUTOR_H
