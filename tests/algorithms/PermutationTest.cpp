//===- PermutationTest.cpp - Oracle tests of the permutation allreduce ----===//
//
// Oracles (docs/algorithms/permutation.md): the worked tables ("Worked
// tables": peers, blocks and contribution sets per step), the counts per rank
// ("Rounds and bytes per rank"), the XOR-group figures and the cost figures
// for the parameters of the paper's Table 2 ("Test oracles"). Contribution sets
// come from the reference interpreter, tests/support/ReferenceInterpreter.h.
//
//===----------------------------------------------------------------------===//

#include "tests/support/PlanFactory.h"
#include "tests/support/ReferenceInterpreter.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/select/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace collplan;
using collplan::test::ReferenceInterpreter;

namespace {

const Algorithm &algo() { return test::algorithmNamed("permutation"); }

/// The paper's schedule: the worked tables and counts follow the J copies'
/// own trees (order=rank-dependent); PermutationIdenticalTest.cpp tests the
/// default order.
CompileRequest request(uint32_t P, std::map<std::string, std::string> Params,
                       Collective Kind = Collective::Allreduce) {
  Params.emplace("order", "rank-dependent");
  return test::requestFor(Kind, Topology::flat(P), std::move(Params));
}

Plan compileFixed(const CompileRequest &Req) {
  return test::compileWith(algo(), Req);
}

/// "3 2 1", "0-6" or "*" (every block) as a block set.
BlockSet blocks(llvm::StringRef Text, uint32_t P) {
  BlockSet S;
  if (Text.trim() == "*")
    return BlockSet::range(0, P);
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ' ', -1, false);
  for (llvm::StringRef Part : Parts) {
    unsigned B = 0;
    REQUIRE_FALSE(Part.getAsInteger(10, B));
    S.insert(B, B + 1);
  }
  return S;
}

/// "{0,3}" or "{0..6}" as a contribution set over P ranks.
llvm::BitVector contributions(llvm::StringRef Text, uint32_t P) {
  llvm::BitVector S(P);
  Text = Text.trim().drop_front().drop_back(); // the braces
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ',', -1, false);
  for (llvm::StringRef Part : Parts) {
    auto [Lo, Hi] = Part.split("..");
    unsigned A = 0, B = 0;
    REQUIRE_FALSE(Lo.getAsInteger(10, A));
    B = A;
    if (!Hi.empty())
      REQUIRE_FALSE(Hi.getAsInteger(10, B));
    S.set(A, B + 1);
  }
  return S;
}

/// One row of a worked table. Holds lists what the rank holds after the
/// step: "d6{0,3}" is block 6 of the data buffer (A, or A and B while they
/// coincide), "p5{...}" block 5 of the partial buffer (B), "*" every block.
struct Row {
  unsigned Step;
  uint32_t Rank;
  uint32_t To;
  const char *Sends;
  uint32_t From;
  const char *Recvs;
  const char *Holds = "";
};

uint16_t bufferNamed(const PlanHeader &H, llvm::StringRef Name) {
  for (size_t I = 0; I < H.Buffers.size(); ++I)
    if (H.Buffers[I] == Name)
      return uint16_t(I);
  FAIL("plan declares no buffer " << Name.str());
  return 0;
}

/// Compiles the request and checks every row against the plan and the
/// simulated contribution sets. Distribution rows (empty Holds) check that
/// the received blocks are complete.
void checkTable(const CompileRequest &Req, llvm::ArrayRef<Row> Rows,
                unsigned Steps) {
  Plan Pl = compileFixed(Req);
  uint32_t P = Req.ranks();
  for (uint32_t R = 0; R < P; ++R)
    CHECK(Pl.Programs[R].Rounds.size() == Steps);
  ReferenceInterpreter Sim(Pl);
  const test::Interpretation &Run = Sim.run([&](uint32_t Idx) {
    for (const Row &Rw : Rows) {
      if (Rw.Step != Idx)
        continue;
      INFO("P = ", P, ", step ", Rw.Step, ", rank ", Rw.Rank);
      const Program &Prog = Pl.Programs[Rw.Rank];
      REQUIRE(Idx < Prog.Rounds.size());
      const Round &Rd = Prog.Rounds[Idx];
      REQUIRE(Rd.Index == Idx);
      unsigned Sends = 0, Recvs = 0;
      for (const Op &O : Rd.Ops) {
        if (O.Kind == OpKind::Send) {
          ++Sends;
          CHECK(O.Peer == Rw.To);
          CHECK(O.Blocks == blocks(Rw.Sends, P));
        } else if (O.Kind == OpKind::Recv) {
          ++Recvs;
          CHECK(O.Peer == Rw.From);
          CHECK(O.Blocks == blocks(Rw.Recvs, P));
        }
      }
      CHECK(Sends == 1);
      CHECK(Recvs == 1);
      llvm::StringRef Holds(Rw.Holds);
      if (Holds.empty()) {
        blocks(Rw.Recvs, P).forEachBlock([&](uint64_t B) {
          CHECK(Sim.contributors(Rw.Rank, DataBuffer, B).all());
        });
        continue;
      }
      llvm::SmallVector<llvm::StringRef, 8> Items;
      Holds.split(Items, ' ', -1, false);
      for (llvm::StringRef Item : Items) {
        INFO("holds ", Item.str());
        uint16_t Buf =
            Item[0] == 'p' ? bufferNamed(Pl.Header, "partial") : DataBuffer;
        auto [Blk, Set] = Item.drop_front().split('{');
        llvm::BitVector Want = contributions(("{" + Set).str(), P);
        BlockSet Which = blocks(Blk, P);
        Which.forEachBlock([&](uint64_t B) {
          CHECK(Sim.defined(Rw.Rank, Buf, B));
          CHECK(Sim.contributors(Rw.Rank, Buf, B) == Want);
        });
      }
    }
  });
  CHECK(Run.firstError() == "");
  CHECK(Run.firstEndError() == "");
}

