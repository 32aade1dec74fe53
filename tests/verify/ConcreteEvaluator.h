//===- ConcreteEvaluator.h - Brute-force execution of a plan ----*- C++ -*-===//
//
// The mutation test's oracle, written apart from the verifier and sharing no
// code with it: run the plan on real numbers. Every rank's contribution to
// every block is a random 64-bit value, the operator is wrapping addition,
// every block that holds no contribution (scratch, blocks an allgather rank
// does not own, non-roots of a broadcast) starts as random garbage. Messages
// pair by Plan.h's FIFO rule. A plan is broken when it is malformed, a
// message does not pair or carries other blocks, a receive lands where the
// round also sends or receives, or a final block differs from the value the
// collective promises. Random values make an accidental right answer
// (a doubled or missing contribution summing to the right value) a 2^-64
// event.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_VERIFY_CONCRETEEVALUATOR_H
#define COLLPLAN_TESTS_VERIFY_CONCRETEEVALUATOR_H

#include "plan/ir/Plan.h"

#include <string>

namespace collplan {
namespace test {

struct Evaluation {
  bool Broken = false;
  std::string Why;
};

Evaluation evaluateConcretely(const Plan &P, uint64_t Seed);

} // namespace test
} // namespace collplan

#endif // COLLPLAN_TESTS_VERIFY_CONCRETEEVALUATOR_H
