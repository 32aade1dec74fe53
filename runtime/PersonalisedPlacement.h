//===- PersonalisedPlacement.h - An alltoall rank's blocks -----*- C++ -*-===//
//
// ARCHITECTURE.md, "Personalised exchange": an alltoall plan's vector is the
// P x P matrix, which no rank allocates. Rank r's row (what it sends) lies
// in the user's send buffer, packed in receiver order; its column (what it
// receives) in the receive buffer, packed in sender order, the diagonal
// block copied there from the send buffer; every other block its program
// names, forwarded blocks and scratch buffers' blocks, in a work area sized
// for those alone, packed by buffer and block. A program that writes into
// its own row (no family does; an imported plan might) gets the row copied
// into the work area, since the send buffer is the caller's and constant.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_PERSONALISEDPLACEMENT_H
#define COLLPLAN_RUNTIME_PERSONALISEDPLACEMENT_H

#include "plan/ir/BlockLayout.h"
#include "plan/ir/Plan.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace collplan::runtime {

/// Where bytes of a personalised plan lie.
enum class Region : uint8_t {
  Buffer, ///< The plan buffer's own base (the collectives with a vector).
  Input,  ///< The user's send buffer.
  Output, ///< The user's receive buffer.
  Work,   ///< The executor's work area.
};

/// A run of elements in one region.
struct Span {
  Region In;
  uint64_t Offset, Elements;
};

class PersonalisedPlacement {
public:
  /// The placement of Rank's blocks under Layout (the plan's blocks over
  /// the call's element count).
  PersonalisedPlacement(const PlanHeader &H, const Program &Prog, uint32_t Rank,
                        const BlockLayout &Layout);

  /// Calls F for the runs Blocks of Buffer occupy, in block order; runs
  /// adjacent in one region are merged.
  void place(uint16_t Buffer, const BlockSet &Blocks,
             llvm::function_ref<void(Span)> F) const;
  /// Elements of the work area.
  uint64_t workElements() const { return WorkElements; }
  /// The copies to make before the rounds, from the send buffer: the
  /// diagonal into the receive buffer, and the row into the work area when
  /// the program writes into it. Each pair is (from, to).
  const std::vector<std::pair<Span, Span>> &initialCopies() const {
    return Copies;
  }

private:
  struct WorkRun {
    uint16_t Buffer;
    uint64_t Begin, End; ///< Blocks.
    uint64_t Offset;     ///< Elements into the work area.
  };
  /// The run of Buffer's block B and the element where it starts in its
  /// region, and how far (in blocks) that region stays contiguous.
  Span spanAt(uint16_t Buffer, uint64_t B, uint64_t &RunEnd) const;

  const PlanHeader &H;
  const BlockLayout &Layout;
  uint32_t Rank;
  uint64_t PerPair;
  uint64_t RowBegin, RowEnd; ///< Blocks.
  bool RowInWork = false;
  /// The element offset of each column block in the receive buffer, by
  /// sender and position in the pair's run (P * PerPair + 1 entries).
  std::vector<uint64_t> ColumnPrefix;
  std::vector<WorkRun> Work; ///< Sorted by (Buffer, Begin).
  uint64_t WorkElements = 0;
  std::vector<std::pair<Span, Span>> Copies;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_PERSONALISEDPLACEMENT_H
