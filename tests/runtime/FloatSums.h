//===- FloatSums.h - Float sums run by the executor on threads --*- C++ -*-===//
//
// Inputs of wildly different magnitudes, for which two differently shaped
// trees of sums almost surely round some element differently, and a float
// sum of them run by the executor on one thread per rank: what the tests of
// the verifier's rounding verdicts compare against.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_RUNTIME_FLOATSUMS_H
#define COLLPLAN_TESTS_RUNTIME_FLOATSUMS_H

#include "ThreadTransport.h"
#include "plan/ir/Hash.h"
#include "runtime/Executor.h"

#include <cmath>
#include <thread>
#include <vector>

namespace collplan::runtime::test {

/// Rank R's element I: a random sign, mantissa and exponent in [-40, 40].
inline float spreadInput(uint32_t R, uint64_t I) {
  uint64_t X = splitmix64((uint64_t(R) << 32) ^ I ^ 0x5bd1e995);
  float Mantissa = 1.0f + float(X & 0xffffff) / float(1 << 24);
  int Exponent = int((X >> 24) % 81) - 40;
  return ((X >> 40) & 1 ? -1.0f : 1.0f) * std::ldexp(Mantissa, Exponent);
}

/// Each rank's output of a float sum of Count elements of spreadInput by
/// Pl, run on threads; empty for a rank whose run failed.
inline std::vector<std::vector<float>> runFloatSum(const Plan &Pl,
                                                   uint64_t Count) {
  const PlanHeader &H = Pl.Header;
  Mailboxes Boxes(H.Ranks);
  std::vector<std::vector<float>> Outputs(H.Ranks);
  std::vector<std::thread> Threads;
  for (uint32_t R = 0; R < H.Ranks; ++R)
    Threads.emplace_back([&, R] {
      std::vector<float> In(Count), Out(Count);
      for (uint64_t I = 0; I < Count; ++I)
        In[I] = spreadInput(R, I);
      CallArgs A;
      A.Count = Count;
      A.Type = Datatype::Float;
      A.Op = Operator::predefined(ReduceOp::Sum);
      A.Input = In.data();
      A.Output = Out.data();
      Executor Ex(H, Pl.Programs[R], R);
      ThreadTransport T(Boxes, R);
      if (llvm::Error E = Ex.run(T, A)) {
        llvm::consumeError(std::move(E));
        return;
      }
      Outputs[R] = std::move(Out);
    });
  for (std::thread &T : Threads)
    T.join();
  return Outputs;
}

} // namespace collplan::runtime::test

#endif // COLLPLAN_TESTS_RUNTIME_FLOATSUMS_H
