//===- MutationTest.cpp - The verifier against a brute-force oracle -------===//
//
// Every registered algorithm, every collective it implements, small P and
// several roots: the plan itself must verify, and every single-edit mutant
// that concrete execution (tests/support/ReferenceInterpreter.h) finds
// broken must be rejected, by the exact mode, by the hashed mode and when
// streamed one block at a time. New algorithms join through allAlgorithms()
// without edits here.
//
//===----------------------------------------------------------------------===//

#include "Mutations.h"
#include "PlanBuilder.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Parallel.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <set>

using namespace collplan;
using namespace collplan::test;

namespace {

struct NamedPlan {
  std::string Name;
  Plan P;
};

std::vector<NamedPlan> registeredPlans(llvm::ArrayRef<uint32_t> Sizes) {
  std::vector<NamedPlan> Out;
  for (const Algorithm *A : allAlgorithms())
    for (Collective C : A->collectives())
      for (uint32_t P : Sizes) {
        std::set<std::optional<uint32_t>> Roots = {std::nullopt};
        if (hasRoot(C))
          Roots = {0u, P - 1, P / 2};
        for (std::optional<uint32_t> Root : Roots) {
          CompileRequest Req;
          Req.Kind = C;
          Req.Topo = Topology::flat(P);
          Req.Root = Root;
          // Allgatherv's ranks, alltoallv's pairs.
          for (uint64_t R = 0; R < weightCount(C, P); ++R)
            Req.Weights.push_back(R % 3 + 1);
          llvm::Expected<Plan> Compiled = compilePlan(*A, Req);
          if (!Compiled) {
            // Some families serve only some P (say, powers of two).
            llvm::consumeError(Compiled.takeError());
            continue;
          }
          std::string Name = A->name().str() + " " + collectiveName(C).str() +
                             " P=" + std::to_string(P);
          if (Root)
            Name += " root=" + std::to_string(*Root);
          Out.push_back({Name, std::move(*Compiled)});
        }
      }
  return Out;
}

VerifyResult verifyIn(const Plan &P, VerifyMode Mode, uint64_t Budget = 0) {
  VerifyOptions O;
  O.Mode = Mode;
  O.MaxErrors = 4;
  if (Budget)
    O.MemoryBudget = Budget;
  return verifyPlan(P, O);
}

/// A budget of 3 to 7 blocks per chunk in the hashed mode (8 to 20 bytes
/// per set): several chunks, each with runs that differ within it.
uint64_t fewBlocksBudget(const Plan &P) {
  return uint64_t(3) * 20 * P.Header.Ranks * P.Header.Buffers.size() *
         workerThreads();
}

std::string firstError(const VerifyResult &R) {
  return R.Errors.empty() ? "(none)" : R.Errors.front().str();
}

const uint32_t Sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16};

} // namespace