/// Every rank's program is rank 0's with peers and blocks moved by +Rank
/// (docs/algorithms/permutation.md, "Worked tables"), so rows given for some
/// ranks hold for all.
void checkRotation(const CompileRequest &Req) {
  Plan Pl = compileFixed(Req);
  uint32_t P = Req.ranks();
  for (uint32_t R = 1; R < P; ++R) {
    const Program &Zero = Pl.Programs[0], &Mine = Pl.Programs[R];
    REQUIRE(Zero.Rounds.size() == Mine.Rounds.size());
    for (size_t I = 0; I < Zero.Rounds.size(); ++I) {
      REQUIRE(Zero.Rounds[I].Ops.size() == Mine.Rounds[I].Ops.size());
      for (size_t K = 0; K < Zero.Rounds[I].Ops.size(); ++K) {
        Op Want = Zero.Rounds[I].Ops[K];
        if (Want.Kind != OpKind::Local)
          Want.Peer = (Want.Peer + R) % P;
        BlockSet Moved;
        Want.Blocks.forEachBlock(
            [&](uint64_t B) { Moved.insert((B + R) % P, (B + R) % P + 1); });
        Want.Blocks = Moved;
        CHECK(Mine.Rounds[I].Ops[K] == Want);
      }
    }
  }
}

} // namespace

TEST_CASE("P = 7, bandwidth-optimal (worked table, every rank)") {
  static const Row Rows[] = {
      {0, 0, 4, "3 2 1", 3, "6 5 4", "d6{0,3} d5{0,3} d4{0,3}"},
      {0, 1, 5, "4 3 2", 4, "0 6 5", "d0{1,4} d6{1,4} d5{1,4}"},
      {0, 2, 6, "5 4 3", 5, "1 0 6", "d1{2,5} d0{2,5} d6{2,5}"},
      {0, 3, 0, "6 5 4", 6, "2 1 0", "d2{3,6} d1{3,6} d0{3,6}"},
      {0, 4, 1, "0 6 5", 0, "3 2 1", "d3{0,4} d2{0,4} d1{0,4}"},
      {0, 5, 2, "1 0 6", 1, "4 3 2", "d4{1,5} d3{1,5} d2{1,5}"},
      {0, 6, 3, "2 1 0", 2, "5 4 3", "d5{2,6} d4{2,6} d3{2,6}"},
      {1, 0, 5, "5 4", 2, "0 6", "d0{0,2,5} d6{0,2,3,5}"},
      {1, 1, 6, "6 5", 3, "1 0", "d1{1,3,6} d0{1,3,4,6}"},
      {1, 2, 0, "0 6", 4, "2 1", "d2{0,2,4} d1{0,2,4,5}"},
      {1, 3, 1, "1 0", 5, "3 2", "d3{1,3,5} d2{1,3,5,6}"},
      {1, 4, 2, "2 1", 6, "4 3", "d4{2,4,6} d3{0,2,4,6}"},
      {1, 5, 3, "3 2", 0, "5 4", "d5{0,3,5} d4{0,1,3,5}"},
      {1, 6, 4, "4 3", 1, "6 5", "d6{1,4,6} d5{1,2,4,6}"},
      {2, 0, 6, "6", 1, "0", "d0{0..6}"},
      {2, 1, 0, "0", 2, "1", "d1{0..6}"},
      {2, 2, 1, "1", 3, "2", "d2{0..6}"},
      {2, 3, 2, "2", 4, "3", "d3{0..6}"},
      {2, 4, 3, "3", 5, "4", "d4{0..6}"},
      {2, 5, 4, "4", 6, "5", "d5{0..6}"},
      {2, 6, 5, "5", 0, "6", "d6{0..6}"},
      {3, 0, 1, "0", 6, "6"},
      {3, 1, 2, "1", 0, "0"},
      {3, 2, 3, "2", 1, "1"},
      {3, 3, 4, "3", 2, "2"},
      {3, 4, 5, "4", 3, "3"},
      {3, 5, 6, "5", 4, "4"},
      {3, 6, 0, "6", 5, "5"},
      {4, 0, 2, "0 6", 5, "5 4"},
      {4, 1, 3, "1 0", 6, "6 5"},
      {4, 2, 4, "2 1", 0, "0 6"},
      {4, 3, 5, "3 2", 1, "1 0"},
      {4, 4, 6, "4 3", 2, "2 1"},
      {4, 5, 0, "5 4", 3, "3 2"},
      {4, 6, 1, "6 5", 4, "4 3"},
      {5, 0, 3, "6 5 4", 4, "3 2 1"},
      {5, 1, 4, "0 6 5", 5, "4 3 2"},
      {5, 2, 5, "1 0 6", 6, "5 4 3"},
      {5, 3, 6, "2 1 0", 0, "6 5 4"},
      {5, 4, 0, "3 2 1", 1, "0 6 5"},
      {5, 5, 1, "4 3 2", 2, "1 0 6"},
      {5, 6, 2, "5 4 3", 3, "2 1 0"},
  };
  checkTable(request(7, {{"r", "0"}}), Rows, 6);
  checkRotation(request(7, {{"r", "0"}}));
}

