//===- SingleArrival.h - A personalised block arrives once -----*- C++ -*-===//
//
// Alltoall's promise is that every block arrives exactly once at the rank it
// is addressed to (CollectiveContract.h, VectorPart::Addressed). The replay
// checks that it arrives; this pass checks that it arrives once: no rank
// receives, into any buffer, a block addressed to it that it has received
// before. A second arrival would be harmless to the result (a replace) but
// is traffic no schedule of the exchange needs, so a plan that has one is
// wrong about what it moves.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_SINGLEARRIVAL_H
#define COLLPLAN_VERIFY_SINGLEARRIVAL_H

#include "plan/ir/Plan.h"

#include <vector>

namespace collplan {
namespace verify {

/// Appends to Errors (at most MaxErrors in all) every receive of a block by
/// the rank it is addressed to after that rank received it once already.
/// Does nothing for collectives that are not personalised.
void checkSingleArrival(const Plan &P, size_t MaxErrors,
                        std::vector<Diagnostic> &Errors);

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_SINGLEARRIVAL_H
