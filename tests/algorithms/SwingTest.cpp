//===- SwingTest.cpp - Swing's peers, block sets and bytes ----------------===//
//
// Oracles from the Swing paper (De Sensi et al., NSDI'24, §3 and Appendix A)
// and docs/algorithms/swing.md, written out here: the peer function, the
// block sets of p = 8 and 4x4, the contiguous labels, the power-of-two set
// sizes and their agreement with the labels, the latest-first-step rule for
// even non-powers of two and a brute-force check that the earliest-step rule
// double counts, Swing-L's need to fold, and the bytes of 8x8 and 64x64
// plans measured from the plans.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/SwingPeers.h"
#include "plan/ir/BlockLayout.h"

#include "doctest/doctest.h"

#include <map>
#include <numeric>
#include <set>
#include <vector>

using namespace collplan;
using namespace collplan::swing;
using collplan::test::roundCount;

namespace {

std::vector<uint32_t> sendSet(const SwingTorus &T, uint32_t C, uint32_t R,
                              uint32_t S) {
  return sendSetsOf(T, T.firstStepsFromZero(C), R)[S];
}

using Blocks = std::vector<uint32_t>;

/// Exact-once contributor counting of a reduce-scatter in which rank r sends
/// at step s the blocks whose first step (for rank r, from FirstOfRank) is s.
/// Returns false when a block combines a contribution twice or a rank ends
/// without all P contributions to its own block.
template <typename FirstFn>
bool reduceScatterExactOnce(const SwingTorus &T, FirstFn FirstOfRank) {
  uint32_t P = T.ranks();
  // Held[r][b]: the multiset of contributions rank r holds for block b.
  std::vector<std::vector<std::vector<uint32_t>>> Held(
      P, std::vector<std::vector<uint32_t>>(P));
  for (uint32_t R = 0; R < P; ++R)
    for (uint32_t B = 0; B < P; ++B)
      Held[R][B] = {R};
  std::vector<std::vector<int>> First(P);
  for (uint32_t R = 0; R < P; ++R)
    First[R] = FirstOfRank(R);
  for (uint32_t S = 0; S < T.steps(); ++S) {
    auto Next = Held;
    for (uint32_t R = 0; R < P; ++R) {
      uint32_t Q = T.peer(R, S, 0);
      for (uint32_t B = 0; B < P; ++B)
        if (First[R][B] == int(S))
          Next[Q][B].insert(Next[Q][B].end(), Held[R][B].begin(),
                            Held[R][B].end());
    }
    Held = std::move(Next);
  }
  for (uint32_t R = 0; R < P; ++R) {
    std::set<uint32_t> Distinct(Held[R][R].begin(), Held[R][R].end());
    if (Held[R][R].size() != P || Distinct.size() != P)
      return false;
  }
  return true;
}

/// The first step of every path from rank R, keeping the latest (Latest) or
/// the earliest; -1 for R itself. A direct walk, independent of transform().
std::vector<int> firstStepsByWalk(const SwingTorus &T, uint32_t R,
                                  bool Latest) {
  std::vector<int> First(T.ranks(), -1);
  struct Frame {
    uint32_t Node, Next;
    int Start;
  };
  std::vector<Frame> Stack{{R, 0, -1}};
  while (!Stack.empty()) {
    Frame F = Stack.back();
    Stack.pop_back();
    for (uint32_t S = F.Next; S < T.steps(); ++S) {
      uint32_t Q = T.peer(F.Node, S, 0);
      int Start = F.Start < 0 ? int(S) : F.Start;
      if (Q != R) {
        int &Slot = First[Q];
        if (Slot < 0 || (Latest ? Start > Slot : Start < Slot))
          Slot = Start;
      }
      Stack.push_back({Q, S + 1, Start});
    }
  }
  return First;
}

Plan compileTorus(llvm::ArrayRef<uint32_t> Dims, Collective Kind,
                  std::map<std::string, std::string> Params) {
  return test::compileOn("swing", Kind, Topology::torus(Dims, 1),
                         std::move(Params));
}

} // namespace

