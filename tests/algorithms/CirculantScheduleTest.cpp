//===- CirculantScheduleTest.cpp - Träff's circulant schedules -----------===//
//
// Oracles: the tables printed in Träff's paper ("(Poly)Logarithmic Time
// Construction of Round-optimal n-Block Broadcast Schedules", its tables
// embedded below as they appear there), the linear first-phase recipe for
// baseblocks, the O(p) rule for receive schedules and the invariants (a)-(c)
// (docs/algorithms/circulant.md, "Schedule arithmetic"), all written here
// without the code under test; and MPICH's printed p = 17 table
// (CirculantMpichTable.h).
//
//===----------------------------------------------------------------------===//

#include "CirculantMpichTable.h"

#include "compiler/algorithms/CirculantSchedule.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <vector>

using namespace collplan::circulant;

namespace {

struct PaperTable {
  uint64_t P;
  /// Rows: baseblock, recv k = 0..q-1, send k = 0..q-1; one column per
  /// processor, as printed.
  const char *Text;
};

// The paper's Table 1 (p = 20), the tables around 32 (p = 33, 32, 31) and the
// two p = 9 schedules of Table 5, number for number.
const PaperTable PaperTables[] = {
    // Paper text line 29, p = 20.
    {20, R"(
0 0 1 2 0 3 0 1 2 0 4 0 1 2 0 3 0 1 2 0
-5 0 -5 -4 -3 -5 -2 -5 -4 -3 -5 -1 -5 -4 -3 -5 -2 -5 -4 -3
-3 -3 1 -5 -4 -3 -3 -2 -5 -4 -3 -3 -1 -5 -4 -3 -3 -2 -5 -4
-4 -4 -3 2 0 -4 -4 -3 -2 -2 -4 -4 -3 -1 -1 -4 -4 -3 -2 -2
-2 -2 -2 -2 -2 3 0 1 2 0 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1
-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 4 0 1 2 0 3 0 1 2 0
0 -5 -4 -3 -5 -2 -5 -4 -3 -5 -1 -5 -4 -3 -5 -2 -5 -4 -3 -5
1 -5 -4 -3 -3 -2 -5 -4 -3 -3 -1 -5 -4 -3 -3 -2 -5 -4 -3 -3
2 0 -4 -4 -3 -2 -2 -4 -4 -3 -1 -1 -4 -4 -3 -2 -2 -4 -4 -3
3 0 1 2 0 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -2 -2 -2 -2 -2
4 0 1 2 0 3 0 1 2 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
)"},
    // Paper text line 41, p = 33.
    {33, R"(
-1 0 1 2 0 3 0 1 2 4 0 1 2 0 3 0 1 5 0 1 2 0 3 0 1 2 4 0 1 2 0 3 0
-6 0 -6 -5 -4 -6 -3 -6 -5 -4 -2 -6 -5 -4 -6 -3 -6 -5 -1 -6 -5 -4 -6 -3 -6 -5 -4 -2 -6 -5 -4 -6 -3
-3 -3 1 -6 -5 -4 -4 -3 -6 -5 -4 -2 -6 -5 -4 -4 -3 -6 -5 -1 -6 -5 -4 -4 -3 -6 -5 -4 -2 -6 -5 -4 -4
-4 -4 -3 2 0 -5 -5 -4 -3 -3 -5 -4 -2 -2 -5 -5 -4 -3 -3 -3 -1 -1 -5 -5 -4 -3 -3 -5 -4 -2 -2 -5 -5
-2 -2 -4 -3 -3 3 0 1 2 -6 -3 -3 -3 -3 -2 -2 -2 -2 -4 -4 -3 -3 -1 -1 -1 -1 -6 -3 -3 -3 -3 -2 -2
-1 -5 -2 -2 -2 -2 -2 -2 -2 4 0 1 2 0 3 0 1 -4 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1
-5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 5 0 1 2 0 3 0 1 2 4 0 1 2 0 3 0
0 -6 -5 -4 -6 -3 -6 -5 -4 -2 -6 -5 -4 -6 -3 -6 -5 -1 -6 -5 -4 -6 -3 -6 -5 -4 -2 -6 -5 -4 -6 -3 -6
1 -6 -5 -4 -4 -3 -6 -5 -4 -2 -6 -5 -4 -4 -3 -6 -5 -1 -6 -5 -4 -4 -3 -6 -5 -4 -2 -6 -5 -4 -4 -3 -3
2 0 -5 -5 -4 -3 -3 -5 -4 -2 -2 -5 -5 -4 -3 -3 -3 -1 -1 -5 -5 -4 -3 -3 -5 -4 -2 -2 -5 -5 -4 -4 -3
3 0 1 2 -6 -3 -3 -3 -3 -2 -2 -2 -2 -4 -4 -3 -3 -1 -1 -1 -1 -6 -3 -3 -3 -3 -2 -2 -2 -2 -4 -3 -3
4 0 1 2 0 3 0 1 -4 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1 -1 -5 -2 -2 -2 -2 -2 -2 -2
5 0 1 2 0 3 0 1 2 4 0 1 2 0 3 0 -5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
)"},
    // Paper text line 55, p = 32.
    {32, R"(
0 0 1 0 2 0 1 0 3 0 1 0 2 0 1 0 4 0 1 0 2 0 1 0 3 0 1 0 2 0 1 0
-5 0 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4 -5 -1 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4
-4 -4 1 0 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4 -4 -1 -1 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3
-3 -3 -3 -3 2 0 1 0 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3 -3 -1 -1 -1 -1 -3 -3 -3 -3 -2 -2 -2 -2
-2 -2 -2 -2 -2 -2 -2 -2 3 0 1 0 2 0 1 0 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1 -1
-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 4 0 1 0 2 0 1 0 3 0 1 0 2 0 1 0
0 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4 -5 -1 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4 -5
1 0 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4 -4 -1 -1 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4 -4
2 0 1 0 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3 -3 -1 -1 -1 -1 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3 -3
3 0 1 0 2 0 1 0 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1 -1 -2 -2 -2 -2 -2 -2 -2 -2
4 0 1 0 2 0 1 0 3 0 1 0 2 0 1 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
)"},
    // Paper text line 67, p = 31.
    {31, R"(
0 0 1 0 2 0 1 0 3 0 1 0 2 0 1 0 4 0 1 0 2 0 1 0 3 0 1 0 2 0 1
-4 0 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4 -5 -1 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5
-3 -4 1 0 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4 -4 -1 -1 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3
-2 -3 -3 -3 2 0 1 0 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3 -3 -1 -1 -1 -1 -3 -3 -3 -3 -2 -2 -2
-1 -2 -2 -2 -2 -2 -2 -2 3 0 1 0 2 0 1 0 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1
-5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 4 0 1 0 2 0 1 0 3 0 1 0 2 0 1
0 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4 -5 -1 -5 -4 -5 -3 -5 -4 -5 -2 -5 -4 -5 -3 -5 -4
1 0 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4 -4 -1 -1 -4 -4 -3 -3 -4 -4 -2 -2 -4 -4 -3 -3 -4
2 0 1 0 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3 -3 -1 -1 -1 -1 -3 -3 -3 -3 -2 -2 -2 -2 -3 -3 -3
3 0 1 0 2 0 1 0 -2 -2 -2 -2 -2 -2 -2 -2 -1 -1 -1 -1 -1 -1 -1 -1 -2 -2 -2 -2 -2 -2 -2
4 0 1 0 2 0 1 0 3 0 1 0 2 0 1 -5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
)"},
    // Paper text line 112, p = 9.
    {9, R"(
0 0 1 2 0 3 0 1 2
-2 0 -4 -3 -2 -4 -1 -4 -3
-3 -2 1 -4 -3 -2 -2 -1 -4
-1 -3 -2 2 0 -3 -3 -2 -1
-4 -1 -1 -1 -1 3 0 1 2
0 -4 -3 -2 -4 -1 -4 -3 -2
1 -4 -3 -2 -2 -1 -4 -3 -2
2 0 -3 -3 -2 -1 -1 -3 -2
3 0 1 2 -4 -1 -1 -1 -1
)"},
    // Paper text line 122, p = 9.
    {9, R"(
0 0 1 2 0 3 0 1 2
-2 0 -4 -3 -2 -4 -1 -4 -3
-3 -2 1 -4 -3 -2 -2 -1 -1
-1 -3 -2 2 0 -3 -3 -2 -4
-4 -1 -1 -1 -1 3 0 1 2
0 -4 -3 -2 -4 -1 -4 -3 -2
1 -4 -3 -2 -2 -1 -1 -3 -2
2 0 -3 -3 -2 -4 -1 -3 -2
3 0 1 2 -4 -1 -1 -1 -1
)"},
};

std::vector<std::vector<int64_t>> parseRows(const PaperTable &T) {
  std::vector<std::vector<int64_t>> Rows;
  std::istringstream In(T.Text);
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream Fields(Line);
    std::vector<int64_t> Row;
    int64_t V;
    while (Fields >> V)
      Row.push_back(V);
    if (!Row.empty())
      Rows.push_back(Row);
  }
  return Rows;
}

