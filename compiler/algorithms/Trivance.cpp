//===- Trivance.cpp - Trivance allreduce, reduce-scatter and allgather ----===//
//
// Trivance (Juerss, Addanki and Schmid, "Trivance: Latency-Optimal AllReduce
// by Shortcutting Multiport Networks", arXiv 2602.17254, 2026) on a torus of
// nodes, one rank each (a ring of P: torus:P). A flat topology is refused
// (restriction torus): it promises one port per node, and the cost model,
// which lets a round's messages overlap, would price the two ports' messages
// below the lower bound there (docs/cost-model.md, "Known limitation").
// Each step a rank talks to both of its neighbours 3^c away along one
// dimension at once (both ports of the bidirectional ring) and combines what
// both send it jointly, so a dimension of 3^L ranks takes L steps. The steps,
// peers and block sets live in TrivanceTorus.h.
//
// variant=latency (the paper's latency-optimal form): every step sends the
// whole vector both ways and reduces both incoming vectors (allreduce
// only). variant=bandwidth (its bandwidth-optimal form): a reduce-scatter in
// which each step sends a third of what a rank holds each way and keeps the
// last third, then the mirror-image allgather; allreduce messages are one
// interval each in the labels of TrivanceTorus.h.
//
// Sizes that are not powers of three (sizes=). The paper's optimality needs
// 3^L ranks per dimension; its simulator runs a dimension of d ranks in
// ceil(log3 d) steps, the last one ceil((d - 3^(L-1)) / 2) far, and
// sizes=steps does that with block sets that combine every contribution
// once (TrivanceTorus.h): bandwidth-optimal, in rank order (strided sets).
// The latency form cannot: its partials are windows of 3^c ranks around
// their holder, which the last step's two windows would overlap (at d = 8,
// ranks r - 4 .. r - 2 and r + 2 .. r + 4 both hold r + 4). sizes=fold folds
// each such dimension onto V = 3^floor(log3 d) coordinates instead, as MPICH
// folds recursive doubling onto a power of two and Swing its odd dimensions:
// before the collective the coordinates x >= V send their vectors to x mod V
// (a core coordinate absorbs up to two), after it they receive the result
// back; two rounds per folded dimension, each shipping the whole vector, the
// dimensions folding one after another among the ranks still inside. Folding
// only suits allreduce.
//
// ports=all (the simulator's ports): one collective starts on each dimension
// of the torus, each on 1/D of the vector, so a rank drives all 2D links of
// its node every step; ports=1 runs the one starting on dimension 0.
//
// Buffers. A round's receives may not overlap each other or its sends, and
// a rank hears from both neighbours at once: the latency form receives into
// two scratch buffers and reduces them into data afterwards; the bandwidth
// form reduces its - neighbour's part straight into the kept blocks and its
// + neighbour's through the scratch buffer, as does a core rank absorbing
// two folded ranks.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/StagedProgram.h"
#include "compiler/algorithms/TrivanceTorus.h"

#include <map>
#include <vector>

namespace collplan {
namespace {

using trivance::TernaryTorus;
using trivance::Third;

/// What the header's topology and parameters make of a Trivance plan.
struct TrivanceShape {
  llvm::SmallVector<uint32_t, 4> Dims;    ///< The real torus.
  llvm::SmallVector<uint32_t, 4> Virtual; ///< The torus after folding.
  /// The dimensions that fold, in the order they fold.
  llvm::SmallVector<uint32_t, 4> FoldedDims;
  bool Latency = false;
  /// ports=all: one collective starting on each dimension, each on its
  /// share of the vector.
  bool AllPorts = false;

  /// The collectives' tori, collective c starting on dimension c, built
  /// once here rather than per rank (their tables take O(d log d)).
  std::vector<TernaryTorus> Colls;

