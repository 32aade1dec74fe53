//===- Swing.cpp - Swing allreduce, reduce-scatter and allgather ----------===//
//
// Swing (De Sensi, Bonato, Saam and Hoefler, "Swing: Short-cutting Rings for
// Higher Bandwidth Allreduce", NSDI'24) on a torus of nodes, one rank each; a
// flat topology of P ranks is a ring (a 1-D torus) of P. At step s a rank
// talks to the rank rho(s) = 1, -1, 3, -5, 11, ... away along one dimension,
// so peers stay about 2/3 as far as recursive doubling's (§3.1). The peer
// function and the block sets live in SwingPeers.h.
//
// variant=bandwidth (Swing-B, §3.1.1): a reduce-scatter of log2 P steps in
// which each rank sends the blocks whose paths start at that step, then the
// mirror-image allgather. variant=latency (Swing-L, §3.1.2): every step
// exchanges and reduces the whole vector (allreduce only). Its printed form
// (order=rank-dependent) gives each rank its own combine tree; the default,
// order=identical, carries the partials of one common tree
// (SwingLatencyTree.h), several vectors a message, in the same rounds.
//
// ports=all (§4.1) splits the vector into 2D parts and runs 2D collectives
// at once, the plain ones starting on each dimension and the mirrored ones
// with every direction reversed, so a rank drives all of its 2D links each
// step. On non-square tori several collectives may meet the same peer in one
// step; they stay separate messages (the IR matches the i-th send to the
// i-th receive). ports=1 runs the plain collective starting on dimension 0.
//
// Sizes. Power-of-two dimensions use the closed-form contiguous labelling,
// so every allreduce message is one interval. Even dimensions that are not
// powers of two use the latest-first-step rule (§3.2, Appendix A.2) with
// blocks in rank order. An odd ring (P odd, one dimension; Swing-B) follows
// the paper's §3.2: ranks 0..P-2 run the even algorithm on their blocks,
// and at reduce-scatter step s rank P-1 trades raw single blocks with group
// s of them (groups of ceil(rest / 2) ranks in rank order: 3, 2, 1 for
// P = 7): it sends rank i its contribution to i's final block and receives
// i's contribution to its own. The allgather mirrors it with final blocks.
// Several receives of one block in one round need as many buffers, so rank
// P-1 receives into in0, in1, ... and reduces locally; a group member
// receives into in0, as its own block may arrive from its even partner in
// the same round. Odd dimensions of a multi-dimensional torus (Swing-B)
// and non-powers of two (Swing-L) are folded per dimension as the authors'
// code does (docs/algorithms/swing.md, "Non-power-of-two sizes"): before
// the collective the surplus coordinates send their vectors to partners
// inside the folded torus, and receive the result after it. Folding only
// suits allreduce, so reduce-scatter and allgather need those dimensions even
// (or 1).
//
// Blocks. Allreduce: B = C * P' (C collectives, P' ranks after folding),
// collective c owning [c P', (c+1) P'). Reduce-scatter and allgather: block
// b of collective c is plan block b * C + c, so rank r owns [r C, (r+1) C),
// the IR's ownership rule.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/StagedProgram.h"
#include "compiler/algorithms/SwingLatencyTree.h"
#include "compiler/algorithms/SwingPeers.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <vector>

namespace collplan {
namespace {

using swing::StepDim;
using swing::SwingTorus;

/// What the header's topology and parameters make of a Swing plan.
struct SwingShape {
  llvm::SmallVector<uint32_t, 4> Dims;    ///< The real torus.
  llvm::SmallVector<uint32_t, 4> Virtual; ///< The torus after folding.
  /// The dimensions that fold, in the order they fold.
  llvm::SmallVector<uint32_t, 4> FoldedDims;
  bool Latency = false;
  /// Swing-L in one common tree (order=identical).
  bool Identical = false;
  /// Swing-L in one tree: the scratch buffers its partials need.
  uint32_t PartialBuffers = 0;
  bool AllPorts = false;
  /// A 1-D ring of odd size under Swing-B: rank Dims[0] - 1 is the odd node
  /// of §3.2, the others run the even algorithm (Virtual = Dims[0] - 1).
  bool OddRing = false;

