//===- Mutations.h - Single-edit mutants of a plan --------------*- C++ -*-===//

#ifndef COLLPLAN_TESTS_VERIFY_MUTATIONS_H
#define COLLPLAN_TESTS_VERIFY_MUTATIONS_H

#include "plan/ir/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan {
namespace test {

struct Mutant {
  std::string What; ///< "drop rank 2 round 3 op 1", for failure messages.
  Plan Mutated;
  /// The mutation changes the order in which a reduce combines partials.
  bool Reorders = false;
};

/// Single mutations of P: drop an operation, change a peer, shift a block
/// range, turn a reduce into a copy and back, duplicate a reduce, move an
/// operation to another round, repeat a reducing message in an extra round,
/// and combine a reduce's operands in the other order (through a fresh
/// buffer, so nothing else changes), swap a local reduce's buffers or two
/// local reduces of a round.
/// Each kind is applied to at most PerKind operations chosen with Seed.
std::vector<Mutant> mutantsOf(const Plan &P, size_t PerKind, uint64_t Seed);

} // namespace test
} // namespace collplan

#endif // COLLPLAN_TESTS_VERIFY_MUTATIONS_H
