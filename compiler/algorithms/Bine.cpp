//===- Bine.cpp - Bine trees and butterflies ------------------------------===//
//
// Bine (De Sensi, Pasqualoni, Piarulli, Bonato, Ba, Turisini, Domke and
// Hoefler, "Bine Trees: Enhancing Collective Operations by Optimizing
// Communication Locality", SC'25): binomial trees and butterflies whose
// peers are negabinary distances 1, 1, 3, 5, 11, ... apart on the ring of
// ranks, so most messages stay between nearby ranks (and, with ranks placed
// in order, inside a node, switch or group). The family runs on the ring of
// the P ranks whatever the topology: the locality is in the rank numbers.
//
// variant=latency, whole vector every round:
// - broadcast: the distance-halving Bine tree (BineTree.h) from the root, in
//   ceil(log2 P) rounds for any P (the tree pruned to a window of P
//   positions; the reference code handles powers of two only);
// - reduce: that broadcast run backwards (ReversedBroadcast.h);
// - allreduce: the Bine butterfly, rank v exchanging with v +- rho(t) in
//   round t, on P' = 2^floor(log2 P) ranks after MPICH's fold of
//   neighbouring pairs (PowerOfTwoFold.h), as the reference does.
//
// variant=bandwidth, vector in P' blocks:
// - broadcast: a scatter down the distance-doubling tree (the butterfly's
//   rounds from the root: big halves travel 1, 1, 3, ... ranks) and an
//   allgather up the distance-halving butterfly, in which a rank receives
//   only what the scatter did not give it, so each block arrives once
//   (2 log2 P' rounds). Blocks are Swing's contiguous labels (psi), so each
//   message is one interval. Non-powers of two fold: rank root+1+2i hands
//   the result to root+2+2i in one more round;
// - reduce: that broadcast run backwards: a reduce-scatter that skips what
//   the broadcast skipped, then a gather down the doubling tree;
// - allreduce: the Bine butterfly is Swing's pattern on a ring of P, so
//   this is Swing-B's plan on the ring of ranks, asked of swing, not a copy;
// - reduce-scatter, allgather: on P = 2^L the butterfly on Swing's
//   contiguous labels plus a remap round to the IR's block owners; on other
//   P Swing's plans (Swing.cpp: even P by the latest-first-step rule, odd P
//   by Swing's §3.2 odd node).
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/BineTree.h"
#include "compiler/algorithms/PowerOfTwoFold.h"
#include "compiler/algorithms/ReversedBroadcast.h"
#include "compiler/algorithms/SwingPeers.h"

#include "llvm/Support/MathExtras.h"