TEST_CASE("rho, the signed offset, and delta, the hop distance") {
  const int64_t Rho[] = {1, -1, 3, -5, 11, -21, 43, -85, 171, -341};
  for (uint32_t S = 0; S < 10; ++S)
    CHECK(rho(S) == Rho[S]);
  for (uint32_t S = 0; S <= 30; ++S) {
    int64_t Pow = 1;
    for (uint32_t I = 0; I <= S; ++I)
      Pow *= -2;
    CHECK(rho(S) == (1 - Pow) / 3);
  }
}

TEST_CASE("the peer function is a fixed-point-free involution for even p") {
  for (uint32_t P = 2; P <= 1024; P += 2) {
    uint32_t Dims[] = {P};
    SwingTorus T(Dims);
    for (uint32_t S = 0; S < T.steps(); ++S)
      for (uint32_t R = 0; R < P; ++R) {
        uint32_t Q = T.peer(R, S, 0);
        if (Q == R || T.peer(Q, S, 0) != R)
          FAIL_CHECK("p=" << P << " s=" << S << " r=" << R);
      }
  }
  uint32_t Dims[] = {16};
  SwingTorus T(Dims);
  CHECK(std::vector<uint32_t>{T.peer(0, 0, 0), T.peer(0, 1, 0), T.peer(0, 2, 0),
                              T.peer(0, 3, 0)} ==
        std::vector<uint32_t>{1, 15, 3, 11});
  CHECK(std::vector<uint32_t>{T.peer(1, 0, 0), T.peer(1, 1, 0), T.peer(1, 2, 0),
                              T.peer(1, 3, 0)} ==
        std::vector<uint32_t>{0, 2, 14, 6});
}

TEST_CASE("odd p breaks the involution") {
  uint32_t Dims[] = {7};
  SwingTorus T(Dims);
  CHECK(T.peer(6, 0, 0) == 0);
  CHECK(T.peer(0, 0, 0) == 1);
}

TEST_CASE("multi-port peers on 4x4 and 2x4") {
  uint32_t Square[] = {4, 4};
  SwingTorus T(Square);
  CHECK(std::vector<uint32_t>{T.peer(0, 0, 0), T.peer(0, 0, 1), T.peer(0, 0, 2),
                              T.peer(0, 0, 3)} ==
        std::vector<uint32_t>{4, 1, 12, 3});
  uint32_t Rect[] = {2, 4};
  SwingTorus R(Rect);
  CHECK(std::vector<uint32_t>{R.peer(0, 2, 0), R.peer(0, 2, 1), R.peer(0, 2, 2),
                              R.peer(0, 2, 3)} ==
        std::vector<uint32_t>{3, 3, 1, 1});
}

TEST_CASE("peers and block sets of every rank and step at p = 8") {
  uint32_t Dims[] = {8};
  SwingTorus T(Dims);
  // peer and SendSet per rank and step.
  const uint32_t Peer[8][3] = {{1, 7, 3}, {0, 2, 6}, {3, 1, 5}, {2, 4, 0},
                               {5, 3, 7}, {4, 6, 2}, {7, 5, 1}, {6, 0, 4}};
  const Blocks Send[8][3] = {
      {{1, 2, 5, 6}, {4, 7}, {3}}, {{0, 3, 4, 7}, {2, 5}, {6}},
      {{0, 3, 4, 7}, {1, 6}, {5}}, {{1, 2, 5, 6}, {4, 7}, {0}},
      {{1, 2, 5, 6}, {0, 3}, {7}}, {{0, 3, 4, 7}, {1, 6}, {2}},
      {{0, 3, 4, 7}, {2, 5}, {1}}, {{1, 2, 5, 6}, {0, 3}, {4}}};
  std::vector<int8_t> First = T.firstStepsFromZero(0);
  for (uint32_t R = 0; R < 8; ++R) {
    std::vector<Blocks> Sets = sendSetsOf(T, First, R);
    for (uint32_t S = 0; S < 3; ++S) {
      CAPTURE(R);
      CAPTURE(S);
      CHECK(T.peer(R, S, 0) == Peer[R][S]);
      CHECK(Sets[S] == Send[R][S]);
    }
  }
}

