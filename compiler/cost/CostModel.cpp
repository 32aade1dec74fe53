//===- CostModel.cpp - Critical-path time of a plan -----------------------===//

#include "compiler/cost/CostModel.h"

#include "compiler/cost/TorusRouting.h"
#include "plan/ir/BlockLayout.h"
#include "plan/ir/LingeringSends.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace collplan {

namespace {

/// One rank's round, in global round order.
struct RankRound {
  uint32_t Index;
  uint32_t Rank;
  const Round *Ops;
};

/// One evaluation of a plan: the rank clocks and the per-round tallies,
/// walked round by round (see CostModel.h for the model).
class Evaluation {
public:
  Evaluation(const Plan &P, uint64_t Bytes, const CostParams &C)
      : P(P), H(P.Header), Topo(H.Topo), C(C), Bytes(Bytes),
        Size(H, Bytes, C.ElementBytes), OnePerNode(Topo.ranksPerNode() == 1),
        OnePort(Topo.kind() != TopologyKind::Torus && !isPersonalised(H.Kind)),
        Clock(H.Ranks, 0.0), Start(H.Ranks, 0.0), Sent(H.Ranks, 0.0),
        Received(H.Ranks, 0.0), PortOut(H.Ranks, 0.0), PortIn(H.Ranks, 0.0),
        InterSent(H.Ranks, 0) {
    if (Topo.kind() == TopologyKind::Torus)
      Router.emplace(Topo, C.Ties);
    if (C.CoresPerNode > 0) {
      Stretch.assign(Topo.numNodes(), 1.0);
      BusyRanks.assign(Topo.numNodes(), 0);
    }
    if (OnePort)
      findPortBatches();
    if (C.InjectionBandwidth > 0) {
      UplinkFree.assign(Topo.numNodes(), 0);
      DownlinkFree.assign(Topo.numNodes(), 0);
    }
  }