/// ceil(log2 p) by counting, independent of llvm::Log2_64_Ceil.
unsigned ceilLog2(uint64_t P) {
  unsigned Q = 0;
  while ((uint64_t(1) << Q) < P)
    ++Q;
  return Q;
}

/// Baseblocks by running the greedy first phase (the paper's §2): in
/// round k the root sends block k to skip[k], and every processor below
/// skip[k] that has a block forwards it to itself + skip[k] if that is below
/// skip[k+1]. Entry 0 (the root) is q.
std::vector<unsigned> linearBaseblocks(const Skips &S) {
  uint64_t P = S.processors();
  unsigned Q = S.q();
  std::vector<int> Base(P, -1);
  Base[0] = int(Q);
  for (unsigned K = 0; K < Q; ++K) {
    if (S[K] < P)
      Base[S[K]] = int(K);
    for (uint64_t R = 1; R < S[K]; ++R)
      if (Base[R] >= 0 && R + S[K] < S[K + 1])
        Base[R + S[K]] = Base[R];
  }
  std::vector<unsigned> Out(P);
  for (uint64_t R = 0; R < P; ++R) {
    REQUIRE(Base[R] >= 0);
    Out[R] = unsigned(Base[R]);
  }
  return Out;
}

/// The O(p) receive rule (docs/algorithms/circulant.md, "Receive schedule,
/// the slow way").
std::vector<int32_t> windowRule(const Skips &S,
                                const std::vector<unsigned> &Base, uint64_t R) {
  uint64_t P = S.processors();
  unsigned Q = S.q();
  unsigned B = Base[R];
  uint64_t V = R + P;
  std::vector<bool> Used(Q + 1, false);
  Used[B] = true;
  std::vector<int32_t> Sched(Q);
  for (unsigned K = 0; K < Q; ++K) {
    int Best = -1;
    for (uint64_t W = V - S[K + 1] + 1; W <= V - S[K]; ++W) {
      int E = int(Base[W % P]);
      if (!Used[E] && E > Best)
        Best = E;
    }
    if (Best < 0)
      Best = int(Base[(V - S[K + 1]) % P]);
    Used[Best] = true;
    Sched[K] = Best == int(Q) ? int32_t(B) : int32_t(Best) - int32_t(Q);
  }
  return Sched;
}