  uint32_t collectives() const { return AllPorts ? 2 * Dims.size() : 1; }
  /// Allreduce blocks per collective: every rank's final block.
  uint32_t blocksPerCollective() const {
    return OddRing ? Dims[0] : SwingTorus(Virtual).ranks();
  }
  /// Rank P-1's groups in the odd ring: group s is [Start[s], Start[s+1]).
  std::vector<uint32_t> oddGroups() const {
    std::vector<uint32_t> Start = {0};
    uint32_t Rest = Virtual[0], Steps = SwingTorus(Virtual).steps();
    for (uint32_t St = 0; St < Steps; ++St) {
      uint32_t Size = St + 1 == Steps ? Rest : (Rest + 1) / 2;
      Start.push_back(Start.back() + Size);
      Rest -= Size;
    }
    return Start;
  }
};

SwingShape shapeOf(const Topology &Topo, bool Latency, bool AllPorts) {
  SwingShape S;
  llvm::ArrayRef<uint32_t> Dims = rankTorus(Topo).dims();
  S.Dims.assign(Dims.begin(), Dims.end());
  S.Latency = Latency;
  S.AllPorts = AllPorts;
  for (uint32_t E = 0; E < S.Dims.size(); ++E) {
    uint32_t D = S.Dims[E];
    // Swing-L needs powers of two (a summed vector cannot drop a
    // duplicate); Swing-B only even sizes.
    uint32_t V = Latency ? (D <= 1 ? D : uint32_t(llvm::PowerOf2Floor(D)))
                         : (D > 1 && D % 2 ? D - 1 : D);
    S.Virtual.push_back(V);
    if (V != D)
      S.FoldedDims.push_back(E);
  }
  // An odd ring of at least 3 keeps its odd node instead of folding it.
  if (!Latency && S.Dims.size() == 1 && S.Dims[0] % 2 && S.Dims[0] > 1) {
    S.OddRing = true;
    S.FoldedDims.clear();
  }
  return S;
}

/// The most partials identical Swing-L may carry: a rank's buffers, each
/// the vector's size. Rings stay below log2 P; a D-dimensional torus grows
/// as P^(1/D) (16x16: 21, 32x32: 53, 64x64: 120), where Swing-B serves.
constexpr uint32_t MostPartialsAllowed = 32;

/// The most partials a rank of identical Swing-L holds at once: those it
/// holds before a step and those its peer sends in it; past
/// MostPartialsAllowed the first count found above it.
uint32_t mostPartials(const SwingShape &S) {
  SwingTorus Virt(S.Virtual);
  uint32_t Most = 1;
  for (uint32_t C = 0; C < S.collectives(); ++C) {
    swing::LatencyTree Tree(Virt, C);
    llvm::SmallVector<StepDim, 32> Sched = Virt.schedule(C);
    for (uint32_t V = 0; V < Virt.ranks(); ++V)
      for (uint32_t St = 0; St < Sched.size(); ++St) {
        uint32_t Q = Virt.peer(V, Sched[St], C >= Virt.numDims());
        Most = std::max<uint32_t>(Most, Tree.held(V, St).size() +
                                            Tree.held(Q, St).size());
        if (Most > MostPartialsAllowed)
          return Most;
      }
  }
  return Most;
}

/// The shape prepare() derived from the topology and the parameters.
const SwingShape &shapeOf(const PlanHeader &H) {
  return preparedAs<SwingShape>(H);
}

class SwingAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "swing"; }
  llvm::StringRef summary() const override {
    return "Swing (De Sensi et al., NSDI'24): recursive-doubling-like steps "
           "at distances 1, 1, 3, 5, 11, ... on a torus, 2D ports at once";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::ReduceScatter,
                                               Collective::Allgather};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::Commutative},
            {Requirement::OneRankPerTorusNode, "", "",
             "with several, use --algorithm smp-rsag --param inter=swing (a "
             "reduce-scatter in each node, swing among the nodes on each "
             "local rank's part, an allgather in each node)"}};
  }
  std::vector<ParamInfo> params() const override {
    return {{"variant",
             "bandwidth (reduce-scatter + allgather, Swing-B) or latency "
             "(whole vector every step, Swing-L; allreduce only)",
             "bandwidth", ParamDomain::oneOf({"bandwidth", "latency"})},
            {"ports",
             "1 (one collective) or all (2D concurrent collectives on 1/(2D) "
             "of the vector each)",
             "chosen by the cost model on a torus, else 1",
             ParamDomain::oneOf({"1", "all"})},
            {"order",
             "variant=latency only: identical (one combine tree on every "
             "rank: each step carries the partials of its subtrees, several "
             "vectors a message) or rank-dependent (the paper's: one vector "
             "a message, each rank its own tree)",
             "identical", ParamDomain::oneOf({"identical", "rank-dependent"})}};
  }

  /// The tuner prices both variants (allreduce) and, on a torus, both
  /// port settings: Swing-L wins small vectors, Swing-B large ones. A flat
  /// topology promises one port per node, so only ports=1 there. Swing-L
  /// comes in both orders; the verifier's verdict decides which may serve.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    std::vector<std::string> Variants = {"bandwidth"}, Ports = {"1"};
    if (Request.Kind == Collective::Allreduce)
      Variants.push_back("latency");
    if (Request.Topo.kind() == TopologyKind::Torus)
      Ports.push_back("all");
    if (Request.Params.count("variant"))
      Variants = {Request.Params.at("variant")};
    if (Request.Params.count("ports"))
      Ports = {Request.Params.at("ports")};
    std::vector<std::string> Orders = {"identical", "rank-dependent"};
    if (Request.Params.count("order")) {
      Orders = {Request.Params.at("order")};
      if (!Request.Params.count("variant"))
        Variants = {"latency"};
    }
    std::vector<std::map<std::string, std::string>> Out;
    for (const std::string &V : Variants)
      for (const std::string &P : Ports) {
        if (V != "latency") {
          Out.push_back({{"variant", V}, {"ports", P}});
          continue;
        }
        for (const std::string &O : Orders)
          Out.push_back({{"variant", V}, {"ports", P}, {"order", O}});
      }
    return Out;
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    auto Param = [&](const char *Name, const char *Default) {
      auto It = Request.Params.find(Name);
      return It == Request.Params.end() ? std::string(Default) : It->second;
    };
    std::string Variant = Param("variant", "bandwidth");
    std::string Ports = Param("ports", "1");
    if (Variant != "bandwidth" && Variant != "latency")
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing: parameter variant must be bandwidth or latency, not '" +
              Variant + "'");
    if (Ports != "1" && Ports != "all")
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing: parameter ports must be 1 or all, not '" + Ports + "'");
    const Topology &T = Request.Topo;
    bool Latency = Variant == "latency";
    if (Latency && Request.Kind != Collective::Allreduce)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing: variant=latency exchanges whole vectors and serves "
          "allreduce only");
    std::string Order = Param("order", "identical");
    if (Order != "identical" && Order != "rank-dependent")
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing: parameter order must be identical or rank-dependent, not '" +
              Order + "'");
    if (!Latency && Request.Params.count("order"))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing: parameter order applies to variant=latency (variant=" +
              Variant + " is identical on every rank already)");
    SwingShape S = shapeOf(T, Latency, Ports == "all");
    if (Request.Kind != Collective::Allreduce && !S.FoldedDims.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "swing " + collectiveName(Request.Kind).str() +
              " needs every torus dimension even or 1 (odd dimensions are "
              "folded, which only allreduce can do); got " +
              T.str() +
              (T.kind() == TopologyKind::Torus
                   ? std::string()
                   : " of " + std::to_string(T.ranks()) + " ranks"));
    H.Params["variant"] = Variant;
    H.Params["ports"] = Ports;
    uint64_t C = S.collectives();
    if (Latency) {
      H.Params["order"] = Order;
      H.Blocks = C;
      H.Buffers = {"data", "scratch"};
      if (Order == "identical") {
        S.Identical = true;
        uint32_t Most = mostPartials(S);
        if (Most > MostPartialsAllowed)
          return llvm::createStringError(
              llvm::inconvertibleErrorCode(),
              "swing: variant=latency order=identical would hold " +
                  std::to_string(Most) + " partial vectors at once on " +
                  T.str() + " (at most " + std::to_string(MostPartialsAllowed) +
                  "); variant=bandwidth is identical on every rank");
        S.PartialBuffers = Most - 1;
        H.Buffers = {"data"};
        for (uint32_t K = 1; K <= S.PartialBuffers; ++K)
          H.Buffers.push_back("partial" + std::to_string(K));
      }
    } else {
      H.Blocks = C * S.blocksPerCollective();
    }
    if (S.OddRing) {
      // The odd node's receive buffers: one per member of its largest group.
      std::vector<uint32_t> Groups = S.oddGroups();
      uint32_t Largest = Groups.size() > 1 ? Groups[1] - Groups[0] : 0;
      for (uint32_t K = 0; K < Largest; ++K)
        H.Buffers.push_back("in" + std::to_string(K));
    }
    H.RequiresCommutative = true;
    setPrepared(H, std::move(S));
    return H;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    const SwingShape &S = shapeOf(H);
    std::string Out = std::string("swing ") +
                      (S.Latency ? S.Identical ? "latency, one tree" : "latency"
                                 : "bandwidth") +
                      ", " + std::to_string(S.collectives()) +
                      " concurrent collective(s)";
    if (S.OddRing) {
      std::vector<uint32_t> Groups = S.oddGroups();
      Out += "; odd ring: rank " + std::to_string(S.Dims[0] - 1) +
             " trades single blocks with groups of";
      for (size_t G = 0; G + 1 < Groups.size(); ++G)
        Out += (G ? ", " : " ") + std::to_string(Groups[G + 1] - Groups[G]);
      Out += " ranks (§3.2)";
    }
    if (!S.FoldedDims.empty()) {
      Out += "; folded";
      for (uint32_t E : S.FoldedDims)
        Out += " dimension " + std::to_string(E) + " (" +
               std::to_string(S.Dims[E]) + " -> " +
               std::to_string(S.Virtual[E]) + ")";
      Out += S.Latency ? " to powers of two" : " to even sizes";
    }
    return Out + "\n";
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
};