  uint32_t collectives() const { return AllPorts ? Dims.size() : 1; }
};

/// Whether a dimension of the ranks' torus is not a power of three.
bool hasOtherSizes(const Topology &Topo) {
  for (uint32_t D : rankTorus(Topo).dims())
    if (trivance::pow3Floor(D) != D)
      return true;
  return false;
}

TrivanceShape shapeOf(const Topology &Topo, bool Latency, bool Fold,
                      bool AllPorts) {
  TrivanceShape S;
  llvm::ArrayRef<uint32_t> Dims = rankTorus(Topo).dims();
  S.Dims.assign(Dims.begin(), Dims.end());
  S.Latency = Latency;
  S.AllPorts = AllPorts;
  for (uint32_t E = 0; E < S.Dims.size(); ++E) {
    S.Virtual.push_back(Fold ? trivance::pow3Floor(S.Dims[E]) : S.Dims[E]);
    if (S.Virtual.back() != S.Dims[E])
      S.FoldedDims.push_back(E);
  }
  for (uint32_t C = 0; C < S.collectives(); ++C)
    S.Colls.emplace_back(S.Virtual, C);
  return S;
}

const TrivanceShape &shapeOf(const PlanHeader &H) {
  return preparedAs<TrivanceShape>(H);
}

llvm::Error refuse(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "trivance: " + Message.str());
}

class TrivanceAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "trivance"; }
  llvm::StringRef summary() const override {
    return "Trivance (Juerss et al., 2026): both ports of a ring at once, "
           "neighbours 3^k away, log3 P steps per dimension of a torus";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::ReduceScatter,
                                               Collective::Allgather};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::Commutative},
            {Requirement::Torus, "", "",
             "for a ring of P ranks use --topology torus:P"},
            {Requirement::OneRankPerTorusNode, "", "",
             "with several, use --algorithm smp-rsag --param inter=trivance"}};
  }
  std::vector<ParamInfo> params() const override {
    return {{"variant",
             "bandwidth (reduce-scatter + allgather) or latency (whole "
             "vector both ways every step; allreduce only)",
             "chosen by the cost model (allreduce), else bandwidth",
             ParamDomain::oneOf({"bandwidth", "latency"})},
            {"sizes",
             "how dimensions that are not powers of three run: steps "
             "(ceil(log3 d) steps, the last one shorter; bandwidth form) or "
             "fold (onto 3^floor(log3 d), two more rounds; allreduce)",
             "steps up to 2048 ranks (allreduce: chosen by the cost model), "
             "fold past that (allreduce) and for variant=latency",
             ParamDomain::oneOf({"steps", "fold"})},
            {"ports",
             "1 (one collective, 2 links a step) or all (one collective "
             "starting on each dimension, on 1/D of the vector each: all 2D "
             "links a step)",
             "chosen by the cost model on a torus, else 1",
             ParamDomain::oneOf({"1", "all"})}};
  }

  /// The tuner prices both forms of an allreduce (latency wins small
  /// vectors, bandwidth large ones) and, where a dimension is not a power of
  /// three, the bandwidth form's steps against its fold. Steps are offered
  /// up to 2048 ranks: their strided block sets cost about P^2 / 3
  /// intervals in all (measured, allreduce: 0.76 GiB and 4 s of CPU to
  /// compile and verify at P = 2048, 3.4 GiB at torus:64x64 ports=all);
  /// sizes=steps asks for them at any P.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    std::vector<std::string> Variants = {"bandwidth"};
    if (Request.Kind == Collective::Allreduce)
      Variants.push_back("latency");
    if (Request.Params.count("variant"))
      Variants = {Request.Params.at("variant")};
    bool Other = hasOtherSizes(Request.Topo);
    std::vector<std::string> Ports = {"1"};
    if (Request.Topo.kind() == TopologyKind::Torus &&
        rankTorus(Request.Topo).dims().size() > 1)
      Ports.push_back("all");
    if (Request.Params.count("ports"))
      Ports = {Request.Params.at("ports")};
    std::vector<std::map<std::string, std::string>> Out;
    for (const std::string &V : Variants) {
      std::vector<std::string> Sizes = {V == "latency" && Other ? "fold"
                                                                : "steps"};
      if (V == "bandwidth" && Other && Request.Kind == Collective::Allreduce) {
        Sizes = {"fold"};
        if (Request.ranks() <= 2048)
          Sizes.push_back("steps");
      }
      // prepare() explains why it refuses a reduce-scatter or allgather past
      // 2048 ranks on such sizes without sizes=steps named.
      if (V == "bandwidth" && Other && Request.Kind != Collective::Allreduce &&
          Request.ranks() > 2048)
        Sizes = {""};
      if (Request.Params.count("sizes"))
        Sizes = {Request.Params.at("sizes")};
      for (const std::string &Z : Sizes)
        for (const std::string &Pt : Ports) {
          Out.push_back({{"variant", V}, {"ports", Pt}});
          if (!Z.empty())
            Out.back()["sizes"] = Z;
        }
    }
    return Out;
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    auto It = Request.Params.find("variant");
    std::string Variant = It == Request.Params.end() ? "bandwidth" : It->second;
    bool Latency = Variant == "latency";
    if (Latency && Request.Kind != Collective::Allreduce)
      return refuse("variant=latency exchanges whole vectors and serves "
                    "allreduce only");
    bool Other = hasOtherSizes(Request.Topo);
    // The default: steps where nothing folds or the strided sets stay small
    // (candidates()), else fold; a reduce-scatter or allgather cannot fold.
    auto Z = Request.Params.find("sizes");
    bool Small = Request.ranks() <= 2048;
    std::string Sizes = Z != Request.Params.end()       ? Z->second
                        : !Other || (!Latency && Small) ? "steps"
                        : Latency || Request.Kind == Collective::Allreduce
                            ? "fold"
                            : "";
    if (Sizes.empty())
      return refuse(collectiveName(Request.Kind) + " on " + Request.Topo.str() +
                    " of " + std::to_string(Request.ranks()) +
                    " ranks needs sizes=steps named: a dimension is not a "
                    "power of three, and past 2048 ranks its strided block "
                    "sets cost about P^2 / 3 intervals");
    auto Pt = Request.Params.find("ports");
    std::string Ports = Pt == Request.Params.end() ? "1" : Pt->second;
    if (Other && Latency && Sizes == "steps")
      return refuse("variant=latency cannot take sizes=steps: its last step's "
                    "windows would overlap on " +
                    Request.Topo.str() + " of " +
                    std::to_string(Request.Topo.ranks()) +
                    " ranks; use sizes=fold");
    if (Other && Request.Kind != Collective::Allreduce && Sizes == "fold")
      return refuse("sizes=fold serves allreduce only (a folded rank's "
                    "blocks cannot be scattered to it); use sizes=steps");
    TrivanceShape S =
        shapeOf(Request.Topo, Latency, Sizes == "fold", Ports == "all");
    H.Params["variant"] = Variant;
    H.Params["sizes"] = Sizes;
    H.Params["ports"] = Ports;
    uint64_t Virtual = S.Colls[0].ranks();
    if (Latency) {
      H.Blocks = S.collectives();
      H.Buffers = {"data", "minus", "plus"};
    } else {
      H.Blocks = S.collectives() * Virtual;
      H.Buffers = {"data", "scratch"};
    }
    H.RequiresCommutative = true;
    setPrepared(H, std::move(S));
    return H;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    const TrivanceShape &S = shapeOf(H);
    const TernaryTorus &Virt = S.Colls[0];
    std::string Out =
        std::string("trivance ") + (S.Latency ? "latency" : "bandwidth") +
        ", " + std::to_string(Virt.steps()) + " ternary step(s), " +
        std::to_string(S.collectives()) + " concurrent collective(s)";
    if (!S.FoldedDims.empty()) {
      Out += "; folded";
      for (uint32_t E : S.FoldedDims)
        Out += " dimension " + std::to_string(E) + " (" +
               std::to_string(S.Dims[E]) + " -> " +
               std::to_string(S.Virtual[E]) + ")";
      Out += " to powers of three, 2 rounds each";
    }
    return Out + "\n";
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return shapeOf(H).FoldedDims.empty();
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
};