TEST_CASE("peers and block sets of every rank and step on 4x4") {
  uint32_t Dims[] = {4, 4};
  SwingTorus T(Dims);
  const uint32_t Peer[16][4] = {
      {4, 1, 12, 3},  {5, 0, 13, 2},  {6, 3, 14, 1},   {7, 2, 15, 0},
      {0, 5, 8, 7},   {1, 4, 9, 6},   {2, 7, 10, 5},   {3, 6, 11, 4},
      {12, 9, 4, 11}, {13, 8, 5, 10}, {14, 11, 6, 9},  {15, 10, 7, 8},
      {8, 13, 0, 15}, {9, 12, 1, 14}, {10, 15, 2, 13}, {11, 14, 3, 12}};
  const Blocks Lo = {0, 1, 2, 3, 12, 13, 14, 15};
  const Blocks Mid = {4, 5, 6, 7, 8, 9, 10, 11};
  const Blocks Send[16][4] = {{Mid, {1, 2, 13, 14}, {12, 15}, {3}},
                              {Mid, {0, 3, 12, 15}, {13, 14}, {2}},
                              {Mid, {0, 3, 12, 15}, {13, 14}, {1}},
                              {Mid, {1, 2, 13, 14}, {12, 15}, {0}},
                              {Lo, {5, 6, 9, 10}, {8, 11}, {7}},
                              {Lo, {4, 7, 8, 11}, {9, 10}, {6}},
                              {Lo, {4, 7, 8, 11}, {9, 10}, {5}},
                              {Lo, {5, 6, 9, 10}, {8, 11}, {4}},
                              {Lo, {5, 6, 9, 10}, {4, 7}, {11}},
                              {Lo, {4, 7, 8, 11}, {5, 6}, {10}},
                              {Lo, {4, 7, 8, 11}, {5, 6}, {9}},
                              {Lo, {5, 6, 9, 10}, {4, 7}, {8}},
                              {Mid, {1, 2, 13, 14}, {0, 3}, {15}},
                              {Mid, {0, 3, 12, 15}, {1, 2}, {14}},
                              {Mid, {0, 3, 12, 15}, {1, 2}, {13}},
                              {Mid, {1, 2, 13, 14}, {0, 3}, {12}}};
  std::vector<int8_t> First = T.firstStepsFromZero(0);
  for (uint32_t R = 0; R < 16; ++R) {
    std::vector<Blocks> Sets = sendSetsOf(T, First, R);
    for (uint32_t S = 0; S < 4; ++S) {
      CAPTURE(R);
      CAPTURE(S);
      CHECK(T.peer(R, S, 0) == Peer[R][S]);
      CHECK(Sets[S] == Send[R][S]);
    }
  }
  // Collective 1 starts horizontally.
  CHECK(sendSet(T, 1, 0, 0) == Blocks{1, 2, 5, 6, 9, 10, 13, 14});
  CHECK(sendSet(T, 1, 0, 1) == Blocks{4, 7, 8, 11});
  CHECK(sendSet(T, 1, 0, 2) == Blocks{3, 15});
  CHECK(sendSet(T, 1, 0, 3) == Blocks{12});
  CHECK(sendSet(T, 1, 5, 0) == Blocks{0, 3, 4, 7, 8, 11, 12, 15});
  CHECK(sendSet(T, 1, 5, 1) == Blocks{1, 2, 13, 14});
  CHECK(sendSet(T, 1, 5, 2) == Blocks{6, 10});
  CHECK(sendSet(T, 1, 5, 3) == Blocks{9});
}

