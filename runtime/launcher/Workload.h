//===- Workload.h - Generated inputs and their expected results -*- C++ -*-===//
//
// `collplan run` feeds a plan generated data and checks the output against a
// reference computed here element by element, without the executor or the
// reduction kernels. Inputs are chosen so every reduction is exact in any
// order: small integers for sums, powers of two for products, so floating
// point results do not depend on the plan's combining order.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_LAUNCHER_WORKLOAD_H
#define COLLPLAN_RUNTIME_LAUNCHER_WORKLOAD_H

#include "plan/ir/Plan.h"
#include "runtime/Reduction.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan::runtime {

/// Rank's contribution to elements [Begin, Begin + N) of the vector, written
/// to Out as N elements of type T.
void generateInput(Datatype T, ReduceOp Op, uint32_t Rank, uint64_t Begin,
                   uint64_t N, void *Out);

/// The input buffer of Rank for a call of Count elements: its input blocks
/// (PlanHeader::inputBlocks), packed.
std::vector<char> inputFor(const PlanHeader &H, uint32_t Rank, uint64_t Count,
                           Datatype T, ReduceOp Op);

/// What Rank's output must hold afterwards: its output blocks
/// (PlanHeader::outputBlocks), packed; empty where nothing is promised.
std::vector<char> expectedOutput(const PlanHeader &H, uint32_t Rank,
                                 uint64_t Count, Datatype T, ReduceOp Op);

/// Empty when Output equals Expected, else a message naming the first
/// differing element and both values.
std::string compareOutput(const std::vector<char> &Output,
                          const std::vector<char> &Expected, Datatype T);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_LAUNCHER_WORKLOAD_H
