//===- NodeAwarePartition.h - NAP's node groups and roles -------*- C++ -*-===//
//
// The node-level half of the node-aware parallel (NAP) allreduce (Bienz,
// Olson, Gropp, "Node-aware improvements to allreduce", §III). Every rank of
// a node holds the same partial; at an inter-node step the nodes of a group
// are split into k <= ppn subgroups whose members already agree, and local
// rank r of a node in subgroup j fetches the partial of subgroup r from the
// node at the same position there, so that one step merges up to ppn
// subgroups instead of two.
//
// The paper only treats node counts that are powers of ppn (and, in §III-A,
// multiples of a power). For any other count the groups are formed top-down
// (docs/algorithms/nap.md, "Idea"): the whole job is one group of L =
// ceil(log_ppn n) steps; a group at step i is cut into k = ceil(|G| / ppn^i)
// contiguous subgroups whose sizes differ by at most one, larger first, and
// each subgroup is a group of step i - 1. With balanced sizes only the last
// node of a larger subgroup can miss a partner; the idle rank of the smaller
// subgroup's node at the matching position then sends one way to it, so no
// process sends more than one inter-node message per step. Cutting into aligned
// blocks of ppn^i nodes instead would make one process serve up to n - 2
// receivers in a step.
//
// Everything here is in node coordinates (node index, local rank); the
// caller maps them to ranks through the topology, so any rank mapping works.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_NODEAWAREPARTITION_H
#define COLLPLAN_ALGORITHMS_NODEAWAREPARTITION_H

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

namespace collplan {

/// L = the smallest L with PerNode^L >= Nodes: NAP's inter-node steps.
inline uint32_t napSteps(uint32_t Nodes, uint32_t PerNode) {
  assert(PerNode >= 2 && "NAP needs at least two ranks per node");
  uint32_t L = 0;
  for (uint64_t Span = 1; Span < Nodes; Span *= PerNode)
    ++L;
  return L;
}

/// One group of nodes [Lo, Lo + Size) cut into K balanced contiguous
/// subgroups, the larger ones (one node more) first.
struct NodeGroupSplit {
  uint32_t Lo = 0;
  uint32_t Size = 1;
  uint32_t K = 1;

  /// Nodes in each smaller subgroup.
  uint32_t smallSize() const { return Size / K; }
  /// How many subgroups have smallSize() + 1 nodes.
  uint32_t largeCount() const { return Size % K; }
  uint32_t sizeOf(uint32_t J) const {
    return smallSize() + (J < largeCount() ? 1 : 0);
  }
  uint32_t startOf(uint32_t J) const {
    return Lo + J * smallSize() + std::min(J, largeCount());
  }
  /// The subgroup holding Node.
  uint32_t subgroupOf(uint32_t Node) const {
    uint32_t Offset = Node - Lo, Large = largeCount(), S = smallSize();
    if (Offset < Large * (S + 1))
      return Offset / (S + 1);
    return Large + (Offset - Large * (S + 1)) / S;
  }
};

/// The splits of the groups that hold Node, indexed by step (0 .. L-1):
/// built top-down from the whole job, as docs/algorithms/nap.md describes.
inline llvm::SmallVector<NodeGroupSplit, 4>
napSplitsOf(uint32_t Node, uint32_t Nodes, uint32_t PerNode) {
  uint32_t L = napSteps(Nodes, PerNode);
  llvm::SmallVector<NodeGroupSplit, 4> Splits(L);
  uint64_t Span = 1; // PerNode^i for the step being cut; fits: < Nodes.
  for (uint32_t I = 1; I < L; ++I)
    Span *= PerNode;
  uint32_t Lo = 0, Size = Nodes;
  for (uint32_t I = L; I-- > 0;) {
    NodeGroupSplit S;
    S.Lo = Lo;
    S.Size = Size;
    S.K = uint32_t((Size + Span - 1) / Span);
    Splits[I] = S;
    uint32_t J = S.subgroupOf(Node);
    Lo = S.startOf(J);
    Size = S.sizeOf(J);
    Span /= PerNode;
  }
  return Splits;
}

enum class NapRole : uint8_t {
  Noop,       ///< The group has one subgroup: it skips the step.
  Idle,       ///< No inter-node message; contributes nothing.
  Exchange,   ///< Sends its partial to the peer and receives the peer's.
  RecvOnly,   ///< Receives the partial of a subgroup lacking its position.
  ServerSend, ///< An idle rank sending its partial one way to that receiver.
};

struct NapStepRole {
  NapRole Kind = NapRole::Noop;
  uint32_t PeerNode = 0;
  uint32_t PeerLocal = 0;

  /// Whether the rank receives a partial (so holds a contribution) this step.
  bool receives() const {
    return Kind == NapRole::Exchange || Kind == NapRole::RecvOnly;
  }
};

/// The role of local rank Local on Node in the step whose split is S.
inline NapStepRole napRoleOf(const NodeGroupSplit &S, uint32_t Node,
                             uint32_t Local) {
  NapStepRole Role;
  if (S.K == 1)
    return Role;
  uint32_t J = S.subgroupOf(Node);
  uint32_t X = Node - S.startOf(J);
  uint32_t Small = S.smallSize(), Large = S.largeCount();
  if (Local == J) {
    // The idle rank of a smaller subgroup serves the last node of larger
    // subgroup X, whose local rank J finds no node at its position here.
    Role.Kind = NapRole::Idle;
    if (J >= Large && X < Large) {
      Role.Kind = NapRole::ServerSend;
      Role.PeerNode = S.startOf(X) + Small;
      Role.PeerLocal = J;
    }
    return Role;
  }
  if (Local >= S.K) {
    Role.Kind = NapRole::Idle;
    return Role;
  }
  if (X < S.sizeOf(Local)) {
    Role.Kind = NapRole::Exchange;
    Role.PeerNode = S.startOf(Local) + X;
    Role.PeerLocal = J;
    return Role;
  }
  // X == Small on a larger subgroup J < Large, and Local names a smaller
  // one: served by that subgroup's node at position J (J < Large <= Small).
  Role.Kind = NapRole::RecvOnly;
  Role.PeerNode = S.startOf(Local) + J;
  Role.PeerLocal = Local;
  return Role;
}

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_NODEAWAREPARTITION_H
