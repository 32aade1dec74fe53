//===- DimensionPairwise.cpp - Alltoall one torus dimension at a time -----===//
//
// docs/algorithms/dimension-pairwise.md. The torus alltoall that routes
// each block dimension by dimension (as Blue Gene's and the Swing paper's
// torus collectives do; Suh and Yalamanchili, "All-to-all communication
// with minimum start-up costs in 2D/3D tori and meshes", IEEE TPDS 9(5),
// 1998, §3, for the phase structure): in phase i every rank runs pairwise
// exchange's shift form along its ring in dimension i, sending each partner
// every block it holds whose destination has the partner's coordinate i.
// Before phase i, rank r holds the blocks (s, d) whose sender agrees with r
// in dimensions i and above and whose receiver agrees with r in dimensions
// below i; so a message of phase i carries P / d_i blocks, and the plan has
// sum(d_i - 1) rounds instead of pairwise's P - 1, every message staying in
// one dimension's ring. Off a torus of one rank per node it runs on the
// ring of P ranks, where it is pairwise's shift form.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/PersonalisedExchange.h"

#include <algorithm>
#include <vector>

namespace collplan {
namespace {

struct DimensionShape {
  Topology Torus;
};

class DimensionPairwiseAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "dimension-pairwise"; }
  llvm::StringRef summary() const override {
    return "alltoall one torus dimension at a time: pairwise along each "
           "ring, sum(d_i - 1) rounds";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Alltoall,
                                               Collective::Alltoallv};
    return Supported;
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return personalisedSymmetric(H);
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = personalisedHeader(*this, Request);
    setPrepared(H, DimensionShape{rankTorus(Request.Topo)});
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    const Topology &T = preparedAs<DimensionShape>(H).Torus;
    uint32_t P = H.Ranks;
    unsigned Dims = T.numDims();
    llvm::SmallVector<uint32_t, 4> Mine = T.coordsOf(Rank);
    Program Prog;
    std::vector<uint64_t> Sent, Received;
    uint32_t Round = 0;
    for (unsigned I = 0; I < Dims; ++I)
      for (uint32_t K = 1; K < T.extent(I); ++K, ++Round) {
        uint32_t To = T.neighbour(Rank, I, K),
                 From = T.neighbour(Rank, I, -int64_t(K));
        Sent.clear();
        Received.clear();
        forEachHeld(T, I, Mine, T.coordOf(To, I), [&](uint32_t S, uint32_t D) {
          Sent.push_back(pairBlock(P, S, D));
        });
        llvm::SmallVector<uint32_t, 4> Theirs = T.coordsOf(From);
        forEachHeld(T, I, Theirs, Mine[I], [&](uint32_t S, uint32_t D) {
          Received.push_back(pairBlock(P, S, D));
        });
        Prog.add(Round, Op::send(To, blockSetOf(Sent)));
        Prog.add(Round, Op::recv(From, blockSetOf(Received), Combine::Replace));
      }
    return Prog;
  }

private:
  /// Calls F(sender, receiver) for every block the rank at Holder holds
  /// before phase I whose receiver has coordinate Target in dimension I:
  /// senders agree with Holder in dimensions I and above, receivers in
  /// dimensions below I; the other coordinates are free.
  template <typename Fn>
  static void forEachHeld(const Topology &T, unsigned I,
                          llvm::ArrayRef<uint32_t> Holder, uint32_t Target,
                          Fn F) {
    unsigned Dims = T.numDims();
    llvm::SmallVector<uint32_t, 4> S(Holder.begin(), Holder.end());
    llvm::SmallVector<uint32_t, 4> D(Holder.begin(), Holder.end());
    D[I] = Target;
    // The free coordinates: the sender's below I, the receiver's above I,
    // counted like an odometer.
    for (unsigned J = 0; J < Dims; ++J) {
      if (J < I)
        S[J] = 0;
      if (J > I)
        D[J] = 0;
    }
    while (true) {
      F(T.nodeAt(S), T.nodeAt(D));
      unsigned J = 0;
      for (; J < Dims; ++J) {
        uint32_t &C = J < I ? S[J] : D[J];
        if (J == I)
          continue;
        if (++C < T.extent(J))
          break;
        C = 0;
      }
      if (J == Dims)
        return;
    }
  }
};

} // namespace

const Algorithm &dimensionPairwiseAlgorithm() {
  static const DimensionPairwiseAlgorithm Instance;
  return Instance;
}

} // namespace collplan