/// Builds one rank's program: the fold, the collective on the folded torus,
/// the unfold.
class RankBuilder : StagedProgram {
public:
  RankBuilder(const PlanHeader &H, uint32_t Rank)
      : H(H), S(shapeOf(H)), Real(S.Dims), Virt(S.Virtual), Rank(Rank) {}

  Program build() {
    uint32_t F = S.FoldedDims.size();
    BlockSet All = BlockSet::range(0, H.Blocks);
    llvm::SmallVector<uint32_t, 4> A = Real.coordsOf(Rank);
    uint32_t L = Virt.steps();
    uint32_t CoreRounds = S.Latency
                              ? L
                              : L * ((H.Kind != Collective::Allgather) +
                                     (H.Kind != Collective::ReduceScatter));
    auto UnfoldRound = [&](uint32_t K) { return F + CoreRounds + (F - 1 - K); };
    // Fold: dimension FoldedDims[K] in round K, among the ranks still inside.
    llvm::SmallVector<std::pair<uint32_t, uint32_t>, 4> Absorbed;
    for (uint32_t K = 0; K < F; ++K) {
      uint32_t E = S.FoldedDims[K];
      uint32_t Extra = S.Dims[E] - S.Virtual[E];
      llvm::SmallVector<uint32_t, 4> B = A;
      if (A[E] >= S.Virtual[E]) {
        B[E] -= Extra;
        uint32_t Partner = Real.rankOf(B);
        add(K, Op::send(Partner, All));
        add(UnfoldRound(K), Op::recv(Partner, All, Combine::Replace));
        // A corner rank may have absorbed a neighbour in an earlier
        // dimension before leaving itself; it hands the result on after.
        unfold(Absorbed, UnfoldRound, All);
        return finish();
      }
      if (A[E] + Extra >= S.Virtual[E]) {
        B[E] += Extra;
        uint32_t Partner = Real.rankOf(B);
        add(K, Op::recv(Partner, All, Combine::Reduce));
        Absorbed.push_back({K, Partner});
      }
    }
    if (S.OddRing) {
      buildOddNode();
      if (Rank + 1 == S.Dims[0])
        return finish();
    }
    V = Virt.rankOf(A);
    if (S.Identical)
      buildIdenticalLatency(F);
    else if (S.Latency)
      buildLatency(F);
    else if (Virt.powerOfTwo() && H.Kind == Collective::Allreduce)
      buildContiguous(F);
    else
      buildBlockSets(F);
    unfold(Absorbed, UnfoldRound, All);
    return finish();
  }

private:
  /// The plan block in which rank Of of the even ranks ends with collective
  /// C's reduced result (its own final block).
  uint64_t finalBlock(uint32_t Of, uint32_t C) const {
    if (H.Kind != Collective::Allreduce)
      return uint64_t(Of) * S.collectives() + C;
    uint64_t Label = Virt.powerOfTwo() ? Virt.psi(Of, C) : Of;
    return uint64_t(C) * S.blocksPerCollective() + Label;
  }
  /// The odd node's final block of collective C.
  uint64_t oddBlock(uint32_t C) const {
    uint32_t Odd = S.Dims[0] - 1;
    return H.Kind == Collective::Allreduce
               ? uint64_t(C) * S.blocksPerCollective() + Odd
               : uint64_t(Odd) * S.collectives() + C;
  }

