//===- PlanLoadBench.cpp - What reading a plan costs one process ----------===//
//
//   collplan_bench_plan_load PLAN RANK slice|whole
//
// slice: readRankSlice(PLAN, RANK), what the interposer's plan directory and
//        `collplan run` as one rank of a job do;
// whole: readPlanFile(PLAN) and planHash, keeping RANK's program, what both
//        did before plans could be read a rank at a time (and what the local
//        launcher still does).
// Prints the time taken, the rank's operations and the plan hash. Peak memory
// is the process's: run it under /usr/bin/time -v (plan_memory.sh does).
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdio>

using namespace collplan;

int main(int Argc, char **Argv) {
  uint32_t Rank = 0;
  llvm::StringRef Mode = Argc == 4 ? Argv[3] : "";
  if (Argc != 4 || llvm::StringRef(Argv[2]).getAsInteger(10, Rank) ||
      (Mode != "slice" && Mode != "whole")) {
    std::fprintf(stderr, "usage: %s PLAN RANK slice|whole\n", Argv[0]);
    return 2;
  }
  auto Start = std::chrono::steady_clock::now();
  uint64_t Ops = 0, Hash = 0;
  if (Mode == "slice") {
    llvm::Expected<RankSlice> S = readRankSlice(Argv[1], Rank);
    if (!S) {
      std::fprintf(stderr, "%s\n", llvm::toString(S.takeError()).c_str());
      return 1;
    }
    Ops = S->Prog.numOps();
    Hash = S->Hash;
  } else {
    llvm::Expected<Plan> P = readPlanFile(Argv[1]);
    if (!P || Rank >= P->Header.Ranks) {
      std::fprintf(stderr, "%s\n",
                   P ? "no such rank" : llvm::toString(P.takeError()).c_str());
      return 1;
    }
    Hash = planHash(*P);
    Ops = P->Programs[Rank].numOps();
  }
  std::chrono::duration<double> Took = std::chrono::steady_clock::now() - Start;
  std::printf("%s rank %u: %llu ops, hash %s, %.3f s\n", Mode.str().c_str(),
              Rank, (unsigned long long)Ops, planHashHex(Hash).c_str(),
              Took.count());
  return 0;
}
