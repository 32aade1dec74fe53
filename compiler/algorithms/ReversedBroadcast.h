//===- ReversedBroadcast.h - A reduce as a broadcast run backwards -*- C++ -*-//
//
// Reversing a broadcast schedule in time and flipping every message's
// direction gives a reduce to the same root in the same number of rounds
// (Träff, "Optimal Broadcast Schedules in Logarithmic Time with Applications
// to Broadcast, All-Broadcast, Reduction and All-Reduction", the reduction
// section): where the broadcast delivered block b to rank r from parent X in
// round t, the reduce has r send its partial of b to X in round R - 1 - t,
// and where r forwarded b to child Y, r now combines Y's partial into its
// own. Rank r's children sent b after r received it, so in the reversed
// schedule their partials arrive before r passes b on: the time reversal
// keeps every dependency. A broadcast that delivers each block to each rank
// once becomes a reduce that combines each contribution once; the verifier
// checks it like any plan. The combines follow the tree, not rank order, so
// the operator must be commutative.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_REVERSEDBROADCAST_H
#define COLLPLAN_ALGORITHMS_REVERSEDBROADCAST_H

#include "plan/ir/Plan.h"

#include <cassert>

namespace collplan {

/// Rank r's reduce program from its broadcast program of Rounds rounds,
/// which holds only sends and replacing receives of the data buffer, with
/// room for MoreRounds rounds after them.
inline Program reversedBroadcast(const Program &Broadcast, uint32_t Rounds,
                                 size_t MoreRounds = 0) {
  Program Reduce;
  Reduce.Rounds.reserve(Broadcast.Rounds.size() + MoreRounds);
  for (auto Round = Broadcast.Rounds.rbegin(); Round != Broadcast.Rounds.rend();
       ++Round)
    for (const Op &O : Round->Ops) {
      assert(O.Buffer == DataBuffer && O.Kind != OpKind::Local &&
             "a broadcast to reverse moves data blocks only");
      uint32_t Index = Rounds - 1 - Round->Index;
      Reduce.add(Index, O.Kind == OpKind::Recv
                            ? Op::send(O.Peer, O.Blocks)
                            : Op::recv(O.Peer, O.Blocks, Combine::Reduce));
    }
  return Reduce;
}

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_REVERSEDBROADCAST_H