  /// §3.2: rank P-1's single-block trades with group s at reduce-scatter
  /// step s, and their mirror in the allgather, from either end.
  void buildOddNode() {
    uint32_t Odd = S.Dims[0] - 1, L = Virt.steps();
    bool DoRs = H.Kind != Collective::Allgather;
    bool DoAg = H.Kind != Collective::ReduceScatter;
    std::vector<uint32_t> Groups = S.oddGroups();
    for (uint32_t St = 0; St < L; ++St)
      for (uint32_t I = Groups[St]; I < Groups[St + 1]; ++I) {
        if (Rank != Odd && Rank != I)
          continue;
        uint32_t AgRound = (DoRs ? L : 0) + L - 1 - St;
        for (uint32_t C = 0; C < S.collectives(); ++C) {
          BlockSet Theirs = BlockSet::single(finalBlock(I, C));
          BlockSet Mine = BlockSet::single(oddBlock(C));
          if (Rank != Odd)
            std::swap(Theirs, Mine);
          uint32_t Peer = Rank == Odd ? I : Odd;
          // The odd node's K-th receive of the step, or the member's one.
          uint16_t In = 1 + (Rank == Odd ? I - Groups[St] : 0);
          if (DoRs) {
            add(St, Op::send(Peer, Theirs));
            add(St, Op::recv(Peer, Mine, Combine::Replace, In));
            add(St, Op::local(In, DataBuffer, Mine, Combine::Reduce));
          }
          if (DoAg) {
            add(AgRound, Op::send(Peer, Mine));
            add(AgRound, Op::recv(Peer, Theirs, Combine::Replace));
          }
        }
      }
  }

