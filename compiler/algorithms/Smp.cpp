//===- Smp.cpp - MPICH's SMP (hierarchical) allreduce ---------------------===//
//
// The master-per-node allreduce MPICH uses on SMP clusters, described as the
// baseline of Bienz, Olson, Gropp, "Node-aware improvements to allreduce"
// (§II-A, Fig. 4): the ranks of each node reduce to a leader (local rank 0),
// the leaders allreduce among themselves, and each leader broadcasts the
// result within its node. Only one process per node talks across nodes, so
// the inter-node part never competes for the node's injection bandwidth, at
// the price of log2 ppn more intra-node rounds than recursive doubling and
// ppn - 1 idle processes during the inter-node part.
//
// Each part is any registered algorithm, compiled for its sub-communicator
// and placed by Hierarchical.h: intra= (a reduce, default binomial), inter=
// (an allreduce, default recursive-doubling), bcast= (a broadcast, default
// binomial). Sub-ranks are local ranks inside a node and node indices among
// the leaders, mapped to ranks through the topology, so any mapping works.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/Hierarchical.h"

namespace collplan {
namespace {

uint32_t rankAt(const Topology &T, uint32_t Node, uint32_t Local) {
  return T.mapping() == RankMapping::Block ? Node * T.ranksPerNode() + Local
                                           : Local * T.numNodes() + Node;
}

struct PartInfo {
  const char *Param;
  const char *Default;
  Collective Kind;
};
constexpr PartInfo Parts[] = {
    {"intra", "binomial", Collective::Reduce},
    {"inter", "recursive-doubling", Collective::Allreduce},
    {"bcast", "binomial", Collective::Broadcast},
};
enum PartIndex : size_t { ReducePart = 0, InterPart = 1, BcastPart = 2 };

class SmpAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "smp"; }
  llvm::StringRef summary() const override {
    return "hierarchical allreduce (MPICH SMP): reduce to a leader per node, "
           "allreduce among leaders, broadcast in each node; each part any "
           "algorithm";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    // Any other family that implements the part's collective.
    auto Serving = [this](Collective Kind) {
      std::vector<std::string> Names;
      for (const Algorithm *A : allAlgorithms())
        if (A != this && A->supports(Kind))
          Names.push_back(A->name().str());
      return ParamDomain::oneOf(std::move(Names));
    };
    return {{"intra", "the intra-node reduce to local rank 0", "binomial",
             Serving(Collective::Reduce)},
            {"inter", "the allreduce among the nodes' leaders",
             "recursive-doubling", Serving(Collective::Allreduce)},
            {"bcast", "the intra-node broadcast from local rank 0", "binomial",
             Serving(Collective::Broadcast)}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    llvm::Expected<Composition> C = compose(H, Request, /*Resolved=*/false);
    if (!C)
      return C.takeError();
    // Leaders combine whole nodes: rank order holds only when every node
    // holds consecutive ranks.
    if (Request.Topo.mapping() != RankMapping::Block &&
        Request.Topo.ranksPerNode() > 1 && Request.Topo.numNodes() > 1)
      H.RequiresCommutative = true;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    PlanHeader Copy = H;
    CompileRequest Request;
    Request.Topo = H.Topo;
    llvm::Expected<Composition> C = compose(Copy, Request, /*Resolved=*/true);
    if (!C) {
      llvm::consumeError(C.takeError());
      return Program();
    }
    const Topology &T = H.Topo;
    uint32_t Node = T.nodeOf(Rank), Local = T.localRankOf(Rank);
    auto InNode = [&](uint32_t L) { return rankAt(T, Node, L); };
    auto Leader = [&](uint32_t M) { return rankAt(T, M, 0); };
    Program Prog;
    C->append(Prog, ReducePart, Local, InNode);
    if (Local == 0)
      C->append(Prog, InterPart, Node, Leader);
    C->append(Prog, BcastPart, Local, InNode);
    return Prog;
  }

  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override {
    PlanHeader Copy = H;
    llvm::Expected<Composition> C = compose(Copy, Request, true);
    if (!C) {
      llvm::consumeError(C.takeError());
      return "";
    }
    std::string Out;
    for (const PlacedStage &S : C->stages())
      Out += (Out.empty() ? "" : "; ") + S.Name + ": " + S.Algo->name().str() +
             " " + collectiveName(S.Header.Kind).str() + " on " +
             std::to_string(S.Header.Ranks) + " ranks, rounds " +
             std::to_string(S.FirstRound) + ".." +
             std::to_string(S.FirstRound + S.Rounds) + ", " +
             std::to_string(S.Header.Blocks) + " block(s)";
    return Out;
  }

private:
  /// The three stages for H's topology. Resolved: H.Params already holds
  /// every stage's parameters (buildRank), so nothing is tuned again.
  llvm::Expected<Composition>
  compose(PlanHeader &H, const CompileRequest &Request, bool Resolved) const {
    const Topology &T = H.Topo;
    std::map<std::string, std::string> Given = H.Params;
    if (!Resolved)
      Given = Request.Params;
    std::vector<StageSpec> Specs;
    for (const PartInfo &Part : Parts) {
      auto It = Given.find(Part.Param);
      std::string AlgoName = It == Given.end() ? Part.Default : It->second;
      const Algorithm *A = findAlgorithm(AlgoName);
      if (!A || A == this || !A->supports(Part.Kind))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "parameter %s: '%s' is not an algorithm supporting %s", Part.Param,
            AlgoName.c_str(), collectiveName(Part.Kind).str().c_str());
      StageSpec S;
      S.Algo = A;
      S.Name = Part.Param;
      S.Request.Kind = Part.Kind;
      bool AmongLeaders = Part.Kind == Collective::Allreduce;
      S.Request.Topo =
          Topology::flat(AmongLeaders ? T.numNodes() : T.ranksPerNode());
      if (!AmongLeaders)
        S.Request.Root = 0;
      S.Request.Bytes = Request.Bytes;
      S.Request.Cost = Request.Cost;
      S.Request.CommutativeOperator = Request.CommutativeOperator;
      if (Resolved)
        S.Request.Params = stageParams(H.Params, Part.Param);
      Specs.push_back(std::move(S));
      H.Params[Part.Param] = AlgoName;
    }
    return Composition::compose(Specs, H);
  }
};

} // namespace

const Algorithm &smpAlgorithm() {
  static const SmpAlgorithm Instance;
  return Instance;
}

} // namespace collplan
