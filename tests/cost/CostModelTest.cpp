// The critical-path cost model against closed forms derived by hand.

#include "compiler/cost/CostModel.h"
#include "compiler/algorithms/Algorithm.h"
#include "tests/support/PlanFactory.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

using namespace collplan;

static Plan ringPlan(Collective Kind, uint32_t P) {
  return test::compileFlat("ring", Kind, P);
}

TEST_CASE("ring allreduce costs 2(P-1)(alpha + beta m/P) + (P-1) gamma m/P") {
  CostParams C;
  C.Alpha = 1e-6;
  C.Beta = 1e-9;
  C.Gamma = 1e-10;
  for (uint32_t P : {2u, 3u, 5u, 8u, 13u}) {
    uint64_t M = 1000 * P; // divisible, so every block is m/P bytes
    CostReport R = evaluateCost(ringPlan(Collective::Allreduce, P), M, C);
    double Block = double(M) / P;
    double Expected =
        2 * (P - 1) * (C.Alpha + C.Beta * Block) + (P - 1) * C.Gamma * Block;
    CHECK(R.Time == doctest::Approx(Expected).epsilon(1e-12));
    CHECK(R.Rounds.size() == 2 * (P - 1));
    CHECK(R.MaxBytesSent == doctest::Approx(2.0 * (P - 1) * Block));
    CHECK(R.MeanBytesRecv == doctest::Approx(2.0 * (P - 1) * Block));
    CHECK(R.Time >= R.LowerBound);
  }
}

TEST_CASE("alltoall's bandwidth deficiency is per rank's row") {
  // Pairwise at P = 4 sends one block of the row (n/4 bytes) in each of its
  // 3 rounds: W = 3n/4, so Psi = 3/4, whatever P times n the matrix is.
  for (const char *Family : {"pairwise", "bruck"}) {
    CAPTURE(Family);
    uint64_t Row = 4000, M = 4 * Row;
    CostReport R = evaluateCost(
        test::compileFlat(Family, Collective::Alltoall, 4), M, CostParams{});
    // Bruck (radix 2) sends half a row in each of its 2 rounds: Psi = 1.
    CHECK(R.BandwidthDeficiency ==
          doctest::Approx(std::string(Family) == "pairwise" ? 0.75 : 1.0));
  }
}

TEST_CASE("lower bounds per collective") {
  CostParams C;
  C.Alpha = 1;
  C.Beta = 1;
  // ceil(log2 7) = 3.
  CHECK(lowerBound(Collective::Allreduce, 7, 7, C) ==
        doctest::Approx(3 + 2.0 * 6 / 7 * 7));
  CHECK(lowerBound(Collective::Allgather, 7, 7, C) == doctest::Approx(3 + 6));
  CHECK(lowerBound(Collective::Broadcast, 8, 10, C) == doctest::Approx(13));
  CHECK(lowerBound(Collective::Allreduce, 1, 100, C) == 0);
}

TEST_CASE("lower bounds on a topology count the links a rank can use") {
  CostParams C;
  C.Alpha = 1;
  C.Beta = 1;
  // Flat, one rank per node: the classic bandwidth term, one latency (a
  // rank's messages of a round overlap theirs).
  CHECK(lowerBound(Collective::Allreduce, Topology::flat(7), 7, C) ==
        doctest::Approx(1 + 2.0 * 6 / 7 * 7));
  // A 4x4 torus: 4 links per node; an 8x2 torus: 2 + 1.
  CHECK(lowerBound(Collective::Allreduce, Topology::torus({4, 4}, 1), 16, C) ==
        doctest::Approx(1 + 2.0 * 15 / 16 * 16 / 4));
  CHECK(lowerBound(Collective::Allgather, Topology::torus({8, 2}, 1), 16, C) ==
        doctest::Approx(1 + 15.0 / 16 * 16 / 3));
  // Nodes of 4 ranks with cheaper intra-node links: alpha_intra, and bytes
  // over the network link and the node's memory at once.
  C.AlphaIntra = 0.25;
  C.BetaIntra = 0.5;
  CHECK(lowerBound(Collective::Allreduce, Topology::nodes(2, 4), 8, C) ==
        doctest::Approx(0.25 + 2.0 * 7 / 8 * 8 / (1 + 2)));
  // One node: only memory.
  CHECK(lowerBound(Collective::Allreduce, Topology::nodes(1, 4), 8, C) ==
        doctest::Approx(0.25 + 2.0 * 3 / 4 * 8 * 0.5));
}