namespace collplan {
namespace {

/// What prepare() derives: the variant, the tree of a latency broadcast or
/// reduce, and Swing's header for the collectives Swing's plans serve.
struct BineShape {
  bool Latency = false;
  std::optional<bine::BineTree> Tree;
  std::optional<PlanHeader> Butterfly;
};

const Algorithm &butterflyFamily() { return *findAlgorithm("swing"); }

/// Whether the plan is Swing-B's on the ring of ranks: the bandwidth
/// allreduce, and reduce-scatter and allgather on P not a power of two (on
/// powers of two these use contiguous labels and a remap round, below).
bool delegatesToSwing(Collective Kind, bool Latency, uint32_t Ranks) {
  if (Kind == Collective::ReduceScatter || Kind == Collective::Allgather)
    return !llvm::isPowerOf2_32(Ranks);
  return Kind == Collective::Allreduce && !Latency;
}

class BineAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "bine"; }
  llvm::StringRef summary() const override {
    return "Bine trees and butterflies (De Sensi et al., SC'25): binomial "
           "trees and butterflies at negabinary distances 1, 1, 3, 5, 11, ... "
           "on the ring of ranks, any P";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {
        Collective::Broadcast, Collective::Reduce, Collective::Allreduce,
        Collective::ReduceScatter, Collective::Allgather};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::Commutative}};
  }
  std::vector<ParamInfo> params() const override {
    return {
        {"variant",
         "latency (whole vector: a Bine tree, or the butterfly for "
         "allreduce) or bandwidth (P' blocks: scatter + allgather, "
         "reduce-scatter + gather, reduce-scatter + allgather)",
         "chosen by the cost model",
         ParamDomain::oneOf({"bandwidth", "latency"}),
         false,
         {Collective::Broadcast, Collective::Reduce, Collective::Allreduce}}};
  }

  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    if (Request.Kind == Collective::ReduceScatter ||
        Request.Kind == Collective::Allgather ||
        Request.Params.count("variant"))
      return {{}};
    return {{{"variant", "bandwidth"}}, {{"variant", "latency"}}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    auto It = Request.Params.find("variant");
    std::string Variant = It == Request.Params.end() ? "bandwidth" : It->second;
    BineShape S;
    S.Latency = Variant == "latency";
    uint32_t P = Request.ranks();
    H.RequiresCommutative =
        H.Kind != Collective::Broadcast && H.Kind != Collective::Allgather;
    if (Request.Kind == Collective::ReduceScatter ||
        Request.Kind == Collective::Allgather)
      S.Latency = false;
    else
      H.Params["variant"] = Variant;

    if (delegatesToSwing(H.Kind, S.Latency, P)) {
      CompileRequest Ring = Request;
      Ring.Topo = Topology::flat(P);
      Ring.Params = {{"variant", "bandwidth"}, {"ports", "1"}};
      llvm::Expected<PlanHeader> Butterfly = butterflyFamily().prepare(Ring);
      if (!Butterfly)
        return Butterfly.takeError();
      H.Blocks = Butterfly->Blocks;
      H.Buffers = Butterfly->Buffers;
      S.Butterfly = std::move(*Butterfly);
    } else if (H.Kind == Collective::ReduceScatter ||
               H.Kind == Collective::Allgather) {
      H.Blocks = P;
    } else if (H.Kind == Collective::Allreduce) {
      H.Blocks = 1;
      H.Buffers = {"data", "scratch"};
    } else if (S.Latency) {
      bine::BineTree Tree(P);
      if (!Tree.valid())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "bine: no window of " + std::to_string(P) +
                " positions of the Bine tree holds every member's parent");
      H.Blocks = 1;
      S.Tree = Tree;
    } else {
      H.Blocks = PowerOfTwoFold(P).virtualRanks();
    }
    setPrepared(H, std::move(S));
    return H;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    const BineShape &S = preparedAs<BineShape>(H);
    std::string Out = std::string("bine ") +
                      (S.Latency ? "latency" : "bandwidth") +
                      " on the ring of " + std::to_string(H.Ranks) + " ranks";
    if (S.Tree && !llvm::isPowerOf2_32(H.Ranks))
      Out += "; the tree of 2^" + std::to_string(S.Tree->rounds()) +
             " positions pruned to [" + std::to_string(S.Tree->windowStart()) +
             ", " + std::to_string(S.Tree->windowStart() + H.Ranks) + ")";
    if (S.Butterfly)
      Out += "; Swing's butterfly on that ring";
    if (!S.Tree && !S.Butterfly && !llvm::isPowerOf2_32(H.Ranks))
      Out += "; folded to " +
             std::to_string(PowerOfTwoFold(H.Ranks).virtualRanks()) + " ranks";
    return Out + "\n";
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
};

/// The rank Rel steps after the root.
uint32_t fromRelative(const PlanHeader &H, uint64_t Rel) {
  return uint32_t((Rel + H.Root.value_or(0)) % H.Ranks);
}

/// Broadcast down the distance-halving Bine tree, whole vector.
Program treeBroadcast(const PlanHeader &H, const bine::BineTree &T,
                      uint32_t Rank) {
  Program Prog;
  uint32_t P = H.Ranks;
  int64_t X = T.positionOf((Rank + P - H.Root.value_or(0)) % P);
  auto RankAt = [&](int64_t Y) { return fromRelative(H, T.relativeOf(Y)); };
  BlockSet All = BlockSet::single(0);
  uint32_t First = 0;
  if (std::optional<uint32_t> Round = T.receiveRound(X)) {
    Prog.add(*Round, Op::recv(RankAt(T.parent(X)), All, Combine::Replace));
    First = *Round + 1;
  }
  for (uint32_t Round = First; Round < T.rounds(); ++Round)
    if (std::optional<int64_t> Child = T.child(X, Round))
      Prog.add(Round, Op::send(RankAt(*Child), All));
  return Prog;
}

/// The labels a butterfly step T moves on P = 2^L ranks: the aligned
/// interval of P / 2^(T+1) labels around label Of.
BlockSet labelHalf(uint32_t Ranks, uint32_t T, uint64_t Of) {
  uint64_t Size = uint64_t(Ranks) >> (T + 1);
  uint64_t Lo = Of & ~(Size - 1);
  return BlockSet::range(Lo, Lo + Size);
}

