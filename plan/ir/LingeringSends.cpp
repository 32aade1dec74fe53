//===- LingeringSends.cpp - Sends that may outlive their round ------------===//

#include "plan/ir/LingeringSends.h"

namespace collplan {

std::vector<bool> sendsThatMayLinger(const Program &Prog, size_t NumBuffers) {
  size_t I = Prog.numOps();
  std::vector<bool> May(I);
  std::vector<BlockSet> WrittenLater(NumBuffers);
  for (auto Rd = Prog.Rounds.rbegin(); Rd != Prog.Rounds.rend(); ++Rd) {
    I -= Rd->Ops.size();
    // Local operations run after the round's messages: they count as later.
    for (const Op &O : Rd->Ops)
      if (O.Kind == OpKind::Local)
        WrittenLater[O.Buffer].insert(O.Blocks);
    for (size_t K = 0; K < Rd->Ops.size(); ++K) {
      const Op &O = Rd->Ops[K];
      May[I + K] =
          O.Kind == OpKind::Send && !WrittenLater[O.Buffer].overlaps(O.Blocks);
    }
    for (const Op &O : Rd->Ops)
      if (O.Kind == OpKind::Recv)
        WrittenLater[O.Buffer].insert(O.Blocks);
  }
  return May;
}

} // namespace collplan