TEST_CASE("contiguous labels psi match the worked examples") {
  auto Labels = [](llvm::ArrayRef<uint32_t> Dims, uint32_t C) {
    SwingTorus T(Dims);
    std::vector<uint64_t> Out;
    for (uint32_t R = 0; R < T.ranks(); ++R)
      Out.push_back(T.psi(R, C));
    return Out;
  };
  uint32_t P8[] = {8}, P16[] = {16}, Sq[] = {4, 4};
  CHECK(Labels(P8, 0) == std::vector<uint64_t>{0, 4, 6, 1, 3, 7, 5, 2});
  CHECK(Labels(P8, 1) == std::vector<uint64_t>{0, 2, 5, 7, 3, 1, 6, 4});
  CHECK(Labels(P16, 0) == std::vector<uint64_t>{0, 8, 12, 2, 5, 14, 9, 7, 3, 11,
                                                15, 1, 6, 13, 10, 4});
  CHECK(Labels(Sq, 0) == std::vector<uint64_t>{0, 4, 5, 1, 8, 12, 13, 9, 10, 14,
                                               15, 11, 2, 6, 7, 3});
  CHECK(Labels(Sq, 1) == std::vector<uint64_t>{0, 8, 10, 2, 4, 12, 14, 6, 5, 13,
                                               15, 7, 1, 9, 11, 3});
  CHECK(Labels(Sq, 2) == std::vector<uint64_t>{0, 1, 5, 4, 2, 3, 7, 6, 10, 11,
                                               15, 14, 8, 9, 13, 12});
  CHECK(Labels(Sq, 3) == std::vector<uint64_t>{0, 2, 10, 8, 1, 3, 11, 9, 5, 7,
                                               15, 13, 4, 6, 14, 12});
}

TEST_CASE("power-of-two sets halve and are aligned halves in psi") {
  const std::vector<std::vector<uint32_t>> Shapes = {
      {2},    {4},    {8},    {16},    {64},      {256},     {4, 4},
      {8, 8}, {2, 4}, {4, 8}, {16, 4}, {2, 8, 4}, {4, 4, 4}, {2, 2, 2, 2}};
  for (const std::vector<uint32_t> &Dims : Shapes) {
    SwingTorus T(Dims);
    uint32_t P = T.ranks(), L = T.steps();
    for (uint32_t C = 0; C < 2 * Dims.size(); ++C) {
      std::vector<int8_t> First = T.firstStepsFromZero(C);
      for (uint32_t R = 0; R < P; ++R) {
        CAPTURE(R);
        CAPTURE(C);
        CAPTURE(P);
        std::vector<Blocks> Sets = sendSetsOf(T, First, R);
        std::vector<int> Seen(P, 0);
        uint64_t Mine = T.psi(R, C);
        for (uint32_t S = 0; S < L; ++S) {
          CHECK(Sets[S].size() == P >> (S + 1));
          // RecvSet(r, s) = SendSet(peer, s) = KeepSet(r, s): psi shares
          // the top s+1 bits with psi(r).
          for (uint32_t B : Sets[S]) {
            ++Seen[B];
            uint64_t X = Mine ^ T.psi(B, C);
            CHECK((X >> (L - 1 - S)) == 1);
          }
          Blocks Recv = sendSetsOf(T, First, T.peer(R, S, C))[S];
          for (uint32_t B : Recv)
            CHECK(((Mine ^ T.psi(B, C)) >> (L - 1 - S)) == 0);
        }
        for (uint32_t B = 0; B < P; ++B)
          CHECK(Seen[B] == (B == R ? 0 : 1));
      }
    }
  }
}

TEST_CASE("a rank's sets are rank 0's translated or reflected") {
  uint32_t Dims[] = {6, 4};
  SwingTorus T(Dims);
  for (uint32_t R = 0; R < T.ranks(); ++R) {
    std::vector<int> Walk = firstStepsByWalk(T, R, /*Latest=*/true);
    std::vector<Blocks> Sets = sendSetsOf(T, T.firstStepsFromZero(0), R);
    for (uint32_t S = 0; S < T.steps(); ++S) {
      Blocks Expected;
      for (uint32_t B = 0; B < T.ranks(); ++B)
        if (Walk[B] == int(S))
          Expected.push_back(B);
      CHECK(Sets[S] == Expected);
    }
  }
}

