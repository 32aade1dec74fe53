//===- ExecutorTest.cpp - The executor on every algorithm, in threads -----===//
//
// Every registered algorithm x collective x P in 1..8 x element counts
// (0, 1, fewer than the blocks, not divisible by them), rotating through
// types, operators and in-place / out-of-place calls, run over the
// in-process ThreadTransport and compared with the brute-force oracle.
//
//===----------------------------------------------------------------------===//

#include "Oracle.h"
#include "ThreadRun.h"

#include "compiler/algorithms/Algorithm.h"
#include "runtime/Executor.h"

#include <doctest/doctest.h>

#include <string>
#include <thread>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

CompileRequest requestFor(Collective K, uint32_t P, uint32_t Variant) {
  CompileRequest Req;
  Req.Kind = K;
  Req.Topo = Topology::flat(P);
  Req.Bytes = 1 << 16;
  if (hasRoot(K))
    Req.Root = Variant % P;
  // Allgatherv's ranks, alltoallv's pairs: some give none, never all
  // (Plan.h refuses that).
  for (uint64_t R = 0; R < weightCount(K, P); ++R)
    Req.Weights.push_back((R * 3 + Variant) % 4 + (R == 0));
  return Req;
}

} // namespace

TEST_CASE("every algorithm x collective x P runs correctly on threads") {
  static const uint64_t Counts[] = {0, 1, 3, 5, 8, 17, 100, 1003};
  uint32_t Variant = 0;
  size_t Runs = 0;
  for (const Algorithm *A : allAlgorithms())
    for (Collective K : A->collectives())
      for (uint32_t P = 1; P <= 8; ++P) {
        llvm::Expected<Plan> Pl = compilePlan(*A, requestFor(K, P, Variant));
        if (!Pl) {
          // An algorithm may reject some P (e.g. powers of two only).
          llvm::consumeError(Pl.takeError());
          continue;
        }
        // One executor per rank takes every count in turn, each call twice
        // on the same buffers: a repeated call reuses what the executor
        // kept from the last, a new size or buffer must not.
        std::vector<Case> Cases;
        std::string Names;
        for (uint64_t Count : Counts) {
          ++Variant;
          Datatype T = allDatatypes()[Variant % allDatatypes().size()];
          ReduceOp Op = allReduceOps()[(Variant / 3) % allReduceOps().size()];
          if (!supports(T, Op))
            Op = ReduceOp::Sum;
          Cases.push_back({T, Op, Count, Variant % 2 == 0});
          Names += " [" + std::to_string(Cases.size() - 1) +
                   "] count=" + std::to_string(Count) + " " +
                   datatypeName(T).str() + " " + reduceOpName(Op).str() +
                   (Cases.back().InPlace ? " in place" : "");
        }
        std::string Failure = runCases(*Pl, Cases, 2);
        INFO(A->name().str()
             << " " << collectiveName(K).str() << " P=" << P << ":" << Names);
        CHECK_MESSAGE(Failure.empty(), Failure);
        Runs += Cases.size();
      }
  CHECK(Runs > 0);
}

TEST_CASE("every type x operator on an allreduce ring") {
  CompileRequest Req = requestFor(Collective::Allreduce, 3, 0);
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("ring"), Req);
  REQUIRE(bool(Pl));
  for (Datatype T : allDatatypes())
    for (ReduceOp Op : allReduceOps()) {
      if (!supports(T, Op))
        continue;
      for (uint64_t Count : {2, 31}) {
        std::string Failure = runCase(*Pl, {T, Op, uint64_t(Count), false});
        INFO(datatypeName(T).str() << " " << reduceOpName(Op).str());
        CHECK_MESSAGE(Failure.empty(), Failure);
      }
    }
}

TEST_CASE("a non-commutative operator is refused when the plan needs one") {
  CompileRequest Req = requestFor(Collective::Allreduce, 2, 0);
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("ring"), Req);
  REQUIRE(bool(Pl));
  Mailboxes Boxes(2);
  ThreadTransport T(Boxes, 0);
  Executor Ex(Pl->Header, Pl->Programs[0], 0);
  std::vector<int32_t> Buf(4, 1);
  CallArgs A;
  A.Output = Buf.data();
  A.Count = Buf.size();
  A.Type = Datatype::Int32;
  A.Op.User = [](void *, const void *, size_t, void *) {};
  A.Op.Commutative = false;
  Pl->Header.RequiresCommutative = true;
  llvm::Error E = Ex.run(T, A);
  REQUIRE(bool(E));
  CHECK(llvm::toString(std::move(E)).find("commutative") != std::string::npos);
  CHECK(Boxes.allEmpty()); // Refused before communicating.
}

TEST_CASE("a call that does not fit the plan is refused") {
  CompileRequest Req = requestFor(Collective::Allreduce, 2, 0);
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("ring"), Req);
  REQUIRE(bool(Pl));
  Mailboxes Boxes(3);
  ThreadTransport T(Boxes, 0);
  Executor Ex(Pl->Header, Pl->Programs[0], 0);
  std::vector<float> Buf(4, 1);
  CallArgs A;
  A.Output = Buf.data();
  A.Count = Buf.size();
  A.Type = Datatype::Float;
  llvm::Error E = Ex.run(T, A);
  REQUIRE(bool(E));
  CHECK(llvm::toString(std::move(E)).find("P = 2") != std::string::npos);
  Mailboxes Two(2);
  ThreadTransport T2(Two, 0);
  A.Op = Operator::predefined(ReduceOp::Bxor);
  llvm::Error E2 = Ex.run(T2, A);
  REQUIRE(bool(E2));
  CHECK(llvm::toString(std::move(E2)).find("bxor is not defined on float") !=
        std::string::npos);
}
