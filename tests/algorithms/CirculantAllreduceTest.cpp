//===- CirculantAllreduceTest.cpp - circulant's n-block allreduce ---------===//
//
// The reduce-broadcast allreduce (the n-block reduce to rank 0, the
// broadcast run backwards, then the broadcast; docs/algorithms/circulant.md,
// "Allreduce, n blocks") and what the reduce promises about operand order.
// Oracles: MPICH's printed p = 17 schedule (CirculantMpichTable.h) driven by
// MPICH's broadcast and reduce loops as restated below; the hand-worked
// p = 5, n = 4 broadcast table (CirculantRoundTables.h) run backwards, then
// forwards; the reference interpreter and the verifier; the closed forms of
// "Block count", evaluated by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "CirculantMpichTable.h"
#include "CirculantRoundTables.h"

#include "tests/support/PlanChecks.h"
#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace collplan;

namespace {

unsigned ceilLog2(uint64_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

Plan allreduce(uint32_t P, std::map<std::string, std::string> Params) {
  return test::compileWith(
      "circulant",
      test::requestFor(Collective::Allreduce, Topology::flat(P), Params));
}

/// One operation of one rank: (round, rank, kind, peer, block, combine).
using OpTuple = std::tuple<uint32_t, uint32_t, int, uint32_t, uint64_t, int>;

OpTuple sendOp(uint32_t Round, uint32_t Rank, uint32_t To, uint64_t Block) {
  return {Round, Rank, int(OpKind::Send), To, Block, 0};
}
OpTuple recvOp(uint32_t Round, uint32_t Rank, uint32_t From, uint64_t Block,
               Combine C) {
  return {Round, Rank, int(OpKind::Recv), From, Block, int(C)};
}

/// The plan's operations; each must move one block of the data buffer.
std::set<OpTuple> opsOf(const Plan &Pl) {
  std::set<OpTuple> Out;
  for (uint32_t R = 0; R < Pl.Header.Ranks; ++R)
    for (const Round &Rd : Pl.Programs[R].Rounds)
      for (const Op &O : Rd.Ops) {
        REQUIRE(O.Buffer == DataBuffer);
        REQUIRE(O.Blocks.count() == 1);
        uint64_t B = O.Blocks.ranges()[0].Begin;
        Out.insert(O.Kind == OpKind::Send
                       ? sendOp(Rd.Index, R, O.Peer, B)
                       : recvOp(Rd.Index, R, O.Peer, B, O.Mode));
      }
  return Out;
}

/// MPICH's broadcast from root 0 on the p = 17 table, and its reduce to
/// root 0 (the same table, its loop running the rounds backwards, sending
/// the receive entry and combining the send entry), then that broadcast:
/// the allreduce the circulant schedule gives. Restated from MPICH's loops
/// (bcast_intra_circ_graph.c, reduce_intra_circ_graph.c): x dummy rounds
/// make n - 1 + q + x a multiple of q, entries are shifted by a phase
/// offset, negative blocks move nothing, blocks past n - 1 are capped, and
/// nothing is sent to the root.
std::set<OpTuple> mpichAllreduce17(uint64_t N) {
  namespace M = collplan::test::mpich17;
  const int64_t Q = M::Q, P = M::P;
  const int64_t X = (Q - int64_t(N - 1) % Q) % Q;
  const int64_t Last = int64_t(N) + Q + X - 2; // the loops' last index
  const uint32_t Rounds = uint32_t(N - 1 + Q);
  auto Capped = [&](int64_t B) {
    return uint64_t(std::min<int64_t>(B, N - 1));
  };
  std::set<OpTuple> Out;
  // The reduce: MPICH counts i down from Last to X, its offset starting at
  // n - 1 and dropping by q after each k = 0.
  int64_t Offset = int64_t(N) - 1;
  for (int64_t I = Last; I >= X; --I) {
    int64_t K = I % Q;
    uint32_t Round = uint32_t(Last - I);
    for (int64_t R = 0; R < P; ++R) {
      int64_t Up = M::Recv[K][R] + Offset;
      if (Up >= 0 && R != 0)
        Out.insert(sendOp(Round, uint32_t(R),
                          uint32_t((R - int64_t(M::Skip[K]) + P) % P),
                          Capped(Up)));
      int64_t In = M::Send[K][R] + Offset;
      uint32_t Child = uint32_t((R + int64_t(M::Skip[K])) % P);
      if (In >= 0 && Child != 0)
        Out.insert(
            recvOp(Round, uint32_t(R), Child, Capped(In), Combine::Reduce));
    }
    if (K == 0)
      Offset -= Q;
  }
  // The broadcast: i counts up from X, offset (i div q) q - x.
  for (int64_t I = X; I <= Last; ++I) {
    int64_t K = I % Q, Off = I / Q * Q - X;
    uint32_t Round = Rounds + uint32_t(I - X);
    for (int64_t R = 0; R < P; ++R) {
      int64_t Out1 = M::Send[K][R] + Off;
      uint32_t To = uint32_t((R + int64_t(M::Skip[K])) % P);
      if (Out1 >= 0 && To != 0)
        Out.insert(sendOp(Round, uint32_t(R), To, Capped(Out1)));
      int64_t In = M::Recv[K][R] + Off;
      if (In >= 0 && R != 0)
        Out.insert(recvOp(Round, uint32_t(R),
                          uint32_t((R - int64_t(M::Skip[K]) + P) % P),
                          Capped(In), Combine::Replace));
    }
  }
  return Out;
}

} // namespace

TEST_CASE("the p = 17 allreduce is MPICH's reduce loop, then its broadcast "
          "loop, on MPICH's printed schedule") {
  for (uint64_t N : {1, 2, 4, 5, 6, 9, 11, 23}) {
    CAPTURE(N);
    Plan Pl = allreduce(
        17, {{"variant", "reduce-broadcast"}, {"blocks", std::to_string(N)}});
    CHECK(Pl.Header.Blocks == N);
    std::set<OpTuple> Expected = mpichAllreduce17(N);
    // The 16 non-root ranks each receive every block once in the broadcast
    // and send it once in the reduce, and every receive has its send.
    REQUIRE(Expected.size() == 4 * 16 * N);
    std::set<OpTuple> Got = opsOf(Pl);
    CHECK(Got.size() == Expected.size());
    std::vector<OpTuple> Missing, Extra;
    std::set_difference(Expected.begin(), Expected.end(), Got.begin(),
                        Got.end(), std::back_inserter(Missing));
    std::set_difference(Got.begin(), Got.end(), Expected.begin(),
                        Expected.end(), std::back_inserter(Extra));
    CHECK(Missing.empty());
    CHECK(Extra.empty());
  }
}

TEST_CASE("the p = 5, n = 4 allreduce is the hand-worked broadcast table "
          "run backwards, then forwards") {
  using namespace collplan::test::circulant_tables;
  auto Table = parseRoundTable(RoundTables[0]);
  const uint32_t Rounds = uint32_t(Table.size()); // n - 1 + q = 6
  REQUIRE(Rounds == 6);
  std::set<OpTuple> Expected;
  for (uint32_t T = 0; T < Rounds; ++T)
    for (uint32_t R = 0; R < 5; ++R) {
      const Cell &C = Table[T][R];
      uint32_t Back = Rounds - 1 - T;
      if (C.RecvBlock >= 0) {
        // Received b from f: the reduce sends its partial of b to f.
        Expected.insert(sendOp(Back, R, uint32_t(C.From), C.RecvBlock));
        Expected.insert(recvOp(Rounds + T, R, uint32_t(C.From), C.RecvBlock,
                               Combine::Replace));
      }
      if (C.SendBlock >= 0) {
        // Sent b to t: the reduce combines t's partial of b.
        Expected.insert(
            recvOp(Back, R, uint32_t(C.To), C.SendBlock, Combine::Reduce));
        Expected.insert(sendOp(Rounds + T, R, uint32_t(C.To), C.SendBlock));
      }
    }
  Plan Pl = allreduce(5, {{"variant", "reduce-broadcast"}, {"blocks", "4"}});
  CHECK(opsOf(Pl) == Expected);
}

TEST_CASE("simulated reduce-broadcast allreduce, P <= 64: every rank holds "
          "every contribution once, in 2(n - 1 + q) rounds, one-ported, with "
          "the same bits everywhere") {
  for (uint32_t P = 1; P <= 64; ++P) {
    unsigned Q = ceilLog2(P);
    for (uint64_t N :
         {uint64_t(1), uint64_t(2), uint64_t(Q + 1), uint64_t(7)}) {
      CAPTURE(P);
      CAPTURE(N);
      Plan Pl = allreduce(
          P, {{"variant", "reduce-broadcast"}, {"blocks", std::to_string(N)}});
      test::ReferenceInterpreter Interpreter(Pl);
      const test::Interpretation &Run = Interpreter.run();
      for (const std::string &E : Run.problems())
        FAIL_CHECK(E);
      CHECK(Run.RoundSpan == (P == 1 ? 0 : 2 * (N - 1 + Q)));
      // One send and one receive per rank and round, one block each.
      CHECK(Run.MaxOpsPerRound <= 2);
      CHECK(Run.MaxMessageWeight <= 1);
      VerifyResult V = verifyPlan(Pl);
      CHECK(V.Valid);
      // Rank 0 combines each block once; the others take its bits.
      CHECK(V.IdenticalResults);
    }
  }
}

TEST_CASE("bytes per rank: each rank sends and receives at most one block "
          "a round, and every non-root rank sends each block once in the "
          "reduce and receives it once in the broadcast") {
  for (uint32_t P : {5u, 17u, 64u, 100u})
    for (uint64_t N : {3u, 8u}) {
      CAPTURE(P);
      CAPTURE(N);
      Plan Pl = allreduce(
          P, {{"variant", "reduce-broadcast"}, {"blocks", std::to_string(N)}});
      uint32_t Half = uint32_t(N - 1 + ceilLog2(P));
      for (uint32_t R = 1; R < P; ++R) {
        std::vector<int> Up(N, 0), Down(N, 0);
        for (const Round &Rd : Pl.Programs[R].Rounds)
          for (const Op &O : Rd.Ops) {
            uint64_t B = O.Blocks.ranges()[0].Begin;
            if (Rd.Index < Half && O.Kind == OpKind::Send)
              ++Up[B];
            if (Rd.Index >= Half && O.Kind == OpKind::Recv)
              ++Down[B];
          }
        CHECK(Up == std::vector<int>(N, 1));
        CHECK(Down == std::vector<int>(N, 1));
      }
    }
}

TEST_CASE("block count and variant follow the closed forms") {
  CompileRequest Req =
      test::requestFor(Collective::Allreduce, Topology::flat(36));
  Req.Bytes = 1048576;
  Req.Cost.Alpha = 2e-6;
  Req.Cost.Beta = 1e-10;
  Req.Cost.Gamma = 2e-11;
  // Rounds of 2 alpha + (2 beta + gamma) m / n: n* = sqrt(5 * 2.2e-10 *
  // 1048576 / 4e-6) = 16.98; T(16) = 21 (4e-6 + 2.2e-10 * 65536) = 386.78 us
  // > T(17) = 22 (4e-6 + 2.2e-10 * 61680.9) = 386.54 us. The census, 6
  // rounds of alpha + 1.2e-10 * m and a final 2e-11 * m: 787.9 us in the
  // printed order, more in one tree.
  const Algorithm &C = test::algorithmNamed("circulant");
  llvm::Expected<PlanHeader> H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("variant") == "reduce-broadcast");
  CHECK(H->Blocks == 17);
  CHECK(H->Params.at("blocks") == "17");
  // 64 bytes: the census, in one tree 6 rounds carrying 1, 1, 2, 3, 4 and 7
  // vectors (order=identical, the default): 6 * 2e-6 + 18 * 1.2e-10 * 64 =
  // 12.14 us, beats the reduce-broadcast's 2q rounds at n = 1,
  // 6 (4e-6 + 2.2e-10 * 64) = 24.08 us.
  Req.Bytes = 64;
  H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("variant") == "census");
  CHECK(H->Params.at("order") == "identical");
  CHECK(H->Blocks == 1);
  // n* = sqrt(5 * 2.2e-10 * 64 / 4e-6) = 0.13: both neighbours are n = 1.
  // The census comes in both orders.
  auto Small = C.candidates(Req);
  REQUIRE(Small.size() == 3);
  CHECK(Small[0].at("variant") == "census");
  CHECK(Small[0].at("order") == "identical");
  CHECK(Small[1].at("variant") == "census");
  CHECK(Small[1].at("order") == "rank-dependent");
  CHECK(Small[2].at("blocks") == "1");
  CHECK(Small[2].at("variant") == "reduce-broadcast");
  // The tuner prices both variants and both neighbours of n*.
  Req.Bytes = 1048576;
  auto Candidates = C.candidates(Req);
  CHECK(Candidates.size() == 4);
  CHECK(Candidates[0].at("variant") == "census");
  CHECK(Candidates[2].at("blocks") == "16");
  CHECK(Candidates[3].at("blocks") == "17");
  Req.Params = {{"variant", "census"}};
  CHECK(C.candidates(Req).size() == 2);
  Req.Params = {{"variant", "census"}, {"order", "identical"}};
  CHECK(C.candidates(Req).size() == 1);
  // blocks alone asks for the reduce-broadcast.
  Req.Params = {{"blocks", "5"}};
  H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("variant") == "reduce-broadcast");
}

