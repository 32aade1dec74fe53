//===- LingeringSends.h - Sends that may outlive their round ----*- C++ -*-===//
//
// A send whose blocks no later round of the rank writes in its buffer may
// stay in flight past its round (runtime/Transport.h, Message::MayLinger): a
// tree's root then posts all its sends at once. The executor decides which
// sends linger with this rule, and the cost model prices them with it
// (docs/cost-model.md, "A rank's sends in flight together").
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_PLAN_IR_LINGERINGSENDS_H
#define COLLPLAN_PLAN_IR_LINGERINGSENDS_H

#include "plan/ir/Plan.h"

#include <cstddef>
#include <vector>

namespace collplan {

/// For each operation of Prog, in program order, whether it is a send whose
/// blocks no later round writes in its buffer (local operations run after
/// a round's messages, so a round's own local writes count as later). A
/// send of the rank's input reads the data buffer when the call is in
/// place, so it counts as one.
std::vector<bool> sendsThatMayLinger(const Program &Prog, size_t NumBuffers);

/// A send that may linger does only up to this many bytes. A larger one
/// would share its sender's link with the next round's sends: a tree's root
/// sending to all its children at once delays the first child, whose
/// subtree is the largest. In SMPI a 64-rank binomial broadcast of 1 MiB
/// with every send lingering took 3.4 times SMPI's own binomial tree, which
/// sends to one child after another. A small send costs latency, not
/// bandwidth, and lingering saves a wait per child (Open MPI's own binomial
/// tree posts them all too).
constexpr size_t LingerLimitBytes = size_t(64) << 10;

} // namespace collplan

#endif // COLLPLAN_PLAN_IR_LINGERINGSENDS_H
