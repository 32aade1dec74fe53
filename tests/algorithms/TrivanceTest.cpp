//===- TrivanceTest.cpp - Trivance's peers, block sets and bytes ----------===//
//
// Oracles from the Trivance paper (Juerss, Addanki and Schmid, arXiv
// 2602.17254, 2026) and from its simulator (github.com/ajuerss/sst-trivance,
// sst-elements-library-11.1.0/src/sst/elements/ember/mpi/motifs/
// embertrivancecoll.cc), written out here by hand: the simulator's peer table
// (rank r meets r + 3^k and r - 3^k at step k; the dimensions of a torus take
// turns from dimension 0), its reachability rule for what a step sends (the
// blocks reachable from the receiving neighbour through the later steps, both
// ways) worked for p = 9, the byte counts its COMM lines print for powers of
// three (count / 3^(k+1) each way at step k) and for p = 8 (its README), the
// paper's round counts (log3 p) and bandwidth (n (p - 1) / p sent in all),
// the last step's distance and the fold for other sizes, and the verifier's
// identical-results verdict with the tuner's default.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/TrivanceTorus.h"
#include "compiler/select/Tuner.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <map>
#include <set>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// A ring of P ranks: the 1-D torus, whose nodes have the two ports
/// Trivance uses.
Topology ring(uint32_t P) {
  uint32_t Dims[] = {P};
  return Topology::torus(Dims, 1);
}

Plan trivancePlan(Collective Kind, const Topology &Topo,
                  const char *Variant = "bandwidth",
                  const char *Sizes = nullptr) {
  std::map<std::string, std::string> Params = {{"variant", Variant}};
  if (Sizes)
    Params["sizes"] = Sizes;
  return compileOn("trivance", Kind, Topo, Params);
}

/// The peers Rank sends to in round Index, in the order sent.
std::vector<uint32_t> sendPeers(const Plan &P, uint32_t Rank, uint32_t Index) {
  std::vector<uint32_t> Out;
  for (const Op &O : opsAt(P, Rank, Index))
    if (O.Kind == OpKind::Send)
      Out.push_back(O.Peer);
  return Out;
}

/// The blocks Rank sends to Peer in round Index.
std::set<uint64_t> sentTo(const Plan &P, uint32_t Rank, uint32_t Index,
                          uint32_t Peer) {
  std::set<uint64_t> Out;
  for (const Op &O : opsAt(P, Rank, Index))
    if (O.Kind == OpKind::Send && O.Peer == Peer)
      O.Blocks.forEachBlock([&](uint64_t B) { Out.insert(B); });
  return Out;
}

/// The largest number of blocks any rank sends to one peer in round Index.
uint64_t largestMessage(const Plan &P, uint32_t Index) {
  uint64_t Max = 0;
  for (uint32_t R = 0; R < P.Header.Ranks; ++R)
    for (const Op &O : opsAt(P, R, Index))
      if (O.Kind == OpKind::Send)
        Max = std::max(Max, O.Blocks.count());
  return Max;
}

uint64_t blocksSent(const Plan &P, uint32_t Rank) {
  uint64_t N = 0;
  for (const Round &Rd : P.Programs[Rank].Rounds)
    for (const Op &O : Rd.Ops)
      if (O.Kind == OpKind::Send)
        N += O.Blocks.count();
  return N;
}

} // namespace