TEST_CASE("the reference interpreter's concrete verdict on hand-built plans") {
  // Its own sanity: right on plans whose outcome is known by hand.
  Plan Ok =
      emptyPlan(Collective::Allreduce, 2, 1, std::nullopt, {"data", "tmp"});
  message(Ok, 0, 0, 1, BlockSet::single(0), Combine::Replace, 0, 1);
  message(Ok, 0, 1, 0, BlockSet::single(0), Combine::Replace, 0, 1);
  Ok.Programs[0].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  Ok.Programs[1].add(0, Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  CHECK_FALSE(interpret(Ok, 1).Broken);

  Plan Twice = Ok;
  Twice.Programs[1].add(0,
                        Op::local(1, 0, BlockSet::single(0), Combine::Reduce));
  CHECK(interpret(Twice, 1).Broken);

  Plan Silent = emptyPlan(Collective::Allreduce, 2, 1);
  CHECK(interpret(Silent, 1).Broken);
  CHECK_FALSE(interpret(emptyPlan(Collective::Allreduce, 1, 3), 1).Broken);

  Plan Bcast = emptyPlan(Collective::Broadcast, 2, 2, 1u);
  message(Bcast, 0, 1, 0, BlockSet::range(0, 2), Combine::Replace);
  CHECK_FALSE(interpret(Bcast, 1).Broken);
  Bcast.Header.Root = 0;
  CHECK(interpret(Bcast, 1).Broken);

  Plan Overlap = emptyPlan(Collective::Allgather, 2, 2);
  message(Overlap, 0, 0, 1, BlockSet::single(0), Combine::Replace);
  Overlap.Programs[1].add(0, Op::send(0, BlockSet::single(0)));
  Overlap.Programs[0].add(0,
                          Op::recv(1, BlockSet::single(0), Combine::Replace));
  CHECK(interpret(Overlap, 1).Broken);
}

TEST_CASE("every registered algorithm's plans verify") {
  std::vector<NamedPlan> Plans = registeredPlans(Sizes);
  MESSAGE(Plans.size() << " plans from " << allAlgorithms().size()
                       << " algorithms");
  for (const NamedPlan &N : Plans) {
    INFO(N.Name);
    REQUIRE_FALSE(interpret(N.P, 7).Broken);
    VerifyResult Exact = verifyIn(N.P, VerifyMode::Exact);
    VerifyResult Hashed = verifyIn(N.P, VerifyMode::Hashed);
    VerifyResult Streamed = verifyIn(N.P, VerifyMode::Exact, 1);
    VerifyResult FewBlocks =
        verifyIn(N.P, VerifyMode::Hashed, fewBlocksBudget(N.P));
    INFO(firstError(Exact));
    CHECK(Exact.Valid);
    CHECK(Hashed.Valid);
    CHECK(Streamed.Valid);
    CHECK(FewBlocks.Valid);
    CHECK(FewBlocks.IdenticalResults == Exact.IdenticalResults);
  }
}

TEST_CASE("every mutant concrete execution breaks is rejected") {
  // COLLPLAN_MUTANTS_PER_KIND widens the sweep (default 64 sites per
  // mutation kind and plan).
  size_t PerKind = 64;
  if (const char *Env = std::getenv("COLLPLAN_MUTANTS_PER_KIND"))
    PerKind = std::strtoull(Env, nullptr, 10);
  auto Start = std::chrono::steady_clock::now();
  uint64_t Mutants = 0, Broken = 0, RejectedExact = 0, RejectedHashed = 0,
           MissedExact = 0, MissedHashed = 0, MissedStreamed = 0, Disagree = 0,
           Plans = 0;
  // The operand-order mutants of plans that claim rank order.
  uint64_t Ordered = 0, OrderedBroken = 0, OrderedRejected = 0,
           OrderedMissed = 0;
  uint64_t Seed = 1;
  for (const NamedPlan &N : registeredPlans(Sizes)) {
    ++Plans;
    for (const Mutant &M : mutantsOf(N.P, PerKind, Seed++)) {
      ++Mutants;
      bool IsBroken = interpret(M.Mutated, Seed).Broken;
      VerifyResult Exact = verifyIn(M.Mutated, VerifyMode::Exact);
      VerifyResult Hashed = verifyIn(M.Mutated, VerifyMode::Hashed);
      Broken += IsBroken;
      RejectedExact += !Exact.Valid;
      RejectedHashed += !Hashed.Valid;
      Disagree += Exact.Valid != Hashed.Valid;
      if (M.Reorders && !N.P.Header.RequiresCommutative) {
        ++Ordered;
        OrderedBroken += IsBroken;
        OrderedRejected += !Exact.Valid && !Hashed.Valid;
        OrderedMissed += IsBroken && (Exact.Valid || Hashed.Valid);
      }
      if (!IsBroken)
        continue;
      // Streaming block by block, or a few blocks at a time, must not lose
      // what the whole state finds.
      bool StreamedValid =
          (Mutants % 5 == 0 &&
           verifyIn(M.Mutated, VerifyMode::Hashed, 1).Valid) ||
          (Mutants % 5 == 2 &&
           verifyIn(M.Mutated, VerifyMode::Hashed, fewBlocksBudget(M.Mutated))
               .Valid);
      MissedExact += Exact.Valid;
      MissedHashed += Hashed.Valid;
      MissedStreamed += StreamedValid;
      if (Exact.Valid || Hashed.Valid || StreamedValid) {
        INFO(N.Name << ", " << M.What << ": "
                    << interpret(M.Mutated, Seed).Why);
        CHECK_FALSE(Exact.Valid);
        CHECK_FALSE(Hashed.Valid);
        CHECK_FALSE(StreamedValid);
      }
    }
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  MESSAGE(Plans << " plans, " << Mutants << " mutants, " << Broken
                << " broken by concrete execution; rejected: exact "
                << RejectedExact << ", hashed " << RejectedHashed
                << "; broken but accepted: exact " << MissedExact << ", hashed "
                << MissedHashed << ", streamed " << MissedStreamed
                << "; exact/hashed verdicts differ on " << Disagree << " ("
                << Seconds << " s)");
  MESSAGE("operand-order mutants of plans that claim rank order: "
          << Ordered << ", " << OrderedBroken
          << " broken by concrete execution, " << OrderedRejected
          << " rejected by both modes, " << OrderedMissed
          << " broken but accepted");
  CHECK(Mutants > 0);
  CHECK(MissedExact == 0);
  CHECK(MissedHashed == 0);
  // Both modes judge double counts where they reach a promised block and
  // check operand order alike (ContributionStore.h, RankIntervals.h).
  CHECK(Disagree == 0);
  CHECK(OrderedBroken > 0);
}

TEST_CASE("larger P streams through many chunks in both modes") {
  const Algorithm *Ring = findAlgorithm("ring");
  REQUIRE(Ring);
  CompileRequest Req;
  Req.Topo = Topology::flat(600);
  llvm::Expected<Plan> Compiled = compilePlan(*Ring, Req);
  REQUIRE(static_cast<bool>(Compiled));
  // Drop the last message to rank 300 (Ring.cpp: rank r receives from
  // r + 1, which sends first in each round): rank 300 misses one block.
  Plan Dropped = *Compiled;
  Dropped.Programs[300].Rounds.back().Ops.pop_back();
  auto &Sender = Dropped.Programs[301].Rounds.back().Ops;
  Sender.erase(Sender.begin());
  REQUIRE(interpret(Dropped, 3).Broken);
  for (VerifyMode Mode : {VerifyMode::Exact, VerifyMode::Hashed}) {
    CAPTURE(verifyModeName(Mode).str());
    VerifyOptions O;
    O.Mode = Mode;
    O.MemoryBudget = 600 * 80 * 16; // At most 16 blocks per chunk.
    VerifyResult R = verifyPlan(*Compiled, O);
    CHECK(R.Valid);
    CHECK(R.Stats.Rounds == 2 * 599);
    CHECK(R.Stats.Messages == 600ull * 2 * 599);
    CHECK(R.Stats.BlockTransfers == 600ull * 2 * 599);
    VerifyResult D = verifyPlan(Dropped, O);
    REQUIRE_FALSE(D.Valid);
    INFO(firstError(D));
    CHECK(D.Errors.front().Where.Rank == 300);
    CHECK(D.Errors.front().Message.find("at the end, block") !=
          std::string::npos);
  }
}
