//===- LingeringSends.h - Sends that may outlive their round ----*- C++ -*-===//
//
// A send whose blocks no later round of the rank writes in its buffer may
// stay in flight past its round (runtime/Transport.h, Message::MayLinger): a
// tree's root then posts all its sends at once. The executor decides which
// sends linger with this rule, and the cost model prices them with it
// (docs/cost-model.md, "A rank's port").
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

} // namespace collplan

#endif // COLLPLAN_PLAN_IR_LINGERINGSENDS_H
