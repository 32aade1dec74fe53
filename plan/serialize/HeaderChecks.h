//===- HeaderChecks.h - Checks every plan reader makes ----------*- C++ -*-===//
//
// Internal to plan/serialize: the YAML/JSON reader (PlanFields.cpp) and the
// binary reader (BinaryPlan.cpp) read the header differently but check it the
// same way. Each check returns the problem, or nothing; the reader reports it
// at its location and field (readError).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_HEADERCHECKS_H
#define COLLPLAN_SERIALIZE_HEADERCHECKS_H

#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace collplan {

/// Field "version".
inline std::optional<std::string> checkVersion(uint64_t Version) {
  if (Version <= PlanFormatVersion)
    return std::nullopt;
  return "plan format version " + std::to_string(Version) +
         " is newer than this collplan supports (" +
         std::to_string(PlanFormatVersion) + "); upgrade collplan to read it";
}

/// Field "topology".
inline std::optional<std::string>
checkNodesMakeRanks(uint64_t Nodes, uint64_t Ppn, uint64_t Ranks) {
  if (Nodes * Ppn == Ranks)
    return std::nullopt;
  return std::to_string(Nodes) + " nodes of " + std::to_string(Ppn) +
         " ranks do not make the plan's " + std::to_string(Ranks) + " ranks";
}

/// Field "topology": an explicit map a reader decoded (T) must agree with
/// the header's rank count and the stored node count and largest node.
inline std::optional<std::string> checkExplicitMatches(const Topology &T,
                                                       uint64_t Nodes,
                                                       uint64_t Ppn,
                                                       uint64_t Ranks) {
  if (T.ranks() != Ranks)
    return "the rank -> node map has " + std::to_string(T.ranks()) +
           " ranks, not the plan's " + std::to_string(Ranks);
  if (T.numNodes() != Nodes || T.ranksPerNode() != Ppn)
    return "the rank -> node map has " + std::to_string(T.numNodes()) +
           " nodes of at most " + std::to_string(T.ranksPerNode()) +
           " ranks, not " + std::to_string(Nodes) + " of at most " +
           std::to_string(Ppn);
  return std::nullopt;
}

/// A field a reader names in its error, and what is wrong with it.
struct FieldProblem {
  std::string Field, Why;
};

/// The explicit topology a reader decoded (each rank's node, the stored node
/// count, largest node and the header's rank count), or what is wrong: the
/// map itself ("topology.node_of_rank") or its agreement with the header
/// ("topology").
inline std::variant<Topology, FieldProblem>
explicitTopology(std::vector<uint32_t> NodeOf, uint64_t Nodes, uint64_t Ppn,
                 uint64_t Ranks) {
  if (llvm::Error E = Topology::checkExplicitNodes(NodeOf))
    return FieldProblem{"topology.node_of_rank", llvm::toString(std::move(E))};
  Topology T = Topology::explicitNodes(std::move(NodeOf));
  if (std::optional<std::string> Why =
          checkExplicitMatches(T, Nodes, Ppn, Ranks))
    return FieldProblem{"topology", *Why};
  return T;
}

/// Field "topology.dims": Product is the dimensions' product (or any value
/// past MaxRanks once it overflows that).
inline std::optional<std::string> checkDimsMakeNodes(uint64_t Product,
                                                     uint64_t Nodes) {
  if (Product == Nodes)
    return std::nullopt;
  return "the dimensions do not multiply to " + std::to_string(Nodes) +
         " nodes";
}

/// Field "weights": a plan with weights has one per block.
inline std::optional<std::string> checkWeightCount(uint64_t Count,
                                                   uint64_t Blocks) {
  if (Count == Blocks)
    return std::nullopt;
  return "has " + std::to_string(Count) + " entries for " +
         std::to_string(Blocks) + " blocks";
}

/// Field "programs": one per rank.
inline std::optional<std::string> checkProgramCount(uint64_t Count,
                                                    uint64_t Ranks) {
  if (Count == Ranks)
    return std::nullopt;
  return "has " + std::to_string(Count) + " programs for " +
         std::to_string(Ranks) + " ranks";
}

/// Field "buffers[I]", except the first buffer's name (each reader words
/// that one): not empty, not declared before (Seen, which it joins).
inline std::optional<std::string> checkBufferName(llvm::StringRef Name,
                                                  llvm::StringSet<> &Seen) {
  if (Name.empty())
    return std::string("a buffer name cannot be empty");
  if (!Seen.insert(Name).second)
    return "buffer '" + Name.str() + "' is declared twice";
  return std::nullopt;
}

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_HEADERCHECKS_H