/// Invariants (b) and (c) (docs/algorithms/circulant.md) for one processor,
/// and
/// (a) against the receiver's schedule.
void checkInvariants(const Skips &S, uint64_t R) {
  unsigned Q = S.q();
  PhaseSchedule Recv = receiveSchedule(S, R);
  PhaseSchedule Send = sendSchedule(S, R);
  REQUIRE(Recv.size() == Q);
  REQUIRE(Send.size() == Q);
  for (unsigned K = 0; K < Q; ++K) {
    uint64_t To = (R + S[K]) % S.processors();
    if (To != 0)
      REQUIRE(Send[K] == receiveSchedule(S, To)[K]);
  }
  if (R == 0) {
    for (unsigned K = 0; K < Q; ++K)
      REQUIRE(Send[K] == int32_t(K));
    std::vector<int32_t> Sorted(Recv.begin(), Recv.end());
    std::sort(Sorted.begin(), Sorted.end());
    for (unsigned K = 0; K < Q; ++K)
      REQUIRE(Sorted[K] == int32_t(K) - int32_t(Q));
    return;
  }
  int32_t B = int32_t(baseblock(S, R));
  std::vector<int32_t> Expected;
  Expected.push_back(B);
  for (int32_t E = 0; E < int32_t(Q); ++E)
    if (E != B)
      Expected.push_back(E - int32_t(Q));
  std::vector<int32_t> Got(Recv.begin(), Recv.end());
  std::sort(Expected.begin(), Expected.end());
  std::sort(Got.begin(), Got.end());
  REQUIRE(Got == Expected);
  for (unsigned K = 0; K < Q; ++K) {
    bool Held = Send[K] == B - int32_t(Q);
    for (unsigned J = 0; J < K; ++J)
      Held = Held || Send[K] == Recv[J];
    REQUIRE(Held);
  }
}

} // namespace

