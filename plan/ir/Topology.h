//===- Topology.h - Where ranks live: nodes, ppn and torus coordinates ---===//
//
// A topology describes the nodes of a job (a flat set of nodes or a
// D-dimensional torus of nodes), how many ranks each node holds, and how ranks
// are mapped onto nodes. The description is the mapping: nodeOf() and
// coordsOf() compute it, so a plan file stores a few integers at any P.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_TOPOLOGY_H
#define COLLPLAN_IR_TOPOLOGY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace collplan {

enum class TopologyKind : uint8_t { Flat, Torus };

/// How consecutive ranks are placed: Block fills node 0 first (ranks 0..ppn-1
/// on node 0); RoundRobin deals ranks to nodes like cards.
enum class RankMapping : uint8_t { Block, RoundRobin };

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
  uint32_t ranks() const { return NumNodes * RanksPerNode; }

  uint32_t nodeOf(uint32_t Rank) const;
  /// The rank's index among the ranks of its node.
  uint32_t localRankOf(uint32_t Rank) const;
  /// Torus coordinates of a node (row-major: the last dimension varies
  /// fastest); a single coordinate equal to the node for a flat topology.
  llvm::SmallVector<uint32_t, 4> coordsOf(uint32_t Node) const;

  /// The canonical text form, accepted back by parse() together with
  /// "--ppn": "flat", "nodes:4x8", "torus:8x8x2".
  std::string str() const;

  friend bool operator==(const Topology &A, const Topology &B) {
    return A.Kind == B.Kind && A.NumNodes == B.NumNodes &&
           A.RanksPerNode == B.RanksPerNode && A.Mapping == B.Mapping &&
           A.Dims == B.Dims;
  }

private:
  TopologyKind Kind = TopologyKind::Flat;
  uint32_t NumNodes = 1;
  uint32_t RanksPerNode = 1;
  RankMapping Mapping = RankMapping::Block;
  llvm::SmallVector<uint32_t, 4> Dims;
};

llvm::StringRef mappingName(RankMapping M);
std::optional<RankMapping> parseMapping(llvm::StringRef Name);

} // namespace collplan

#endif // COLLPLAN_IR_TOPOLOGY_H
