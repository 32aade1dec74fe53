//===- Topology.cpp - Where ranks live ------------------------------------===//

#include "plan/ir/Topology.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>

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
  T.Strides.resize(Dims.size());
  for (size_t I = Dims.size(); I-- > 0;) {
    T.Strides[I] = T.NumNodes;
    T.NumNodes *= Dims[I];
  }
  T.RanksPerNode = RanksPerNode;
  T.Mapping = Mapping;
  return T;
}

llvm::Error Topology::checkExplicitNodes(llvm::ArrayRef<uint32_t> NodeOfRank) {
  if (NodeOfRank.empty())
    return makeError(ErrorKind::Usage, "a rank -> node map needs a rank");
  if (NodeOfRank.size() > MaxRanks)
    return makeError(ErrorKind::Usage,
                     "a rank -> node map has more than %llu ranks",
                     (unsigned long long)MaxRanks);
  std::vector<bool> Seen;
  for (uint32_t Node : NodeOfRank) {
    if (Node >= NodeOfRank.size())
      return makeError(ErrorKind::Usage,
                       "node %u of a %zu-rank map: nodes are numbered from 0 "
                       "and each holds a rank",
                       Node, NodeOfRank.size());
    if (Seen.size() <= Node)
      Seen.resize(Node + 1);
    Seen[Node] = true;
  }
  for (size_t Node = 0; Node < Seen.size(); ++Node)
    if (!Seen[Node])
      return makeError(ErrorKind::Usage,
                       "node %zu of a rank -> node map holds no rank", Node);
  return llvm::Error::success();
}

Topology Topology::explicitNodes(std::vector<uint32_t> NodeOfRank) {
  assert(!checkExplicitNodes(NodeOfRank) && "check the map first");
  auto M = std::make_shared<ExplicitMap>();
  uint32_t Nodes = *std::max_element(NodeOfRank.begin(), NodeOfRank.end()) + 1;
  M->RanksOf.resize(Nodes);
  M->LocalOf.resize(NodeOfRank.size());
  for (uint32_t R = 0; R < NodeOfRank.size(); ++R) {
    M->LocalOf[R] = uint32_t(M->RanksOf[NodeOfRank[R]].size());
    M->RanksOf[NodeOfRank[R]].push_back(R);
  }
  size_t Largest = 0, Fewest = NodeOfRank.size();
  for (const std::vector<uint32_t> &Ranks : M->RanksOf) {
    Largest = std::max(Largest, Ranks.size());
    Fewest = std::min(Fewest, Ranks.size());
  }
  M->Regular = Largest == Fewest;
  M->Fewest = uint32_t(Fewest);
  M->NodeOf = std::move(NodeOfRank);
  Topology T = nodes(Nodes, uint32_t(Largest), RankMapping::Explicit);
  T.Map = std::move(M);
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
  if (Mapping == RankMapping::Explicit)
    return Fail("an explicit rank -> node map comes from a hostfile");
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
  if (Map)
    return Map->NodeOf[Rank];
  return Mapping == RankMapping::Block ? Rank / RanksPerNode : Rank % NumNodes;
}

uint32_t Topology::localRankOf(uint32_t Rank) const {
  if (Map)
    return Map->LocalOf[Rank];
  return Mapping == RankMapping::Block ? Rank % RanksPerNode : Rank / NumNodes;
}

uint32_t Topology::rankAt(uint32_t Node, uint32_t Local) const {
  if (Map)
    return Map->RanksOf[Node][Local];
  return Mapping == RankMapping::Block ? Node * RanksPerNode + Local
                                       : Local * NumNodes + Node;
}

llvm::SmallVector<uint32_t, 4> Topology::coordsOf(uint32_t Node) const {
  llvm::SmallVector<uint32_t, 4> Coords(numDims());
  for (unsigned I = 0; I < Coords.size(); ++I)
    Coords[I] = coordOf(Node, I);
  return Coords;
}

uint32_t Topology::nodeAt(llvm::ArrayRef<uint32_t> Coords) const {
  assert(Coords.size() == numDims() && "one coordinate per dimension");
  uint32_t Node = 0;
  for (unsigned I = 0; I < Coords.size(); ++I)
    Node += Coords[I] * stride(I);
  return Node;
}

uint32_t Topology::neighbour(uint32_t Node, unsigned Dim,
                             int64_t Offset) const {
  int64_t Size = extent(Dim), From = coordOf(Node, Dim);
  int64_t To = ((From + Offset) % Size + Size) % Size;
  return uint32_t(int64_t(Node) + (To - From) * int64_t(stride(Dim)));
}

std::string Topology::str() const {
  if (Map)
    return "hostfile:" + std::to_string(NumNodes);
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
  switch (M) {
  case RankMapping::Block:
    return "block";
  case RankMapping::RoundRobin:
    return "round-robin";
  case RankMapping::Explicit:
    return "explicit";
  }
  llvm_unreachable("unknown mapping");
}

std::optional<RankMapping> parseMapping(llvm::StringRef Name) {
  if (Name == "block")
    return RankMapping::Block;
  if (Name == "round-robin")
    return RankMapping::RoundRobin;
  if (Name == "explicit")
    return RankMapping::Explicit;
  return std::nullopt;
}

} // namespace collplan
