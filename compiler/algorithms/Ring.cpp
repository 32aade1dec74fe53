//===- Ring.cpp - Ring reduce-scatter, allgather and allreduce ------------===//
//
// docs/algorithms/ring.md: P blocks; at step s rank i sends to
// i-1 and receives from i+1. Reduce-scatter leaves rank i with the reduced
// block i, which is also where allgather expects rank i's own block, so
// allreduce is the one followed by the other in 2(P-1) rounds.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

namespace collplan {
namespace {

class RingAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "ring"; }
  llvm::StringRef summary() const override {
    return "ring reduce-scatter + allgather: bandwidth-optimal, 2(P-1) "
           "rounds for allreduce";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::ReduceScatter,
                                               Collective::Allgather};
    return Supported;
  }

  /// Rank r combines the partials in the ring's order starting at r + 1.
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::Commutative}};
  }

  /// Every rank runs rank 0's program rotated by its rank.
  bool rankSymmetric(const PlanHeader &) const override { return true; }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    H.Blocks = H.Ranks;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    Program Prog;
    uint32_t P = H.Ranks;
    if (P == 1)
      return Prog;
    uint32_t Left = (Rank + P - 1) % P, Right = (Rank + 1) % P;
    uint32_t Round = 0;
    if (H.Kind != Collective::Allgather)
      for (uint32_t S = 1; S < P; ++S, ++Round) {
        Prog.add(Round, Op::send(Left, BlockSet::single((Rank + S) % P)));
        Prog.add(Round, Op::recv(Right, BlockSet::single((Rank + S + 1) % P),
                                 Combine::Reduce));
      }
    if (H.Kind != Collective::ReduceScatter)
      for (uint32_t S = 1; S < P; ++S, ++Round) {
        Prog.add(Round, Op::send(Left, BlockSet::single((Rank + S - 1) % P)));
        Prog.add(Round, Op::recv(Right, BlockSet::single((Rank + S) % P),
                                 Combine::Replace));
      }
    return Prog;
  }
};

} // namespace

const Algorithm &ringAlgorithm() {
  static const RingAlgorithm Instance;
  return Instance;
}

} // namespace collplan