TEST_CASE("P = 7, hybrid r = 1 (worked table, ranks 0 and 1, rotation)") {
  static const Row Rows[] = {
      {0, 0, 4, "3 2 1 0", 3, "6 5 4 3",
       "p6{0,3} p5{0,3} p4{0,3} p3{0,3} d0{0} d6{0}"},
      {0, 1, 5, "4 3 2 1", 4, "0 6 5 4",
       "p0{1,4} p6{1,4} p5{1,4} p4{1,4} d1{1} d0{1}"},
      {1, 0, 5, "5 4 3", 2, "0 6 5",
       "d0{0,2,5} d6{0,2,5} p6{0,2,3,5} p5{0,2,3,5}"},
      {1, 1, 6, "6 5 4", 3, "1 0 6",
       "d1{1,3,6} d0{1,3,6} p0{1,3,4,6} p6{1,3,4,6}"},
      {2, 0, 6, "6 5", 1, "0 6", "d0{0..6} d6{0..6}"},
      {2, 1, 0, "0 6", 2, "1 0", "d1{0..6} d0{0..6}"},
      {3, 0, 2, "0 6", 5, "5 4"},
      {3, 1, 3, "1 0", 6, "6 5"},
      {4, 0, 3, "6 5 4", 4, "3 2 1"},
      {4, 1, 4, "0 6 5", 5, "4 3 2"},
  };
  checkTable(request(7, {{"r", "1"}}), Rows, 5);
  checkRotation(request(7, {{"r", "1"}}));
}

TEST_CASE("P = 7, latency-optimal r = 3 (worked table, rank 0, rotation)") {
  static const Row Rows[] = {
      {0, 0, 4, "*", 3, "*", "p*{0,3} d*{0}"},
      {1, 0, 5, "*", 2, "*", "d*{0,2,5} p*{0,2,3,5}"},
      {2, 0, 6, "*", 1, "*", "d*{0..6}"},
  };
  checkTable(request(7, {{"r", "3"}}), Rows, 3);
  checkRotation(request(7, {{"r", "3"}}));
}

TEST_CASE("P = 3, all three variants (worked table, every rank)") {
  static const Row BO[] = {
      {0, 0, 2, "1", 1, "2", "d2{0,1}"},
      {0, 1, 0, "2", 2, "0", "d0{1,2}"},
      {0, 2, 1, "0", 0, "1", "d1{0,2}"},
      {1, 0, 2, "2", 1, "0", "d0{0..2}"},
      {1, 1, 0, "0", 2, "1", "d1{0..2}"},
      {1, 2, 1, "1", 0, "2", "d2{0..2}"},
      {2, 0, 1, "0", 2, "2"},
      {2, 1, 2, "1", 0, "0"},
      {2, 2, 0, "2", 1, "1"},
      {3, 0, 1, "2", 2, "1"},
      {3, 1, 2, "0", 0, "2"},
      {3, 2, 0, "1", 1, "0"},
  };
  checkTable(request(3, {{"r", "0"}}), BO, 4);
  static const Row Hybrid[] = {
      {0, 0, 2, "1 0", 1, "2 1", "p2{0,1} p1{0,1}"},
      {0, 1, 0, "2 1", 2, "0 2", "p0{1,2} p2{1,2}"},
      {0, 2, 1, "0 2", 0, "1 0", "p1{0,2} p0{0,2}"},
      {1, 0, 2, "2 1", 1, "0 2", "d0{0..2} d2{0..2}"},
      {1, 1, 0, "0 2", 2, "1 0", "d1{0..2} d0{0..2}"},
      {1, 2, 1, "1 0", 0, "2 1", "d2{0..2} d1{0..2}"},
      {2, 0, 1, "2", 2, "1"},
      {2, 1, 2, "0", 0, "2"},
      {2, 2, 0, "1", 1, "0"},
  };
  checkTable(request(3, {{"r", "1"}}), Hybrid, 3);
  static const Row LO[] = {
      {0, 0, 2, "*", 1, "*", "p*{0,1} d*{0}"},
      {0, 1, 0, "*", 2, "*", "p*{1,2} d*{1}"},
      {0, 2, 1, "*", 0, "*", "p*{0,2} d*{2}"},
      {1, 0, 2, "*", 1, "*", "d*{0..2}"},
      {1, 1, 0, "*", 2, "*", "d*{0..2}"},
      {1, 2, 1, "*", 0, "*", "d*{0..2}"},
  };
  checkTable(request(3, {{"r", "2"}}), LO, 2);
}