/// Builds one rank's program: the folds, the collective on the folded torus,
/// the unfolds.
class RankBuilder : StagedProgram {
public:
  RankBuilder(const PlanHeader &H, uint32_t Rank)
      : H(H), S(shapeOf(H)), Real(Topology::torus(S.Dims, 1)), Virt(S.Colls[0]),
        Colls(S.Colls), Rank(Rank) {}

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
    llvm::SmallVector<std::pair<uint32_t, uint32_t>, 8> Absorbed;
    for (uint32_t K = 0; K < F; ++K) {
      uint32_t E = S.FoldedDims[K], V = S.Virtual[E];
      llvm::SmallVector<uint32_t, 4> B = A;
      if (A[E] >= V) {
        B[E] = A[E] % V;
        uint32_t Partner = Real.nodeAt(B);
        add(K, Op::send(Partner, All));
        add(UnfoldRound(K), Op::recv(Partner, All, Combine::Replace));
        // A corner rank may have absorbed others in an earlier dimension
        // before leaving itself; it hands them the result after.
        unfold(Absorbed, UnfoldRound, All);
        return finish();
      }
      for (uint32_t M = 1; A[E] + M * V < S.Dims[E]; ++M) {
        B[E] = A[E] + M * V;
        uint32_t Partner = Real.nodeAt(B);
        if (M == 1) {
          add(K, Op::recv(Partner, All, Combine::Reduce));
        } else {
          add(K, Op::recv(Partner, All, Combine::Replace, Scratch));
          add(K, Op::local(Scratch, DataBuffer, All, Combine::Reduce));
        }
        Absorbed.push_back({K, Partner});
      }
    }
    llvm::SmallVector<uint32_t, 4> VirtCoords(A.begin(), A.end());
    V = Virt.topology().nodeAt(VirtCoords);
    if (S.Latency)
      buildLatency(F);
    else
      buildBandwidth(F);
    unfold(Absorbed, UnfoldRound, All);
    return finish();
  }