TEST_CASE("the simulator's peer table: r + 3^k and r - 3^k at step k") {
  // p = 9: rank 4 meets 5 and 3, then 7 and 1. p = 27: rank 0 meets 1 and
  // 26, 3 and 24, 9 and 18.
  Plan P9 = trivancePlan(Collective::Allreduce, ring(9), "latency");
  CHECK(sendPeers(P9, 4, 0) == std::vector<uint32_t>{5, 3});
  CHECK(sendPeers(P9, 4, 1) == std::vector<uint32_t>{7, 1});
  Plan P27 = trivancePlan(Collective::Allreduce, ring(27), "latency");
  CHECK(sendPeers(P27, 0, 0) == std::vector<uint32_t>{1, 26});
  CHECK(sendPeers(P27, 0, 1) == std::vector<uint32_t>{3, 24});
  CHECK(sendPeers(P27, 0, 2) == std::vector<uint32_t>{9, 18});
  // Torus 3x9: dimension 0 (distance 1), then dimension 1 at distances 1
  // and 3. Rank 13 = (1, 4): (2, 4) = 22 and (0, 4) = 4; (1, 5) = 14 and
  // (1, 3) = 12; (1, 7) = 16 and (1, 1) = 10.
  Plan T = trivancePlan(Collective::Allreduce, Topology::torus({3, 9}, 1),
                        "latency");
  CHECK(sendPeers(T, 13, 0) == std::vector<uint32_t>{22, 4});
  CHECK(sendPeers(T, 13, 1) == std::vector<uint32_t>{14, 12});
  CHECK(sendPeers(T, 13, 2) == std::vector<uint32_t>{16, 10});
  expectCorrect(P9);
  expectCorrect(P27);
  expectCorrect(T);
}

TEST_CASE("reduce-scatter p = 9: the blocks reachable from each neighbour") {
  // The simulator's rule: at step 0 rank 0 sends rank 1 the blocks
  // reachable from 1 through step 1 (+-3): {1, 4, 7}; rank 8 likewise
  // {8, 2, 5}; it keeps {0, 3, 6}. At step 1 it sends {3} to 3 and {6} to 6.
  Plan P = trivancePlan(Collective::ReduceScatter, ring(9));
  CHECK(sentTo(P, 0, 0, 1) == std::set<uint64_t>{1, 4, 7});
  CHECK(sentTo(P, 0, 0, 8) == std::set<uint64_t>{2, 5, 8});
  CHECK(sentTo(P, 0, 1, 3) == std::set<uint64_t>{3});
  CHECK(sentTo(P, 0, 1, 6) == std::set<uint64_t>{6});
  // Rank 4: {5, 8, 2} to 5, {3, 6, 0} to 3; then {7} to 7 and {1} to 1.
  CHECK(sentTo(P, 4, 0, 5) == std::set<uint64_t>{2, 5, 8});
  CHECK(sentTo(P, 4, 0, 3) == std::set<uint64_t>{0, 3, 6});
  CHECK(sentTo(P, 4, 1, 7) == std::set<uint64_t>{7});
  CHECK(sentTo(P, 4, 1, 1) == std::set<uint64_t>{1});
  expectCorrect(P);
  // The allgather runs the same sets backwards.
  Plan A = trivancePlan(Collective::Allgather, ring(9));
  CHECK(sentTo(A, 0, 0, 3) == std::set<uint64_t>{0});
  CHECK(sentTo(A, 0, 1, 1) == std::set<uint64_t>{0, 3, 6});
  expectCorrect(A);
}

TEST_CASE("rounds and bytes per rank meet the paper's formulas") {
  // p = 3^L, n = p blocks. Latency: L rounds, the whole vector both ways.
  // Bandwidth: step k moves n / 3^(k+1) each way (the simulator's COMM
  // bytes), n (p - 1) / p sent by each rank in a reduce-scatter, twice that
  // in an allreduce.
  for (uint32_t L : {1u, 2u, 3u, 4u}) {
    uint32_t P = uint32_t(trivance::pow3(L));
    CAPTURE(P);
    Plan Lat = trivancePlan(Collective::Allreduce, ring(P), "latency");
    CHECK(roundCount(Lat) == L);
    for (uint32_t R = 0; R < P; ++R)
      CHECK(blocksSent(Lat, R) == 2 * L);
    Plan Bw = trivancePlan(Collective::Allreduce, ring(P));
    CHECK(roundCount(Bw) == 2 * L);
    for (uint32_t T = 0; T < L; ++T) {
      CHECK(largestMessage(Bw, T) == P / trivance::pow3(T + 1));
      CHECK(largestMessage(Bw, 2 * L - 1 - T) == P / trivance::pow3(T + 1));
    }
    for (uint32_t R = 0; R < P; ++R)
      CHECK(blocksSent(Bw, R) == 2 * (P - 1));
    for (Collective K : {Collective::ReduceScatter, Collective::Allgather}) {
      Plan Half = trivancePlan(K, ring(P));
      CHECK(roundCount(Half) == L);
      for (uint32_t R = 0; R < P; ++R)
        CHECK(blocksSent(Half, R) == P - 1);
    }
  }
}

