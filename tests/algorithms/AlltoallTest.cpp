//===- AlltoallTest.cpp - The personalised exchange and its families ------===//
//
// The contract's P x P matrix (ARCHITECTURE.md, "Personalised exchange"),
// the worked examples of the pairwise exchange and Bruck's index algorithm
// (Thakur, Rabenseifner and Gropp 2005, §3.5; Bruck et al. 1997, §3) written
// out by hand, and the verifier's refusals of plans that lose a block or
// deliver one twice.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"
#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

using namespace collplan;
using namespace collplan::test;

namespace {

/// The one send and one receive of Rank in round Index, as (peer, blocks).
struct Exchange {
  uint32_t To = 0, From = 0;
  std::string Sent, Received;
};

Exchange exchangeAt(const Plan &P, uint32_t Rank, uint32_t Index) {
  Exchange X;
  for (const Op &O : opsAt(P, Rank, Index)) {
    if (O.Kind == OpKind::Send) {
      X.To = O.Peer;
      X.Sent = O.Blocks.str();
    } else if (O.Kind == OpKind::Recv) {
      X.From = O.Peer;
      X.Received = O.Blocks.str();
    }
  }
  return X;
}

/// The first diagnostic of the verifier, or "".
std::string firstError(const Plan &P) {
  VerifyResult V = verifyPlan(P);
  return V.Errors.empty() ? "" : V.Errors.front().str();
}

} // namespace

TEST_CASE("alltoall's contract: a rank sends its row, receives its column") {
  PlanHeader H;
  H.Kind = Collective::Alltoall;
  H.Ranks = 3;
  H.Blocks = 9;
  CHECK(H.inputBlocks(1).str() == "3-5");
  CHECK(H.outputBlocks(1).str() == "1,4,7");
  CHECK(H.contributorOf(7) == 2);
  CHECK(H.addresseeOf(7) == 1);
  // Two blocks per pair: rank 2 receives [4,6), [10,12), [16,18).
  H.Blocks = 18;
  CHECK(H.outputBlocks(2).str() == "4-5,10-11,16-17");
  CHECK(H.addresseeOf(11) == 2);
  CHECK(isPersonalised(Collective::Alltoallv));
  CHECK_FALSE(isPersonalised(Collective::Allgather));
  // Each rank must send (P-1)/P of its row, which is 1/P of the matrix.
  CHECK(contractOf(Collective::Alltoall).bandwidthShare(4) ==
        doctest::Approx(3.0 / 16));
  CostParams C;
  CHECK(lowerBound(Collective::Alltoall, 4, 1 << 20, C) ==
        doctest::Approx(2 * C.Alpha + 3.0 / 16 * (1 << 20) * C.Beta));
  // A block count that is not a multiple of P^2 is malformed.
  Plan Bad;
  Bad.Header = H;
  Bad.Header.Blocks = 6;
  Bad.Programs.resize(3);
  CHECK_FALSE(checkStructure(Bad).empty());
}

TEST_CASE("pairwise at P = 4 pairs rank r with r XOR k in round k") {
  Plan P = compileFlat("pairwise", Collective::Alltoall, 4);
  CHECK(P.Header.Params.at("pairing") == "xor");
  // Rank 2: partners 3, 0, 1; it sends (2, partner) and receives
  // (partner, 2), blocks 2*4 + partner and partner*4 + 2.
  const char *Want[][3] = {{"3", "11", "14"}, {"0", "8", "2"}, {"1", "9", "6"}};
  for (uint32_t K = 0; K < 3; ++K) {
    Exchange X = exchangeAt(P, 2, K);
    CHECK(std::to_string(X.To) == Want[K][0]);
    CHECK(X.From == X.To);
    CHECK(X.Sent == Want[K][1]);
    CHECK(X.Received == Want[K][2]);
  }
  expectCorrect(P);
}

TEST_CASE("pairwise at P = 5 sends to r + k and receives from r - k") {
  Plan P = compileFlat("pairwise", Collective::Alltoall, 5);
  CHECK(P.Header.Params.at("pairing") == "shift");
  // Rank 0, round k - 1: to k its block (0, k) = k; from 5 - k its block
  // (5 - k, 0) = 5 (5 - k).
  for (uint32_t K = 1; K < 5; ++K) {
    Exchange X = exchangeAt(P, 0, K - 1);
    CHECK(X.To == K);
    CHECK(X.From == 5 - K);
    CHECK(X.Sent == std::to_string(K));
    CHECK(X.Received == std::to_string(5 * (5 - K)));
  }
  expectCorrect(P);
  // XOR partners need a power of two.
  CompileRequest Req =
      requestFor(Collective::Alltoall, Topology::flat(6), {{"pairing", "xor"}});
  llvm::Expected<Plan> Refused = compilePlan(algorithmNamed("pairwise"), Req);
  REQUIRE_FALSE(Refused);
  CHECK(llvm::toString(Refused.takeError()).find("power-of-two") !=
        std::string::npos);
}

// Bruck et al. §3, P = 4, radix 2, as rank 0 sees it. After the rotation
// its slot j holds (0, j). Phase 0 sends the odd slots to rank 1: (0, 1)
// and (0, 3), blocks 1 and 3; rank 3 sends it its odd slots, (3, 0) and
// (3, 2), blocks 12 and 14, which land in slots 1 and 3. Phase 1 sends
// slots 2 and 3 to rank 2: (0, 2) = 2 and what slot 3 now holds, (3, 2) =
// 14; rank 2 sends its slot 2, (2, 0) = 8, and its slot 3, which came from
// rank 1 in phase 0, (1, 0) = 4. Rank 0 then holds (j, 0) for every j.
TEST_CASE("bruck at P = 4 follows the paper's worked exchange") {
  Plan P = compileOn("bruck", Collective::Alltoall, Topology::flat(4),
                     {{"radix", "2"}});
  Exchange X0 = exchangeAt(P, 0, 0), X1 = exchangeAt(P, 0, 1);
  CHECK(X0.To == 1);
  CHECK(X0.From == 3);
  CHECK(X0.Sent == "1,3");
  CHECK(X0.Received == "12,14");
  CHECK(X1.To == 2);
  CHECK(X1.From == 2);
  CHECK(X1.Sent == "2,14");
  CHECK(X1.Received == "4,8");
  CHECK(P.Programs[0].Rounds.size() == 2);
  expectCorrect(P);
}