TEST_CASE("no plan is predicted faster than the bound of its topology") {
  CostParams C;
  C.AlphaIntra = 1e-7;
  C.BetaIntra = 1e-11;
  struct Case {
    const char *Family;
    Topology Topo;
    std::map<std::string, std::string> Params;
  } Cases[] = {
      {"swing", Topology::torus({4, 4}, 1), {{"ports", "all"}}},
      {"swing", Topology::torus({8, 8}, 1), {{"ports", "all"}}},
      {"swing", Topology::torus({4, 4, 4}, 1), {{"ports", "all"}}},
      {"bucket", Topology::torus({8, 8}, 1), {{"ports", "all"}}},
      {"bucket", Topology::torus({8, 2}, 1), {{"ports", "all"}}},
      {"nap", Topology::nodes(16, 4), {}},
      {"smp", Topology::nodes(8, 8), {}},
      {"rabenseifner", Topology::nodes(4, 8), {}},
      {"ring", Topology::torus({4, 4}, 4), {}},
      // Several messages a rank a round off a torus: they share its port
      // (swing ports=all on flat:64 was priced 148 us against a 218 us
      // bound at 1 MiB before they did).
      {"swing", Topology::flat(64), {{"ports", "all"}}},
      {"bucket", Topology::flat(16), {{"ports", "all"}}},
  };
  for (const Case &K : Cases)
    for (uint64_t Bytes : {uint64_t(64), uint64_t(1) << 24}) {
      CompileRequest Req;
      Req.Topo = K.Topo;
      Req.Params = K.Params;
      llvm::Expected<Plan> P = compilePlan(*findAlgorithm(K.Family), Req);
      REQUIRE(bool(P));
      CostReport R = evaluateCost(*P, Bytes, C);
      INFO(K.Family, " on ", K.Topo.str(), " ppn ", K.Topo.ranksPerNode(), ", ",
           Bytes, " B");
      CHECK(R.Time >= R.LowerBound);
    }
}

TEST_CASE("no alltoall plan is predicted faster than the bound") {
  CostParams C;
  C.AlphaIntra = 1e-7;
  C.BetaIntra = 1e-11;
  C.InjectionBandwidth = 5e9;
  const Topology Topos[] = {Topology::flat(12), Topology::nodes(3, 4),
                            Topology::nodes(1, 6), Topology::torus({4, 4}, 1),
                            Topology::torus({3, 3}, 2)};
  for (const Topology &T : Topos)
    for (const char *Radix : {"2", "4", "P"}) {
      std::string K = Radix[0] == 'P' ? std::to_string(T.ranks()) : Radix;
      CompileRequest Req;
      Req.Kind = Collective::Alltoall;
      Req.Topo = T;
      Req.Params = {{"radix", K}, {"ports", "all"}};
      llvm::Expected<Plan> P = compilePlan(*findAlgorithm("bruck"), Req);
      REQUIRE(bool(P));
      for (uint64_t Pair : {uint64_t(4), uint64_t(1) << 20}) {
        uint64_t Bytes = Pair * T.ranks() * T.ranks();
        CostReport R = evaluateCost(*P, Bytes, C);
        INFO("bruck radix ", K, " on ", T.str(), ", ", Pair, " B a pair");
        CHECK(R.Time >= R.LowerBound * (1 - 1e-12));
      }
    }
}

