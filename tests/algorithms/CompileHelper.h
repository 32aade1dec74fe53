//===- CompileHelper.h - Compiling and reading plans in tests ---*- C++ -*-===//
//
// Compiling by name lives in tests/support/PlanFactory.h; this adds the
// family tests' ways of reading a plan's rounds.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H
#define COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H

#include "tests/support/PlanFactory.h"

#include <set>
#include <vector>

namespace collplan::test {

/// The operations of Rank in round Index, or none.
inline llvm::ArrayRef<Op> opsAt(const Plan &P, uint32_t Rank, uint32_t Index) {
  for (const Round &Rd : P.Programs[Rank].Rounds)
    if (Rd.Index == Index)
      return Rd.Ops;
  return {};
}

/// The round indices in which Rank does anything.
inline std::vector<uint32_t> activeRounds(const Plan &P, uint32_t Rank) {
  std::vector<uint32_t> Out;
  for (const Round &Rd : P.Programs[Rank].Rounds)
    Out.push_back(Rd.Index);
  return Out;
}

/// Every round index in which some rank does anything.
inline std::set<uint32_t> roundsOf(const Plan &P) {
  std::set<uint32_t> Out;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      Out.insert(Rd.Index);
  return Out;
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_ALGORITHMS_COMPILEHELPER_H