TEST_CASE("even non-powers of two take the latest first step") {
  // Rank 0's blocks per reduce-scatter step (docs/algorithms/swing.md,
  // "Non-power-of-two sizes").
  const std::pair<uint32_t, Blocks> Counts[] = {
      {6, {2, 2, 1}},
      {10, {2, 4, 2, 1}},
      {12, {6, 2, 2, 1}},
      {14, {6, 4, 2, 1}},
      {18, {2, 8, 4, 2, 1}},
      {20, {10, 2, 4, 2, 1}},
      {24, {12, 6, 2, 2, 1}},
      {34, {2, 16, 8, 4, 2, 1}},
      {100, {50, 18, 16, 8, 4, 2, 1}},
      {130, {2, 64, 32, 16, 8, 4, 2, 1}}};
  for (const auto &[P, Expected] : Counts) {
    uint32_t Dims[] = {P};
    SwingTorus T(Dims);
    Blocks Got;
    for (const Blocks &Set : sendSetsOf(T, T.firstStepsFromZero(0), 0))
      Got.push_back(Set.size());
    CHECK_MESSAGE(Got == Expected, "p = " << P);
  }
  uint32_t Sq[] = {6, 6};
  SwingTorus T66(Sq);
  Blocks Got;
  for (const Blocks &Set : sendSetsOf(T66, T66.firstStepsFromZero(0), 0))
    Got.push_back(Set.size());
  CHECK(Got == Blocks{12, 8, 8, 4, 2, 1});

  // Peers and block sets of ranks 0 and 1.
  struct Row {
    uint32_t P, Rank;
    std::vector<uint32_t> Peers;
    std::vector<Blocks> Sets;
  };
  const Row Rows[] = {
      {6, 0, {1, 5, 3}, {{1, 4}, {2, 5}, {3}}},
      {6, 1, {0, 2, 4}, {{0, 3}, {2, 5}, {4}}},
      {10, 0, {1, 9, 3, 5}, {{2, 7}, {1, 4, 6, 9}, {3, 8}, {5}}},
      {10, 1, {0, 2, 8, 6}, {{4, 9}, {0, 2, 5, 7}, {3, 8}, {6}}},
      {12, 0, {1, 11, 3, 7}, {{1, 2, 5, 6, 9, 10}, {4, 11}, {3, 8}, {7}}},
      {12, 1, {0, 2, 10, 6}, {{0, 3, 4, 7, 8, 11}, {2, 9}, {5, 10}, {6}}}};
  for (const Row &Rw : Rows) {
    CAPTURE(Rw.P);
    CAPTURE(Rw.Rank);
    uint32_t Dims[] = {Rw.P};
    SwingTorus T(Dims);
    std::vector<Blocks> Sets = sendSetsOf(T, T.firstStepsFromZero(0), Rw.Rank);
    for (uint32_t S = 0; S < T.steps(); ++S) {
      CHECK(T.peer(Rw.Rank, S, 0) == Rw.Peers[S]);
      CHECK(Sets[S] == Rw.Sets[S]);
    }
  }

  // The latest rule counts every contribution once; the earliest does not.
  for (uint32_t P : {6u, 10u, 12u, 14u, 18u}) {
    CAPTURE(P);
    uint32_t Dims[] = {P};
    SwingTorus T(Dims);
    CHECK(reduceScatterExactOnce(
        T, [&](uint32_t R) { return firstStepsByWalk(T, R, true); }));
    CHECK_FALSE(reduceScatterExactOnce(
        T, [&](uint32_t R) { return firstStepsByWalk(T, R, false); }));
  }
}