TEST_CASE("the tuned block count keeps the plan within its operation "
          "budget") {
  CompileRequest Req =
      test::requestFor(Collective::Allreduce, Topology::flat(16384));
  Req.Cost.Alpha = 2e-6;
  Req.Cost.Beta = 1e-10;
  Req.Cost.Gamma = 2e-11;
  const Algorithm &C = test::algorithmNamed("circulant");
  // 8 MiB: n* = sqrt(13 * 2.2e-10 * 8388608 / 4e-6) = 77.4 and T(77) =
  // 90 (4e-6 + 2.2e-10 * 108943.0) = 2.5170 ms < T(78) = 91 (4e-6 +
  // 2.2e-10 * 107546.3) = 2.5171 ms: below the budget, n = 77.
  Req.Bytes = uint64_t(8) << 20;
  llvm::Expected<PlanHeader> H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("blocks") == "77");
  // 256 MiB: n* = 438, but 12 * 2^20 operations of 2 * 16384 a round, in
  // two halves, allow 192 rounds a half, n - 1 + 14 <= 192: n = 179, the
  // only candidate besides the census.
  Req.Bytes = uint64_t(256) << 20;
  H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Params.at("blocks") == "179");
  auto Candidates = C.candidates(Req);
  REQUIRE(Candidates.size() == 2);
  CHECK(Candidates[1].at("blocks") == "179");
  // The budget is the tuner's: n may still be asked for.
  Req.Params = {{"blocks", "438"}};
  H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Blocks == 438);
  // A broadcast's rounds are one half: n - 1 + 14 <= 384, n = 371 for
  // n* = sqrt(13 * 1e-10 * 2^30 / 2e-6) = 835 at 1 GiB.
  CostParams Cost = Req.Cost;
  Req = test::requestFor(Collective::Broadcast, Topology::flat(16384));
  Req.Cost = Cost;
  Req.Root = 0;
  Req.Bytes = uint64_t(1) << 30;
  H = C.prepare(Req);
  REQUIRE(bool(H));
  CHECK(H->Blocks == 371);
}

