//===- NodeHierarchical.cpp - Allreduce in three stages over nodes --------===//
//
// Two node-hierarchical allreduces built from whole collectives on
// sub-communicators (Hierarchical.h), one stage inside every node, one among
// the nodes, one inside every node again:
//
// - smp: MPICH's master-per-node allreduce, the baseline of Bienz, Olson,
//   Gropp, "Node-aware improvements to allreduce" (§II-A, Fig. 4). The ranks
//   of each node reduce to a leader (local rank 0), the leaders allreduce,
//   each leader broadcasts in its node. Only one process per node talks
//   across nodes, at the price of log2 ppn more intra-node rounds and ppn - 1
//   idle processes during the inter-node part.
// - smp-rsag: a reduce-scatter inside every node, then every local rank l
//   allreduces the l-th of ppn parts of the vector with the local ranks l of
//   the other nodes, then an allgather inside every node. Every process
//   drives the network on 1/ppn of the data; with inter=swing this carries
//   Swing, whose paper assumes one process per node, to several processes per
//   node (docs/algorithms/smp-rsag.md); it is SMPI's smp_rsag with any
//   inter-node algorithm.
//
// Each stage is any registered family serving its collective, named by a
// parameter. Sub-ranks are local ranks inside a node and node indices among
// the nodes, mapped to ranks through the topology, so any mapping works; on
// a torus the nodes keep their torus, so a torus-aware inter family sees it.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/Hierarchical.h"
#include "plan/ir/Error.h"

namespace collplan {
namespace {

/// The nodes as a job of their own, one rank per node: a torus stays a torus.
Topology nodesOf(const Topology &T) {
  if (T.kind() == TopologyKind::Torus)
    return Topology::torus(T.dims(), 1);
  return Topology::flat(T.numNodes());
}

/// One stage: the parameter naming its family, the default, what it runs.
struct StageInfo {
  const char *Param;
  const char *Help;
  const char *Default;
  Collective Kind;
};

/// A family's three stages. The first and last run inside every node, the
/// middle one among the nodes: by local rank 0 on the whole vector, or, when
/// EveryLocalRank, by every local rank l on the l-th of ppn parts.
struct FamilyInfo {
  const char *Name;
  const char *Summary;
  StageInfo Stages[3];
  bool EveryLocalRank;
};

constexpr FamilyInfo Smp = {
    "smp",
    "hierarchical allreduce (MPICH SMP): reduce to a leader per node, "
    "allreduce among leaders, broadcast in each node; each part any algorithm",
    {{"intra", "the intra-node reduce to local rank 0", "binomial",
      Collective::Reduce},
     {"inter", "the allreduce among the nodes' leaders", "recursive-doubling",
      Collective::Allreduce},
     {"bcast", "the intra-node broadcast from local rank 0", "binomial",
      Collective::Broadcast}},
    /*EveryLocalRank=*/false};

constexpr FamilyInfo SmpRsag = {
    "smp-rsag",
    "node-aware allreduce: reduce-scatter in each node, every local rank "
    "allreduces its part across nodes, allgather in each node; each part any "
    "algorithm (inter=swing on tori)",
    {{"rs", "the intra-node reduce-scatter", "ring", Collective::ReduceScatter},
     {"inter",
      "the allreduce of local rank l's part among the nodes' local ranks l",
      "rabenseifner", Collective::Allreduce},
     {"ag", "the intra-node allgather", "ring", Collective::Allgather}},
    /*EveryLocalRank=*/true};

enum StageIndex : size_t { FirstStage = 0, InterStage = 1, LastStage = 2 };

class NodeHierarchicalAlgorithm final : public Algorithm {
public:
  explicit constexpr NodeHierarchicalAlgorithm(const FamilyInfo &Info)
      : Info(Info) {}

