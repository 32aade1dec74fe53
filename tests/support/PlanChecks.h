//===- PlanChecks.h - What a correct plan means in tests --------*- C++ -*-===//
//
// A plan is correct when the verifier (compiler/verify) finds nothing wrong
// with it and the reference interpreter (ReferenceInterpreter.h), which
// shares no code with the verifier, runs it to the end state its collective
// promises. Each problem either finds fails the test with its own message.
// Header-only: a test that uses it links collplan_verify and
// collplan_test_support, and the interpreter's library stays free of the
// verifier.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_SUPPORT_PLANCHECKS_H
#define COLLPLAN_TESTS_SUPPORT_PLANCHECKS_H

#include "compiler/verify/Verifier.h"
#include "tests/support/ReferenceInterpreter.h"

#include "doctest/doctest.h"

#include <string>

namespace collplan::test {

/// Fails the test with every structural problem and verifier error in P.
inline void expectVerified(const Plan &P) {
  for (const Diagnostic &D : checkStructure(P))
    FAIL_CHECK(D.str());
  VerifyResult V = verifyPlan(P);
  for (const Diagnostic &D : V.Errors)
    FAIL_CHECK(D.str());
  CHECK(V.Valid);
}

/// Fails the test with every problem the reference interpreter meets when
/// it runs P: a run-time error or a wrong end state.
inline void expectInterpreted(const Plan &P) {
  for (const std::string &E : interpret(P).problems())
    FAIL_CHECK(E);
}

/// Both of the above; the interpreter only when Interpret (sweeps skip it
/// where it would be slow).
inline void expectCorrect(const Plan &P, bool Interpret = true) {
  expectVerified(P);
  if (Interpret)
    expectInterpreted(P);
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_SUPPORT_PLANCHECKS_H
