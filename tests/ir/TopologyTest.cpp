#include "plan/ir/Topology.h"
#include "plan/ir/BlockLayout.h"

#include <doctest/doctest.h>

#include <vector>

using namespace collplan;

static Topology parseOk(const char *Text, std::optional<uint64_t> Ranks,
                        std::optional<uint64_t> Ppn,
                        RankMapping M = RankMapping::Block) {
  llvm::Expected<Topology> T = Topology::parse(Text, Ranks, Ppn, M);
  REQUIRE_MESSAGE(bool(T), (T ? "" : llvm::toString(T.takeError())));
  return *T;
}

static std::string parseError(const char *Text, std::optional<uint64_t> Ranks,
                              std::optional<uint64_t> Ppn) {
  llvm::Expected<Topology> T =
      Topology::parse(Text, Ranks, Ppn, RankMapping::Block);
  REQUIRE(!T);
  return llvm::toString(T.takeError());
}

TEST_CASE("topology text forms fix P") {
  CHECK(parseOk("flat", 7, {}).ranks() == 7);
  CHECK(parseOk("flat", 64, 4).numNodes() == 16);
  CHECK(parseOk("nodes:16x4", {}, {}).ranks() == 64);
  // nodes:16x4 is the same as flat with 16 nodes and --ppn 4.
  CHECK(parseOk("nodes:16x4", {}, {}) == parseOk("flat", 64, 4));
  Topology T = parseOk("torus:8x8", {}, 4);
  CHECK(T.ranks() == 256);
  CHECK(T.numNodes() == 64);
  CHECK(parseOk("torus:4x3x2", 24, {}).dims().size() == 3);
}

TEST_CASE("impossible topologies are errors naming the problem") {
  CHECK(parseError("flat", 0, {}).find("at least 1") != std::string::npos);
  CHECK(parseError("flat", {}, {}).find("--ranks") != std::string::npos);
  CHECK(parseError("flat", 10, 4).find("multiple") != std::string::npos);
  CHECK(parseError("nodes:4x4", 17, {}).find("contradicts") !=
        std::string::npos);
  CHECK(parseError("nodes:4x4", {}, 2).find("contradicts") !=
        std::string::npos);
  CHECK(parseError("torus:8x0", {}, {}).find("positive") != std::string::npos);
  CHECK(parseError("torus:", {}, {}).find("positive") != std::string::npos);
  CHECK(parseError("ring:4", {}, {}).find("unknown kind") != std::string::npos);
  CHECK(parseError("torus:100000x100000", {}, {}).find("more than") !=
        std::string::npos);
  CHECK(parseError("flat", 1ull << 40, {}).find("limit") != std::string::npos);
}

TEST_CASE("rank to node mapping, block and round-robin") {
  Topology Block = parseOk("nodes:3x4", {}, {});
  Topology RR = parseOk("nodes:3x4", {}, {}, RankMapping::RoundRobin);
  for (uint32_t R = 0; R < 12; ++R) {
    CHECK(Block.nodeOf(R) == R / 4);
    CHECK(Block.localRankOf(R) == R % 4);
    CHECK(RR.nodeOf(R) == R % 3);
    CHECK(RR.localRankOf(R) == R / 3);
  }
  Topology Torus = parseOk("torus:4x3", {}, 2);
  // Row-major: node 7 = (2, 1) in a 4x3 torus.
  CHECK(Torus.coordsOf(7) == llvm::SmallVector<uint32_t, 4>{2, 1});
  CHECK(Torus.nodeOf(15) == 7);
}

TEST_CASE("torus coordinates round-trip and neighbours wrap (brute force)") {
  // The oracle lists every coordinate tuple of the torus in row-major order
  // by counting like an odometer (the last dimension turns fastest), and
  // moves along a dimension by adding one to a coordinate and wrapping it by
  // hand: no stride arithmetic, unlike Topology.
  for (std::vector<uint32_t> Dims : std::vector<std::vector<uint32_t>>{
           {1}, {2}, {5}, {2, 2}, {4, 3}, {3, 1, 4}, {2, 3, 2, 2}}) {
    Topology T = Topology::torus(Dims, 1);
    std::vector<std::vector<uint32_t>> All;
    std::vector<uint32_t> X(Dims.size(), 0);
    while (true) {
      All.push_back(X);
      size_t E = Dims.size();
      while (E-- > 0 && ++X[E] == Dims[E])
        X[E] = 0;
      if (E >= Dims.size())
        break;
    }
    REQUIRE(All.size() == T.numNodes());
    CHECK(T.numDims() == Dims.size());
    for (uint32_t Node = 0; Node < All.size(); ++Node) {
      CAPTURE(Node);
      llvm::SmallVector<uint32_t, 4> C = T.coordsOf(Node);
      CHECK(std::vector<uint32_t>(C.begin(), C.end()) == All[Node]);
      CHECK(T.nodeAt(All[Node]) == Node);
      for (unsigned D = 0; D < Dims.size(); ++D) {
        CHECK(T.coordOf(Node, D) == All[Node][D]);
        std::vector<uint32_t> Up = All[Node], Down = All[Node];
        Up[D] = Up[D] + 1 == Dims[D] ? 0 : Up[D] + 1;
        Down[D] = Down[D] == 0 ? Dims[D] - 1 : Down[D] - 1;
        uint32_t Plus = T.neighbour(Node, D, +1);
        uint32_t Minus = T.neighbour(Node, D, -1);
        CHECK(All[Plus] == Up);
        CHECK(All[Minus] == Down);
        // A longer move is that many single steps, either way round.
        uint32_t Walked = Node;
        for (int64_t K = 1; K <= 2 * int64_t(Dims[D]) + 1; ++K) {
          Walked = T.neighbour(Walked, D, +1);
          CHECK(T.neighbour(Node, D, K) == Walked);
          CHECK(T.neighbour(Walked, D, -K) == Node);
        }
      }
    }
  }
}

TEST_CASE("a flat topology's nodes form one ring") {
  Topology T = Topology::nodes(5, 3);
  CHECK(T.numDims() == 1);
  CHECK(T.extent(0) == 5);
  for (uint32_t Node = 0; Node < 5; ++Node) {
    CHECK(T.coordsOf(Node) == llvm::SmallVector<uint32_t, 4>{Node});
    CHECK(T.nodeAt({Node}) == Node);
    CHECK(T.neighbour(Node, 0, 1) == (Node + 1) % 5);
    CHECK(T.neighbour(Node, 0, -1) == (Node + 4) % 5);
  }
}

TEST_CASE("block layout partitions any element count") {
  PlanHeader H;
  H.Ranks = 1;
  for (uint64_t Blocks : {1, 3, 7, 16}) {
    H.Blocks = Blocks;
    for (uint64_t Count : {0, 1, 2, 5, 16, 17, 1000}) {
      BlockLayout L(H, Count);
      uint64_t Sum = 0;
      for (uint64_t B = 0; B < Blocks; ++B) {
        CHECK(L.begin(B) == Sum);
        // Uniform blocks differ by at most one element.
        CHECK(L.size(B) >= Count / Blocks);
        CHECK(L.size(B) <= Count / Blocks + 1);
        Sum += L.size(B);
      }
      CHECK(Sum == Count);
    }
  }
  H.Blocks = 3;
  H.Weights = {1, 0, 3};
  BlockLayout W(H, 8);
  CHECK(W.size(0) == 2);
  CHECK(W.size(1) == 0);
  CHECK(W.size(2) == 6);
  CHECK(W.size(BlockSet::range(0, 3)) == 8);
}
