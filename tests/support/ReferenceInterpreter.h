//===- ReferenceInterpreter.h - The tests' brute-force runner ---*- C++ -*-===//
//
// The oracle every test that runs a plan uses, written for the tests from
// the plan semantics of ARCHITECTURE.md ("What a plan means", "What
// \"verified\" means") alone: it reads a Plan and nothing else, shares no
// code with the verifier (compiler/verify) or the algorithms, and encodes the
// end state of every collective itself rather than reading the collective
// contract.
//
// It executes the plan round by round per plan/ir/Plan.h: sends read the
// state as the round began, the i-th send A->B of a round pairs with the i-th
// receive at B from A, receives land (Replace) or combine (Reduce), local
// operations then run in the order listed. Every (rank, buffer, block) cell
// carries at once
//   - the exact set of ranks whose contribution it holds, and how many
//     contributions (so a contribution counted twice shows);
//   - a polynomial hash of the ordered sequence of contributions, so a plan
//     that claims not to need a commutative operator (RequiresCommutative ==
//     false) but combines out of rank order is caught;
//   - a concrete 64-bit value: rank r's contribution to block b is a random
//     number, the operator is wrapping addition, and every cell that starts
//     without a contribution holds random garbage. A doubled, missing,
//     misplaced (another block's) or garbage operand then changes the final
//     value except with probability 2^-64.
//
// Two verdicts come out of a run:
//   - Errors and EndErrors: every rule broken, strictly — besides the
//     structural ones, reading a cell that holds no contribution, reducing
//     into one, reducing a contribution into a cell that already holds it,
//     and an end state that is not exactly what the collective promises
//     (each contribution once, in rank order when the plan claims so);
//   - Broken: whether the plan computes a wrong result on real numbers — it
//     is malformed, a message does not pair, a receive lands on blocks the
//     round also sends or receives, a promised block ends with a wrong
//     value, or (when the plan claims RequiresCommutative == false) a
//     promised block combines its contributions out of rank order, which a
//     non-commutative operator the plan accepts would get wrong. Reading
//     garbage that is later overwritten is not Broken. The mutation test
//     compares the verifier against this verdict.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_SUPPORT_REFERENCEINTERPRETER_H
#define COLLPLAN_TESTS_SUPPORT_REFERENCEINTERPRETER_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collplan::test {

struct Interpretation {
  /// Rules broken while running, in the order met (at most MaxErrors).
  std::vector<std::string> Errors;
  /// How the end state differs from the collective's promise (at most
  /// MaxErrors).
  std::vector<std::string> EndErrors;
  /// Whether the plan computes a wrong result on real numbers (see above),
  /// and the first reason.
  bool Broken = false;
  std::string Why;

  /// Distinct round indices, and the largest index plus one.
  uint64_t Rounds = 0;
  uint64_t RoundSpan = 0;
  /// The most operations one rank performs in one round.
  uint64_t MaxOpsPerRound = 0;
  /// The largest total block weight one message carries (weight 1 per block
  /// when the plan has no weights).
  uint64_t MaxMessageWeight = 0;
  /// Replace receives into a data-buffer block that already held data.
  uint64_t ReplacedHeld = 0;

  /// Errors then EndErrors.
  std::vector<std::string> problems() const;
  /// The first of Errors, or "".
  std::string firstError() const;
  /// The first of EndErrors, or "".
  std::string firstEndError() const;
};

class ReferenceInterpreter {
public:
  static constexpr size_t MaxErrors = 20;

  /// Seed draws the random contributions and garbage.
  explicit ReferenceInterpreter(const Plan &P, uint64_t Seed = 1);
  ~ReferenceInterpreter();
  ReferenceInterpreter(const ReferenceInterpreter &) = delete;
  ReferenceInterpreter &operator=(const ReferenceInterpreter &) = delete;

  /// Runs every round, calls After(index) once each round is done (the state
  /// queries below then show the state after that round), then checks the
  /// end state. Runs once; later calls return the same result.
  const Interpretation &run(llvm::function_ref<void(uint32_t)> After = {});

  /// The ranks whose contribution (rank, buffer, block) holds: P bits, none
  /// when it holds no contribution.
  llvm::BitVector contributors(uint32_t Rank, uint16_t Buffer,
                               uint64_t Block) const;
  /// The ranks of contributors() in increasing order (each once: compare
  /// contributionCount() to see a contribution held twice).
  std::vector<uint32_t> holding(uint32_t Rank, uint16_t Buffer,
                                uint64_t Block) const;
  /// Whether the cell holds data derived from contributions only (no garbage
  /// and no cell that never held a contribution).
  bool defined(uint32_t Rank, uint16_t Buffer, uint64_t Block) const;
  /// How many contributions the cell combines, counted with repetition.
  uint64_t contributionCount(uint32_t Rank, uint16_t Buffer,
                             uint64_t Block) const;

private:
  struct State;
  std::unique_ptr<State> S;
};

/// Runs P with Seed and returns the result.
Interpretation interpret(const Plan &P, uint64_t Seed = 1);

/// The number of distinct round indices in P.
uint64_t roundCount(const Plan &P);

} // namespace collplan::test

#endif // COLLPLAN_TESTS_SUPPORT_REFERENCEINTERPRETER_H