TEST_CASE("P = 5, every variant (worked table, rank 0, rotation)") {
  static const Row R0[] = {
      {0, 0, 3, "2 1", 2, "4 3", "d4{0,2} d3{0,2}"},
      {1, 0, 4, "3", 1, "4", "d4{0,1,2,3}"},
      {2, 0, 4, "4", 1, "0", "d0{0..4}"},
      {3, 0, 1, "0", 4, "4"},
      {4, 0, 1, "4", 4, "3"},
      {5, 0, 2, "4 3", 3, "2 1"},
  };
  checkTable(request(5, {{"r", "0"}}), R0, 6);
  static const Row R1[] = {
      {0, 0, 3, "2 1 0", 2, "4 3 2", "p4{0,2} p3{0,2} p2{0,2} d0{0} d4{0}"},
      {1, 0, 4, "3 2", 1, "4 3", "p4{0,1,2,3} p3{0,1,2,3}"},
      {2, 0, 4, "4 3", 1, "0 4", "d0{0..4} d4{0..4}"},
      {3, 0, 1, "4", 4, "3"},
      {4, 0, 2, "4 3", 3, "2 1"},
  };
  checkTable(request(5, {{"r", "1"}}), R1, 5);
  static const Row R2[] = {
      {0, 0, 3, "2 1 0 4", 2, "4 3 2 1", "p4{0,2} p3{0,2} p2{0,2} p1{0,2}"},
      {1, 0, 4, "3 2 1", 1, "4 3 2", "p4{0,1,2,3} p3{0,1,2,3} p2{0,1,2,3}"},
      {2, 0, 4, "4 3 2", 1, "0 4 3", "d0{0..4} d4{0..4} d3{0..4}"},
      {3, 0, 2, "4 3", 3, "2 1"},
  };
  checkTable(request(5, {{"r", "2"}}), R2, 4);
  static const Row R3[] = {
      {0, 0, 3, "*", 2, "*", "p*{0,2} d*{0}"},
      {1, 0, 4, "*", 1, "*", "p*{0,1,2,3} d*{0}"},
      {2, 0, 4, "*", 1, "*", "d*{0..4}"},
  };
  checkTable(request(5, {{"r", "3"}}), R3, 3);
  for (const char *R : {"0", "1", "2", "3"})
    checkRotation(request(5, {{"r", R}}));
}

TEST_CASE("P = 6, 4, 2, 1 (worked tables)") {
  static const Row P6[] = {
      {0, 0, 3, "3 2 1", 3, "0 5 4", "d0{0,3} d5{0,3} d4{0,3}"},
      {0, 1, 4, "4 3 2", 4, "1 0 5", "d1{1,4} d0{1,4} d5{1,4}"},
      {1, 0, 5, "4", 1, "5", "d5{0,1,3,4} d0{0,3}"},
      {2, 0, 5, "5", 1, "0", "d0{0..5}"},
      {3, 0, 1, "0", 5, "5"},
      {4, 0, 1, "5", 5, "4"},
      {5, 0, 3, "0 5 4", 3, "3 2 1"},
  };
  checkTable(request(6, {{"r", "0"}}), P6, 6);
  static const Row P4[] = {
      {0, 0, 2, "2 1", 2, "0 3", "d0{0,2} d3{0,2}"},
      {1, 0, 3, "3", 1, "0", "d0{0..3}"},
      {2, 0, 1, "0", 3, "3"},
      {3, 0, 2, "0 3", 2, "2 1"},
  };
  checkTable(request(4, {{"r", "0"}, {"group", "cyclic"}}), P4, 4);
  static const Row P2BO[] = {
      {0, 0, 1, "1", 1, "0", "d0{0,1}"},
      {1, 0, 1, "0", 1, "1"},
  };
  static const Row P2LO[] = {{0, 0, 1, "0 1", 1, "0 1", "d*{0,1}"}};
  for (const char *G : {"cyclic", "xor"}) {
    checkTable(request(2, {{"r", "0"}, {"group", G}}), P2BO, 2);
    checkTable(request(2, {{"r", "1"}, {"group", G}}), P2LO, 1);
  }
  for (Collective C : {Collective::Allreduce, Collective::ReduceScatter,
                       Collective::Allgather}) {
    Plan Pl = compileFixed(request(1, {}, C));
    CHECK(Pl.Programs.size() == 1);
    CHECK(Pl.Programs[0].Rounds.empty());
  }
}