TEST_CASE("skips halve p rounding up") {
  auto Of = [](uint64_t P) {
    Skips S(P);
    return std::vector<uint64_t>(S.all().begin(), S.all().end());
  };
  CHECK(Skips(1).q() == 0);
  CHECK(Of(1) == std::vector<uint64_t>{1});
  CHECK(Of(2) == std::vector<uint64_t>{1, 2});
  CHECK(Of(5) == std::vector<uint64_t>{1, 2, 3, 5});
  CHECK(Of(6) == std::vector<uint64_t>{1, 2, 3, 6});
  CHECK(Of(9) == std::vector<uint64_t>{1, 2, 3, 5, 9});
  CHECK(Of(12) == std::vector<uint64_t>{1, 2, 3, 6, 12});
  CHECK(Of(20) == std::vector<uint64_t>{1, 2, 3, 5, 10, 20});
  CHECK(Of(31) == std::vector<uint64_t>{1, 2, 4, 8, 16, 31});
  CHECK(Of(32) == std::vector<uint64_t>{1, 2, 4, 8, 16, 32});
  CHECK(Of(33) == std::vector<uint64_t>{1, 2, 3, 5, 9, 17, 33});
  CHECK(Skips((uint64_t(1) << 31) - 1).q() == 31);
  CHECK(Skips(uint64_t(1) << 40).q() == 40);
  CHECK(Skips((uint64_t(1) << 40) + 1).q() == 41);
  for (uint64_t P = 2; P <= 5000; ++P) {
    Skips S(P);
    unsigned Q = ceilLog2(P);
    REQUIRE(S.q() == Q);
    uint64_t Sum = 0;
    for (unsigned K = 0; K <= Q; ++K) {
      // skip[k] = ceil(p / 2^(q-k)).
      uint64_t Den = uint64_t(1) << (Q - K);
      REQUIRE(S[K] == (P + Den - 1) / Den);
      if (K < Q) {
        REQUIRE((S[K + 1] == 2 * S[K] || S[K + 1] == 2 * S[K] - 1));
        REQUIRE(S[K] <= 1 + Sum);
        Sum += S[K];
      }
    }
    REQUIRE(Sum >= P - 1);
  }
}

TEST_CASE("baseblocks follow the greedy first phase") {
  for (uint64_t P = 1; P <= 1200; ++P) {
    Skips S(P);
    std::vector<unsigned> Base = linearBaseblocks(S);
    for (uint64_t R = 0; R < P; ++R) {
      REQUIRE(baseblock(S, R) == Base[R]);
      if (R > 0) {
        unsigned H = homerange(S, R);
        REQUIRE(S[H] <= R);
        REQUIRE(R < S[H + 1]);
        REQUIRE(Base[R] <= H);
      }
    }
  }
  // Powers of two: the ruler sequence.
  Skips S(1024);
  for (uint64_t R = 1; R < 1024; ++R)
    REQUIRE(baseblock(S, R) == unsigned(__builtin_ctzll(R)));
}

TEST_CASE("the paper's printed tables, entry for entry") {
  // The first five tables are what the construction computes; the sixth is
  // the paper's other valid p = 9 schedule.
  for (size_t I = 0; I < 5; ++I) {
    const PaperTable &T = PaperTables[I];
    CAPTURE(T.P);
    Skips S(T.P);
    unsigned Q = S.q();
    auto Rows = parseRows(T);
    REQUIRE(Rows.size() == 1 + 2 * Q);
    for (uint64_t R = 0; R < T.P; ++R) {
      CAPTURE(R);
      // The root's printed baseblock (0 or -1) is a placeholder.
      if (R > 0)
        CHECK(int64_t(baseblock(S, R)) == Rows[0][R]);
      PhaseSchedule Recv = receiveSchedule(S, R);
      PhaseSchedule Send = sendSchedule(S, R);
      for (unsigned K = 0; K < Q; ++K) {
        CAPTURE(K);
        CHECK(Recv[K] == Rows[1 + K][R]);
        CHECK(Send[K] == Rows[1 + Q + K][R]);
      }
    }
  }
}

