//===- Topology.h - Where ranks live: nodes, ppn and torus coordinates ---===//
//
// A topology describes the nodes of a job (a flat set of nodes or a
// D-dimensional torus of nodes), how many ranks each node holds, and how ranks
// are mapped onto nodes. For the regular mappings the description is the
// mapping: nodeOf() and coordsOf() compute it, so a plan file stores a few
// integers at any P. An irregular job (nodes with different rank counts, as a
// launcher's hostfile gives them) carries its rank -> node map explicitly.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_TOPOLOGY_H
#define COLLPLAN_IR_TOPOLOGY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

enum class TopologyKind : uint8_t { Flat, Torus };

/// How consecutive ranks are placed: Block fills node 0 first (ranks 0..ppn-1
/// on node 0); RoundRobin deals ranks to nodes like cards; Explicit follows a
/// given node for every rank (Topology::explicitNodes).
enum class RankMapping : uint8_t { Block, RoundRobin, Explicit };

/// The largest P a plan may have; bounds every allocation a reader makes.
constexpr uint64_t MaxRanks = uint64_t(1) << 24;
/// The most dimensions a torus may have: Topology::parse refuses more, and
/// the plan readers refuse a file with more, so every plan compiled loads.
constexpr uint64_t MaxTorusDims = 16;

class Topology {
public:
  /// P ranks on P nodes, one rank each: the default.
  static Topology flat(uint32_t Ranks);
  /// Nodes nodes of RanksPerNode ranks each.
  static Topology nodes(uint32_t Nodes, uint32_t RanksPerNode,
                        RankMapping Mapping = RankMapping::Block);
  /// A torus of nodes with the given dimension sizes.
  static Topology torus(llvm::ArrayRef<uint32_t> Dims, uint32_t RanksPerNode,
                        RankMapping Mapping = RankMapping::Block);
  /// Rank r on node NodeOfRank[r]; nodes are numbered 0..N-1, each holding
  /// at least one rank (checkExplicitNodes), and may hold different numbers
  /// of ranks. ranksPerNode() is then the largest node's count.
  static Topology explicitNodes(std::vector<uint32_t> NodeOfRank);
  /// Why NodeOfRank cannot be a map (empty, too many ranks, a node number
  /// with no rank), or success.
  static llvm::Error checkExplicitNodes(llvm::ArrayRef<uint32_t> NodeOfRank);

  /// Parses the command-line form: "flat", "nodes:NxPPN" or "torus:AxBxC".
  /// Ranks (from --ranks) and RanksPerNode (from --ppn) are optional and must
  /// agree with the text; the result fixes P.
  static llvm::Expected<Topology> parse(llvm::StringRef Text,
                                        std::optional<uint64_t> Ranks,
                                        std::optional<uint64_t> RanksPerNode,
                                        RankMapping Mapping);

  TopologyKind kind() const { return Kind; }
  uint32_t numNodes() const { return NumNodes; }
  uint32_t ranksPerNode() const { return RanksPerNode; }
  RankMapping mapping() const { return Mapping; }
  /// Torus dimension sizes; empty for a flat topology.
  llvm::ArrayRef<uint32_t> dims() const { return Dims; }
  uint32_t ranks() const {
    return Map ? uint32_t(Map->NodeOf.size()) : NumNodes * RanksPerNode;
  }
  /// Whether every node holds ranksPerNode() ranks.
  bool isRegular() const { return !Map || Map->Regular; }
  /// The number of ranks on Node.
  uint32_t ranksOn(uint32_t Node) const {
    return Map ? uint32_t(Map->RanksOf[Node].size()) : RanksPerNode;
  }
  /// The number of ranks on the smallest node.
  uint32_t fewestRanksOnANode() const {
    return Map ? Map->Fewest : RanksPerNode;
  }
  /// An explicit map's node of every rank; empty for the regular mappings.
  llvm::ArrayRef<uint32_t> explicitNodeOf() const {
    return Map ? llvm::ArrayRef<uint32_t>(Map->NodeOf)
               : llvm::ArrayRef<uint32_t>();
  }

  uint32_t nodeOf(uint32_t Rank) const;
  /// The rank's index among the ranks of its node (in rank order).
  uint32_t localRankOf(uint32_t Rank) const;
  /// The rank with local index Local on Node: the inverse of the two above.
  uint32_t rankAt(uint32_t Node, uint32_t Local) const;
  /// Torus coordinates of a node (row-major: the last dimension varies
  /// fastest); a single coordinate equal to the node for a flat topology,
  /// whose nodes form a ring of numNodes(). This is the one place that maps
  /// nodes to coordinates: the torus router of the cost model and the torus
  /// families (swing, bucket) read it.
  llvm::SmallVector<uint32_t, 4> coordsOf(uint32_t Node) const;
  /// Coordinate Dim of Node: coordsOf(Node)[Dim] without the vector.
  uint32_t coordOf(uint32_t Node, unsigned Dim) const {
    return Node / stride(Dim) % extent(Dim);
  }
  /// The node at Coords: the inverse of coordsOf.
  uint32_t nodeAt(llvm::ArrayRef<uint32_t> Coords) const;
  /// The node Offset steps from Node along dimension Dim, wrapping round
  /// (negative: the - direction); neighbour(N, D, +1) and (N, D, -1) are
  /// N's two neighbours along D.
  uint32_t neighbour(uint32_t Node, unsigned Dim, int64_t Offset) const;
  /// How many coordinates coordsOf gives: dims().size() on a torus, 1 on a
  /// flat topology.
  unsigned numDims() const {
    return Kind == TopologyKind::Torus ? unsigned(Dims.size()) : 1;
  }
  /// The size of dimension Dim (a flat topology's one dimension: numNodes()).
  uint32_t extent(unsigned Dim) const {
    return Kind == TopologyKind::Torus ? Dims[Dim] : NumNodes;
  }
  /// How far node numbers move for one step along dimension Dim.
  uint32_t stride(unsigned Dim) const {
    return Kind == TopologyKind::Torus ? Strides[Dim] : 1;
  }

  /// The canonical text form, accepted back by parse() together with
  /// "--ppn": "flat", "nodes:4x8", "torus:8x8x2"; "hostfile:N" (N nodes)
  /// names an explicit map, which only a hostfile or a plan file gives.
  std::string str() const;

  friend bool operator==(const Topology &A, const Topology &B) {
    return A.Kind == B.Kind && A.NumNodes == B.NumNodes &&
           A.RanksPerNode == B.RanksPerNode && A.Mapping == B.Mapping &&
           A.Dims == B.Dims && A.explicitNodeOf() == B.explicitNodeOf();
  }

private:
  /// An explicit map, shared by copies (a topology is copied into every
  /// request and header; the map can hold millions of ranks).
  struct ExplicitMap {
    std::vector<uint32_t> NodeOf, LocalOf;
    std::vector<std::vector<uint32_t>> RanksOf;
    uint32_t Fewest = 0;
    bool Regular = true;
  };
  std::shared_ptr<const ExplicitMap> Map;

  TopologyKind Kind = TopologyKind::Flat;
  uint32_t NumNodes = 1;
  uint32_t RanksPerNode = 1;
  RankMapping Mapping = RankMapping::Block;
  llvm::SmallVector<uint32_t, 4> Dims;
  /// Strides[i]: the product of the dimensions after i (row-major), derived
  /// from Dims by torus().
  llvm::SmallVector<uint32_t, 4> Strides;
};

llvm::StringRef mappingName(RankMapping M);
std::optional<RankMapping> parseMapping(llvm::StringRef Name);

} // namespace collplan

#endif // COLLPLAN_IR_TOPOLOGY_H