namespace {

struct Counts {
  uint64_t J, Steps, Sent, Combines;
};

/// Per-rank counts of one plan; checks that every rank has the same.
Counts countsOf(const Plan &Pl) {
  Counts First{};
  for (uint32_t R = 0; R < Pl.Header.Ranks; ++R) {
    Counts C{0, Pl.Programs[R].Rounds.size(), 0, 0};
    for (const Round &Rd : Pl.Programs[R].Rounds)
      for (const Op &O : Rd.Ops) {
        if (O.Kind == OpKind::Send)
          C.Sent += O.Blocks.count();
        else if (O.Mode == Combine::Reduce)
          C.Combines += O.Blocks.count();
      }
    if (R == 0)
      First = C;
    CHECK(C.Steps == First.Steps);
    CHECK(C.Sent == First.Sent);
    CHECK(C.Combines == First.Combines);
  }
  return First;
}

/// J: blocks rank 0 holds complete once the L reduction rounds are done.
uint64_t completeAfterReduction(const Plan &Pl, unsigned L) {
  ReferenceInterpreter Sim(Pl);
  uint64_t J = 0;
  const test::Interpretation &Run = Sim.run([&](uint32_t Idx) {
    if (Idx + 1 != L)
      return;
    for (uint64_t B = 0; B < Pl.Header.Blocks; ++B)
      J += Sim.contributors(0, DataBuffer, B).all();
  });
  CHECK(Run.firstError() == "");
  CHECK(Run.firstEndError() == "");
  return J;
}

} // namespace

TEST_CASE("blocks sent and combined per rank (cyclic group)") {
  // r: J / steps / blocks sent / blocks combined, for r = 0..L.
  static const std::pair<uint32_t, const char *> Table[] = {
      {2, "1/2/2/1 2/1/2/2"},
      {3, "1/4/4/2 2/3/5/4 3/2/6/6"},
      {4, "1/4/6/3 2/3/7/5 4/2/8/8"},
      {5, "1/6/8/4 2/5/10/7 3/4/12/10 5/3/15/15"},
      {6, "1/6/10/5 2/5/12/8 3/4/14/11 6/3/18/18"},
      {7, "1/6/12/6 2/5/14/10 4/4/18/18 7/3/21/28"},
      {8, "1/6/14/7 2/5/16/10 4/4/20/16 8/3/24/24"},
      {9, "1/8/16/8 2/7/19/12 3/6/22/16 5/5/28/24 9/4/36/36"},
      {10, "1/8/18/9 2/7/21/13 3/6/24/17 5/5/30/25 10/4/40/40"},
      {11, "1/8/20/10 2/7/23/15 3/6/26/20 6/5/35/35 11/4/44/55"},
      {12, "1/8/22/11 2/7/25/15 3/6/28/19 6/5/37/31 12/4/48/48"},
      {13, "1/8/24/12 2/7/27/17 4/6/33/27 7/5/42/42 13/4/52/65"},
      {14, "1/8/26/13 2/7/29/18 4/6/35/28 7/5/44/43 14/4/56/70"},
      {15, "1/8/28/14 2/7/31/20 4/6/37/32 8/5/49/56 15/4/60/90"},
      {16, "1/8/30/15 2/7/33/19 4/6/39/27 8/5/51/43 16/4/64/64"},
      {31, "1/10/60/30 2/9/64/38 4/8/72/54 8/7/88/86 16/6/120/150 "
           "31/5/155/248"},
      {32, "1/10/62/31 2/9/66/36 4/8/74/46 8/7/90/66 16/6/122/106 "
           "32/5/160/160"},
      {33, "1/12/64/32 2/11/69/38 3/10/74/44 5/9/84/56 9/8/104/80 "
           "17/7/144/128 33/6/198/198"},
      {127, "1/14/252/126 2/13/258/138 4/12/270/162 8/11/294/210 "
            "16/10/342/306 32/9/438/498 64/8/630/882 127/7/889/1524"},
      {128, "1/14/254/127 2/13/260/134 4/12/272/148 8/11/296/176 "
            "16/10/344/232 32/9/440/344 64/8/632/568 128/7/896/896"},
  };
  for (auto [P, Text] : Table) {
    llvm::SmallVector<llvm::StringRef, 8> PerR;
    llvm::StringRef(Text).split(PerR, ' ', -1, false);
    unsigned L = PerR.size() - 1;
    for (unsigned R = 0; R <= L; ++R) {
      llvm::SmallVector<llvm::StringRef, 4> F;
      PerR[R].split(F, '/');
      Counts Want{};
      REQUIRE_FALSE(F[0].getAsInteger(10, Want.J));
      REQUIRE_FALSE(F[1].getAsInteger(10, Want.Steps));
      REQUIRE_FALSE(F[2].getAsInteger(10, Want.Sent));
      REQUIRE_FALSE(F[3].getAsInteger(10, Want.Combines));
      INFO("P = ", P, ", r = ", R);
      Plan Pl = compileFixed(
          request(P, {{"r", std::to_string(R)}, {"group", "cyclic"}}));
      Counts Got = countsOf(Pl);
      CHECK(Got.Steps == Want.Steps);
      CHECK(Got.Sent == Want.Sent);
      CHECK(Got.Combines == Want.Combines);
      CHECK(completeAfterReduction(Pl, L) == Want.J);
    }
  }
}

