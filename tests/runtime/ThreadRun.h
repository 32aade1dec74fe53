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

/// Runs Plan on P threads, one executor per rank for all of Cases in turn,
/// each call Repeats times on the same buffers (refilled before each), as
/// an application repeats a call: the executor's state kept from call to
/// call (its prepared size, the messages it built) is then exercised.
/// Returns the first failure, or "".
inline std::string runCases(const Plan &Pl, llvm::ArrayRef<Case> Cases,
                            unsigned Repeats = 1) {
  const PlanHeader &H = Pl.Header;
  uint32_t P = H.Ranks;
  Mailboxes Boxes(P);
  std::vector<std::string> Failures(P);
  std::vector<std::thread> Threads;
  for (uint32_t R = 0; R < P; ++R)
    Threads.emplace_back([&, R] {
      Executor Ex(H, Pl.Programs[R], R);
      ThreadTransport T(Boxes, R);
      for (size_t I = 0; I < Cases.size(); ++I) {
        const Case &C = Cases[I];
        size_t ES = sizeOf(C.Type);
        std::vector<char> Want = oracleOutput(H, R, C.Count, C.Type, C.Op);
        std::vector<char> In, Out(std::max(C.Count * ES, Want.size()));
        for (unsigned Call = 0; Call < Repeats; ++Call) {
          std::string Which = "case " + std::to_string(I) + ", call " +
                              std::to_string(Call) + ", rank " +
                              std::to_string(R) + ": ";
          In = oracleInputBuffer(H, R, C.Count, C.Type, C.Op);
          std::fill(Out.begin(), Out.end(), char(0x5a));
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
            Failures[R] = Which + llvm::toString(std::move(E));
            return;
          }
          // A wrong result is kept and the calls go on, so the other ranks'
          // calls still find their peer.
          auto Fail = [&](const std::string &What) {
            if (Failures[R].empty())
              Failures[R] = Which + What;
          };
          // The send buffer is const to MPI: sends and combines read it in
          // place (the executor places the input lazily), never write it.
          if (!C.InPlace &&
              In != oracleInputBuffer(H, R, C.Count, C.Type, C.Op))
            Fail("the send buffer was written");
          if (H.Kind == Collective::Reduce && R != *H.Root)
            continue;
          for (size_t B = 0; B < Want.size(); ++B)
            if (Out[B] != Want[B]) {
              Fail("byte " + std::to_string(B) + " differs");
              break;
            }
        }
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

/// One call of Plan on P threads; returns the first failure, or "".
inline std::string runCase(const Plan &Pl, const Case &C) {
  return runCases(Pl, C);
}

} // namespace collplan::runtime::test

#endif // COLLPLAN_TESTS_RUNTIME_THREADRUN_H
