//===- Bucket.cpp - Bucket allreduce: rings along each torus dimension ----===//
//
// The bucket algorithm (Barnett et al.; Jain and Sabharwal; Sack and Gropp),
// the torus baseline of the Swing paper (De Sensi et al., NSDI'24, §2.3.4):
// a ring reduce-scatter along each dimension in turn, each on the part the
// previous one left, then ring allgathers along the dimensions in reverse
// order. With ports=all (the default, as the paper runs it) the vector is
// split into 2D parts and 2D instances run at once, instance c starting on
// dimension c mod D and instances c >= D running their rings the other way,
// so every link carries one instance per direction. On a flat topology the
// torus is a ring of P ranks and bucket is a ring (ports=1 by default there,
// since a flat topology promises no 2D links per node).
//
// Phase k of every instance runs at the same time; it takes as many rounds
// as the longest ring any instance walks in it, so on a rectangular torus
// instances move between dimensions together (§5.2).
//
// Blocks: instance c splits its part into P blocks, block b being the block
// rank b holds reduced after the reduce-scatter. For allreduce block b of
// instance c is numbered c P + (b's coordinates in the order the instance
// visits the dimensions), so every ring message is one interval. For
// reduce-scatter and allgather it is b C + c (C instances), so rank r owns
// [r C, (r+1) C) as the IR requires.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <map>
#include <vector>

namespace collplan {
namespace {

/// What prepare() resolves: the torus of ranks the rings run along and the
/// number of concurrent instances (ports=all: 2D; ports=1: 1).
struct BucketShape {
  Topology Torus;
  uint32_t Instances = 1;
};

class BucketAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "bucket"; }
  llvm::StringRef summary() const override {
    return "bucket: ring reduce-scatter then allgather along each torus "
           "dimension, 2D instances at once";
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
             "with several, use --algorithm smp-rsag --param inter=bucket (a "
             "reduce-scatter in each node, bucket among the nodes on each "
             "local rank's part, an allgather in each node)"}};
  }
  std::vector<ParamInfo> params() const override {
    return {{"ports",
             "all (2D instances on 1/(2D) of the vector each) or 1 (one "
             "instance, dimensions in order)",
             "chosen by the cost model on a torus, else 1",
             ParamDomain::oneOf({"1", "all"})}};
  }

  /// On a torus the tuner prices one instance against 2D concurrent ones.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    if (Request.Topo.kind() != TopologyKind::Torus ||
        Request.Params.count("ports"))
      return {{}};
    return {{{"ports", "1"}}, {{"ports", "all"}}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    auto It = Request.Params.find("ports");
    // A flat topology promises no torus links, so one instance by default:
    // 2D concurrent instances assume a node drives 2D links at once.
    bool Torus = Request.Topo.kind() == TopologyKind::Torus;
    std::string Ports = It != Request.Params.end() ? It->second
                        : Torus                    ? "all"
                                                   : "1";
    if (Ports != "1" && Ports != "all")
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "bucket: parameter ports must be 1 or all, not '" + Ports + "'");
    H.Params["ports"] = Ports;
    BucketShape S{rankTorus(Request.Topo), 1};
    if (Ports == "all")
      S.Instances = 2 * S.Torus.numDims();
    H.Blocks = uint64_t(S.Instances) * H.Ranks;
    setPrepared(H, std::move(S));
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
};