TEST_CASE("XOR group: recursive halving, recursive doubling, cheaper hybrid "
          "(XOR group)") {
  for (uint32_t P : {2u, 4u, 8u, 16u, 32u, 64u}) {
    unsigned L = llvm::Log2_32(P);
    INFO("P = ", P);
    Plan BO = compileFixed(request(P, {{"r", "0"}, {"group", "xor"}}));
    Plan LO = compileFixed(request(P, {{"r", std::to_string(L)}}));
    CHECK(LO.Header.Params.at("group") == "xor"); // the default
    for (uint32_t Rank = 0; Rank < P; ++Rank) {
      // RH: partner p XOR P/2^(i+1) at reduction step i, mirrored after.
      for (unsigned I = 0; I < 2 * L; ++I) {
        unsigned Step = I < L ? I : 2 * L - 1 - I;
        uint32_t Partner = Rank ^ (P >> (Step + 1));
        for (const Op &O : BO.Programs[Rank].Rounds[I].Ops)
          if (O.Kind != OpKind::Local)
            CHECK(O.Peer == Partner);
      }
      // RD: the whole vector with p XOR 2^(L-1-i).
      for (unsigned I = 0; I < L; ++I)
        for (const Op &O : LO.Programs[Rank].Rounds[I].Ops) {
          if (O.Kind != OpKind::Local)
            CHECK(O.Peer == (Rank ^ (1u << (L - 1 - I))));
          CHECK(O.Blocks == BlockSet::range(0, P));
        }
    }
    for (unsigned R = 0; R <= L; ++R) {
      INFO("r = ", R);
      Plan X = compileFixed(
          request(P, {{"r", std::to_string(R)}, {"group", "xor"}}));
      Plan C = compileFixed(
          request(P, {{"r", std::to_string(R)}, {"group", "cyclic"}}));
      Counts CX = countsOf(X), CC = countsOf(C);
      uint64_t J = uint64_t(1) << R;
      CHECK(CX.Steps == 2 * L - R);
      CHECK(CX.Sent == 2 * (P - J) + R * J);
      CHECK(CX.Combines == (P - J) + R * J);
      CHECK(completeAfterReduction(X, L) == J);
      CHECK(CX.Sent <= CC.Sent);
      CHECK(CX.Combines <= CC.Combines);
      if (R > 0 && R < L)
        CHECK(CX.Sent < CC.Sent);
      CostParams Cost;
      CHECK(evaluateCost(X, 1 << 20, Cost).Time <=
            evaluateCost(C, 1 << 20, Cost).Time * (1 + 1e-12));
    }
  }
  // P = 8, r = 2 (docs/algorithms/permutation.md, "Test oracles").
  Counts C = countsOf(compileFixed(request(8, {{"r", "2"}, {"group", "xor"}})));
  CHECK(C.Sent == 16);
  CHECK(C.Combines == 12);
}

TEST_CASE("reduce-scatter and allgather are the two phases, for any P") {
  for (uint32_t P = 1; P <= 40; ++P) {
    unsigned L = P == 1 ? 0 : llvm::Log2_32_Ceil(P);
    INFO("P = ", P);
    for (Collective C : {Collective::ReduceScatter, Collective::Allgather}) {
      Plan Pl = compileFixed(request(P, {}, C));
      CHECK(Pl.Header.Blocks == P);
      CHECK(Pl.Header.Buffers.size() == 1);
      for (uint32_t R = 0; R < P; ++R)
        CHECK(Pl.Header.ownedBy(R) == BlockSet::single(R));
      Counts N = countsOf(Pl);
      CHECK(N.Steps == L);
      CHECK(N.Sent == P - 1);
      CHECK(N.Combines == (C == Collective::ReduceScatter ? P - 1 : 0));
      ReferenceInterpreter Sim(Pl);
      CHECK(Sim.run().firstError() == "");
      CHECK(Sim.run().firstEndError() == "");
    }
  }
}