TEST_CASE("Swing-L without folding double counts for p = 6") {
  // Whole-vector exchange along Swing's peers: rank 0 ends with some
  // contributions twice, which is why Swing-L folds to a power of two.
  uint32_t Dims[] = {6};
  SwingTorus T(Dims);
  std::vector<std::vector<uint32_t>> Held(6);
  for (uint32_t R = 0; R < 6; ++R)
    Held[R] = {1, 0, 0, 0, 0, 0}, std::swap(Held[R][0], Held[R][R]);
  for (uint32_t S = 0; S < T.steps(); ++S) {
    auto Next = Held;
    for (uint32_t R = 0; R < 6; ++R)
      for (uint32_t X = 0; X < 6; ++X)
        Next[R][X] += Held[T.peer(R, S, 0)][X];
    Held = Next;
  }
  CHECK(Held[0] != std::vector<uint32_t>(6, 1));
  // Folded, the plans verify (the sweep checks every shape; here the ones
  // the notes name).
  for (auto Dims2 :
       std::vector<std::vector<uint32_t>>{{6}, {10}, {12}, {6, 6}, {7}}) {
    Plan P =
        compileTorus(Dims2, Collective::Allreduce, {{"variant", "latency"}});
    CHECK(P.Programs.size() == SwingTorus(Dims2).ranks());
  }
}

TEST_CASE("8x8 Swing-B with all ports sends 1.96875 n in 4 equal parts") {
  uint32_t Dims[] = {8, 8};
  Plan P = compileTorus(Dims, Collective::Allreduce, {{"ports", "all"}});
  CHECK(roundCount(P) == 12);
  const uint64_t N = uint64_t(1) << 20; // elements; every block is N / 256.
  BlockLayout Layout(P.Header, N);
  for (uint32_t R = 0; R < 64; ++R) {
    std::vector<uint64_t> PerCollective(4, 0);
    uint64_t Total = 0, MaxMessage = 0;
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send) {
          uint64_t Size = Layout.size(O.Blocks);
          Total += Size;
          MaxMessage = std::max(MaxMessage, Size);
          // Collective c owns blocks [64 c, 64 (c+1)).
          PerCollective[O.Blocks.ranges().front().Begin / 64] += Size;
          CHECK(O.Blocks.ranges().size() == 1);
        }
    CHECK(Total * 64 == N * 126); // 2 (63/64) n = 1.96875 n
    for (uint64_t Part : PerCollective)
      CHECK(Part * 4 == Total);
    CHECK(MaxMessage * 8 == N);
  }
}

TEST_CASE("8x8 Swing-L: 6 steps of n/4 per port") {
  uint32_t Dims[] = {8, 8};
  Plan P = compileTorus(
      Dims, Collective::Allreduce,
      {{"ports", "all"}, {"variant", "latency"}, {"order", "rank-dependent"}});
  CHECK(roundCount(P) == 6);
  const uint64_t N = 1 << 12;
  BlockLayout Layout(P.Header, N);
  uint64_t Total = 0;
  for (const Round &Rd : P.Programs[0].Rounds)
    for (const Op &O : Rd.Ops)
      if (O.Kind == OpKind::Send) {
        CHECK(Layout.size(O.Blocks) * 4 == N);
        Total += Layout.size(O.Blocks);
      }
  CHECK(Total == 6 * N);
}

TEST_CASE("64x64 Swing-B, built one rank at a time") {
  const Algorithm &A = *findAlgorithm("swing");
  CompileRequest Req;
  uint32_t Dims[] = {64, 64};
  Req.Topo = Topology::torus(Dims, 1);
  llvm::Expected<PlanHeader> H = A.prepare(Req);
  REQUIRE(bool(H));
  const uint64_t N = uint64_t(1) << 24;
  BlockLayout Layout(*H, N);
  for (uint32_t R : {0u, 1u, 65u, 2047u, 4095u}) {
    Program Prog = A.buildRank(*H, R);
    CHECK(Prog.Rounds.size() == 24);
    uint64_t Total = 0;
    for (const Round &Rd : Prog.Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send)
          Total += Layout.size(O.Blocks);
    CHECK(Total * 4096 == 2 * 4095 * N);
  }
}