  template <typename RoundFn>
  void unfold(llvm::ArrayRef<std::pair<uint32_t, uint32_t>> Absorbed,
              RoundFn UnfoldRound, const BlockSet &All) {
    for (auto It = Absorbed.rbegin(); It != Absorbed.rend(); ++It)
      add(UnfoldRound(It->first), Op::send(It->second, All));
  }

  uint32_t realOf(uint32_t VirtualRank) const {
    return Real.rankOf(Virt.coordsOf(VirtualRank));
  }
  uint32_t peerOf(uint32_t C, StepDim At) const {
    return realOf(Virt.peer(V, At, C >= Virt.numDims()));
  }

  /// Swing-L: collective c owns block c and swaps it whole every step.
  void buildLatency(uint32_t First) {
    constexpr uint16_t Scratch = 1;
    for (uint32_t C = 0; C < S.collectives(); ++C) {
      llvm::SmallVector<StepDim, 32> Sched = Virt.schedule(C);
      for (uint32_t St = 0; St < Sched.size(); ++St) {
        uint32_t Q = peerOf(C, Sched[St]);
        BlockSet Part = BlockSet::single(C);
        add(First + St, Op::send(Q, Part));
        add(First + St, Op::recv(Q, Part, Combine::Replace, Scratch));
        add(First + St, Op::local(Scratch, DataBuffer, Part, Combine::Reduce));
      }
    }
  }