Program BucketAlgorithm::buildRank(const PlanHeader &H, uint32_t Rank) const {
  const BucketShape &Shape = preparedAs<BucketShape>(H);
  const Topology &Torus = Shape.Torus;
  llvm::ArrayRef<uint32_t> Dims = Torus.dims();
  uint32_t D = Dims.size();
  uint32_t NumC = Shape.Instances;
  uint64_t P = H.Ranks;
  bool Allreduce = H.Kind == Collective::Allreduce;
  bool DoRs = H.Kind != Collective::Allgather;
  bool DoAg = H.Kind != Collective::ReduceScatter;

  llvm::SmallVector<uint32_t, 4> A = Torus.coordsOf(Rank);
  auto DimOf = [&](uint32_t C, uint32_t Phase) { return (C + Phase) % D; };
  // Rounds of phase k: the longest ring any instance walks in it.
  llvm::SmallVector<uint32_t, 4> PhaseStart{0};
  for (uint32_t K = 0; K < D; ++K) {
    uint32_t Len = 0;
    for (uint32_t C = 0; C < NumC; ++C)
      Len = std::max(Len, Dims[DimOf(C, K)] - 1);
    PhaseStart.push_back(PhaseStart.back() + Len);
  }
  uint32_t RsRounds = DoRs ? PhaseStart.back() : 0;

  // The blocks instance C's group Group holds after the instance has fixed
  // its first Fixed dimensions to Rank's coordinates.
  auto GroupSet = [&](uint32_t C, uint32_t Fixed, uint32_t Group) {
    BlockSet Out;
    if (Allreduce) {
      // Coordinates in visiting order: a prefix names one interval.
      uint64_t Lo = 0, Span = P;
      for (uint32_t J = 0; J <= Fixed; ++J) {
        uint32_t E = DimOf(C, J);
        Span /= Dims[E];
        Lo += uint64_t(J == Fixed ? Group : A[E]) * Span;
      }
      Out.insert(C * P + Lo, C * P + Lo + Span);
      return Out;
    }
    // Rank order: enumerate the free coordinates, then sort the indices.
    llvm::SmallVector<uint32_t, 4> X = A;
    llvm::SmallVector<bool, 4> Free(D, true);
    for (uint32_t J = 0; J <= Fixed; ++J)
      Free[DimOf(C, J)] = false;
    X[DimOf(C, Fixed)] = Group;
    for (uint32_t E = 0; E < D; ++E)
      if (Free[E])
        X[E] = 0;
    std::vector<uint64_t> Blocks;
    while (true) {
      Blocks.push_back(uint64_t(Torus.nodeAt(X)) * NumC + C);
      uint32_t E = D;
      while (E-- > 0 && !(Free[E] && ++X[E] < Dims[E]))
        if (Free[E])
          X[E] = 0;
      if (E >= D)
        break;
    }
    std::sort(Blocks.begin(), Blocks.end());
    for (uint64_t B : Blocks)
      Out.insert(B, B + 1);
    return Out;
  };

  // Ops are added in round order, instances in order within a round, and
  // the loops stop once an OpBudget is exceeded: sizing a plan far too large
  // to build costs as little as sizing one that fits.
  Program Prog;
  // Step St of phase K of every instance, in round Round: pass the group
  // Send steps ahead to the left neighbour, take group Send + 1 from the
  // right one. Instances running backwards see the ring mirrored.
  auto Step = [&](uint32_t Round, uint32_t K, uint32_t St, uint32_t Send,
                  Combine How) {
    for (uint32_t C = 0; C < NumC; ++C) {
      uint32_t E = DimOf(C, K), N = Dims[E];
      if (St >= N)
        continue;
      int Dir = C < D ? 1 : -1;
      auto Mod = [&](int64_t V) { return uint32_t(((V % N) + N) % N); };
      uint32_t Left = Torus.neighbour(Rank, E, -Dir);
      uint32_t Right = Torus.neighbour(Rank, E, Dir);
      Prog.add(
          Round,
          Op::send(Left,
                   GroupSet(C, K, Mod(A[E] + Dir * int64_t(St - 1 + Send)))));
      Prog.add(Round,
               Op::recv(Right,
                        GroupSet(C, K, Mod(A[E] + Dir * int64_t(St + Send))),
                        How));
    }
    return !OpBudget::exceededOnThisThread();
  };
  if (DoRs)
    for (uint32_t K = 0; K < D; ++K)
      for (uint32_t St = 1; PhaseStart[K] + St - 1 < PhaseStart[K + 1]; ++St)
        if (!Step(PhaseStart[K] + St - 1, K, St, 1, Combine::Reduce))
          return Prog;
  // Allgather phases run in reverse order of dimensions.
  if (DoAg)
    for (uint32_t K = D; K-- > 0;)
      for (uint32_t St = 1; PhaseStart[K] + St - 1 < PhaseStart[K + 1]; ++St)
        if (!Step(RsRounds + (PhaseStart.back() - PhaseStart[K + 1]) + St - 1,
                  K, St, 0, Combine::Replace))
          return Prog;
  return Prog;
}

} // namespace

const Algorithm &bucketAlgorithm() {
  static const BucketAlgorithm Instance;
  return Instance;
}

} // namespace collplan
