//===- OrderedExecutorTest.cpp - Plans that claim rank order, on threads --===//
//
// A plan with requires_commutative: false promises x_0 (+) x_1 (+) ... (+)
// x_{P-1} for any associative operator. Here the operator composes affine
// maps x -> a x + b (mod 2^32), packed as a uint64 (a high, b low): it is
// associative and not commutative, so any other order of the operands
// changes the result. Each rank's result is compared with the left fold of
// the P inputs computed in the test, element by element.
//
//===----------------------------------------------------------------------===//

#include "ThreadTransport.h"

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/BlockLayout.h"
#include "runtime/Executor.h"

#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

/// First L, then R: x -> aR (aL x + bL) + bR.
uint64_t thenApply(uint64_t L, uint64_t R) {
  uint32_t AL = L >> 32, BL = uint32_t(L), AR = R >> 32, BR = uint32_t(R);
  return uint64_t(AR * AL) << 32 | uint32_t(AR * BL + BR);
}

void composeInto(void *InOut, const void *In, size_t Count, void *) {
  auto *D = static_cast<uint64_t *>(InOut);
  const auto *S = static_cast<const uint64_t *>(In);
  for (size_t I = 0; I < Count; ++I)
    D[I] = thenApply(D[I], S[I]);
}

uint64_t inputOf(uint32_t Rank, uint64_t I) {
  uint64_t X =
      (Rank + 1) * 0x9e3779b97f4a7c15ULL ^ (I + 1) * 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 29;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 32);
}

/// Runs Pl on threads with the composition operator; returns the first rank
/// whose promised elements differ from the left fold, or "".
std::string runOrdered(const Plan &Pl, uint64_t Count, bool InPlace) {
  const PlanHeader &H = Pl.Header;
  uint32_t P = H.Ranks;
  std::vector<uint64_t> Fold(Count);
  for (uint64_t I = 0; I < Count; ++I) {
    Fold[I] = inputOf(0, I);
    for (uint32_t R = 1; R < P; ++R)
      Fold[I] = thenApply(Fold[I], inputOf(R, I));
  }
  BlockLayout Layout(H, Count);
  Mailboxes Boxes(P);
  std::vector<std::string> Failures(P);
  std::vector<std::thread> Threads;
  for (uint32_t R = 0; R < P; ++R)
    Threads.emplace_back([&, R] {
      std::vector<uint64_t> In(Count), Out(Count, 0x5a5a5a5a5a5a5a5aULL);
      for (uint64_t I = 0; I < Count; ++I)
        In[I] = inputOf(R, I);
      CallArgs A;
      A.Count = Count;
      A.Type = Datatype::UInt64;
      A.Op.User = composeInto;
      A.Op.Commutative = false;
      A.Input = In.data();
      A.Output = Out.data();
      if (InPlace) {
        Out = In;
        A.Input = nullptr;
      }
      Executor Ex(H, Pl.Programs[R], R);
      ThreadTransport T(Boxes, R);
      if (llvm::Error E = Ex.run(T, A)) {
        Failures[R] = llvm::toString(std::move(E));
        return;
      }
      // A reduce-scatter's receive buffer ends with its own part, packed at
      // its start, in place too (as MPI_Reduce_scatter_block's; Executor.h).
      uint64_t Packed = 0;
      for (const BlockRange &Rg : H.outputBlocks(R).ranges())
        for (uint64_t I = Layout.begin(Rg.Begin); I < Layout.begin(Rg.End);
             ++I, ++Packed) {
          uint64_t Got = Out[hasOwnedBlocks(H.Kind) ? Packed : I];
          if (Got != Fold[I]) {
            Failures[R] = "rank " + std::to_string(R) + ": element " +
                          std::to_string(I) + " is not the left fold";
            return;
          }
        }
    });
  for (std::thread &T : Threads)
    T.join();
  for (std::string &F : Failures)
    if (!F.empty())
      return F;
  return Boxes.allEmpty() ? "" : "messages were sent that nobody received";
}

llvm::Expected<Plan> compileOrdered(const Algorithm &A, Collective K,
                                    uint32_t P, std::optional<uint32_t> Root) {
  CompileRequest Req;
  Req.Kind = K;
  Req.Topo = Topology::flat(P);
  Req.Root = Root;
  Req.CommutativeOperator = false;
  return compilePlan(A, Req);
}

} // namespace

TEST_CASE("the named ordered families give the left fold") {
  struct Named {
    const char *Algo;
    Collective Kind;
  } Families[] = {{"recursive-doubling", Collective::Allreduce},
                  {"rabenseifner", Collective::Allreduce},
                  {"binomial", Collective::Reduce}};
  for (const Named &F : Families)
    for (uint32_t P : {5u, 6u, 8u}) {
      std::optional<uint32_t> Root;
      if (hasRoot(F.Kind))
        Root = 0;
      llvm::Expected<Plan> Pl =
          compileOrdered(*findAlgorithm(F.Algo), F.Kind, P, Root);
      INFO(F.Algo << " P=" << P);
      REQUIRE_MESSAGE(bool(Pl), llvm::toString(Pl.takeError()));
      REQUIRE_FALSE(Pl->Header.RequiresCommutative);
      for (uint64_t Count : {1, 7, 100})
        for (bool InPlace : {false, true}) {
          std::string Failure = runOrdered(*Pl, Count, InPlace);
          INFO("count=" << Count << (InPlace ? " in place" : ""));
          CHECK_MESSAGE(Failure.empty(), Failure);
        }
    }
}

TEST_CASE("every plan that claims rank order gives the left fold") {
  size_t Runs = 0;
  for (const Algorithm *A : allAlgorithms())
    for (Collective K : A->collectives()) {
      if (!reduces(K))
        continue;
      for (uint32_t P = 1; P <= 9; ++P) {
        std::vector<std::optional<uint32_t>> Roots = {std::nullopt};
        if (hasRoot(K))
          Roots = {0u, P - 1};
        for (std::optional<uint32_t> Root : Roots) {
          llvm::Expected<Plan> Pl = compileOrdered(*A, K, P, Root);
          if (!Pl) {
            // The family needs a commutative operator here, or rejects P.
            llvm::consumeError(Pl.takeError());
            continue;
          }
          INFO(A->name().str() << " " << collectiveName(K).str() << " P=" << P
                               << " root=" << Root.value_or(0));
          for (uint64_t Count : {3, 64}) {
            std::string Failure = runOrdered(*Pl, Count, Count % 2 == 0);
            CHECK_MESSAGE(Failure.empty(), Failure);
            ++Runs;
          }
        }
      }
    }
  MESSAGE(Runs << " runs of ordered plans");
  CHECK(Runs > 0);
}

TEST_CASE("the left fold tells an out-of-order plan apart") {
  // From root 3 the binomial reduce combines 3, 4, ..., 7, 0, 1, 2; claiming
  // order anyway gets the executor to run it, and the result is wrong.
  CompileRequest Req;
  Req.Kind = Collective::Reduce;
  Req.Topo = Topology::flat(8);
  Req.Root = 3;
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm("binomial"), Req);
  REQUIRE(bool(Pl));
  REQUIRE(Pl->Header.RequiresCommutative);
  Pl->Header.RequiresCommutative = false;
  CHECK(runOrdered(*Pl, 5, false).find("not the left fold") !=
        std::string::npos);
}
