//===- BaselinesCostTest.cpp - The cost model ranks the baselines ---------===//
//
// The textbook trade-off (Swing paper §3, first paragraph): at
// P = 64 recursive doubling's log2 P latency wins for tiny messages, while
// for large ones its log2 P full-vector messages lose to the ring's and
// Rabenseifner's 2(P-1)/P m bandwidth term.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"

#include "compiler/cost/CostModel.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

double timeOf(llvm::StringRef Name, uint32_t N, uint64_t Bytes) {
  Plan P = compileFlat(Name, Collective::Allreduce, N);
  CostReport R = evaluateCost(P, Bytes, CostParams());
  CHECK(R.Time >= R.LowerBound * (1 - 1e-9));
  return R.Time;
}

} // namespace

TEST_CASE("at P = 64 recursive doubling wins at 8 bytes, loses at 64 MiB") {
  uint64_t Small = 8, Large = uint64_t(64) << 20;
  double RingSmall = timeOf("ring", 64, Small);
  double RdSmall = timeOf("recursive-doubling", 64, Small);
  double RabSmall = timeOf("rabenseifner", 64, Small);
  CHECK(RdSmall < RingSmall);
  CHECK(RdSmall < RabSmall);
  CHECK(RabSmall < RingSmall);

  double RingLarge = timeOf("ring", 64, Large);
  double RdLarge = timeOf("recursive-doubling", 64, Large);
  double RabLarge = timeOf("rabenseifner", 64, Large);
  CHECK(RingLarge < RdLarge);
  CHECK(RabLarge < RdLarge);
}

TEST_CASE("the fold costs recursive doubling two extra full messages") {
  // P = 48 folds 16 pairs onto P' = 32: the 5 exchange rounds of P = 32
  // plus a whole-vector message and its reduction before, and a
  // whole-vector message after.
  CostParams C;
  uint64_t Bytes = 1 << 20;
  double T32 = timeOf("recursive-doubling", 32, Bytes);
  double T48 = timeOf("recursive-doubling", 48, Bytes);
  double Message = C.Alpha + C.Beta * Bytes;
  CHECK(T48 - T32 ==
        doctest::Approx(2 * Message + C.Gamma * Bytes).epsilon(1e-6));
}
