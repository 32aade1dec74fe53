//===- CostModel.h - Critical-path time of a plan -------------*- C++ -*-===//
//
// docs/cost-model.md, "The critical-path model": alpha + beta*bytes +
// gamma*reduced-bytes per message, composed as the plan dictates. Every rank
// has a clock; a message of round k leaves when both ends have reached round k,
// and a rank finishes round k when its last message of the round is done and
// its reductions and local operations have run. The predicted time is the
// latest clock: a critical path, not a sum of per-algorithm guesses.
//
// A message's B bytes are its blocks' whole elements (CostParams::
// ElementBytes). A message of no element costs nothing: the runtime skips
// an empty transfer on both sides, so it neither takes time nor makes one
// rank wait for the other. What one message of B > 0 bytes from rank s to
// rank r in round k costs:
//
//   * s and r on one node: AlphaIntra + max(BetaIntra * B, Out_s, In_r),
//     Out_s being the time s's messages of round k take through its port,
//     each at its own rate (BetaIntra within the node, Beta to other
//     nodes), and In_r that of r's (a rank has one port each way, shared
//     fairly by its messages of the round: a rank's several messages of a
//     round overlap their latencies, not their bytes). No link, no NIC.
//   * otherwise Alpha + h * AlphaHop + max(Wire, Nic), where
//       - h is the hop count of the minimal route (TorusRouting.h) on a
//         torus, 0 on any other topology;
//       - Wire is max(Beta * B, Out_s, In_r) off a torus (a direct
//         exchange's P - 1 messages of a round take (P - 1) m Beta, as
//         SimGrid's flat platform gives them; docs/cost-model.md, "A rank's
//         port within a round"). On a torus every inter-node message
//         of round k is routed first and each directed link l gets the load
//         L_k(l) = sum over messages m of share(m, l) * bytes(m) (share 1,
//         or 1/2 on the two ways of a tied dimension). The message then
//         takes Beta * max over the links l of its route of L_k(l): the
//         links are shared fairly, so it is done when the most loaded link
//         on its way has drained all it carries in the round (the per-step
//         link-load model of docs/cost-model.md, priced per message so the
//         critical path still sees which ranks wait);
//       - Nic is the node-aware max-rate term (docs/cost-model.md,
//         "Injection limit": the NAP paper's Eq. 3 applied per round), only
//         when InjectionBandwidth R_N > 0: a * B / min(R_N, a * R_b) with R_b =
//         1/Beta and a the number of ranks of s's node that send to other nodes
//         in round k (each rank counted once). It is a*B/R_N when the node's
//         NIC is the bottleneck and Beta*B (no penalty) when a*R_b <= R_N; 0
//         means off. Nic is also at least the bytes all of the node's
//         messages of round k to other nodes put through its NIC, over R_N:
//         the same when each of the a ranks sends one message of B, more
//         when a rank sends several (a direct exchange).
//
// Off a torus a rank has one port: the sends it has in flight together share
// it (a round's sends, and those of its next rounds that it posts without
// waiting, lingering sends (plan/ir/LingeringSends.h) whose receivers are
// already waiting for them), so each is delivered no earlier than the
// batch's start + alpha' + the sum of beta' * B over those sends; a round of
// lingering sends only does not hold its sender until delivery. With an
// injection limit a node's uplink and downlink carry their rounds' bytes in
// turn: a message that leaves while earlier rounds' bytes are still on its
// nodes' links arrives no earlier than when they have drained + alpha' +
// its own wire time (docs/cost-model.md, "A rank's sends in flight
// together", "A node's link across rounds").
//
// A rank is also busy with its own part of every message it sends or
// receives (CostParams::Overhead, OverheadPerByte: LogGP's o and a per-byte
// cost, one core and one memory bus per rank): a round ends at a rank no
// earlier than its start plus the sum over its non-empty messages of
// Overhead + OverheadPerByte * B, whatever their arrivals. Both 0 by default:
// messages of a round then overlap fully, as on full-duplex links.
//
// A message of more than MediumMessageBytes or LargeMessageBytes bytes
// (when set) takes AlphaMedium and BetaMedium, or AlphaLarge and BetaLarge,
// wherever it would take Alpha and Beta: its latency, its port and link
// time and its share of the injection limit (a transport's protocol switch,
// or copies past the caches; docs/cost-model.md, "Large messages").
// Messages within a node keep AlphaIntra and BetaIntra when those are set.
//
// A node of CostParams::CoresPerNode cores (when set) whose ranks taking part
// in a round (a non-empty message or reduction) outnumber its cores runs
// their own work of the round in turns: each such rank's overhead, its
// reductions and the per-byte time of its messages within the node (the
// copies its core makes) take busy ranks / cores times as long
// (docs/cost-model.md, "A node's cores shared by its ranks").
//
// Deficiencies (Swing, De Sensi et al., NSDI'24, §2.2 and Table 2), measured
// on the plan rather than taken from a table, for p ranks, n bytes (a rank's
// vector: for alltoall its row, the matrix over p) and D torus dimensions of
// size > 1 (D = 1 off a torus):
//
//   * latency deficiency   Lambda = (rounds that move a message) /
//                                   ceil(log2 p);
//   * bandwidth deficiency Psi    = W / (n / D), with W the sum over rounds
//                                   of the largest message of the round (a
//                                   rank's messages of a round travel on
//                                   different ports, in parallel);
//   * congestion deficiency Xi    = C / W, with C the sum over rounds of the
//                                   largest "effective load" of a message of
//                                   the round: the load of the most loaded
//                                   link on its route, or its own bytes when
//                                   it crosses no link (within a node, or off
//                                   a torus, where Xi is 1).
//
// With AlphaHop = Gamma = 0, no injection limit and rounds that all ranks
// enter together, the predicted time is rounds * Alpha + Beta * C, which is
// the paper's Eq. 1, log2 p * Alpha * Lambda + (n / D) * Beta * Psi * Xi
// (with ceil(log2 p) when p is not a power of two).
// Normalisation (docs/cost-model.md, "Deficiencies"): both C and W run over
// every round of the plan (reduce-scatter and allgather alike), so Xi is the
// congested over the uncongested bandwidth time and carries no stray 1/2.
// For Swing-B on a square power-of-two torus W = (n/D)(1 - 1/p), so Psi * Xi
// is the "raw" sum of delta(s)/2^(s+1) and Xi alone is that sum
// divided by (1 - 1/p) (the values tests/cost/TorusCostTest.cpp checks).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_COST_COSTMODEL_H
#define COLLPLAN_COST_COSTMODEL_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/BlockLayout.h"
#include "plan/ir/Plan.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collplan {