TEST_CASE("bruck radix 3 at P = 9: digits 1 and 2 of each phase") {
  Plan One = compileOn("bruck", Collective::Alltoall, Topology::flat(9),
                       {{"radix", "3"}, {"ports", "1"}});
  Plan All = compileOn("bruck", Collective::Alltoall, Topology::flat(9),
                       {{"radix", "3"}, {"ports", "all"}});
  // Phase 0 sends slots with digit 0 equal to 1 (j = 1, 4, 7) to r + 1 and
  // those equal to 2 (j = 2, 5, 8) to r + 2; phase 1 to r + 3 and r + 6.
  CHECK(One.Programs[0].Rounds.size() == 4);
  CHECK(All.Programs[0].Rounds.size() == 2);
  CHECK(exchangeAt(One, 0, 0).To == 1);
  CHECK(exchangeAt(One, 0, 0).Sent == "1,4,7");
  CHECK(exchangeAt(One, 0, 1).To == 2);
  CHECK(exchangeAt(One, 0, 1).Sent == "2,5,8");
  CHECK(exchangeAt(One, 0, 2).To == 3);
  CHECK(exchangeAt(One, 0, 3).To == 6);
  CHECK(opsAt(All, 0, 0).size() == 4);
  expectCorrect(One);
  expectCorrect(All);
}

TEST_CASE("bruck radix P with all ports is the direct exchange") {
  Plan P = compileOn("bruck", Collective::Alltoall, Topology::flat(6),
                     {{"radix", "6"}, {"ports", "all"}});
  REQUIRE(P.Programs[3].Rounds.size() == 1);
  CHECK(P.Programs[3].Rounds[0].Ops.size() == 10);
  expectCorrect(P);
}

// On a 3x3 torus (rank = 3 x + y), rank 0 first exchanges along x with
// ranks 3 and 6 every block whose receiver has the partner's x: to 3 its
// blocks for (1, *), 3-5; from 6 rank 6's for (0, *), 54-56. Then along y
// with ranks 1 and 2 what it holds for the partner's y: to 1 the blocks of
// senders (*, 0) for rank 1, (0,1) = 1, (3,1) = 28, (6,1) = 55; from 2
// those of senders (*, 2) for rank 0, 18, 45 and 72.
TEST_CASE("dimension-pairwise on a 3x3 torus routes x first, then y") {
  Plan P = compileOn("dimension-pairwise", Collective::Alltoall,
                     Topology::torus(std::vector<uint32_t>{3, 3}, 1));
  Exchange X = exchangeAt(P, 0, 0), Y = exchangeAt(P, 0, 2);
  CHECK(X.To == 3);
  CHECK(X.From == 6);
  CHECK(X.Sent == "3-5");
  CHECK(X.Received == "54-56");
  CHECK(exchangeAt(P, 0, 1).To == 6);
  CHECK(Y.To == 1);
  CHECK(Y.From == 2);
  CHECK(Y.Sent == "1,28,55");
  CHECK(Y.Received == "18,45,72");
  CHECK(P.Programs[0].Rounds.size() == 4);
  expectCorrect(P);
}

TEST_CASE("alltoallv weighs each pair; its plans verify") {
  std::vector<uint64_t> Counts = {0, 5, 1, 2, 0, 7, 3, 3, 0};
  for (const char *Family : {"pairwise", "bruck"}) {
    CAPTURE(Family);
    Plan P =
        compileFlat(Family, Collective::Alltoallv, 3, std::nullopt, Counts);
    CHECK(P.Header.Weights == Counts);
    expectCorrect(P);
  }
  // One weight per pair, not per rank.
  CompileRequest Req = requestFor(Collective::Alltoallv, Topology::flat(3), {},
                                  std::nullopt, {1, 2, 3});
  llvm::Expected<Plan> Refused = compilePlan(algorithmNamed("bruck"), Req);
  REQUIRE_FALSE(Refused);
  CHECK(llvm::toString(Refused.takeError()).find("9") != std::string::npos);
}

TEST_CASE("the verifier refuses a lost block and a block delivered twice") {
  Plan P = compileFlat("pairwise", Collective::Alltoall, 4);
  SUBCASE("lost") {
    // Rank 0 and rank 1 drop their round-0 exchange: (0, 1) never reaches 1.
    P.Programs[0].Rounds.erase(P.Programs[0].Rounds.begin());
    P.Programs[1].Rounds.erase(P.Programs[1].Rounds.begin());
    std::string E = firstError(P);
    CHECK(E.find("at the end") != std::string::npos);
    CHECK_FALSE(interpret(P).EndErrors.empty());
  }
  SUBCASE("twice") {
    // Rank 0 sends (0, 1) to rank 1 again in a round of its own.
    P.Programs[0].add(3, Op::send(1, BlockSet::single(1)));
    P.Programs[1].add(3, Op::recv(0, BlockSet::single(1), Combine::Replace));
    std::string E = firstError(P);
    CHECK(E.find("rank 1, round 3, op 0") != std::string::npos);
    CHECK(E.find("a second time") != std::string::npos);
    CHECK(interpret(P).firstError().find("a second time") != std::string::npos);
  }
}
