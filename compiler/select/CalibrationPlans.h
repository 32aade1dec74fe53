//===- CalibrationPlans.h - The plans calibration times ---------*- C++ -*-===//
//
// `collplan calibrate` and collplan_calibrate_mpi fit the cost model's
// parameters to the measured times of real plans rather than of a
// ping-pong: a plan's rounds send and receive at once, several messages at
// a time, and reduce, which a ping-pong never does. The set spans the
// shapes the model has to price: many small rounds (ring), few whole-vector
// rounds (recursive doubling), halving rounds (Rabenseifner), a tree
// (binomial broadcast) and a pipelined broadcast (circulant, fixed block
// count so the plan is the same at every size).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SELECT_CALIBRATIONPLANS_H
#define COLLPLAN_SELECT_CALIBRATIONPLANS_H

#include "plan/ir/Plan.h"
#include "plan/ir/Topology.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace collplan {

/// The calibration plans on Topo, in a fixed order (every rank builds the
/// same list): allreduces by ring, recursive doubling and Rabenseifner, and
/// broadcasts from rank 0 by binomial tree and circulant (4 blocks).
llvm::Expected<std::vector<Plan>> calibrationPlans(const Topology &Topo);

} // namespace collplan

#endif // COLLPLAN_SELECT_CALIBRATIONPLANS_H