TEST_CASE("a late sender delays its receiver: the time is a critical path") {
  // Hand-built: rank 0 is busy in round 0 with a big message to rank 1;
  // rank 2 waits for rank 0 in round 1.
  Plan P;
  P.Header.Kind = Collective::Broadcast;
  P.Header.Ranks = 3;
  P.Header.Topo = Topology::flat(3);
  P.Header.Root = 0;
  P.Header.Blocks = 2;
  P.Header.Weights = {9, 1};
  P.Programs.resize(3);
  P.Programs[0].add(0, Op::send(1, BlockSet::single(0)));
  P.Programs[1].add(0, Op::recv(0, BlockSet::single(0), Combine::Replace));
  P.Programs[0].add(1, Op::send(2, BlockSet::single(1)));
  P.Programs[2].add(1, Op::recv(0, BlockSet::single(1), Combine::Replace));
  CostParams C;
  C.Alpha = 1;
  C.Beta = 0.5;
  C.Gamma = 0;
  // Nothing writes blocks 0 and 1 after they are sent, so both of rank 0's
  // sends may linger: it posts them at once, and they share its port
  // (docs/cost-model.md, "A rank's port"): both arrive at 1 + 0.5 * 10.
  CostReport Lingering = evaluateCost(P, 10, C);
  CHECK(Lingering.Time == doctest::Approx(6.0));
  // Rank 1 sends block 0 back in round 2, so the round-0 send cannot
  // linger: rank 0 is busy until it arrives, 1 + 0.5 * 9 = 5.5; round 1
  // starts at 5.5 and ends at 5.5 + 1 + 0.5 * 1 = 7; round 2 leaves at 5.5
  // (rank 0 does not wait for its lingering round-1 send) and arrives at
  // 5.5 + 1 + 0.5 * 9 = 11.
  P.Programs[1].add(2, Op::send(0, BlockSet::single(0)));
  P.Programs[0].add(2, Op::recv(1, BlockSet::single(0), Combine::Replace));
  CostReport R = evaluateCost(P, 10, C);
  REQUIRE(R.Rounds.size() == 3);
  CHECK(R.Rounds[0].Finish == doctest::Approx(5.5));
  CHECK(R.Rounds[1].Finish == doctest::Approx(7.0));
  CHECK(R.Time == doctest::Approx(11.0));
}

TEST_CASE("intra-node parameters apply to messages within a node") {
  Plan P = ringPlan(Collective::Allgather, 4);
  P.Header.Topo = Topology::nodes(2, 2);
  CostParams C;
  C.Alpha = 10;
  C.Beta = 0;
  C.Gamma = 0;
  C.AlphaIntra = 1;
  // Every ring step has an inter-node message, so each of the 3 rounds
  // costs the inter-node alpha.
  CHECK(evaluateCost(P, 4, C).Time == doctest::Approx(30.0));
  P.Header.Topo = Topology::nodes(1, 4);
  CHECK(evaluateCost(P, 4, C).Time == doctest::Approx(3.0));
}

TEST_CASE("blocks hold whole elements; an empty transfer costs nothing") {
  CostParams C;
  C.Alpha = 1e-6;
  C.Beta = 1e-9;
  C.Gamma = 0;
  // Four rounds of one message each along a chain of ranks, one block.
  Plan Chain;
  Chain.Header.Kind = Collective::Allreduce;
  Chain.Header.Ranks = 5;
  Chain.Header.Topo = Topology::flat(5);
  Chain.Header.Blocks = 1;
  Chain.Programs.resize(5);
  for (uint32_t K = 0; K < 4; ++K) {
    Chain.Programs[K].add(K, Op::send(K + 1, BlockSet::single(0)));
    Chain.Programs[K + 1].add(
        K, Op::recv(K, BlockSet::single(0), Combine::Replace));
  }
  // 8 bytes of 4-byte elements: two elements, 8 bytes a message.
  C.ElementBytes = 4;
  CHECK(evaluateCost(Chain, 8, C).Time ==
        doctest::Approx(4 * (C.Alpha + 8 * C.Beta)));
  // 2 bytes of 4-byte elements: no element, nothing is sent.
  CHECK(evaluateCost(Chain, 2, C).Time == 0);
  // 2 bytes priced as bytes (the default): two bytes a message.
  C.ElementBytes = 1;
  CHECK(evaluateCost(Chain, 2, C).Time ==
        doctest::Approx(4 * (C.Alpha + 2 * C.Beta)));
  // Ring allreduce of P = 4 on one float: only block 3 holds an element.
  // Its reduce-scatter goes 3 -> 0 -> 1 -> 2 and its allgather 2 -> 3 ->
  // 0 -> 1: one chain of six 4-byte messages, every other transfer empty.
  C.ElementBytes = 4;
  CompileRequest Req;
  Req.Topo = Topology::flat(4);
  llvm::Expected<Plan> Ring = compilePlan(*findAlgorithm("ring"), Req);
  REQUIRE(bool(Ring));
  CHECK(evaluateCost(*Ring, 4, C).Time ==
        doctest::Approx(6 * (C.Alpha + 4 * C.Beta)));
}