  llvm::StringRef name() const override { return Info.Name; }
  llvm::StringRef summary() const override { return Info.Summary; }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::RegularNodes, "", "",
             "use nap, which folds the extra ranks in first"}};
  }
  std::vector<ParamInfo> params() const override {
    std::vector<ParamInfo> Out;
    for (const StageInfo &S : Info.Stages) {
      // Any family that implements the stage's collective, but not a
      // composition of this kind (it would compose itself).
      std::vector<std::string> Names;
      for (const Algorithm *A : allAlgorithms())
        if (A != this && A->supports(S.Kind))
          Names.push_back(A->name().str());
      Out.push_back(
          {S.Param,
           S.Help + std::string("; its parameters as ") + S.Param + ".NAME",
           S.Default, ParamDomain::oneOf(std::move(Names)), /*Stage=*/true});
    }
    return Out;
  }

  /// On a torus the tuner weighs Swing among the nodes, on one port and on
  /// all, against the default.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    if (!Info.EveryLocalRank || Request.Topo.kind() != TopologyKind::Torus ||
        Request.Params.count("inter"))
      return {{}};
    return {
        {}, {{"inter", "swing"}}, {{"inter", "swing"}, {"inter.ports", "all"}}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    llvm::Expected<Composition> C = compose(H, Request);
    if (!C)
      return C.takeError();
    // The stages, prepared once: every rank's program is cut from them.
    setPrepared(H, std::move(*C));
    // The stages combine whole nodes: rank order holds only when every node
    // holds consecutive ranks.
    if (Request.Topo.mapping() != RankMapping::Block &&
        Request.Topo.ranksPerNode() > 1 && Request.Topo.numNodes() > 1)
      H.RequiresCommutative = true;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    const Composition *C = &preparedAs<Composition>(H);
    const Topology &T = H.Topo;
    uint32_t Node = T.nodeOf(Rank), Local = T.localRankOf(Rank);
    auto InNode = [&](uint32_t L) { return T.rankAt(Node, L); };
    auto SameLocal = [&](uint32_t M) {
      return T.rankAt(M, Info.EveryLocalRank ? Local : 0);
    };
    Program Prog;
    C->append(Prog, FirstStage, Local, InNode);
    if (Info.EveryLocalRank)
      C->append(Prog, InterStage, Node, SameLocal, /*Slice=*/Local);
    else if (Local == 0)
      C->append(Prog, InterStage, Node, SameLocal);
    C->append(Prog, LastStage, Local, InNode);
    return Prog;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    const Composition *C = &preparedAs<Composition>(H);
    std::string Out;
    for (const PlacedStage &S : C->stages())
      Out += (Out.empty() ? "" : "; ") + S.Name + ": " + S.Algo->name().str() +
             " " + collectiveName(S.Header.Kind).str() + " on " +
             std::to_string(S.Header.Ranks) + " ranks" +
             (S.Slices > 1 ? " x " + std::to_string(S.Slices) + " parts" : "") +
             ", rounds " + std::to_string(S.FirstRound) + ".." +
             std::to_string(S.FirstRound + S.Rounds) + ", " +
             std::to_string(S.Header.Blocks) + " block(s)";
    return Out;
  }

private:
  /// The three stages for H's topology and Request's parameters; records
  /// each stage's resolved parameters in H.Params.
  llvm::Expected<Composition> compose(PlanHeader &H,
                                      const CompileRequest &Request) const {
    const Topology &T = H.Topo;
    const std::map<std::string, std::string> &Given = Request.Params;
    std::vector<StageSpec> Specs;
    for (size_t I = 0; I < 3; ++I) {
      const StageInfo &Stage = Info.Stages[I];
      auto It = Given.find(Stage.Param);
      std::string AlgoName = It == Given.end() ? Stage.Default : It->second;
      const Algorithm *A = findAlgorithm(AlgoName);
      if (!A || A == this || !A->supports(Stage.Kind))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "parameter %s: '%s' is not an algorithm supporting %s", Stage.Param,
            AlgoName.c_str(), collectiveName(Stage.Kind).str().c_str());
      StageSpec S;
      S.Algo = A;
      S.Name = Stage.Param;
      S.Request.Kind = Stage.Kind;
      bool AmongNodes = I == InterStage;
      S.Request.Topo =
          AmongNodes ? nodesOf(T) : Topology::flat(T.ranksPerNode());
      if (Stage.Kind == Collective::Reduce ||
          Stage.Kind == Collective::Broadcast)
        S.Request.Root = 0;
      if (AmongNodes && Info.EveryLocalRank)
        S.Slices = T.ranksPerNode();
      S.Request.Bytes = Request.Bytes / S.Slices;
      S.Request.Cost = Request.Cost;
      S.Request.CommutativeOperator = Request.CommutativeOperator;
      S.Request.Params = stageParams(Given, Stage.Param);
      Specs.push_back(std::move(S));
      H.Params[Stage.Param] = AlgoName;
    }
    return Composition::compose(Specs, H);
  }

  const FamilyInfo &Info;
};

} // namespace

const Algorithm &smpAlgorithm() {
  static const NodeHierarchicalAlgorithm Instance(Smp);
  return Instance;
}

const Algorithm &smpRsagAlgorithm() {
  static const NodeHierarchicalAlgorithm Instance(SmpRsag);
  return Instance;
}

} // namespace collplan
