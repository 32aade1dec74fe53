//===- CostParams.h - Parameters of the cost model ------------*- C++ -*-===//

#ifndef COLLPLAN_COST_COSTPARAMS_H
#define COLLPLAN_COST_COSTPARAMS_H

#include <algorithm>
#include <cstdint>

namespace collplan {

/// Where a torus sends a message whose offset in a dimension is exactly half
/// the ring (two minimal ways round).
enum class TorusTies : unsigned char {
  Split,   ///< half each way, as the Swing paper assumes (the default)
  Positive ///< all the + way, as deterministic routers (SimGrid's) do
};

/// A message of m bytes costs Alpha + Beta * m; reducing m bytes costs
/// Gamma * m (Hockney's model with a computation term). Node-aware models
/// refine Alpha and Beta for messages that stay within a node, a torus adds
/// a per-hop latency and link sharing, and a node's injection bandwidth can
/// cap what its ranks send between nodes together (CostModel.h).
struct CostParams {
  double Alpha = 2e-6;  ///< seconds per message
  double Beta = 1e-10;  ///< seconds per byte (10 GB/s)
  double Gamma = 2e-11; ///< seconds per reduced byte
  /// Within a node; negative means "same as between nodes".
  double AlphaIntra = -1;
  double BetaIntra = -1;
  /// Torus topologies only: latency added per link a message crosses. The
  /// Swing paper's simulated torus (De Sensi et al., NSDI'24, §5) has 100 ns
  /// of link latency and 300 ns of packet processing per hop: 400 ns
  /// (docs/cost-model.md, "Per-hop latency").
  double AlphaHop = 400e-9;
  /// A node's injection bandwidth R_N in bytes per second: the NIC limit of
  /// the node-aware max-rate model ("Node-Aware Improvements to Allreduce",
  /// Bienz, Olson and Gropp, §IV, Eq. 3, after Gropp, Olson and Samfass's
  /// max-rate model, EuroMPI'16). 0 turns the limit off.
  double InjectionBandwidth = 0;
  /// A rank's own time per message it sends or receives (LogGP's o) and per
  /// byte of those messages, its messages of a round one after another: one
  /// core and one memory bus serve a rank's sends and receives alike. A
  /// round costs a rank at least the sum over its messages of
  /// Overhead + OverheadPerByte * bytes (docs/cost-model.md, "Rank
  /// overhead"). 0 and 0 (the defaults) leave the messages of a round fully
  /// overlapped, as on a simulated machine with full-duplex links.
  double Overhead = 0;
  double OverheadPerByte = 0;
  /// Messages of more than MediumMessageBytes bytes cost AlphaMedium +
  /// BetaMedium * bytes, and of more than LargeMessageBytes AlphaLarge +
  /// BetaLarge * bytes, in place of Alpha + Beta * bytes: a transport
  /// switches protocol with size (an MPI library's eager sends below a few
  /// KiB, rendezvous above), and a copy past the caches runs at memory's
  /// rate (docs/cost-model.md, "Large messages"; the NAP paper's max-rate
  /// model has protocol-dependent alpha and beta, in three size ranges).
  /// A threshold of 0 turns its range off; a negative alpha or beta of a
  /// range means "as the range below". Messages within a node keep
  /// AlphaIntra, BetaIntra when those are set.
  double MediumMessageBytes = 0;
  double AlphaMedium = -1;
  double BetaMedium = -1;
  double LargeMessageBytes = 0;
  double AlphaLarge = -1;
  double BetaLarge = -1;
  /// The cores of a node, shared by its ranks. When more of a node's ranks
  /// take part in a round than it has cores, their own work of the round
  /// takes turns on the cores: each rank's overhead, reductions and the
  /// per-byte time of its messages within the node (the copies its core
  /// makes) are stretched by busy ranks / cores (docs/cost-model.md, "A
  /// node's cores shared by its ranks"). 0 (the default) is unlimited.
  double CoresPerNode = 0;
  /// Torus topologies only: how a tied route is taken (TorusRouting.h).
  TorusTies Ties = TorusTies::Split;
  /// Bytes per element of the call (4 for MPI_FLOAT): blocks hold whole
  /// elements, so a vector of few elements leaves blocks empty, and the
  /// runtime skips an empty transfer on both sides. 1 prices bytes.
  uint32_t ElementBytes = 1;

  /// Whether a message of Bytes bytes is above the medium or the large
  /// threshold.
  bool isMedium(double Bytes) const {
    return MediumMessageBytes > 0 && Bytes > MediumMessageBytes;
  }
  bool isLarge(double Bytes) const {
    return LargeMessageBytes > 0 && Bytes > LargeMessageBytes;
  }
  /// Latency and time per byte of a message of Bytes bytes between two ranks
  /// of one node (SameNode) or of two nodes.
  double alphaFor(bool SameNode, double Bytes) const {
    if (SameNode && AlphaIntra >= 0)
      return AlphaIntra;
    if (isLarge(Bytes) && AlphaLarge >= 0)
      return AlphaLarge;
    return isMedium(Bytes) && AlphaMedium >= 0 ? AlphaMedium : Alpha;
  }
  double betaFor(bool SameNode, double Bytes) const {
    if (SameNode && BetaIntra >= 0)
      return BetaIntra;
    if (isLarge(Bytes) && BetaLarge >= 0)
      return BetaLarge;
    return isMedium(Bytes) && BetaMedium >= 0 ? BetaMedium : Beta;
  }
  /// The cheapest latency and time per byte any message between nodes can
  /// have (the lower bound's).
  double minAlpha() const {
    double A = Alpha;
    if (MediumMessageBytes > 0 && AlphaMedium >= 0)
      A = std::min(A, AlphaMedium);
    if (LargeMessageBytes > 0 && AlphaLarge >= 0)
      A = std::min(A, AlphaLarge);
    return A;
  }
  double minBeta() const {
    double B = Beta;
    if (MediumMessageBytes > 0 && BetaMedium >= 0)
      B = std::min(B, BetaMedium);
    if (LargeMessageBytes > 0 && BetaLarge >= 0)
      B = std::min(B, BetaLarge);
    return B;
  }
};

} // namespace collplan

#endif // COLLPLAN_COST_COSTPARAMS_H
