//===- Nap.cpp - Node-aware parallel (NAP) allreduce ----------------------===//
//
// Bienz, Olson, Gropp, "Node-aware improvements to allreduce", §III. Small
// allreduces on many nodes are latency bound, and recursive doubling spends
// log2 n inter-node rounds in which every process of a node sends the same
// data. NAP first allreduces within each node, so all ppn processes of a node
// hold the node's partial; then, in each inter-node step, each of them
// fetches the partial of a different subgroup of nodes
// (NodeAwarePartition.h), and the node allreduces what its processes
// received. ceil(log_ppn n) inter-node steps replace log2 n.
//
// Algorithm III as printed allreduces "own (+) received" across the node,
// which counts the node's own partial ppn times; like the authors' code
// (docs/algorithms/nap.md, "Errata and decisions") each step allreduces only
// what was received (buffer "received") and then adds it to the unchanged
// partial in "data". Ranks that received nothing hold no contribution: the
// compiler knows them statically, so an intra-node exchange with such a rank
// becomes a one-way copy or disappears (docs/algorithms/nap.md, "Idea"),
// instead of sending zeros.
//
// Intra-node allreduces are recursive doubling on local ranks with MPICH's
// fold for a ppn that is not a power of two (PowerOfTwoFold.h), R rounds
// each. Round layout: [0, R) the first intra-node allreduce; step i has one
// inter-node round at R + i(R + 1) followed by R intra-node rounds, whose
// last also adds "received" into "data". All ranks share the layout, so a
// group that skips a step (one subgroup) simply idles in its rounds.
//
// Peers are computed as (node, local rank) and mapped to ranks through the
// topology, so block, round-robin and explicit mappings give the same
// node-level pattern. With one rank per node there is nothing to be
// node-aware about: the plan is recursive doubling's.
//
// Identical results (order=identical, the default). Each step as printed
// adds the node's own partial to the allreduce of the others' (N_j (+)
// tree(others)), so nodes of different subgroups group the same partials
// differently and floating-point results differ across nodes. In the
// identical order the rank whose position is its own subgroup (J) brings
// the node's partial into the intra-node allreduce in slot J: every node of
// the group then combines the K subgroup partials in one tree, recursive
// doubling over slots 0..K-1, whatever its subgroup; by induction over the
// steps every rank ends with the same tree. Same rounds and inter-node
// messages; rank J's intra-node transfers, elided in the printed order, are
// now made, and the step ends by copying the result into "data" instead of
// adding to it, one combine fewer (docs/algorithms/nap.md, "Identical
// results").
//
// Nodes of different sizes (a hostfile's irregular job): NAP runs on the q
// lowest local ranks of every node, q the smallest node's size. Before it,
// the other ranks fold in: in fold round j, local rank (j+1)q + g sends its
// vector to local rank g, which adds it (one receive per round, as the IR
// wants); after it they get the result back the same way, in rounds of
// their own. ceil(largest / q) - 1 rounds each way.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/NodeAwarePartition.h"
#include "compiler/algorithms/PowerOfTwoFold.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace collplan {

const Algorithm &recursiveDoublingAlgorithm();