TEST_CASE("allreduce messages are one interval each in the labels") {
  for (const Topology &Topo :
       {ring(81), Topology::torus({9, 9}, 1), Topology::torus({3, 9, 3}, 1)}) {
    CAPTURE(Topo.str());
    Plan P = trivancePlan(Collective::Allreduce, Topo);
    bool OneInterval = true;
    for (const Program &Prog : P.Programs)
      for (const Round &Rd : Prog.Rounds)
        for (const Op &O : Rd.Ops)
          OneInterval &= O.Blocks.ranges().size() == 1;
    CHECK(OneInterval);
    expectCorrect(P, /*Interpret=*/false);
  }
}

TEST_CASE("sizes=steps, p = 8: the simulator's distances 1 and 3, its bytes") {
  // The simulator's last step goes ceil((8 - 3) / 2) = 3 far, and its README
  // prints, for p = 8 and 512 floats (256 B a block), "COMM step=0 port=0
  // from=6 to=7 bytes=768" and "port=1 from=6 to=5 bytes=512": 3 blocks to
  // the + neighbour, 2 to the - one. By hand: S_1 = {0, 3, 5}; offsets 1, 4
  // and 6 reach it going +1 (4 either way: + while the + side has sent no
  // more), 2 and 7 going -1. So rank 6 sends blocks 7, 2 and 4 to rank 7 and
  // 0 and 5 to rank 5, then one block each way at distance 3.
  Plan P = trivancePlan(Collective::ReduceScatter, ring(8));
  CHECK(roundCount(P) == 2);
  CHECK(sentTo(P, 6, 0, 7) == std::set<uint64_t>{2, 4, 7});
  CHECK(sentTo(P, 6, 0, 5) == std::set<uint64_t>{0, 5});
  CHECK(sentTo(P, 6, 1, 1) == std::set<uint64_t>{1});
  CHECK(sentTo(P, 6, 1, 3) == std::set<uint64_t>{3});
  for (uint32_t R = 0; R < 8; ++R)
    CHECK(blocksSent(P, R) == 7);
  expectCorrect(P);
  // The allreduce: ceil(log3 p) steps each way, 2 (p - 1) blocks sent.
  for (uint32_t N : {2u, 4u, 8u, 10u, 26u, 28u, 100u}) {
    CAPTURE(N);
    Plan A = trivancePlan(Collective::Allreduce, ring(N));
    CHECK(roundCount(A) == 2 * trivance::log3Ceil(N));
    for (uint32_t R = 0; R < N; ++R)
      CHECK(blocksSent(A, R) == 2 * (N - 1));
    expectCorrect(A);
  }
}

