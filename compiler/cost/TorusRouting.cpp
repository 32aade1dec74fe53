//===- TorusRouting.cpp - Minimal dimension-order routes on a torus -------===//

#include "compiler/cost/TorusRouting.h"

#include <algorithm>
#include <cassert>

namespace collplan {

TorusRouter::TorusRouter(const Topology &T, TorusTies Ties) : T(T), Ties(Ties) {
  assert(T.kind() == TopologyKind::Torus && "routing needs a torus");
}

uint32_t TorusRouter::hops(uint32_t From, uint32_t To) const {
  uint32_t Total = 0;
  for (unsigned I = 0; I < T.numDims(); ++I) {
    uint32_t D = T.extent(I);
    uint32_t Delta = (T.coordOf(To, I) + D - T.coordOf(From, I)) % D;
    Total += std::min(Delta, D - Delta);
  }
  return Total;
}

void TorusRouter::route(uint32_t From, uint32_t To,
                        llvm::function_ref<void(LinkId, double)> Visit) const {
  uint32_t Here = From; // Coordinates < I already equal To's.
  for (unsigned I = 0; I < T.numDims(); ++I) {
    uint32_t D = T.extent(I);
    uint32_t A = T.coordOf(Here, I), B = T.coordOf(To, I);
    uint32_t Delta = (B + D - A) % D;
    if (Delta == 0)
      continue;
    // Walks Length links from Here in direction Positive.
    auto Walk = [&](bool Positive, uint32_t Length, double Share) {
      uint32_t Node = Here;
      for (uint32_t K = 0; K < Length; ++K) {
        Visit(link(Node, I, Positive), Share);
        Node = T.neighbour(Node, I, Positive ? 1 : -1);
      }
    };
    if (D == 2 || Delta < D - Delta ||
        (Delta == D - Delta && Ties == TorusTies::Positive))
      Walk(true, Delta, 1.0);
    else if (D - Delta < Delta)
      Walk(false, D - Delta, 1.0);
    else {
      Walk(true, Delta, 0.5);
      Walk(false, Delta, 0.5);
    }
    Here = T.neighbour(Here, I, int64_t(Delta));
  }
}

} // namespace collplan