  /// Swing-L in one tree: each step a rank sends every partial it holds,
  /// receives its peer's into free buffers, and combines siblings, into the
  /// data buffer whenever it holds one of them (so the root ends there).
  void buildIdenticalLatency(uint32_t First) {
    for (uint32_t C = 0; C < S.collectives(); ++C) {
      swing::LatencyTree Tree(Virt, C);
      llvm::SmallVector<StepDim, 32> Sched = Virt.schedule(C);
      BlockSet Part = BlockSet::single(C);
      std::map<swing::Subtree, uint16_t> Held = {{Tree.leaf(V), DataBuffer}};
      llvm::SmallVector<uint16_t, 8> Free; // the lowest on top
      for (uint32_t B = S.PartialBuffers; B >= 1; --B)
        Free.push_back(uint16_t(B));
      for (uint32_t St = 0; St < Sched.size(); ++St) {
        uint32_t Round = First + St;
        uint32_t Q = Virt.peer(V, Sched[St], C >= Virt.numDims());
        for (const auto &[Sub, B] : Held)
          add(Round, Op::send(realOf(Q), Part, B));
        for (const swing::Subtree &Sub : Tree.held(Q, St)) {
          Held[Sub] = Free.pop_back_val();
          add(Round, Op::recv(realOf(Q), Part, Combine::Replace, Held[Sub]));
        }
        combineSiblings(Round, Part, Held, Free);
      }
    }
  }

  void combineSiblings(uint32_t Round, const BlockSet &Part,
                       std::map<swing::Subtree, uint16_t> &Held,
                       llvm::SmallVectorImpl<uint16_t> &Free) {
    for (auto It = Held.begin(); It != Held.end();) {
      auto Sib = Held.find(It->first.sibling());
      if (Sib == Held.end()) {
        ++It;
        continue;
      }
      uint16_t Into = It->second, From = Sib->second;
      if (From == DataBuffer)
        std::swap(Into, From);
      add(Round, Op::local(From, Into, Part, Combine::Reduce));
      Free.push_back(From);
      swing::Subtree Parent = It->first.parent();
      Held.erase(Sib);
      Held.erase(It);
      Held[Parent] = Into;
      It = Held.begin();
    }
  }

  /// Swing-B allreduce on a power-of-two torus in psi labels: the blocks a
  /// rank keeps after step s are the aligned interval of P' / 2^(s+1) labels
  /// around its own label, and it sends the other half of the previous one.
  void buildContiguous(uint32_t First) {
    uint64_t P = Virt.ranks();
    uint32_t L = Virt.steps();
    for (uint32_t C = 0; C < S.collectives(); ++C) {
      llvm::SmallVector<StepDim, 32> Sched = Virt.schedule(C);
      uint64_t Mine = Virt.psi(V, C), Base = C * S.blocksPerCollective();
      for (uint32_t St = 0; St < L; ++St) {
        uint32_t Q = peerOf(C, Sched[St]);
        uint64_t Half = P >> (St + 1);
        uint64_t Lo = Mine & ~(2 * Half - 1);
        uint64_t KeepLo = Mine & Half ? Lo + Half : Lo;
        uint64_t SendLo = Mine & Half ? Lo : Lo + Half;
        BlockSet Keep = BlockSet::range(Base + KeepLo, Base + KeepLo + Half);
        BlockSet Send = BlockSet::range(Base + SendLo, Base + SendLo + Half);
        add(First + St, Op::send(Q, Send));
        add(First + St, Op::recv(Q, Keep, Combine::Reduce));
        uint32_t AgRound = First + 2 * L - 1 - St;
        add(AgRound, Op::send(Q, Keep));
        add(AgRound, Op::recv(Q, Send, Combine::Replace));
      }
    }
  }