namespace {

/// Buffers of a NAP plan beside "data" (the running partial X).
constexpr uint16_t ReceivedBuffer = 1; ///< T: what the node received.
constexpr uint16_t ExchangeBuffer = 2; ///< Landing place of intra exchanges.

/// Whether any of the local ranks [Lo, Hi) holds a contribution.
using ContentFn = llvm::function_ref<bool(uint32_t Lo, uint32_t Hi)>;

/// The rounds an intra-node allreduce takes on PerNode ranks.
uint32_t intraRounds(uint32_t PerNode) {
  PowerOfTwoFold Fold(PerNode);
  return Fold.levels() + (Fold.folds() ? 2 : 0);
}

/// Local rank Local's part of an allreduce of buffer Acc among local ranks
/// [0, PerNode) of Node, in rounds [First, First + intraRounds): recursive
/// doubling with the fold, where a group holding no contribution (Content)
/// sends nothing and a group receiving from one that holds nothing keeps its
/// buffer as is.
void addIntraAllreduce(Program &Prog, const Topology &T, uint32_t PerNode,
                       uint32_t Node, uint32_t Local, uint32_t First,
                       uint16_t Acc, ContentFn Content) {
  PowerOfTwoFold Fold(PerNode);
  BlockSet All = BlockSet::single(0);
  uint32_t Last = First + intraRounds(PerNode) - 1;
  auto RankOf = [&](uint32_t L) { return T.rankAt(Node, L); };
  if (Fold.isPaired(Local)) {
    uint32_t Partner = Fold.pairPartner(Local);
    if (Fold.isIdle(Local)) {
      if (Content(Local, Local + 1))
        Prog.add(First, Op::send(RankOf(Partner), All, Acc));
      if (Content(0, PerNode))
        Prog.add(Last, Op::recv(RankOf(Partner), All, Combine::Replace, Acc));
      return;
    }
    if (Content(Partner, Partner + 1))
      Prog.add(First, Op::recv(RankOf(Partner), All,
                               Content(Local, Local + 1) ? Combine::Reduce
                                                         : Combine::Replace,
                               Acc));
  }
  uint32_t V = Fold.virtualOf(Local);
  auto GroupHasContent = [&](uint32_t Lo, uint32_t Size) {
    return Content(Fold.firstRealOf(Lo), Fold.firstRealOf(Lo + Size));
  };
  for (uint32_t K = 0; K < Fold.levels(); ++K) {
    uint32_t Index = Fold.firstExchangeRound() + First + K;
    uint32_t Size = uint32_t(1) << K;
    uint32_t PeerV = V ^ Size;
    uint32_t Peer = RankOf(Fold.realOf(PeerV));
    bool Mine = GroupHasContent(V & ~(Size - 1), Size);
    bool Theirs = GroupHasContent(PeerV & ~(Size - 1), Size);
    if (Mine)
      Prog.add(Index, Op::send(Peer, All, Acc));
    if (!Theirs)
      continue;
    if (!Mine) {
      Prog.add(Index, Op::recv(Peer, All, Combine::Replace, Acc));
      continue;
    }
    Prog.add(Index, Op::recv(Peer, All, Combine::Replace, ExchangeBuffer));
    Prog.add(Index, Op::local(ExchangeBuffer, Acc, All, Combine::Reduce));
  }
  if (Fold.isPaired(Local) && Content(0, PerNode))
    Prog.add(Last, Op::send(RankOf(Fold.pairPartner(Local)), All, Acc));
}

/// NAP among local ranks [0, PerNode) of every node, from round First:
/// local rank Local of Node's part; Identical: the identical order.
void addNap(Program &Prog, const Topology &T, uint32_t PerNode, uint32_t Node,
            uint32_t Local, uint32_t First, bool Identical) {
  BlockSet All = BlockSet::single(0);
  uint32_t R = intraRounds(PerNode);
  llvm::SmallVector<NodeGroupSplit, 4> Splits =
      napSplitsOf(Node, T.numNodes(), PerNode);
  // One allocation for the rounds: at most R per intra-node allreduce and
  // one per inter-node step.
  Prog.Rounds.reserve(First + (Splits.size() + 1) * R + Splits.size());
  addIntraAllreduce(Prog, T, PerNode, Node, Local, First, DataBuffer,
                    [](uint32_t Lo, uint32_t Hi) { return Lo < Hi; });
  for (uint32_t I = 0; I < Splits.size(); ++I) {
    const NodeGroupSplit &S = Splits[I];
    if (S.K == 1)
      continue;
    uint32_t InterRound = First + R + I * (R + 1);
    NapStepRole Role = napRoleOf(S, Node, Local);
    uint32_t Peer = T.rankAt(Role.PeerNode, Role.PeerLocal);
    if (Role.Kind == NapRole::Exchange || Role.Kind == NapRole::ServerSend)
      Prog.add(InterRound, Op::send(Peer, All, DataBuffer));
    if (Role.receives())
      Prog.add(InterRound,
               Op::recv(Peer, All, Combine::Replace, ReceivedBuffer));
    // Local ranks [0, K) other than the node's own subgroup J received a
    // partial (by exchange or one way); the others hold nothing.
    uint32_t K = S.K, J = S.subgroupOf(Node);
    if (Identical) {
      // Slot J holds the node's own partial, in "data": all of [0, K) hold
      // a contribution. Ranks past K and rank J allreduce in "data" (past
      // K it contributes nothing and is overwritten before it is read); the
      // others in "received", copied into "data" at the end.
      bool InData = Local == J || Local >= K;
      auto Slots = [K](uint32_t Lo, uint32_t Hi) {
        return Lo < std::min(Hi, K);
      };
      addIntraAllreduce(Prog, T, PerNode, Node, Local, InterRound + 1,
                        InData ? DataBuffer : ReceivedBuffer, Slots);
      if (!InData)
        Prog.add(InterRound + R,
                 Op::local(ReceivedBuffer, DataBuffer, All, Combine::Replace));
      continue;
    }
    auto Received = [K, J](uint32_t Lo, uint32_t Hi) {
      Hi = std::min(Hi, K);
      return Lo < Hi && (Hi - Lo >= 2 || Lo != J);
    };
    addIntraAllreduce(Prog, T, PerNode, Node, Local, InterRound + 1,
                      ReceivedBuffer, Received);
    Prog.add(InterRound + R,
             Op::local(ReceivedBuffer, DataBuffer, All, Combine::Reduce));
  }
}

/// The order nodes combine subgroup partials in (parameter "order").
struct NapOrder {
  bool Identical = true;
};

class NapAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "nap"; }
  llvm::StringRef summary() const override {
    return "node-aware parallel allreduce (Bienz, Olson, Gropp): "
           "ceil(log_ppn n) inter-node steps, each framed by intra-node "
           "allreduces; recursive doubling when ppn = 1";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    return {{"order",
             "identical (every node combines the subgroups' partials in one "
             "tree: the same bits on every rank) or rank-dependent (each node "
             "adds its own partial to the others', as printed)",
             "identical", ParamDomain::oneOf({"identical", "rank-dependent"})}};
  }

  /// Both orders: they take the same rounds, and the tuner's verdict, not
  /// the family, decides whether a rank-dependent plan may be chosen.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    if (Request.Params.count("order"))
      return {{{"order", Request.Params.at("order")}}};
    if (Request.Topo.ranksPerNode() == 1) // Recursive doubling either way.
      return {{}};
    return {{{"order", "identical"}}, {{"order", "rank-dependent"}}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    const Topology &T = Request.Topo;
    if (!T.isRegular() && T.fewestRanksOnANode() == 1)
      return makeError(ErrorKind::CannotCompile,
                       "nap folds the ranks of larger nodes into the smallest "
                       "node's count, and a node of this job holds a single "
                       "rank: nothing would be node-aware (use "
                       "recursive-doubling)");
    if (T.ranksPerNode() == 1) {
      llvm::Expected<PlanHeader> H =
          recursiveDoublingAlgorithm().prepare(Request);
      if (H)
        H->Algorithm = name().str();
      return H;
    }
    PlanHeader H = headerFor(*this, Request);
    H.Blocks = 1;
    H.Buffers = {"data", "received", "scratch"};
    // Subgroups' partials are combined in slot order, not rank order
    // (docs/algorithms/nap.md, "Errata and decisions", operators).
    H.RequiresCommutative = true;
    auto It = Request.Params.find("order");
    NapOrder Order;
    Order.Identical = It == Request.Params.end() || It->second == "identical";
    H.Params["order"] = Order.Identical ? "identical" : "rank-dependent";
    setPrepared(H, Order);
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    const Topology &T = H.Topo;
    if (T.ranksPerNode() == 1)
      return recursiveDoublingAlgorithm().buildRank(H, Rank);
    // NAP proper runs on local ranks [0, Q) of every node; the others fold
    // in before it and get the result after it.
    uint32_t Q = T.fewestRanksOnANode();
    uint32_t Folds = (T.ranksPerNode() + Q - 1) / Q - 1;
    uint32_t Node = T.nodeOf(Rank), Local = T.localRankOf(Rank);
    uint32_t Size = T.ranksOn(Node);
    uint32_t R = intraRounds(Q);
    uint32_t End = Folds + R + napSteps(T.numNodes(), Q) * (R + 1);
    BlockSet All = BlockSet::single(0);
    Program Prog;
    if (Local >= Q) {
      uint32_t Fold = Local / Q - 1, Into = T.rankAt(Node, Local % Q);
      Prog.add(Fold, Op::send(Into, All, DataBuffer));
      Prog.add(End + Fold, Op::recv(Into, All, Combine::Replace, DataBuffer));
      return Prog;
    }
    for (uint32_t J = 0; J < Folds && (J + 1) * Q + Local < Size; ++J)
      Prog.add(J, Op::recv(T.rankAt(Node, (J + 1) * Q + Local), All,
                           Combine::Reduce, DataBuffer));
    addNap(Prog, T, Q, Node, Local, Folds, preparedAs<NapOrder>(H).Identical);
    for (uint32_t J = 0; J < Folds && (J + 1) * Q + Local < Size; ++J)
      Prog.add(End + J,
               Op::send(T.rankAt(Node, (J + 1) * Q + Local), All, DataBuffer));
    return Prog;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    const Topology &T = H.Topo;
    if (T.ranksPerNode() == 1)
      return "one rank per node: nothing is node-aware, so nap is recursive "
             "doubling over the " +
             std::to_string(H.Ranks) + " ranks";
    uint32_t Nodes = T.numNodes(), PerNode = T.fewestRanksOnANode();
    uint32_t L = napSteps(Nodes, PerNode);
    std::string Out;
    if (!T.isRegular())
      Out = "nodes of " + std::to_string(PerNode) + " to " +
            std::to_string(T.ranksPerNode()) + " ranks: the ranks past " +
            std::to_string(PerNode) + " on a node fold in first (" +
            std::to_string((T.ranksPerNode() + PerNode - 1) / PerNode - 1) +
            " round(s)) and get the result last; ";
    Out += std::to_string(Nodes) + " nodes x " + std::to_string(PerNode) +
           " ranks: " + std::to_string(L) +
           " inter-node steps (ceil(log_ppn n)), " + std::to_string(L + 1) +
           " intra-node allreduces of " + std::to_string(intraRounds(PerNode)) +
           " rounds each";
    if (L > 0) {
      NodeGroupSplit Top = napSplitsOf(0, Nodes, PerNode).back();
      Out += "; the last step merges " + std::to_string(Top.K) +
             " subgroups of " + std::to_string(Top.smallSize()) +
             (Top.largeCount() ? "-" + std::to_string(Top.smallSize() + 1)
                               : std::string()) +
             " nodes";
    }
    Out += preparedAs<NapOrder>(H).Identical
               ? "; order=identical: every node combines the subgroups' "
                 "partials in one tree (the same bits on every rank)"
               : "; order=rank-dependent: each node adds its own partial to "
                 "the others' (bits may differ between nodes)";
    return Out;
  }
};

} // namespace

const Algorithm &napAlgorithm() {
  static const NapAlgorithm Instance;
  return Instance;
}

} // namespace collplan
