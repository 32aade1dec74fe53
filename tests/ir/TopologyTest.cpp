#include "plan/ir/BlockLayout.h"
#include "plan/ir/Topology.h"

#include <doctest/doctest.h>

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