TEST_CASE("header: parameters, buffers, commutativity") {
  Plan BO = compileFixed(request(7, {{"r", "0"}}));
  CHECK(BO.Header.RequiresCommutative);
  CHECK(BO.Header.Params.at("group") == "cyclic");
  CHECK(BO.Header.Params.at("r") == "0");
  CHECK(BO.Header.Buffers == std::vector<std::string>{"data"});
  // P = 3, r = 1 keeps q* in data and q' in partial, and never needs a
  // separate receive buffer.
  Plan H3 = compileFixed(request(3, {{"r", "1"}}));
  CHECK(H3.Header.Buffers == std::vector<std::string>{"data", "partial"});
  // Powers of two never split A and B (no odd N_i).
  Plan H8 = compileFixed(request(8, {{"r", "1"}, {"group", "cyclic"}}));
  CHECK(H8.Header.Buffers == std::vector<std::string>{"data", "recv"});
  Plan H7 = compileFixed(request(7, {{"r", "2"}}));
  CHECK(H7.Header.Buffers ==
        std::vector<std::string>{"data", "recv", "partial"});
  Plan RS = compileFixed(request(8, {}, Collective::ReduceScatter));
  CHECK(RS.Header.Params.count("r") == 0);
  CHECK(RS.Header.Params.at("group") == "xor");
}

TEST_CASE("bad parameters are rejected with a message naming them") {
  auto ErrorOf = [](const CompileRequest &Req) {
    llvm::Expected<Plan> Pl = compilePlan(algo(), Req);
    REQUIRE_FALSE(bool(Pl));
    return llvm::toString(Pl.takeError());
  };
  std::string E = ErrorOf(request(6, {{"group", "xor"}}));
  CHECK(E.find("power-of-two") != std::string::npos);
  CHECK(E.find("P = 6") != std::string::npos);
  E = ErrorOf(request(8, {{"group", "torus"}}));
  CHECK(E.find("group=torus") != std::string::npos);
  E = ErrorOf(request(7, {{"r", "4"}}));
  CHECK(E.find("r=4") != std::string::npos);
  E = ErrorOf(request(7, {{"r", "x"}}));
  CHECK(E.find("r=x") != std::string::npos);
  E = ErrorOf(request(7, {{"r", "1"}}, Collective::ReduceScatter));
  CHECK(E.find("allreduce only") != std::string::npos);
  E = ErrorOf(request(7, {{"k", "1"}}));
  CHECK(E.find("'k'") != std::string::npos);
  E = ErrorOf(request(7, {}, Collective::Broadcast));
  CHECK(E.find("broadcast") != std::string::npos);
  // r = 0 is the only reduce-scatter and allgather there is.
  CHECK(bool(
      compilePlan(algo(), request(7, {{"r", "0"}}, Collective::Allgather))));
}

namespace {

/// The parameters of the paper's Table 2.
CostParams table2() {
  CostParams C;
  C.Alpha = 3e-5;
  C.Beta = 1e-8;
  C.Gamma = 2e-10;
  return C;
}

CompileRequest costed(uint32_t P, uint64_t Bytes,
                      std::map<std::string, std::string> Params = {}) {
  CompileRequest Req = request(P, std::move(Params));
  Req.Bytes = Bytes;
  Req.Cost = table2();
  // The paper tunes r for speed alone; with r >= 1 at P not a power of two
  // the ranks combine in different orders (rank-dependent rounding).
  Req.IdenticalResults = false;
  return Req;
}

/// The tuner's choice of r among the family's candidates.
PlanHeader tuned(const CompileRequest &Req) {
  const Algorithm *Family = &algo();
  llvm::Expected<Compilation> C = collplan::compile(Req, Family);
  REQUIRE(bool(C));
  return C->best().Header;
}

unsigned chosenR(const CompileRequest &Req) {
  unsigned R = 0;
  REQUIRE_FALSE(llvm::StringRef(tuned(Req).Params.at("r")).getAsInteger(10, R));
  return R;
}

/// The paper's (36) and (44), written out here for the test.
double formula(uint32_t P, unsigned L, unsigned R, double M) {
  CostParams C = table2();
  double U = M / P;
  if (R == L)
    return L * C.Alpha + P * L * U * C.Beta + P * (2 * L - 2) * U * C.Gamma;
  double X = std::pow(2.0, R) - 1;
  return (2 * L - R) * C.Alpha + (2 * (P - 1) + X * (L - 1)) * U * C.Beta +
         ((P - 1) + X * (2 * L - 2)) * U * C.Gamma;
}

} // namespace

