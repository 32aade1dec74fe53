//===- ThreadRun.h - A plan on threads vs. the oracle -----------*- C++ -*-===//
//
// One rank per thread over the in-process ThreadTransport, each rank's
// output compared with the brute-force oracle (Oracle.h). Shared by the
// executor tests.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_RUNTIME_THREADRUN_H
#define COLLPLAN_TESTS_RUNTIME_THREADRUN_H

#include "Oracle.h"
#include "ThreadTransport.h"

#include "plan/ir/BlockLayout.h"
#include "runtime/Executor.h"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace collplan::runtime::test {

struct Case {
  Datatype Type;
  ReduceOp Op;
  uint64_t Count;
  bool InPlace;
};

/// Runs Plan on P threads; returns the first failure, or "".
inline std::string runCase(const Plan &Pl, const Case &C) {
  const PlanHeader &H = Pl.Header;
  uint32_t P = H.Ranks;
  size_t ES = sizeOf(C.Type);
  Mailboxes Boxes(P);
  std::vector<std::string> Failures(P);
  std::vector<std::thread> Threads;
  for (uint32_t R = 0; R < P; ++R)
    Threads.emplace_back([&, R] {
      Executor Ex(H, Pl.Programs[R], R);
      ThreadTransport T(Boxes, R);
      std::vector<char> In = oracleInputBuffer(H, R, C.Count, C.Type, C.Op);
      std::vector<char> Out(C.Count * ES, char(0x5a));
      CallArgs A;
      A.Count = C.Count;
      A.Type = C.Type;
      A.Op = Operator::predefined(C.Op);
      A.Output = Out.data();
      A.Input = In.data();
      if (C.InPlace) {
        A.Input = nullptr;
        uint64_t Offset = 0;
        if (H.Kind == Collective::Allgather ||
            H.Kind == Collective::Allgatherv) {
          BlockLayout L(H, C.Count);
          Offset = L.begin(H.ownedBy(R).ranges()[0].Begin) * ES;
        }
        std::copy(In.begin(), In.end(), Out.begin() + Offset);
      }
      if (llvm::Error E = Ex.run(T, A)) {
        Failures[R] = llvm::toString(std::move(E));
        return;
      }
      // The send buffer is const to MPI: sends and combines read it in
      // place (the executor places the input lazily), never write it.
      if (!C.InPlace &&
          In != oracleInputBuffer(H, R, C.Count, C.Type, C.Op)) {
        Failures[R] =
            "rank " + std::to_string(R) + ": the send buffer was written";
        return;
      }
      std::vector<char> Want = oracleOutput(H, R, C.Count, C.Type, C.Op);
      Out.resize(Want.size());
      if (H.Kind == Collective::Reduce && R != *H.Root)
        return;
      for (size_t I = 0; I < Want.size(); ++I)
        if (Out[I] != Want[I]) {
          Failures[R] = "rank " + std::to_string(R) + ": byte " +
                        std::to_string(I) + " differs";
          return;
        }
    });
  for (std::thread &T : Threads)
    T.join();
  if (!Boxes.allEmpty())
    return "messages were sent that nobody received";
  for (std::string &F : Failures)
    if (!F.empty())
      return F;
  return "";
}

} // namespace collplan::runtime::test

#endif // COLLPLAN_TESTS_RUNTIME_THREADRUN_H