  CostReport run() {
    Report.LowerBound = lowerBound(H.Kind, Topo, Bytes, C);
    std::vector<RankRound> Order;
    for (uint32_t R = 0; R < P.Programs.size(); ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        Order.push_back({Rd.Index, R, &Rd});
    std::stable_sort(Order.begin(), Order.end(),
                     [](const RankRound &A, const RankRound &B) {
                       return A.Index < B.Index;
                     });
    for (size_t First = 0; First < Order.size();) {
      size_t Last = First;
      while (Last < Order.size() && Order[Last].Index == Order[First].Index)
        ++Last;
      llvm::ArrayRef<RankRound> Round(Order.data() + First, Last - First);
      RoundCost RC;
      RC.Index = Round.front().Index;
      // Route every message of the round first: a message's price depends
      // on everything else crossing its links and leaving its node.
      routeRound(Round, RC);
      priceRound(Round, RC);
      Report.InterNodeMessages += RC.InterNodeMessages;
      Report.IntraNodeMessages += RC.IntraNodeMessages;
      Report.Rounds.push_back(RC);
      First = Last;
    }
    summarise();
    return std::move(Report);
  }

private:
  /// docs/cost-model.md, "A rank's sends in flight together": groups each
  /// rank's rounds into batches of sends it has in flight together. A round
  /// whose every non-empty transfer is a send that may linger
  /// (plan/ir/LingeringSends.h; one contiguous piece, as the transport lingers
  /// only those) does not wait, so the next round's sends are posted at once
  /// beside it. A batch ends with a round that waits (a receive, or a send that
  /// cannot linger).
  void findPortBatches() {
    Batch.resize(H.Ranks);
    for (uint32_t R = 0; R < H.Ranks; ++R) {
      const Program &Prog = P.Programs[R];
      std::vector<bool> May = sendsThatMayLinger(Prog, H.Buffers.size());
      RankBatches &RB = Batch[R];
      RB.First.resize(Prog.Rounds.size());
      RB.Waits.resize(Prog.Rounds.size());
      size_t OpIndex = 0;
      bool PreviousWaits = true;
      for (size_t I = 0; I < Prog.Rounds.size(); ++I) {
        const Round &Rd = Prog.Rounds[I];
        bool Waits = false;
        for (size_t K = 0; K < Rd.Ops.size(); ++K) {
          const Op &O = Rd.Ops[K];
          double B = Size.of(O.Blocks);
          if (O.Kind == OpKind::Local || B == 0)
            continue;
          bool Lingers = O.Kind == OpKind::Send && May[OpIndex + K] &&
                         O.Blocks.ranges().size() == 1 && B <= LingerLimitBytes;
          Waits |= !Lingers;
        }
        OpIndex += Rd.Ops.size();
        RB.First[I] = PreviousWaits;
        RB.Waits[I] = Waits;
        PreviousWaits = Waits;
      }
    }
  }

  /// docs/cost-model.md, "A node's cores shared by its ranks": how much
  /// slower each node's ranks do their own work of the round, the ranks of
  /// the node that take part in it (a non-empty message or reduction)
  /// taking turns on its cores.
  void shareCores(llvm::ArrayRef<RankRound> Round, RoundCost &RC) {
    std::fill(BusyRanks.begin(), BusyRanks.end(), 0);
    for (const RankRound &RR : Round) {
      bool Busy = false;
      for (const Op &O : RR.Ops->Ops)
        Busy |= (O.Kind != OpKind::Local || O.Mode == Combine::Reduce) &&
                Size.of(O.Blocks) > 0;
      BusyRanks[Topo.nodeOf(RR.Rank)] += Busy;
    }
    for (size_t N = 0; N < BusyRanks.size(); ++N) {
      Stretch[N] = std::max(1.0, BusyRanks[N] / C.CoresPerNode);
      RC.CoreStretch = std::max(RC.CoreStretch, Stretch[N]);
    }
  }

  /// The stretch of Rank's own work this round (1 without a core limit).
  double stretchOf(uint32_t Rank) const {
    return Stretch.empty() ? 1.0 : Stretch[Topo.nodeOf(Rank)];
  }

  /// The time per byte of a B-byte message from Sender to Receiver through
  /// their ports: within a node the copy is the ranks' own work, stretched
  /// when the node's cores are shared.
  double portBeta(uint32_t Sender, uint32_t Receiver, double B) const {
    bool SameNode = Topo.nodeOf(Sender) == Topo.nodeOf(Receiver);
    return C.betaFor(SameNode, B) * (SameNode ? stretchOf(Sender) : 1.0);
  }

  /// Link loads, port loads and node senders of the round; message counts.
  void routeRound(llvm::ArrayRef<RankRound> Round, RoundCost &RC) {
    if (!Stretch.empty())
      shareCores(Round, RC);
    Load.clear();
    Senders.clear();
    NodeMessages.clear();
    NodeBytes.clear();
    for (const RankRound &RR : Round) {
      uint32_t R = RR.Rank, Node = Topo.nodeOf(R);
      uint64_t Out = 0; // This rank's messages to other nodes.
      for (const Op &O : RR.Ops->Ops) {
        if (O.Kind != OpKind::Send)
          continue;
        uint32_t PeerNode = Topo.nodeOf(O.Peer);
        double B = Size.of(O.Blocks);
        // The rank's port, and the peer's (PortOut, PortIn).
        bool Intra = PeerNode == Node;
        if (Intra || !Router) {
          double Time = portBeta(R, O.Peer, B) * B;
          PortOut[R] += Time;
          PortIn[O.Peer] += Time;
        }
        if (Intra) {
          ++RC.IntraNodeMessages;
          continue;
        }
        ++Out;
        if (C.InjectionBandwidth > 0)
          NodeBytes[Node] += B;
        if (Router)
          Router->route(Node, PeerNode,
                        [&](LinkId L, double Share) { Load[L] += Share * B; });
      }
      if (!Out)
        continue;
      RC.InterNodeMessages += Out;
      InterSent[R] += Out;
      // One rank per node (the common case) needs no per-node tally.
      uint64_t FromNode = OnePerNode ? Out : (NodeMessages[Node] += Out);
      uint32_t A = OnePerNode ? 1 : ++Senders[Node];
      Report.MaxInterNodePerNodeRound =
          std::max(Report.MaxInterNodePerNodeRound, FromNode);
      RC.MaxInterNodeSenders = std::max(RC.MaxInterNodeSenders, A);
    }
    for (const auto &[L, B] : Load)
      RC.MaxLinkLoad = std::max(RC.MaxLinkLoad, B);
  }

  /// The wire time of a B-byte message from node From to node To (beyond
  /// alpha): beta B, or its busiest link's load on a torus, or the node's
  /// injection share; Effective is the load the congestion deficiency
  /// counts, Hop the per-hop latency.
  double wireTime(uint32_t Sender, uint32_t Receiver, double B, RoundCost &RC,
                  double &Effective, double &Hop) const {
    uint32_t From = Topo.nodeOf(Sender), To = Topo.nodeOf(Receiver);
    bool SameNode = From == To;
    // Fair sharing of the ports (PortOut, PortIn): B alone when each end
    // has this one message of the round through it.
    double Wire = std::max(
        {portBeta(Sender, Receiver, B) * B, PortOut[Sender], PortIn[Receiver]});
    Effective = B;
    Hop = 0;
    if (!SameNode && Router) {
      uint32_t Hops = Router->hops(From, To);
      RC.Hops = std::max(RC.Hops, Hops);
      Hop = Hops * C.AlphaHop;
      double Worst = 0;
      Router->route(From, To, [&](LinkId L, double) {
        Worst = std::max(Worst, Load.lookup(L));
      });
      Effective = Worst;
      Wire = C.betaFor(false, B) * Worst;
    }
    if (!SameNode && C.InjectionBandwidth > 0) {
      // a * B / min(R_N, a * R_b), R_b = 1 / Beta (infinite at 0); and
      // never less than the node's bytes of the round at R_N, which the
      // first term is when its a ranks send one message of B each.
      double A = OnePerNode ? 1 : Senders.lookup(From);
      double Beta = C.betaFor(false, B);
      double Rate = Beta > 0 ? std::min(C.InjectionBandwidth, A / Beta)
                             : C.InjectionBandwidth;
      Wire = std::max(
          {Wire, A * B / Rate, NodeBytes.lookup(From) / C.InjectionBandwidth});
    }
    return Wire;
  }

  /// The batch each rank of the round sends in (findPortBatches): a batch
  /// starts with the round that opens it. Of its sends, those in flight
  /// together from its start share the port: the round's own, and those of
  /// its later rounds whose receivers are already waiting for them (idle
  /// until that round, their clocks no later than the batch's start). A
  /// later send whose receiver is still busy leaves when it is ready, as
  /// in a pipeline, and is priced alone.
  void startPortBatches(llvm::ArrayRef<RankRound> Round) {
    for (const RankRound &RR : Round) {
      uint32_t R = RR.Rank;
      const Program &Prog = P.Programs[R];
      RankBatches &RB = Batch[R];
      size_t I = RR.Ops - Prog.Rounds.data();
      Waiting[R] = RB.Waits[I];
      if (!RB.First[I])
        continue;
      BatchStart[R] = Start[R];
      double Time = 0;
      RB.Together.clear();
      for (size_t J = I; J < Prog.Rounds.size(); ++J) {
        uint32_t Index = Prog.Rounds[J].Index;
        for (const Op &O : Prog.Rounds[J].Ops) {
          double B = Size.of(O.Blocks);
          if (O.Kind != OpKind::Send || B == 0)
            continue;
          const Program &Peer = P.Programs[O.Peer];
          size_t Next = NextRound[O.Peer];
          bool Ready = J == I || (Next < Peer.Rounds.size() &&
                                  Peer.Rounds[Next].Index == Index &&
                                  Clock[O.Peer] <= Start[R]);
          if (!Ready)
            continue;
          Time += portBeta(R, O.Peer, B) * B;
          RB.Together.push_back((uint64_t(Index) << 32) | O.Peer);
        }
        if (RB.Waits[J])
          break;
      }
      llvm::sort(RB.Together);
      BatchTime[R] = Time;
      Report.MaxSendsInFlight =
          std::max(Report.MaxSendsInFlight, uint32_t(RB.Together.size()));
    }
  }

  /// Whether the send of round Index from S to Peer shares S's port with
  /// its batch (startPortBatches).
  bool inFlightTogether(uint32_t S, uint32_t Index, uint32_t Peer) const {
    const std::vector<uint64_t> &T = Batch[S].Together;
    return std::binary_search(T.begin(), T.end(),
                              (uint64_t(Index) << 32) | Peer);
  }

  /// docs/cost-model.md, "A node's link across rounds": when each node's
  /// uplink and downlink will have drained this round's inter-node bytes
  /// too. A node's link carries its rounds' bytes in turn at the rate the
  /// injection limit gives (R_N, or a R_b for a < R_N / R_b ranks), from
  /// the first departure of the round or when it drained the rounds before.
  void drainNodeLinks(llvm::ArrayRef<RankRound> Round) {
    struct Flow {
      double First = INFINITY, Bytes = 0;
      double Largest = 0; // its largest message, whose beta paces a rank
      uint32_t Ranks = 0;
    };
    llvm::DenseMap<uint32_t, Flow> Out, In;
    for (const RankRound &RR : Round) {
      uint32_t R = RR.Rank, To = Topo.nodeOf(R);
      bool Counted = false;
      for (const Op &O : RR.Ops->Ops) {
        double B = Size.of(O.Blocks);
        uint32_t From = Topo.nodeOf(O.Peer);
        if (O.Kind != OpKind::Recv || B == 0 || From == To)
          continue;
        double Leaves = std::max(Start[R], Start[O.Peer]);
        Flow &F = Out[From], &G = In[To];
        F.First = std::min(F.First, Leaves);
        G.First = std::min(G.First, Leaves);
        F.Bytes += B;
        G.Bytes += B;
        F.Largest = std::max(F.Largest, B);
        G.Largest = std::max(G.Largest, B);
        G.Ranks += !Counted;
        Counted = true;
      }
    }
    Drain.clear();
    auto Rate = [&](uint32_t Ranks, double Largest) {
      double Beta = C.betaFor(false, Largest);
      return Beta > 0 ? std::min(C.InjectionBandwidth, Ranks / Beta)
                      : C.InjectionBandwidth;
    };
    for (const auto &[Node, F] : Out) {
      uint32_t A = OnePerNode ? 1 : Senders.lookup(Node);
      Drain[Node].first =
          std::max(UplinkFree[Node], F.First) + F.Bytes / Rate(A, F.Largest);
    }
    for (const auto &[Node, G] : In)
      Drain[Node].second = std::max(DownlinkFree[Node], G.First) +
                           G.Bytes / Rate(G.Ranks, G.Largest);
  }

  /// Advances the clocks of the round's ranks.
  void priceRound(llvm::ArrayRef<RankRound> Round, RoundCost &RC) {
    // Every participant starts the round when it finished its previous one.
    for (const RankRound &RR : Round)
      Start[RR.Rank] = Clock[RR.Rank];
    if (OnePort)
      startPortBatches(Round);
    if (C.InjectionBandwidth > 0)
      drainNodeLinks(Round);
    double LargestMessage = 0, LargestLoad = 0;
    for (const RankRound &RR : Round) {
      uint32_t R = RR.Rank;
      double Done = Start[R], Reduced = 0, SentNow = 0, Busy = 0;
      uint32_t Messages = 0;
      for (const Op &O : RR.Ops->Ops) {
        double B = Size.of(O.Blocks);
        // The rank's own share of every message it takes part in, its
        // messages one after another (CostParams::Overhead).
        if (O.Kind != OpKind::Local && B > 0) {
          Busy += C.Overhead + C.OverheadPerByte * B;
          ++Messages;
        }
        if (O.Kind == OpKind::Send) {
          SentNow += B;
          continue;
        }
        if (O.Mode == Combine::Reduce)
          Reduced += B;
        // An empty transfer is skipped by both sides (CostModel.h).
        if (O.Kind == OpKind::Local || B == 0)
          continue;
        // A message leaves once both ends have reached this round; the
        // sender is busy until it is delivered too.
        uint32_t From = Topo.nodeOf(O.Peer), To = Topo.nodeOf(R);
        double Effective = 0, Hop = 0;
        double Wire = wireTime(O.Peer, R, B, RC, Effective, Hop);
        double Leaves = std::max(Start[R], Start[O.Peer]);
        double Alpha = C.alphaFor(From == To, B);
        Report.MediumMessages += C.isMedium(B);
        Report.LargeMessages += C.isLarge(B);
        double Arrival = Leaves + Alpha + Hop + Wire;
        // The sender's port carries its sends in flight together.
        if (OnePort && inFlightTogether(O.Peer, RR.Index, R))
          Arrival =
              std::max(Arrival, BatchStart[O.Peer] + Alpha + BatchTime[O.Peer]);
        if (From != To && C.InjectionBandwidth > 0) {
          // The nodes' links still carry earlier rounds' bytes.
          double Backlog = std::max(UplinkFree[From], DownlinkFree[To]);
          if (Backlog > Leaves) {
            Arrival = std::max(Arrival, Backlog + Alpha + Wire);
            RC.LinkBacklog = std::max(RC.LinkBacklog, Backlog - Leaves);
          }
        }
        Done = std::max(Done, Arrival);
        // The sender is busy until delivery, unless its sends linger.
        if (!OnePort || Waiting[O.Peer])
          Clock[O.Peer] = std::max(Clock[O.Peer], Arrival);
        Received[R] += B;
        LargestMessage = std::max(LargestMessage, B);
        LargestLoad = std::max(LargestLoad, Effective);
      }
      // A node's ranks busy beyond its cores take turns (shareCores).
      double Stretched = stretchOf(R);
      Done = std::max(Done, Start[R] + Busy * Stretched);
      Clock[R] = std::max(Clock[R], Done + C.Gamma * Reduced * Stretched);
      RC.MaxRankMessages = std::max(RC.MaxRankMessages, Messages);
      Sent[R] += SentNow;
      RC.MaxBytesSent = std::max(RC.MaxBytesSent, SentNow);
    }
    for (const RankRound &RR : Round) {
      RC.Finish = std::max(RC.Finish, Clock[RR.Rank]);
      PortOut[RR.Rank] = 0;
      for (const Op &O : RR.Ops->Ops)
        if (O.Kind == OpKind::Send)
          PortIn[O.Peer] = 0;
      if (OnePort)
        NextRound[RR.Rank] = RR.Ops - P.Programs[RR.Rank].Rounds.data() + 1;
    }
    if (C.InjectionBandwidth > 0)
      for (const auto &[Node, Drained] : Drain) {
        UplinkFree[Node] = std::max(UplinkFree[Node], Drained.first);
        DownlinkFree[Node] = std::max(DownlinkFree[Node], Drained.second);
      }
    Report.MaxRankMessages =
        std::max(Report.MaxRankMessages, RC.MaxRankMessages);
    Report.MaxCoreStretch = std::max(Report.MaxCoreStretch, RC.CoreStretch);
    if (RC.InterNodeMessages + RC.IntraNodeMessages) {
      ++CommRounds;
      RC.MaxMessageBytes = LargestMessage;
      Uncongested += LargestMessage;
      Congested += LargestLoad;
    }
  }

  /// Per-rank totals and the deficiencies.
  void summarise() {
    for (uint32_t R = 0; R < H.Ranks; ++R) {
      Report.Time = std::max(Report.Time, Clock[R]);
      Report.MaxBytesSent = std::max(Report.MaxBytesSent, Sent[R]);
      Report.MaxBytesRecv = std::max(Report.MaxBytesRecv, Received[R]);
      Report.MeanBytesSent += Sent[R] / H.Ranks;
      Report.MeanBytesRecv += Received[R] / H.Ranks;
      Report.MaxInterNodePerRank =
          std::max(Report.MaxInterNodePerRank, InterSent[R]);
    }
    unsigned D = 0;
    for (uint32_t Size : Topo.dims())
      D += Size > 1;
    D = std::max(D, 1u);
    if (H.Ranks > 1)
      Report.LatencyDeficiency =
          double(CommRounds) / llvm::Log2_64_Ceil(H.Ranks);
    // n is what a rank holds: for a personalised exchange, whose vector is
    // the P x P matrix, its row (CollectiveContract.h).
    double PerRank = double(Bytes) / (isPersonalised(H.Kind) ? H.Ranks : 1);
    if (Bytes)
      Report.BandwidthDeficiency = Uncongested / (PerRank / D);
    if (Uncongested > 0)
      Report.CongestionDeficiency = Congested / Uncongested;
  }

  const Plan &P;
  const PlanHeader &H;
  const Topology &Topo;
  const CostParams &C;
  uint64_t Bytes;
  MessageBytes Size;
  std::optional<TorusRouter> Router;
  const bool OnePerNode;
  /// Off a torus a rank has one port, and its sends in flight together
  /// share it (findPortBatches); the executor's lingering sends are priced
  /// as such. On a torus a rank's messages leave by different links.
  const bool OnePort;
  std::vector<double> Clock, Start, Sent, Received;
  /// With a core limit, per node: its ranks taking part in the round and
  /// the stretch of their own work (shareCores). Empty without one.
  std::vector<uint32_t> BusyRanks;
  std::vector<double> Stretch;
  /// A rank's port, one each way, off a torus (on a torus, within its node
  /// only): the time its messages of the round take through it, each at its
  /// own rate (beta', as OnePort's batches count them), shared fairly as a
  /// torus link is (CostModel.h). Cleared after each round where it was
  /// filled.
  std::vector<double> PortOut, PortIn;
  std::vector<uint64_t> InterSent;
  // Per round, cleared each round: bytes on each directed link, and how many
  // ranks of each node send to other nodes.
  llvm::DenseMap<LinkId, double> Load;
  llvm::DenseMap<uint32_t, uint32_t> Senders;
  llvm::DenseMap<uint32_t, uint64_t> NodeMessages;
  llvm::DenseMap<uint32_t, double> NodeBytes; // With an injection limit.
  /// Per rank, its rounds' batches: whether round I (of its program) opens
  /// one and whether it waits; the current batch's sends in flight together
  /// (round index << 32 | receiver, sorted).
  struct RankBatches {
    std::vector<bool> First, Waits;
    std::vector<uint64_t> Together;
  };

  std::vector<RankBatches> Batch;
  /// Per rank, its current batch's start and port time, and whether its
  /// current round waits for its sends.
  std::vector<double> BatchStart = std::vector<double>(H.Ranks, 0.0),
                      BatchTime = std::vector<double>(H.Ranks, 0.0);
  std::vector<bool> Waiting = std::vector<bool>(H.Ranks, true);
  /// Per rank, the position in its program of its next round to price.
  std::vector<size_t> NextRound = std::vector<size_t>(H.Ranks, 0);
  /// Per node, when its uplink and downlink have drained the rounds so far,
  /// and (per round) when they will have drained this one too.
  std::vector<double> UplinkFree, DownlinkFree;
  llvm::DenseMap<uint32_t, std::pair<double, double>> Drain;
  uint64_t CommRounds = 0;
  double Uncongested = 0, Congested = 0; // W and C of CostModel.h.
  CostReport Report;
};

} // namespace

CostReport evaluateCost(const Plan &P, uint64_t Bytes, const CostParams &C) {
  return Evaluation(P, Bytes, C).run();
}

double lowerBound(Collective Kind, uint32_t Ranks, uint64_t Bytes,
                  const CostParams &C) {
  if (Ranks <= 1)
    return 0;
  return llvm::Log2_64_Ceil(Ranks) * C.minAlpha() +
         contractOf(Kind).bandwidthShare(Ranks) * double(Bytes) * C.minBeta();
}

double lowerBound(Collective Kind, const Topology &Topo, uint64_t Bytes,
                  const CostParams &C) {
  uint32_t Ranks = Topo.ranks();
  if (Ranks <= 1)
    return 0;
  bool Shared = Topo.ranksPerNode() > 1;
  // The cheapest message of any size (CostParams::LargeMessageBytes).
  double Alpha = C.minAlpha(), Beta = C.minBeta();
  double AlphaIntra = C.AlphaIntra >= 0 ? C.AlphaIntra : Alpha;
  double BetaIntra = C.BetaIntra >= 0 ? C.BetaIntra : Beta;
  if (Shared)
    Alpha = std::min(Alpha, AlphaIntra);
  double Links = 1;
  if (Topo.kind() == TopologyKind::Torus) {
    Links = 0;
    for (uint32_t Size : Topo.dims())
      Links += Size > 2 ? 2 : Size == 2 ? 1 : 0;
    Links = std::max(Links, 1.0);
  }
  if (Topo.numNodes() == 1)
    Links = 0; // Everything stays in the node.
  double Rate = Beta > 0 ? Links / Beta : INFINITY;
  if (Shared)
    Rate += BetaIntra > 0 ? 1 / BetaIntra : INFINITY;
  // One latency, not ceil(log2 P): a rank's messages of a round overlap
  // (their bytes share its port or its links), so a plan can finish in one
  // round (CostModel.h).
  return Alpha + contractOf(Kind).bandwidthShare(Ranks) * double(Bytes) / Rate;
}

} // namespace collplan