/// The rounds of the bandwidth broadcast: scatter, allgather, unfold.
uint32_t scatterAllgatherRounds(uint32_t Ranks) {
  PowerOfTwoFold Fold(Ranks);
  return 2 * Fold.levels() + (Fold.folds() ? 1 : 0);
}

/// Broadcast as a scatter down the distance-doubling tree and an allgather
/// up the distance-halving butterfly (the reference's bcast for large
/// vectors), on P' ranks after a fold.
Program scatterAllgather(const PlanHeader &H, uint32_t Rank) {
  Program Prog;
  uint32_t P = H.Ranks;
  PowerOfTwoFold Fold(P);
  uint32_t L = Fold.levels(), PV = Fold.virtualRanks();
  BlockSet All = BlockSet::range(0, H.Blocks);
  // Fold on U = Rel - 1, so the root is U = P - 1 >= 2 rem, never paired,
  // and a pair (2i, 2i+1) is the neighbours root+1+2i, root+2+2i.
  uint32_t U =
      uint32_t((uint64_t(Rank) + 2 * uint64_t(P) - 1 - H.Root.value_or(0)) % P);
  auto RankOfU = [&](uint32_t Of) { return fromRelative(H, uint64_t(Of) + 1); };
  uint32_t Unfold = 2 * L;
  if (Fold.isIdle(U)) {
    Prog.add(Unfold,
             Op::recv(RankOfU(Fold.pairPartner(U)), All, Combine::Replace));
    return Prog;
  }
  uint32_t VRoot = Fold.virtualOf(P - 1);
  uint32_t V = (Fold.virtualOf(U) + PV - VRoot) % PV;
  auto RankOfV = [&](uint32_t W) {
    return RankOfU(Fold.realOf((W + VRoot) % PV));
  };
  swing::SwingTorus Ring{llvm::ArrayRef<uint32_t>(PV)};
  uint64_t Label = Ring.psi(V, 0);
  // V receives its part in the scatter at the step of its label's lowest set
  // bit, counted from the top: the holder of each aligned label interval is
  // its lowest label (the root, label 0, holds from the start).
  int32_t Received =
      V == 0 ? -1 : int32_t(L - 1 - llvm::countTrailingZeros(Label));
  auto Half = [&](uint32_t T, uint64_t Of) { return labelHalf(PV, T, Of); };
  for (uint32_t T = 0; T < L; ++T) {
    uint32_t W = Ring.peer(V, swing::StepDim{0, T}, false);
    if (int32_t(T) > Received)
      Prog.add(T, Op::send(RankOfV(W), Half(T, Ring.psi(W, 0))));
    else if (int32_t(T) == Received)
      Prog.add(T, Op::recv(RankOfV(W), Half(T, Label), Combine::Replace));
  }
  for (uint32_t T = L; T-- > 0;) {
    uint32_t W = Ring.peer(V, swing::StepDim{0, T}, false);
    uint32_t Round = 2 * L - 1 - T;
    // A child's part came down in the scatter and the parent already holds
    // ours: only the other exchanges carry both ways.
    if (int32_t(T) != Received)
      Prog.add(Round, Op::send(RankOfV(W), Half(T, Label)));
    if (int32_t(T) <= Received)
      Prog.add(Round,
               Op::recv(RankOfV(W), Half(T, Ring.psi(W, 0)), Combine::Replace));
  }
  if (Fold.isPaired(U))
    Prog.add(Unfold, Op::send(RankOfU(Fold.pairPartner(U)), All));
  return Prog;
}

/// Allreduce, latency form: the Bine butterfly on the folded ranks, the
/// whole vector every round (the reference's allreduce for small vectors).
/// Ranks end with the same value but not the same bits: after round 1 rank 0
/// has combined ranks {0, 1} with {P-2, P-1} and rank P-2 {P-4, P-3} with
/// {P-2, P-1}, so no order of operands makes their combine trees agree.
Program butterflyAllreduce(const PlanHeader &H, uint32_t Rank) {
  constexpr uint16_t Scratch = 1;
  Program Prog;
  PowerOfTwoFold Fold(H.Ranks);
  BlockSet All = BlockSet::single(0);
  uint32_t First = Fold.firstExchangeRound();
  uint32_t Last = First + Fold.levels();
  if (Fold.isIdle(Rank)) {
    Prog.add(0, Op::send(Fold.pairPartner(Rank), All));
    Prog.add(Last, Op::recv(Fold.pairPartner(Rank), All, Combine::Replace));
    return Prog;
  }
  if (Fold.isPaired(Rank))
    Prog.add(0, Op::recv(Fold.pairPartner(Rank), All, Combine::Reduce));
  uint32_t PV = Fold.virtualRanks();
  swing::SwingTorus Ring{llvm::ArrayRef<uint32_t>(PV)};
  uint32_t V = Fold.virtualOf(Rank);
  for (uint32_t T = 0; T < Fold.levels(); ++T) {
    uint32_t Peer = Fold.realOf(Ring.peer(V, swing::StepDim{0, T}, false));
    Prog.add(First + T, Op::send(Peer, All));
    Prog.add(First + T, Op::recv(Peer, All, Combine::Replace, Scratch));
    Prog.add(First + T, Op::local(Scratch, DataBuffer, All, Combine::Reduce));
  }
  if (Fold.isPaired(Rank))
    Prog.add(Last, Op::send(Fold.pairPartner(Rank), All));
  return Prog;
}

