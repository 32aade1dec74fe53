//===- OrderedCombine.h - Combining partials in rank order ------*- C++ -*-===//
//
// The IR combines as "destination = destination (+) incoming", so a rank
// that receives the partial of lower ranks cannot reduce it into its own
// buffer without reversing the operands. A partner's partial therefore lands
// in whichever of two buffers does not hold the running partial, and the
// reduction goes into the buffer whose contents come first in rank order;
// that buffer then holds the running partial. No copy is needed until the
// end, and receiving into the other buffer also keeps a round's receive
// apart from its send, as Plan.h requires.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_ORDEREDCOMBINE_H
#define COLLPLAN_ALGORITHMS_ORDEREDCOMBINE_H

#include "compiler/algorithms/PowerOfTwoFold.h"
#include "plan/ir/Plan.h"

#include <utility>

namespace collplan {

/// The scratch buffer of the families that use OrderedPartial.
constexpr uint16_t ScratchBuffer = 1;

/// Where one rank's running partial lives, data or scratch.
class OrderedPartial {
public:
  /// The buffer that holds the running partial; send from it.
  uint16_t current() const { return Current; }

  /// Receives Peer's partial of Blocks in round Index and combines it with
  /// the running partial; IncomingIsHigher says whether Peer's contributions
  /// come from higher ranks than this rank's.
  void combine(Program &Prog, uint32_t Index, uint32_t Peer,
               const BlockSet &Blocks, bool IncomingIsHigher) {
    Prog.add(Index, Op::recv(Peer, Blocks, Combine::Replace, Other));
    if (IncomingIsHigher) {
      Prog.add(Index, Op::local(Other, Current, Blocks, Combine::Reduce));
      return;
    }
    Prog.add(Index, Op::local(Current, Other, Blocks, Combine::Reduce));
    std::swap(Current, Other);
  }

  /// Copies Blocks of the running partial into the data buffer in round
  /// Index (after that round's receives), if it is not there already.
  void moveToData(Program &Prog, uint32_t Index, const BlockSet &Blocks) {
    if (Current == DataBuffer)
      return;
    Prog.add(Index, Op::local(Current, DataBuffer, Blocks, Combine::Replace));
  }

private:
  uint16_t Current = DataBuffer;
  uint16_t Other = ScratchBuffer;
};

/// The opening of a folded allreduce over All blocks (PowerOfTwoFold): an idle
/// rank hands its vector to its partner in round 0 and takes the result back
/// in round Last, and is then done (returns false); a paired rank first
/// combines its idle partner's vector, which comes from lower ranks.
inline bool openFoldedAllreduce(const PowerOfTwoFold &Fold, uint32_t Rank,
                                const BlockSet &All, uint32_t Last,
                                Program &Prog, OrderedPartial &Partial) {
  if (Fold.isIdle(Rank)) {
    Prog.add(0, Op::send(Fold.pairPartner(Rank), All));
    Prog.add(Last, Op::recv(Fold.pairPartner(Rank), All, Combine::Replace));
    return false;
  }
  if (Fold.isPaired(Rank))
    Partial.combine(Prog, 0, Fold.pairPartner(Rank), All,
                    /*IncomingIsHigher=*/false);
  return true;
}

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_ORDEREDCOMBINE_H