struct RoundCost {
  uint32_t Index = 0;
  double Finish = 0;          ///< Latest rank clock after this round.
  double MaxBytesSent = 0;    ///< By any one rank in this round.
  double MaxMessageBytes = 0; ///< The largest single message of the round.
  /// Torus only: the longest route of a message of this round, in links,
  /// and the largest load of a directed link in this round, in bytes.
  uint32_t Hops = 0;
  double MaxLinkLoad = 0;
  /// Messages (counted once, at the sender) that leave or stay in a node.
  uint64_t InterNodeMessages = 0, IntraNodeMessages = 0;
  /// The largest number of ranks of one node sending to other nodes (the a
  /// of the node-aware max-rate model).
  uint32_t MaxInterNodeSenders = 0;
  /// The most non-empty messages (sent plus received) one rank takes part
  /// in this round: what the rank overhead term multiplies.
  uint32_t MaxRankMessages = 0;
  /// With an injection limit: the longest a message of this round waited
  /// for earlier rounds' bytes still on its nodes' links, seconds.
  double LinkBacklog = 0;
  /// With a core limit: the largest stretch of a node's ranks' own work
  /// this round, busy ranks / cores (1: no node has more busy ranks than
  /// cores).
  double CoreStretch = 1;
};

struct CostReport {
  double Time = 0;       ///< Predicted completion time, seconds.
  double LowerBound = 0; ///< See lowerBound().
  std::vector<RoundCost> Rounds;
  double MaxBytesSent = 0, MeanBytesSent = 0; ///< Per rank, whole plan.
  double MaxBytesRecv = 0, MeanBytesRecv = 0;
  /// Lambda, Psi and Xi as defined above.
  double LatencyDeficiency = 0, BandwidthDeficiency = 0,
         CongestionDeficiency = 1;
  /// Whole plan: messages between nodes and within nodes; the most
  /// inter-node messages one rank sends; the most one node sends in one
  /// round.
  uint64_t InterNodeMessages = 0, IntraNodeMessages = 0;
  uint64_t MaxInterNodePerRank = 0, MaxInterNodePerNodeRound = 0;
  /// The most non-empty messages one rank sends and receives in one round.
  uint32_t MaxRankMessages = 0;
  /// Off a torus: the most non-empty sends one rank has in flight together
  /// on its port (one round's, and lingering sends of the rounds before).
  uint32_t MaxSendsInFlight = 0;
  /// The messages above CostParams::MediumMessageBytes and
  /// LargeMessageBytes (0 where a threshold is off).
  uint64_t MediumMessages = 0, LargeMessages = 0;
  /// The largest RoundCost::CoreStretch of the plan (1 without a core
  /// limit).
  double MaxCoreStretch = 1;
};

/// Evaluates P for a vector of Bytes bytes.
CostReport evaluateCost(const Plan &P, uint64_t Bytes, const CostParams &C);

/// The bytes of a set of blocks of a Bytes-byte vector of ElementBytes-byte
/// elements, as the runtime splits it.
class MessageBytes {
public:
  MessageBytes(const PlanHeader &H, uint64_t Bytes, uint32_t ElementBytes)
      : Layout(H, Bytes / std::max<uint32_t>(ElementBytes, 1)),
        ElementBytes(std::max<uint32_t>(ElementBytes, 1)) {}
  double of(const BlockSet &Blocks) const {
    return double(Layout.size(Blocks)) * ElementBytes;
  }

private:
  BlockLayout Layout;
  uint32_t ElementBytes;
};

/// The classic lower bound for the collective on P ranks: ceil(log2 P) alpha
/// plus the contract's bandwidth term (CollectiveContract::bandwidthShare),
/// 2(P-1)/P m beta for allreduce, (P-1)/P m beta for reduce-scatter and
/// allgather(v), m beta for broadcast and reduce, (P-1)/P^2 m beta for
/// alltoall(v), whose m is the P x P matrix (each rank sends its row but
/// for the diagonal block).
double lowerBound(Collective Kind, uint32_t Ranks, uint64_t Bytes,
                  const CostParams &C);

/// The bound of the model on a topology, where a rank may have several
/// messages in flight in a round: their latencies overlap, so the latency
/// term is one alpha (the cheaper of alpha and alpha_intra), not
/// ceil(log2 P) of them (a direct exchange finishes in one round; SimGrid's
/// does, docs/cost-model.md); their bytes share the rank's port, so they
/// arrive at most at the sum of its links' rates — the node's torus links
/// (two per dimension longer than 2, one for a dimension of 2) at 1/beta
/// each, else its port at 1/beta, plus the node's memory at 1/beta_intra
/// when it holds several ranks.
double lowerBound(Collective Kind, const Topology &Topo, uint64_t Bytes,
                  const CostParams &C);

} // namespace collplan

#endif // COLLPLAN_COST_COSTMODEL_H