TEST_CASE("even non-powers of two send P-1 blocks per phase") {
  for (auto Dims : std::vector<std::vector<uint32_t>>{{10}, {6, 6}, {6, 4}}) {
    Plan P = compileTorus(Dims, Collective::Allreduce, {{"ports", "all"}});
    uint32_t Ranks = P.Header.Ranks, L = SwingTorus(Dims).steps();
    uint64_t C = 2 * Dims.size();
    for (uint32_t R = 0; R < Ranks; ++R) {
      uint64_t Rs = 0, Ag = 0;
      for (const Round &Rd : P.Programs[R].Rounds)
        for (const Op &O : Rd.Ops)
          if (O.Kind == OpKind::Send)
            (Rd.Index < L ? Rs : Ag) += O.Blocks.count();
      CHECK(Rs == C * (Ranks - 1));
      CHECK(Ag == C * (Ranks - 1));
    }
  }
}

TEST_CASE("refusals name the reason") {
  const Algorithm &A = *findAlgorithm("swing");
  CompileRequest Req;
  uint32_t Dims[] = {4, 4};
  Req.Topo = Topology::torus(Dims, 2);
  // One rank per torus node is a declared restriction: checkRequest refuses
  // before prepare() runs.
  llvm::Error Refused = checkRequest(A, Req);
  REQUIRE(bool(Refused));
  CHECK(llvm::toString(std::move(Refused)).find("smp-rsag") !=
        std::string::npos);
  // An odd dimension of a multi-dimensional torus is folded: allreduce only.
  uint32_t Odd[] = {3, 4};
  Req.Topo = Topology::torus(Odd, 1);
  Req.Kind = Collective::ReduceScatter;
  llvm::Expected<PlanHeader> H = A.prepare(Req);
  REQUIRE_FALSE(bool(H));
  CHECK(llvm::toString(H.takeError()).find("even") != std::string::npos);
}

TEST_CASE("odd p: rank p-1 trades single blocks with groups 3, 2, 1") {
  // The group sizes of docs/algorithms/swing.md (odd P on a ring, after the
  // paper's §3.2): ceil(rest / 2) ranks per step in rank
  // order, all the rest at the last step.
  const std::map<uint32_t, std::vector<uint32_t>> Groups = {{3, {2}},
                                                            {7, {3, 2, 1}},
                                                            {9, {4, 2, 2}},
                                                            {11, {5, 3, 1, 1}},
                                                            {13, {6, 3, 2, 1}}};
  for (const auto &[P, Sizes] : Groups)
    for (Collective Kind : {Collective::Allreduce, Collective::ReduceScatter,
                            Collective::Allgather}) {
      CAPTURE(P);
      CAPTURE(collectiveName(Kind).str());
      Plan Pl = test::compileOn("swing", Kind, Topology::flat(P));
      REQUIRE(Pl.Programs.size() == P);
      uint32_t Steps = Sizes.size();
      // Reduce-scatter step s (round s), or allgather step s (the rounds
      // after the reduce-scatter, last group first).
      uint32_t AgFirst = Kind == Collective::Allgather ? 0 : Steps;
      uint32_t Next = 0;
      for (uint32_t St = 0; St < Steps; ++St) {
        uint32_t Round = Kind == Collective::Allgather ? Steps - 1 - St : St;
        std::vector<uint32_t> Peers;
        for (const Op &O : test::opsAt(Pl, P - 1, Round))
          if (O.Kind == OpKind::Send)
            Peers.push_back(O.Peer);
        std::vector<uint32_t> Want(Sizes[St]);
        std::iota(Want.begin(), Want.end(), Next);
        Next += Sizes[St];
        CHECK(Peers == Want);
        // Single blocks: rank i's final block goes out, P-1's comes in.
        for (const Op &O : test::opsAt(Pl, P - 1, Round))
          if (O.Kind != OpKind::Local)
            CHECK(O.Blocks.count() == 1);
        if (Kind != Collective::ReduceScatter) {
          uint32_t Ag = AgFirst + Steps - 1 - St;
          std::vector<uint32_t> AgPeers;
          for (const Op &O : test::opsAt(Pl, P - 1, Ag))
            if (O.Kind == OpKind::Send)
              AgPeers.push_back(O.Peer);
          CHECK(AgPeers == Want);
        }
      }
      CHECK(Next == P - 1);
      test::Interpretation I = test::interpret(Pl);
      CHECK_MESSAGE(!I.Broken, I.Why);
    }
}
