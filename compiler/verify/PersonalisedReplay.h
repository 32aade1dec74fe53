//===- PersonalisedReplay.h - Replay of a personalised exchange -*- C++ -*-===//
//
// Alltoall(v)'s blocks each have one contributor, the rank whose row holds
// it, and are never combined (Matching.cpp refuses a Reduce): a block name
// is carried unchanged by every Send, Recv and Local copy, so the only value
// any slot can ever hold for block b is its sender's. The state of a slot is
// then one bit, "holds data", and the state of a block is the set of places
// (rank, buffer) that hold it: its sender's data buffer from the start, and
// every place a message or copy has put it since. That set is what this
// replay keeps, instead of SymbolicExecution.cpp's contribution set per
// (rank, buffer, block) slot, P^3 of them for P^2 blocks.
//
// The checks are the replay's, exactly (not hashed): no Send or copy reads a
// place that holds no data, and at the end every rank holds, in `data`,
// every block addressed to it. (SingleArrival.h checks that each arrives
// once.) The cost is one step per block moved plus, for every chunk of
// blocks, one look at every operation; memory is a bit per block and an
// entry per place a block passes through on its way (a forwarding family's
// intermediate ranks, scratch buffers), in chunks of blocks within
// VerifyOptions::MemoryBudget.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_PERSONALISEDREPLAY_H
#define COLLPLAN_VERIFY_PERSONALISEDREPLAY_H

#include "compiler/verify/Matching.h"
#include "compiler/verify/Verifier.h"

#include <vector>

namespace collplan {
namespace verify {

/// Replays a matched plan of a personalised collective (isPersonalised),
/// appending at most Options.MaxErrors diagnostics to Errors.
void replayPersonalised(const Plan &P, const MatchedPlan &Matched,
                        const VerifyOptions &Options,
                        std::vector<Diagnostic> &Errors);

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_PERSONALISEDREPLAY_H
