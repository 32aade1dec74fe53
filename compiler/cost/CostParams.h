//===- CostParams.h - alpha-beta-gamma parameters of the cost model -*- C++ -*-===//

#ifndef COLLPLAN_COST_COSTPARAMS_H
#define COLLPLAN_COST_COSTPARAMS_H

namespace collplan {

/// A message of m bytes costs Alpha + Beta * m; reducing m bytes costs
/// Gamma * m (Hockney's model with a computation term). Node-aware models
/// refine Alpha and Beta for messages that stay within a node.
struct CostParams {
  double Alpha = 2e-6;  ///< seconds per message
  double Beta = 1e-10;  ///< seconds per byte (10 GB/s)
  double Gamma = 2e-11; ///< seconds per reduced byte
  /// Within a node; negative means "same as between nodes".
  double AlphaIntra = -1;
  double BetaIntra = -1;

  double alphaFor(bool SameNode) const {
    return SameNode && AlphaIntra >= 0 ? AlphaIntra : Alpha;
  }
  double betaFor(bool SameNode) const {
    return SameNode && BetaIntra >= 0 ? BetaIntra : Beta;
  }
};

} // namespace collplan

#endif // COLLPLAN_COST_COSTPARAMS_H
