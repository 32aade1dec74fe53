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

/// An empty plan of Kind on two ranks of a flat topology.
Plan twoRanks(Collective Kind = Collective::Allreduce, uint64_t Blocks = 1,
              std::vector<std::string> Buffers = {"data"}) {
  Plan P;
  P.Header.Kind = Kind;
  P.Header.Ranks = 2;
  P.Header.Blocks = Blocks;
  P.Header.Topo = Topology::flat(2);
  P.Header.Buffers = std::move(Buffers);
  if (Kind == Collective::Broadcast || Kind == Collective::Reduce)
    P.Header.Root = 0;
  P.Programs.resize(2);
  return P;
}

} // namespace

TEST_CASE(
    "the reference interpreter sees operands combined out of rank order") {
  // From root 3 the binomial reduce combines 3, 4, ..., 7, 0, 1, 2.
  Plan P = compileFlat("binomial", Collective::Reduce, 8, 3);
  CHECK(interpret(P).problems().empty());
  CHECK_FALSE(interpret(P).Broken);
  P.Header.RequiresCommutative = false;
  CHECK(mentions(interpret(P), "out of rank order"));
  // A non-commutative operator, which the plan now accepts, gets it wrong.
  CHECK(interpret(P).Broken);
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
  Plan P = twoRanks();
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0, Op::send(1 - R, BlockSet::single(0)));
    P.Programs[R].add(0, Op::recv(1 - R, BlockSet::single(0), Combine::Reduce));
  }
  CHECK(mentions(interpret(P), "receives into blocks it sends"));
}

namespace {

/// Two ranks, one block, allreduce: each sends its block, receives the
/// other's into scratch and reduces it in.
Plan exchange() {
  Plan P = twoRanks(Collective::Allreduce, 1, {"data", "tmp"});
  for (uint32_t R = 0; R < 2; ++R) {
    P.Programs[R].add(0, Op::send(1 - R, BlockSet::single(0)));
    P.Programs[R].add(0, Op::recv(1 - R, BlockSet::single(0), Combine::Replace,
                                  /*Buffer=*/1));
    P.Programs[R].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  }
  return P;
}

} // namespace

TEST_CASE("the reference interpreter tracks contributions round by round") {
  Plan P = exchange();
  ReferenceInterpreter I(P);
  unsigned Calls = 0;
  const Interpretation &Run = I.run([&](uint32_t Index) {
    ++Calls;
    CHECK(Index == 0);
    CHECK(I.contributors(0, 1, 0).count() == 1);
    CHECK(I.contributors(0, 1, 0).test(1));
    CHECK(I.holding(1, DataBuffer, 0) == std::vector<uint32_t>{0, 1});
    CHECK(I.defined(0, DataBuffer, 0));
  });
  CHECK(Calls == 1);
  CHECK(Run.problems().empty());
  CHECK_FALSE(Run.Broken);
  CHECK(Run.Rounds == 1);
  CHECK(Run.RoundSpan == 1);
  CHECK(Run.MaxOpsPerRound == 3);
  CHECK(Run.MaxMessageWeight == 1);
}

TEST_CASE("the reference interpreter sees a contribution counted twice") {
  Plan P = exchange();
  P.Programs[1].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  Interpretation S = interpret(P);
  CHECK(mentions(S, "counts a contribution twice"));
  CHECK(mentions(S, "not the expected ones"));
  CHECK(S.Broken);
}

TEST_CASE("the reference interpreter pairs messages first in, first out") {
  // Each rank sends block 1 then block 0 but receives block 0 then block 1:
  // the i-th send pairs with the i-th receive, so no pair carries the same
  // blocks.
  Plan P = twoRanks(Collective::Allreduce, 2, {"data", "tmp"});
  for (uint32_t R = 0; R < 2; ++R)
    for (uint64_t B = 0; B < 2; ++B) {
      P.Programs[R].add(0, Op::send(1 - R, BlockSet::single(1 - B), 0));
      P.Programs[R].add(
          0, Op::recv(1 - R, BlockSet::single(B), Combine::Replace, 1));
    }
  for (uint32_t R = 0; R < 2; ++R)
    P.Programs[R].add(0,
                      Op::local(1, 0, BlockSet::range(0, 2), Combine::Reduce));
  Interpretation S = interpret(P);
  CHECK(mentions(S, "expects blocks 0 from 1 which sends 1"));
  CHECK(S.Broken);
}

TEST_CASE("reading garbage is an error but not a wrong result") {
  // Rank 1 sends a block it does not own into rank 0's scratch, which is
  // never read: strictly wrong, concretely harmless.
  Plan P = twoRanks(Collective::Broadcast, 1, {"data", "tmp"});
  P.Programs[0].add(0, Op::send(1, BlockSet::single(0)));
  P.Programs[1].add(0, Op::recv(0, BlockSet::single(0), Combine::Replace));
  P.Programs[1].add(1, Op::send(0, BlockSet::single(0), 1));
  P.Programs[0].add(1, Op::recv(1, BlockSet::single(0), Combine::Replace, 1));
  Interpretation S = interpret(P);
  CHECK(mentions(S, "sends undefined block"));
  CHECK(S.EndErrors.empty());
  CHECK_FALSE(S.Broken);
  CHECK(S.RoundSpan == 2);
}