  /// Swing-B from explicit block sets in rank order (any even torus, and
  /// reduce-scatter / allgather, whose blocks must stay in rank order).
  void buildBlockSets(uint32_t First) {
    uint32_t L = Virt.steps();
    uint64_t NumC = S.collectives();
    bool Allreduce = H.Kind == Collective::Allreduce;
    bool DoRs = H.Kind != Collective::Allgather;
    bool DoAg = H.Kind != Collective::ReduceScatter;
    // Two operations per step of each half and collective, known before the
    // sets, which take O(P) to compute each (seconds at P = 2^24).
    if (OpBudget::cannotFit(NumC * L * 2 * (DoRs + DoAg)))
      return;
    for (uint32_t C = 0; C < NumC; ++C) {
      llvm::SmallVector<StepDim, 32> Sched = Virt.schedule(C);
      // Rank 0's send sets; a rank's own and its peers' are their images.
      std::vector<std::vector<uint32_t>> FromZero(L);
      std::vector<int8_t> FirstSteps = Virt.firstStepsFromZero(C);
      for (uint32_t B = 0; B < FirstSteps.size(); ++B)
        if (FirstSteps[B] >= 0)
          FromZero[FirstSteps[B]].push_back(B);
      auto SetOf = [&](uint32_t Of, uint32_t St) {
        std::vector<uint32_t> Out;
        Out.reserve(FromZero[St].size());
        for (uint32_t B : FromZero[St])
          Out.push_back(Virt.transform(Of, B));
        std::sort(Out.begin(), Out.end());
        return Out;
      };
      auto ToSet = [&](llvm::ArrayRef<uint32_t> Blocks) {
        BlockSet Out;
        uint64_t Base = uint64_t(C) * S.blocksPerCollective();
        if (Allreduce)
          for (uint32_t B : Blocks)
            Out.insert(Base + B, Base + B + 1);
        else
          for (uint32_t B : Blocks)
            Out.insert(B * NumC + C, B * NumC + C + 1);
        return Out;
      };
      for (uint32_t St = 0; St < L; ++St) {
        uint32_t QVirt = Virt.peer(V, Sched[St], C >= Virt.numDims());
        uint32_t Q = realOf(QVirt);
        BlockSet Send = ToSet(SetOf(V, St)), Recv = ToSet(SetOf(QVirt, St));
        if (DoRs) {
          add(First + St, Op::send(Q, Send));
          add(First + St, Op::recv(Q, Recv, Combine::Reduce));
        }
        if (DoAg) {
          // The allgather retraces the reduce-scatter backwards: what came
          // in at step s goes back out final, and vice versa.
          uint32_t AgRound = First + (DoRs ? L : 0) + L - 1 - St;
          add(AgRound, Op::send(Q, Recv));
          add(AgRound, Op::recv(Q, Send, Combine::Replace));
        }
      }
    }
  }

  const PlanHeader &H;
  const SwingShape &S;
  SwingTorus Real, Virt;
  uint32_t Rank;
  uint32_t V = 0;
};

Program SwingAlgorithm::buildRank(const PlanHeader &H, uint32_t Rank) const {
  return RankBuilder(H, Rank).build();
}

} // namespace

const Algorithm &swingAlgorithm() {
  static const SwingAlgorithm Instance;
  return Instance;
}

} // namespace collplan
