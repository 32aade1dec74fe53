//===- ReferenceInterpreterTest.cpp - The test oracle catches broken plans ===//
//
// The reference interpreter is only an oracle if it rejects wrong plans:
// operands combined out of order, a lost message, a receive into blocks being
// sent.
//
//===----------------------------------------------------------------------===//

#include "tests/support/ReferenceInterpreter.h"
#include "CompileHelper.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

bool mentions(const Interpretation &S, const char *Text) {
  for (const std::string &E : S.problems())
    if (E.find(Text) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE(
    "the reference interpreter sees operands combined out of rank order") {
  // From root 3 the binomial reduce combines 3, 4, ..., 7, 0, 1, 2.
  Plan P = compileFlat("binomial", Collective::Reduce, 8, 3);
  CHECK(interpret(P).problems().empty());
  P.Header.RequiresCommutative = false;
  CHECK(mentions(interpret(P), "out of rank order"));
}

TEST_CASE(
    "the reference interpreter sees a lost message and a wrong end state") {
  Plan P = compileFlat("ring", Collective::Allreduce, 4);
  P.Programs[0].Rounds.pop_back();
  Interpretation S = interpret(P);
  CHECK(mentions(S, "does not receive"));
  CHECK(mentions(S, "not the expected ones"));
}

TEST_CASE(
    "the reference interpreter sees a receive into blocks sent in the round") {
  Plan P;
  P.Header.Ranks = 2;
  P.Header.Topo = Topology::flat(2);
  P.Programs.resize(2);
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0, Op::send(1 - R, BlockSet::single(0)));
    P.Programs[R].add(0, Op::recv(1 - R, BlockSet::single(0), Combine::Reduce));
  }
  CHECK(mentions(interpret(P), "receives into blocks it sends"));
}
