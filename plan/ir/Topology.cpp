//===- Topology.cpp - Where ranks live ------------------------------------===//

#include "plan/ir/Topology.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/STLExtras.h"

namespace collplan {

Topology Topology::flat(uint32_t Ranks) { return nodes(Ranks, 1); }

Topology Topology::nodes(uint32_t Nodes, uint32_t RanksPerNode,
                         RankMapping Mapping) {
  Topology T;
  T.Kind = TopologyKind::Flat;
  T.NumNodes = Nodes;
  T.RanksPerNode = RanksPerNode;
  T.Mapping = Mapping;
  return T;
}

Topology Topology::torus(llvm::ArrayRef<uint32_t> Dims, uint32_t RanksPerNode,
                         RankMapping Mapping) {
  Topology T;
  T.Kind = TopologyKind::Torus;
  T.Dims.assign(Dims.begin(), Dims.end());
  T.NumNodes = 1;
  for (uint32_t D : Dims)
    T.NumNodes *= D;
  T.RanksPerNode = RanksPerNode;
  T.Mapping = Mapping;
  return T;
}

/// Parses "AxBxC" into positive integers whose product stays within MaxRanks.
static llvm::Expected<llvm::SmallVector<uint64_t, 4>>
parseExtents(llvm::StringRef Text, llvm::StringRef Whole) {
  llvm::SmallVector<uint64_t, 4> Out;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, 'x');
  uint64_t Product = 1;
  for (llvm::StringRef Part : Parts) {
    uint64_t V = 0;
    if (Part.getAsInteger(10, V) || V == 0)
      return makeError(ErrorKind::Usage,
                       "topology '%s': '%s' is not a positive integer",
                       Whole.str().c_str(), Part.str().c_str());
    if (V > MaxRanks || (Product *= V) > MaxRanks)
      return makeError(ErrorKind::Usage,
                       "topology '%s' has more than %llu ranks",
                       Whole.str().c_str(), (unsigned long long)MaxRanks);
    Out.push_back(V);
  }
  return Out;
}

llvm::Expected<Topology> Topology::parse(llvm::StringRef Text,
                                         std::optional<uint64_t> Ranks,
                                         std::optional<uint64_t> RanksPerNode,
                                         RankMapping Mapping) {
  auto Fail = [&](const std::string &Why) -> llvm::Error {
    return makeError(ErrorKind::Usage, "topology '%s': %s", Text.str().c_str(),
                     Why.c_str());
  };
  if (RanksPerNode && (*RanksPerNode == 0 || *RanksPerNode > MaxRanks))
    return Fail("--ppn must be between 1 and " + std::to_string(MaxRanks));
  uint64_t Ppn = RanksPerNode.value_or(1);

  Topology T;
  auto [Kind, Shape] = Text.split(':');
  if (Kind == "flat") {
    if (!Shape.empty())
      return Fail("'flat' takes no shape; give --ranks and optionally --ppn");
    if (!Ranks)
      return Fail("a flat topology needs --ranks");
    if (*Ranks == 0)
      return Fail("P must be at least 1");
    if (*Ranks > MaxRanks)
      return Fail("P = " + std::to_string(*Ranks) + " exceeds the limit of " +
                  std::to_string(MaxRanks) + " ranks");
    if (*Ranks % Ppn != 0)
      return Fail("P = " + std::to_string(*Ranks) +
                  " is not a multiple of --ppn " + std::to_string(Ppn));
    T = nodes(uint32_t(*Ranks / Ppn), uint32_t(Ppn), Mapping);
  } else if (Kind == "nodes") {
    auto Extents = parseExtents(Shape, Text);
    if (!Extents)
      return Extents.takeError();
    if (Extents->size() != 2)
      return Fail("expected nodes:NxPPN, for example nodes:16x4");
    if (RanksPerNode && *RanksPerNode != (*Extents)[1])
      return Fail("--ppn " + std::to_string(*RanksPerNode) +
                  " contradicts the topology's " +
                  std::to_string((*Extents)[1]) + " ranks per node");
    T = nodes(uint32_t((*Extents)[0]), uint32_t((*Extents)[1]), Mapping);
  } else if (Kind == "torus") {
    auto Extents = parseExtents(Shape, Text);
    if (!Extents)
      return Extents.takeError();
    if (Extents->empty())
      return Fail("expected torus:AxB..., for example torus:8x8");
    if (Extents->size() > MaxTorusDims)
      return Fail("a torus has at most " + std::to_string(MaxTorusDims) +
                  " dimensions, not " + std::to_string(Extents->size()));
    llvm::SmallVector<uint32_t, 4> Dims(Extents->begin(), Extents->end());
    T = torus(Dims, uint32_t(Ppn), Mapping);
  } else {
    return Fail("unknown kind '" + Kind.str() +
                "'; expected flat, nodes:NxPPN or torus:AxB...");
  }
  if (uint64_t(T.NumNodes) * T.RanksPerNode > MaxRanks)
    return Fail("more than " + std::to_string(MaxRanks) + " ranks");
  if (Ranks && *Ranks != T.ranks())
    return Fail("--ranks " + std::to_string(*Ranks) +
                " contradicts the topology's " + std::to_string(T.ranks()) +
                " ranks");
  return T;
}

uint32_t Topology::nodeOf(uint32_t Rank) const {
  return Mapping == RankMapping::Block ? Rank / RanksPerNode : Rank % NumNodes;
}

uint32_t Topology::localRankOf(uint32_t Rank) const {
  return Mapping == RankMapping::Block ? Rank % RanksPerNode : Rank / NumNodes;
}

llvm::SmallVector<uint32_t, 4> Topology::coordsOf(uint32_t Node) const {
  if (Kind == TopologyKind::Flat)
    return {Node};
  llvm::SmallVector<uint32_t, 4> Coords(Dims.size());
  for (size_t I = Dims.size(); I-- > 0;) {
    Coords[I] = Node % Dims[I];
    Node /= Dims[I];
  }
  return Coords;
}

std::string Topology::str() const {
  if (Kind == TopologyKind::Flat)
    return RanksPerNode == 1 ? "flat"
                             : "nodes:" + std::to_string(NumNodes) + "x" +
                                   std::to_string(RanksPerNode);
  std::string Out = "torus:";
  for (size_t I = 0; I < Dims.size(); ++I)
    Out += (I ? "x" : "") + std::to_string(Dims[I]);
  return Out;
}

llvm::StringRef mappingName(RankMapping M) {
  return M == RankMapping::Block ? "block" : "round-robin";
}

std::optional<RankMapping> parseMapping(llvm::StringRef Name) {
  if (Name == "block")
    return RankMapping::Block;
  if (Name == "round-robin")
    return RankMapping::RoundRobin;
  return std::nullopt;
}

} // namespace collplan
