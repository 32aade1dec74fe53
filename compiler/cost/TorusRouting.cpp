//===- TorusRouting.cpp - Minimal dimension-order routes on a torus -------===//

#include "compiler/cost/TorusRouting.h"

#include <algorithm>
#include <cassert>

namespace collplan {

TorusRouter::TorusRouter(const Topology &T, TorusTies Ties)
    : Dims(T.dims().begin(), T.dims().end()), Ties(Ties),
      Stride(T.dims().size()) {
  assert(T.kind() == TopologyKind::Torus && "routing needs a torus");
  uint32_t S = 1;
  for (size_t I = Dims.size(); I-- > 0;) {
    Stride[I] = S;
    S *= Dims[I];
  }
}

uint32_t TorusRouter::hops(uint32_t From, uint32_t To) const {
  uint32_t Total = 0;
  for (size_t I = 0; I < Dims.size(); ++I) {
    uint32_t D = Dims[I];
    uint32_t A = From / Stride[I] % D, B = To / Stride[I] % D;
    uint32_t Delta = (B + D - A) % D;
    Total += std::min(Delta, D - Delta);
  }
  return Total;
}

void TorusRouter::route(uint32_t From, uint32_t To,
                        llvm::function_ref<void(LinkId, double)> Visit) const {
  uint32_t Here = From; // Coordinates < I already equal To's.
  for (unsigned I = 0; I < Dims.size(); ++I) {
    uint32_t D = Dims[I];
    uint32_t A = Here / Stride[I] % D, B = To / Stride[I] % D;
    uint32_t Delta = (B + D - A) % D;
    if (Delta == 0)
      continue;
    uint32_t Base = Here - A * Stride[I]; // This dimension's coordinate 0.
    // Walks Length links from coordinate A in direction Positive.
    auto Walk = [&](bool Positive, uint32_t Length, double Share) {
      uint32_t C = A;
      for (uint32_t K = 0; K < Length; ++K) {
        Visit(link(Base + C * Stride[I], I, Positive), Share);
        C = Positive ? (C + 1) % D : (C + D - 1) % D;
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
    Here = Base + B * Stride[I];
  }
}

} // namespace collplan