private:
  static constexpr uint16_t Scratch = 1;

  template <typename RoundFn>
  void unfold(llvm::ArrayRef<std::pair<uint32_t, uint32_t>> Absorbed,
              RoundFn UnfoldRound, const BlockSet &All) {
    for (auto It = Absorbed.rbegin(); It != Absorbed.rend(); ++It)
      add(UnfoldRound(It->first), Op::send(It->second, All));
  }

  uint32_t realOf(uint32_t VirtualRank) const {
    return Real.nodeAt(Virt.topology().coordsOf(VirtualRank));
  }

  /// The latency form: the whole vector (collective C's block) to both
  /// neighbours, both incoming vectors reduced into data after the round's
  /// receives.
  void buildLatency(uint32_t First) {
    constexpr uint16_t FromMinus = 1, FromPlus = 2;
    for (uint32_t C = 0; C < S.collectives(); ++C) {
      const TernaryTorus &T = Colls[C];
      BlockSet Part = BlockSet::single(C);
      for (uint32_t St = 0; St < T.steps(); ++St) {
        uint32_t Plus = realOf(T.peer(V, St, Third::Plus));
        uint32_t Minus = realOf(T.peer(V, St, Third::Minus));
        add(First + St, Op::send(Plus, Part));
        add(First + St, Op::send(Minus, Part));
        add(First + St, Op::recv(Minus, Part, Combine::Replace, FromMinus));
        add(First + St, Op::recv(Plus, Part, Combine::Replace, FromPlus));
        add(First + St,
            Op::local(FromMinus, DataBuffer, Part, Combine::Reduce));
        add(First + St, Op::local(FromPlus, DataBuffer, Part, Combine::Reduce));
      }
    }
  }

  /// Side's part of what rank Of (of the virtual torus) holds at step
  /// Step: an interval of labels for an allreduce on powers of three, else
  /// blocks in rank order.
  /// With C collectives, collective c's allreduce blocks are the c-th run
  /// of P' plan blocks, and rank b's reduce-scatter block of collective c is
  /// plan block b C + c (so rank b owns [b C, (b+1) C), the IR's rule).
  BlockSet third(uint32_t C, uint32_t Of, uint32_t Step, Third Side) const {
    const TernaryTorus &T = Colls[C];
    uint64_t NumC = S.collectives();
    if (H.Kind == Collective::Allreduce) {
      BlockSet Local = T.powersOfThree() ? T.labelThird(Of, Step, Side)
                                         : T.rankThird(Of, Step, Side);
      if (NumC == 1)
        return Local;
      BlockSet Out;
      for (const BlockRange &R : Local.ranges())
        Out.insert(C * T.ranks() + R.Begin, C * T.ranks() + R.End);
      return Out;
    }
    BlockSet Local = T.rankThird(Of, Step, Side);
    if (NumC == 1)
      return Local;
    BlockSet Out;
    Local.forEachBlock(
        [&](uint64_t B) { Out.insert(B * NumC + C, B * NumC + C + 1); });
    return Out;
  }

  /// The reduce-scatter sends each neighbour the blocks whose path goes
  /// through it and combines what both send into the kept ones; the
  /// allgather retraces it backwards. Receives from the - side come first,
  /// so that when both sides are one rank (2 d = 0 mod the dimension) the
  /// i-th messages still pair up.
  void buildBandwidth(uint32_t First) {
    uint32_t L = Virt.steps();
    bool DoRs = H.Kind != Collective::Allgather;
    bool DoAg = H.Kind != Collective::ReduceScatter;
    // Up to five operations per step of each half, known before the sets,
    // which take O(P) each in rank order.
    if (OpBudget::cannotFit(uint64_t(L) * 5 * (DoRs + DoAg) * S.collectives()))
      return;
    auto AddIf = [&](uint32_t Round, Op O) {
      if (!O.Blocks.empty())
        add(Round, std::move(O));
    };
    for (uint32_t C = 0; C < S.collectives(); ++C)
      for (uint32_t St = 0; St < L; ++St) {
        const TernaryTorus &T = Colls[C];
        uint32_t PlusV = T.peer(V, St, Third::Plus);
        uint32_t MinusV = T.peer(V, St, Third::Minus);
        uint32_t Plus = realOf(PlusV), Minus = realOf(MinusV);
        BlockSet ToPlus = third(C, V, St, Third::Plus);
        BlockSet ToMinus = third(C, V, St, Third::Minus);
        BlockSet FromMinus = third(C, MinusV, St, Third::Plus);
        BlockSet FromPlus = third(C, PlusV, St, Third::Minus);
        if (DoRs) {
          AddIf(First + St, Op::send(Plus, ToPlus));
          AddIf(First + St, Op::send(Minus, ToMinus));
          AddIf(First + St, Op::recv(Minus, FromMinus, Combine::Reduce));
          AddIf(First + St,
                Op::recv(Plus, FromPlus, Combine::Replace, Scratch));
          AddIf(First + St,
                Op::local(Scratch, DataBuffer, FromPlus, Combine::Reduce));
        }
        if (DoAg) {
          uint32_t AgRound = First + (DoRs ? L : 0) + L - 1 - St;
          AddIf(AgRound, Op::send(Plus, FromPlus));
          AddIf(AgRound, Op::send(Minus, FromMinus));
          AddIf(AgRound, Op::recv(Minus, ToMinus, Combine::Replace));
          AddIf(AgRound, Op::recv(Plus, ToPlus, Combine::Replace));
        }
      }
  }

  const PlanHeader &H;
  const TrivanceShape &S;
  Topology Real;
  const TernaryTorus &Virt;
  llvm::ArrayRef<TernaryTorus> Colls;
  uint32_t Rank;
  uint32_t V = 0;
};

Program TrivanceAlgorithm::buildRank(const PlanHeader &H, uint32_t Rank) const {
  return RankBuilder(H, Rank).build();
}

} // namespace

const Algorithm &trivanceAlgorithm() {
  static const TrivanceAlgorithm Instance;
  return Instance;
}

} // namespace collplan