TEST_CASE("P = 127 with the paper's Table 2 parameters picks r by size") {
  struct Spot {
    uint64_t M;
    unsigned R;
    double Best, BO, LO; // milliseconds
  };
  static const Spot Spots[] = {
      {425, 7, 0.2408, 0.4285, 0.2408},
      {4096, 4, 0.4123, 0.5021, 0.5066},
      {9216, 3, 0.5464, 0.6047, 0.8772},
      {65536, 0, 1.7334, 1.7334, 4.9548},
  };
  for (const Spot &S : Spots) {
    INFO("m = ", S.M);
    CHECK(chosenR(costed(127, S.M)) == S.R);
    auto Time = [&](unsigned R) {
      Plan Pl = compileFixed(costed(127, S.M, {{"r", std::to_string(R)}}));
      return evaluateCost(Pl, S.M, table2()).Time * 1e3;
    };
    // Blocks of m / 127 bytes are uneven (72 or 73 bytes for m = 9216), so
    // the critical path sits within a fraction of a percent of the formula.
    CHECK(Time(S.R) == doctest::Approx(S.Best).epsilon(0.01));
    CHECK(Time(0) == doctest::Approx(S.BO).epsilon(0.01));
    CHECK(Time(7) == doctest::Approx(S.LO).epsilon(0.01));
  }
  // With P | m the counts of P = 2^L - 1 make (36) and (44) exact.
  uint64_t M = 127 * 72;
  for (unsigned R = 0; R <= 7; ++R) {
    Plan Pl = compileFixed(costed(127, M, {{"r", std::to_string(R)}}));
    CHECK(evaluateCost(Pl, M, table2()).Time ==
          doctest::Approx(formula(127, 7, R, M)).epsilon(1e-9));
  }
  // P = 7 rows of the same table.
  CHECK(chosenR(costed(7, 425)) == 3);
  CHECK(chosenR(costed(7, 9216)) == 1);
}

TEST_CASE("the chosen r never grows with m") {
  for (uint32_t P : {6u, 7u, 33u, 100u, 127u}) {
    unsigned Last = 64;
    for (uint64_t M = 8; M <= (uint64_t(1) << 24); M *= 2) {
      unsigned R = chosenR(costed(P, M));
      INFO("P = ", P, ", m = ", M);
      CHECK(R <= Last);
      Last = R;
    }
    CHECK(Last == 0);
    CHECK(chosenR(costed(P, 8)) == (P == 1 ? 0 : llvm::Log2_32_Ceil(P)));
  }
}

TEST_CASE("explain shows (36)/(44) and marks the plan's r") {
  CompileRequest Req = costed(127, 9216);
  PlanHeader H = tuned(Req);
  std::string Text = algo().explain(Req, H);
  INFO(Text);
  CHECK(Text.find("r* = 3.26") != std::string::npos);
  // The chosen row: r = 3, J = 8, 11 rounds, (36) = 0.5464 ms.
  size_t Mark = Text.find("<- this plan");
  REQUIRE(Mark != std::string::npos);
  size_t LineStart = Text.rfind('\n', Mark) + 1;
  std::string Line = Text.substr(LineStart, Mark - LineStart);
  CHECK(Line.find("   3   8      11") == 0);
  CHECK(Line.find(" 0.5464") != std::string::npos);
  CHECK(Text.find("<- this plan", Mark + 1) == std::string::npos);
}

TEST_CASE("the tuner's table lists every r with the cost model's figure") {
  CompileRequest Req = costed(127, 9216);
  const Algorithm *Family = &algo();
  llvm::Expected<Compilation> C = collplan::compile(Req, Family);
  REQUIRE(bool(C));
  REQUIRE(C->Candidates.size() == 8);
  // Fastest first, and each figure is evaluateCost of that r's plan.
  for (size_t I = 0; I < C->Candidates.size(); ++I) {
    const Candidate &K = C->Candidates[I];
    CHECK(K.Skipped.empty());
    if (I > 0)
      CHECK(C->Candidates[I - 1].PredictedTime <= K.PredictedTime);
    CompileRequest Fixed = Req;
    Fixed.Params["r"] = K.Params.at("r");
    CHECK(K.PredictedTime ==
          evaluateCost(compileFixed(Fixed), Req.Bytes, Req.Cost).Time);
  }
  CHECK(C->Candidates[0].Params.at("r") == "3");
}

TEST_CASE("r is chosen with evaluateCost on a multi-node topology too") {
  CompileRequest Req = costed(32, 4096);
  Req.Topo = Topology::nodes(4, 8);
  Req.Cost.AlphaIntra = 1e-6;
  Req.Cost.BetaIntra = 1e-9;
  PlanHeader H = tuned(Req);
  unsigned Best = 0;
  double BestTime = 0;
  for (unsigned R = 0; R <= 5; ++R) {
    CompileRequest Fixed = Req;
    Fixed.Params["r"] = std::to_string(R);
    double T = evaluateCost(compileFixed(Fixed), Req.Bytes, Req.Cost).Time;
    if (R == 0 || T < BestTime)
      Best = R, BestTime = T;
  }
  CHECK(H.Params.at("r") == std::to_string(Best));
}