TEST_CASE("MPICH's printed p = 17 schedule, entry for entry") {
  namespace M = collplan::test::mpich17;
  Skips S(M::P);
  REQUIRE(S.q() == M::Q);
  for (unsigned K = 0; K <= M::Q; ++K)
    CHECK(S[K] == M::Skip[K]);
  for (uint64_t R = 0; R < M::P; ++R) {
    CAPTURE(R);
    PhaseSchedule Recv = receiveSchedule(S, R);
    PhaseSchedule Send = sendSchedule(S, R);
    for (unsigned K = 0; K < M::Q; ++K) {
      CAPTURE(K);
      // The root's receive row included: MPICH prints what the search gives.
      CHECK(Recv[K] == M::Recv[K][R]);
      CHECK(Send[K] == M::Send[K][R]);
    }
  }
}

TEST_CASE("the paper's second p = 9 schedule differs in exactly four entries") {
  Skips S(9);
  auto Rows = parseRows(PaperTables[5]);
  std::vector<std::string> Differences;
  for (uint64_t R = 0; R < 9; ++R) {
    PhaseSchedule Recv = receiveSchedule(S, R);
    PhaseSchedule Send = sendSchedule(S, R);
    for (unsigned K = 0; K < 4; ++K) {
      if (Recv[K] != Rows[1 + K][R])
        Differences.push_back("R" + std::to_string(R) + "," +
                              std::to_string(K));
      if (Send[K] != Rows[5 + K][R])
        Differences.push_back("S" + std::to_string(R) + "," +
                              std::to_string(K));
    }
  }
  std::sort(Differences.begin(), Differences.end());
  CHECK(Differences ==
        std::vector<std::string>{"R8,1", "R8,2", "S5,2", "S6,1"});
}

TEST_CASE("receive schedules equal the O(p) window rule for every rank, "
          "p <= 300") {
  for (uint64_t P = 2; P <= 300; ++P) {
    Skips S(P);
    std::vector<unsigned> Base = linearBaseblocks(S);
    for (uint64_t R = 0; R < P; ++R) {
      std::vector<int32_t> Expected = windowRule(S, Base, R);
      PhaseSchedule Got = receiveSchedule(S, R);
      CAPTURE(P);
      CAPTURE(R);
      REQUIRE(std::vector<int32_t>(Got.begin(), Got.end()) == Expected);
    }
  }
}

TEST_CASE("invariants (a)-(c) for every rank, p <= 1000") {
  for (uint64_t P = 1; P <= 1000; ++P)
    for (uint64_t R = 0; R < P; ++R) {
      CAPTURE(P);
      CAPTURE(R);
      checkInvariants(Skips(P), R);
    }
}

TEST_CASE("invariants at large p, sampled ranks") {
  std::vector<uint64_t> Ps = {1000003, (uint64_t(1) << 31) - 1,
                              (uint64_t(1) << 40) + 7};
  for (unsigned E = 11; E <= 31; E += 4)
    for (int64_t D : {-1, 0, 1, 3})
      Ps.push_back((uint64_t(1) << E) + D);
  for (uint64_t P : Ps) {
    Skips S(P);
    std::vector<uint64_t> Ranks = {0, 1, 2, P / 2, P / 2 + 1, P - 2, P - 1};
    for (unsigned K = 0; K <= S.q(); ++K)
      for (uint64_t R : {S[K] - 1, S[K], S[K] + 1, P - S[K]})
        Ranks.push_back(R % P);
    uint64_t X = 0x9e3779b97f4a7c15ULL;
    for (int I = 0; I < 64; ++I) {
      X ^= X << 13, X ^= X >> 7, X ^= X << 17;
      Ranks.push_back(X % P);
    }
    for (uint64_t R : Ranks) {
      CAPTURE(P);
      CAPTURE(R);
      checkInvariants(S, R);
    }
  }
}

TEST_CASE("dummy rounds make n - 1 + q + x a multiple of q") {
  CHECK(dummyRounds(3, 5) == 2);   // p = 6, n = 5
  CHECK(dummyRounds(3, 4) == 0);   // p = 5, n = 4
  CHECK(dummyRounds(6, 100) == 3); // p = 33, n = 100
  // The first real round of p = 6, n = 5 is round k = 2 of phase 0.
  PhaseRound First = phaseRound(3, 5, 0);
  CHECK(First.K == 2);
  CHECK(First.Offset == -2);
  PhaseRound Last = phaseRound(3, 5, 6);
  CHECK(Last.K == 2);
  CHECK(Last.Offset == 4); // the last phase's offset is n - 1
  CHECK(blockAt(-3, 2, 5) == -1);
  CHECK(blockAt(2, 4, 5) == 4);
  CHECK(blockAt(-1, 4, 5) == 3);
}
