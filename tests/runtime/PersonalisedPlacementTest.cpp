//===- PersonalisedPlacementTest.cpp - An alltoall rank's memory ----------===//
//
// ARCHITECTURE.md, "Personalised exchange": the executor never allocates
// the P x P matrix. Pairwise needs no work area; Bruck radix 2 at P = 2^n
// forwards P (n/2 - 1) + 1 distinct blocks (counted by hand: slot j's
// block takes popcount(j) + 1 names at a rank over the phases, P n/2 + P in
// all, less its row and its column, which share the diagonal). A program
// that writes into its own row gets the row copied into the work area.
//
//===----------------------------------------------------------------------===//

#include "Oracle.h"
#include "ThreadRun.h"

#include "compiler/algorithms/Algorithm.h"
#include "runtime/PersonalisedPlacement.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

namespace {

Plan compileAlltoall(const char *Family, uint32_t P,
                     std::map<std::string, std::string> Params = {}) {
  CompileRequest Req;
  Req.Kind = Collective::Alltoall;
  Req.Topo = Topology::flat(P);
  Req.Params = std::move(Params);
  llvm::Expected<Plan> Pl = compilePlan(*findAlgorithm(Family), Req);
  REQUIRE(bool(Pl));
  return std::move(*Pl);
}

} // namespace

TEST_CASE("pairwise needs no work area; Bruck only its forwarded blocks") {
  const uint64_t PerBlock = 3;
  Plan Pairwise = compileAlltoall("pairwise", 8);
  BlockLayout L8(Pairwise.Header, 64 * PerBlock);
  for (uint32_t R = 0; R < 8; ++R) {
    PersonalisedPlacement Place(Pairwise.Header, Pairwise.Programs[R], R, L8);
    CHECK(Place.workElements() == 0);
    // The diagonal only: from the send buffer's R-th run to the receive
    // buffer's.
    REQUIRE(Place.initialCopies().size() == 1);
    auto [From, To] = Place.initialCopies()[0];
    CHECK(From.In == Region::Input);
    CHECK(From.Offset == R * PerBlock);
    CHECK(To.In == Region::Output);
    CHECK(To.Offset == R * PerBlock);
  }
  for (uint32_t N : {2u, 4u, 6u}) {
    uint32_t P = 1u << N;
    CAPTURE(P);
    Plan Bruck = compileAlltoall("bruck", P, {{"radix", "2"}});
    BlockLayout L(Bruck.Header, uint64_t(P) * P * PerBlock);
    for (uint32_t R : {0u, P / 2 + 1}) {
      PersonalisedPlacement Place(Bruck.Header, Bruck.Programs[R], R, L);
      CHECK(Place.workElements() == (P * (N / 2.0 - 1) + 1) * PerBlock);
    }
  }
}

TEST_CASE("a program that writes into its own row runs from a copy") {
  // P = 2, one block per pair. Rank 0 copies its block for rank 1 into
  // scratch and back before sending it, so its row is written.
  Plan Pl;
  PlanHeader &H = Pl.Header;
  H.Kind = Collective::Alltoall;
  H.Ranks = 2;
  H.Topo = Topology::flat(2);
  H.Algorithm = "hand";
  H.Blocks = 4;
  H.Buffers = {"data", "scratch"};
  H.RequiresCommutative = false;
  Pl.Programs.resize(2);
  Pl.Programs[0].add(0, Op::local(0, 1, BlockSet::single(1), Combine::Replace));
  Pl.Programs[0].add(1, Op::local(1, 0, BlockSet::single(1), Combine::Replace));
  Pl.Programs[0].add(2, Op::send(1, BlockSet::single(1)));
  Pl.Programs[0].add(2, Op::recv(1, BlockSet::single(2), Combine::Replace));
  Pl.Programs[1].add(2, Op::send(0, BlockSet::single(2)));
  Pl.Programs[1].add(2, Op::recv(0, BlockSet::single(1), Combine::Replace));
  BlockLayout L(H, 8);
  PersonalisedPlacement Place(H, Pl.Programs[0], 0, L);
  // The row's block for rank 1 and its scratch copy: 2 + 2 elements.
  CHECK(Place.workElements() == 4);
  for (bool InPlace : {false, true})
    for (uint64_t Count : {4u, 8u, 9u}) {
      CAPTURE(Count);
      CHECK(runCase(Pl, {Datatype::Int32, ReduceOp::Sum, Count, InPlace}) ==
            "");
    }
}
