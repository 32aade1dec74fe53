//===- TorusRouting.h - Minimal routes on a torus -------------*- C++ -*-===//
//
// Where a message between two nodes of a torus travels, so that the cost
// model can count how many bytes each directed link carries in a round
// (Swing, De Sensi et al., NSDI'24, §2.2 and §4: the congestion deficiency
// comes from several messages of one collective sharing a link).
//
// Routing rule (minimal, dimension-ordered, deterministic):
//   * dimensions are corrected one after the other, dimension 0 (the slowest
//     coordinate of Topology::coordsOf) first;
//   * in a dimension of size d the signed offset delta = (to - from) mod d is
//     walked the short way round: delta links in the + direction when
//     delta < d - delta, d - delta links in the - direction when
//     d - delta < delta;
//   * a tie (delta = d/2 with d even and d > 2) has two minimal ways round;
//     by default the message is split 50/50 between them, as the Swing
//     paper's footnote does for recursive doubling (§2.3.2). Each link of
//     either way carries half of the message's bytes. Both halves meet
//     again at the destination's coordinate, so later dimensions carry the
//     whole message. TorusTies::Positive sends it all the + way instead, as
//     a deterministic dimension-order router does (SimGrid's torus, which
//     tools/evaluate simulates);
//   * a dimension of size 2 is one cable between the two nodes: one directed
//     link each way (the + link of the sender), no split (the Swing paper
//     leaves the count open; this is our choice);
//   * a dimension of size 1 has no links.
//
// The hop count of a message is the length of its route: the sum over the
// dimensions of min(delta, d - delta).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_COST_TORUSROUTING_H
#define COLLPLAN_COST_TORUSROUTING_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Topology.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace collplan {

/// A directed link: the one leaving Node along Dim in direction + or -.
/// Encoded as ((Node * D + Dim) * 2 + Positive) so a round's loads fit a
/// hash map keyed by integers.
using LinkId = uint64_t;

class TorusRouter {
public:
  /// T must be a torus topology.
  explicit TorusRouter(const Topology &T, TorusTies Ties = TorusTies::Split);

  /// Length of the minimal route from node From to node To.
  uint32_t hops(uint32_t From, uint32_t To) const;

  /// Calls Visit(Link, Share) once for every link of the route(s) from node
  /// From to node To, where Share is the fraction of the message's bytes on
  /// that link: 1, or 1/2 on each way round a tied dimension when ties
  /// split.
  void route(uint32_t From, uint32_t To,
             llvm::function_ref<void(LinkId, double)> Visit) const;

  /// The parts of a link, for tests and diagnostics.
  uint32_t nodeOf(LinkId L) const { return uint32_t(L / 2 / T.numDims()); }
  unsigned dimOf(LinkId L) const { return unsigned(L / 2 % T.numDims()); }
  bool isPositive(LinkId L) const { return L % 2; }
  LinkId link(uint32_t Node, unsigned Dim, bool Positive) const {
    return (uint64_t(Node) * T.numDims() + Dim) * 2 + (Positive ? 1 : 0);
  }

private:
  /// The torus whose coordinates the routes follow (Topology is the one
  /// model of nodes and coordinates).
  Topology T;
  TorusTies Ties;
};

} // namespace collplan

#endif // COLLPLAN_COST_TORUSROUTING_H