/// Reduce-scatter and allgather on P = 2^L ranks: the butterfly on
/// contiguous labels, every message one interval, block b standing for
/// label b. A rank ends the reduce-scatter with label psi(r) and starts the
/// allgather from it, but owns block r (the IR's rule), so one more round
/// trades single blocks between rank r and the rank labelled r (the
/// reference's "send remap"): L + 1 rounds in O(log P) per rank, where
/// rank-order block sets (Swing's, for other P) take O(P).
Program remappedButterfly(const PlanHeader &H, uint32_t Rank) {
  Program Prog;
  uint32_t P = H.Ranks, L = llvm::Log2_32(P);
  swing::SwingTorus Ring{llvm::ArrayRef<uint32_t>(P)};
  uint64_t Label = Ring.psi(Rank, 0);
  bool Rs = H.Kind == Collective::ReduceScatter;
  bool Remaps = Label != Rank;
  // Rank r holds (allgather: needs first) block psi(r) and owns block r,
  // which the rank labelled r holds (needs).
  uint32_t Labelled = Remaps ? Ring.rankOfPsi(Rank, 0) : Rank;
  if (!Rs && Remaps) {
    Prog.add(0, Op::send(Labelled, BlockSet::single(Rank)));
    Prog.add(0, Op::recv(uint32_t(Label), BlockSet::single(Label),
                         Combine::Replace));
  }
  uint32_t First = Rs ? 0 : 1;
  for (uint32_t K = 0; K < L; ++K) {
    uint32_t T = Rs ? K : L - 1 - K;
    uint32_t W = Ring.peer(Rank, swing::StepDim{0, T}, false);
    BlockSet Mine = labelHalf(P, T, Label);
    BlockSet Theirs = labelHalf(P, T, Ring.psi(W, 0));
    if (Rs) {
      Prog.add(First + K, Op::send(W, Theirs));
      Prog.add(First + K, Op::recv(W, Mine, Combine::Reduce));
      continue;
    }
    // The allgather skips the block a rank owns from the start (a whole
    // message when that block is all the peer would get).
    BlockSet Out = Mine.subtract(BlockSet::single(W));
    BlockSet In = Theirs.subtract(BlockSet::single(Rank));
    if (!Out.empty())
      Prog.add(First + K, Op::send(W, Out));
    if (!In.empty())
      Prog.add(First + K, Op::recv(W, In, Combine::Replace));
  }
  if (Rs && Remaps) {
    Prog.add(L, Op::send(uint32_t(Label), BlockSet::single(Label)));
    Prog.add(L, Op::recv(Labelled, BlockSet::single(Rank), Combine::Replace));
  }
  return Prog;
}

Program BineAlgorithm::buildRank(const PlanHeader &H, uint32_t Rank) const {
  const BineShape &S = preparedAs<BineShape>(H);
  if (S.Butterfly)
    return butterflyFamily().buildRank(*S.Butterfly, Rank);
  if (H.Kind == Collective::Allreduce)
    return butterflyAllreduce(H, Rank);
  if (H.Kind == Collective::ReduceScatter || H.Kind == Collective::Allgather)
    return remappedButterfly(H, Rank);
  if (S.Tree) {
    Program Broadcast = treeBroadcast(H, *S.Tree, Rank);
    return H.Kind == Collective::Reduce
               ? reversedBroadcast(Broadcast, S.Tree->rounds())
               : Broadcast;
  }
  Program Broadcast = scatterAllgather(H, Rank);
  return H.Kind == Collective::Reduce
             ? reversedBroadcast(Broadcast, scatterAllgatherRounds(H.Ranks))
             : Broadcast;
}

} // namespace

const Algorithm &bineAlgorithm() {
  static const BineAlgorithm Instance;
  return Instance;
}

} // namespace collplan