TEST_CASE("rank order is kept only on two ranks with the root at 0; "
          "otherwise a non-commutative operator is refused") {
  const Algorithm &C = test::algorithmNamed("circulant");
  // The verifier's rank-order check (a plan that claims not to need
  // commutativity) rejects every reduce and allreduce tree of P >= 3.
  for (uint32_t P = 2; P <= 40; ++P)
    for (Collective Kind : {Collective::Reduce, Collective::Allreduce})
      for (uint32_t Root : {0u, P - 1})
        for (uint64_t N : {1u, 4u}) {
          if (Kind == Collective::Allreduce && Root != 0)
            continue;
          CAPTURE(P);
          CAPTURE(collectiveName(Kind).str());
          CAPTURE(Root);
          CAPTURE(N);
          std::map<std::string, std::string> Params = {
              {"blocks", std::to_string(N)}};
          CompileRequest Req = test::requestFor(
              Kind, Topology::flat(P), Params,
              Kind == Collective::Reduce ? std::optional<uint32_t>(Root)
                                         : std::nullopt);
          Plan Pl = test::compileWith(C, Req);
          bool Ordered = P <= 2 && Root == 0;
          CHECK(Pl.Header.RequiresCommutative == !Ordered);
          Pl.Header.RequiresCommutative = false;
          CHECK(verifyPlan(Pl).Valid == Ordered);
          Req.CommutativeOperator = false;
          llvm::Expected<Plan> Refused = compilePlan(C, Req);
          CHECK(bool(Refused) == Ordered);
          if (!Refused) {
            std::string E = llvm::toString(Refused.takeError());
            CHECK(E.find("needs a commutative operator") != std::string::npos);
          }
        }
}

TEST_CASE("bad allreduce parameters name what is wrong") {
  const Algorithm &C = test::algorithmNamed("circulant");
  auto Refusal = [&](Collective Kind,
                     std::map<std::string, std::string> Params) {
    CompileRequest Req = test::requestFor(Kind, Topology::flat(8), Params);
    llvm::Expected<Plan> Pl = compilePlan(C, Req);
    REQUIRE(!Pl);
    return llvm::toString(Pl.takeError());
  };
  CHECK(Refusal(Collective::Allreduce, {{"variant", "census"}, {"blocks", "4"}})
            .find("variant=reduce-broadcast only") != std::string::npos);
  CHECK(Refusal(Collective::Allreduce, {{"variant", "ring"}}).find("variant") !=
        std::string::npos);
  CHECK(Refusal(Collective::Broadcast, {{"variant", "census"}})
            .find("applies to allreduce only") != std::string::npos);
  CHECK(Refusal(Collective::Allreduce,
                {{"variant", "reduce-broadcast"}, {"blocks", "0"}})
            .find("blocks") != std::string::npos);
}
