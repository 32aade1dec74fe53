//===- Executor.h - Runs one rank's program on a user buffer ----*- C++ -*-===//
//
// The executor maps a plan's blocks onto a vector of Count elements
// (BlockLayout), then runs the rank's rounds with the semantics documented at
// the top of plan/ir/Plan.h: sends read the round-start state, Replace
// receives land in place, Reduce receives are combined into their blocks
// piece by piece as the transport hands them over (Transport.h: it stages
// them), Local operations run last.
//
// The user's buffers follow the collective's contract (CollectiveContract.h;
// Count is always the length of the whole vector, in elements): Input holds
// the rank's input blocks packed (allgather: its own blocks; broadcast: the
// vector at the root), Output receives its output blocks packed
// (reduce-scatter: its own blocks at the start; reduce: nothing away from
// the root; alltoall: its column, in sender order). Input == nullptr means
// in place (MPI_IN_PLACE): the input already sits in Output at its place in
// the whole vector (alltoall: Output holds the row, as the send buffer
// would). An alltoall's matrix is never allocated: PersonalisedPlacement.h.
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_EXECUTOR_H
#define COLLPLAN_RUNTIME_EXECUTOR_H

#include "plan/ir/Plan.h"
#include "runtime/PersonalisedPlacement.h"
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

/// Where the regions of a personalised plan's pieces lie
/// (PersonalisedPlacement.h).
struct RegionBases {
  const char *Input = nullptr;
  char *Output = nullptr, *Work = nullptr;
};

class Executor {
public:
  /// Runs Prog, rank Rank's program of a plan with header Header. Both must
  /// outlive the executor. Its own buffers come from Memory.
  Executor(const PlanHeader &Header, const Program &Prog, uint32_t Rank,
           MemorySource Memory = {});
  ~Executor();

  /// One collective call. Fails, before communicating, when the call does
  /// not fit the plan (transport size or rank, unsupported type and
  /// operator, a non-commutative operator for a plan that needs one), and
  /// with the transport's error when communication fails.
  llvm::Error run(Transport &T, const CallArgs &Args);

private:
  /// What a call of Count elements of ElemSize bytes does, in byte offsets
  /// into the plan's buffers. Mapping blocks to elements costs a 128-bit
  /// division per block boundary (BlockLayout), and an application repeats
  /// a call of one size: so the last size's mapping is kept and reused.
  /// Empty transfers, empty local ranges and rounds left with nothing to do
  /// are dropped here, as the executor skips them. The vectors are flat, a
  /// round or a transfer naming its range of the next level.
  struct PreparedCall {
    struct Piece {
      size_t Offset, Bytes;
      Region In = Region::Buffer;
    };
    struct Transfer {
      bool Send;   ///< Otherwise a receive.
      bool Reduce; ///< A receive combined into its blocks.
      /// A send whose blocks no later round writes (Message::MayLinger).
      bool MayLinger;
      uint16_t Buffer;
      uint32_t Peer;
      size_t Bytes;
      size_t FirstPiece, EndPiece;
    };
    struct Local {
      uint16_t Buffer, Source;
      Combine Mode;
      size_t Offset, Elements;
      /// Where the source lies: Offset in Source's buffer, unless the plan
      /// is personalised.
      size_t SourceOffset;
      Region In = Region::Buffer, SourceIn = Region::Buffer;
      /// A combine into the rank's input not yet placed: Out = input (op)
      /// source, reading the input where the user left it.
      bool FirstFromInput = false;
    };
    struct Round {
      uint32_t Index;
      size_t FirstTransfer, EndTransfer, FirstLocal, EndLocal;
      /// The placements made before the round's transfers.
      size_t FirstPlacement, EndPlacement;
    };
    /// Bytes of the data buffer that receive the rank's input from the
    /// user's send buffer (placed lazily: see prepare()).
    struct Placement {
      size_t Offset, Bytes;
    };
    bool Valid = false;
    uint64_t Count = 0;
    size_t ElemSize = 0;
    size_t InBegin = 0, InBytes = 0, OutBegin = 0, OutBytes = 0;
    bool OutputIsVector = false;
    /// Pieces of Region::Input (offsets into the rank's input) are sends
    /// reading the user's send buffer, or combines whose first operand it
    /// is. Placements from LatePlacements on are made after the rounds.
    std::vector<Placement> Placements;
    size_t LatePlacements = 0;
    /// Alltoall(v): pieces lie in the user's buffers and a work area of
    /// WorkBytes (PersonalisedPlacement.h), after the Copies are made, in
    /// bytes; RowBytes is the send buffer's size.
    bool Personalised = false;
    size_t WorkBytes = 0, RowBytes = 0;
    std::vector<std::pair<Span, Span>> Copies;
    std::vector<Round> Rounds;
    std::vector<Transfer> Transfers;
    std::vector<Piece> Pieces;
    std::vector<Local> Locals;
  };

  /// The messages of the last call's rounds (Executor.cpp): an application
  /// repeats one call on the same buffers, and building them cost more
  /// instructions than the MPI library's own work on a small message.
  struct BuiltCall;

  llvm::Error checkCall(Transport &T, const CallArgs &Args) const;
  const PreparedCall &prepare(uint64_t Count, size_t ElemSize);
  /// Regions.Input is the rank's input: the user's send buffer, or its
  /// place in Data when the call is in place.
  llvm::Error runRounds(Transport &T, char *Data, const CallArgs &Args,
                        const PreparedCall &P, RegionBases Regions);
  /// Copies P's placements [First, End) from the rank's input to Data.
  static void placeInput(char *Data, const char *Input, const PreparedCall &P,
                         size_t First, size_t End);
  /// Turns the program's operations into P's pieces and locals through the
  /// placement of a personalised plan.
  void preparePersonalised(PreparedCall &P, const BlockLayout &Layout,
                           size_t ES);
  llvm::Error runPersonalised(Transport &T, const CallArgs &Args,
                              const PreparedCall &P);

  const PlanHeader &Header;
  const Program &Prog;
  uint32_t Rank;
  /// Whether the rank's contract promises it output blocks (computed once:
  /// it depends on the plan only).
  bool HasOutputBlocks;
  PreparedCall Prepared;
  std::unique_ptr<BuiltCall> Built;
  /// Scratch buffers Header.Buffers[1..], and the whole-vector work area of
  /// collectives whose output is not the whole vector; reused across calls.
  ScratchBuffer Scratch;
  ScratchBuffer Work;
  /// An in-place alltoall's row, copied out of the receive buffer.
  ScratchBuffer RowCopy;
};

/// Whether the plan's rank programs need Op to be commutative, and Op is not.
bool violatesCommutativity(const PlanHeader &Header, const Operator &Op);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_EXECUTOR_H