TEST_CASE("sizes=fold: onto 3^floor(log3 d), two rounds per dimension") {
  // p = 8 onto 3: ranks 3 and 6 hand their vectors to 0, 4 and 7 to 1, 5 to
  // 2, in round 0; one ternary step; the results go back in round 2.
  Plan P = trivancePlan(Collective::Allreduce, ring(8), "latency");
  CHECK(P.Header.Params.at("sizes") == "fold");
  CHECK(roundCount(P) == 3);
  std::map<uint32_t, uint32_t> Core = {{3, 0}, {4, 1}, {5, 2}, {6, 0}, {7, 1}};
  for (auto [Folded, To] : Core) {
    CHECK(sendPeers(P, Folded, 0) == std::vector<uint32_t>{To});
    CHECK(activeRounds(P, Folded) == std::vector<uint32_t>{0, 2});
  }
  std::vector<uint32_t> Back = sendPeers(P, 0, 2);
  CHECK(std::set<uint32_t>(Back.begin(), Back.end()) ==
        std::set<uint32_t>{3, 6});
  expectCorrect(P);
  // Torus 4x8 onto 3x3: 2 + 2 fold rounds around 2 ternary steps each way.
  Plan T = trivancePlan(Collective::Allreduce, Topology::torus({4, 8}, 1),
                        "bandwidth", "fold");
  CHECK(roundCount(T) == 4 + 2 * 2);
  expectCorrect(T);
}

TEST_CASE("refusals: latency beyond allreduce and steps, fold beyond it") {
  auto Refusal = [](Collective Kind, const char *Variant, const char *Sizes) {
    CompileRequest Req =
        requestFor(Kind, ring(8), {{"variant", Variant}, {"sizes", Sizes}});
    llvm::Expected<Plan> R = compilePlan(algorithmNamed("trivance"), Req);
    REQUIRE_FALSE(R);
    return llvm::toString(R.takeError());
  };
  CHECK(Refusal(Collective::ReduceScatter, "bandwidth", "fold")
            .find("allreduce only") != std::string::npos);
  CHECK(Refusal(Collective::Allgather, "latency", "fold")
            .find("allreduce only") != std::string::npos);
  CHECK(Refusal(Collective::Allreduce, "latency", "steps").find("overlap") !=
        std::string::npos);
  // Past 2048 ranks the strided sets of sizes=steps are only built when
  // named: an allreduce folds by default, a reduce-scatter asks.
  const Algorithm &A = algorithmNamed("trivance");
  llvm::Expected<PlanHeader> Big = A.prepare(requestFor(
      Collective::Allreduce, ring(3000), {{"variant", "bandwidth"}}));
  REQUIRE(bool(Big));
  CHECK(Big->Params.at("sizes") == "fold");
  llvm::Expected<PlanHeader> Rs =
      A.prepare(requestFor(Collective::ReduceScatter, ring(3000)));
  REQUIRE_FALSE(Rs);
  CHECK(llvm::toString(Rs.takeError()).find("sizes=steps named") !=
        std::string::npos);
}

TEST_CASE("the verifier's identical-results verdict, and auto's default") {
  // Bandwidth: each block is reduced at one rank and gathered, the same bits
  // everywhere. Latency: rank r combines the windows around r, so at p = 9
  // rank 0 combines ({8, 0, 1}) with {2, 3, 4} and {5, 6, 7} where rank 4
  // combines ({3, 4, 5}) with {6, 7, 8} and {0, 1, 2}: different trees.
  VerifyResult Bw =
      verifyPlan(trivancePlan(Collective::Allreduce, ring(9), "bandwidth"));
  VerifyResult Lat =
      verifyPlan(trivancePlan(Collective::Allreduce, ring(9), "latency"));
  REQUIRE(Bw.Valid);
  REQUIRE(Lat.Valid);
  CHECK(Bw.IdenticalResults);
  CHECK_FALSE(Lat.IdenticalResults);
  // So a small allreduce, where the latency form is faster, takes it only
  // when rank-dependent rounding is allowed.
  const Algorithm *Only[] = {&algorithmNamed("trivance")};
  CompileRequest Req = requestFor(Collective::Allreduce, ring(27));
  Req.Bytes = 64;
  for (bool Allow : {false, true}) {
    Req.IdenticalResults = !Allow;
    llvm::Expected<Compilation> C = collplan::compile(Req, Only);
    REQUIRE(bool(C));
    CAPTURE(Allow);
    CHECK(C->best().Header.Params.at("variant") ==
          (Allow ? "latency" : "bandwidth"));
  }
}
