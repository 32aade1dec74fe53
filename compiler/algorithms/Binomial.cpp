//===- Binomial.cpp - Binomial-tree broadcast and reduce ------------------===//
//
// The binomial broadcast and reduce of Thakur, Rabenseifner and Gropp (2005),
// as MPICH implements them: ranks are numbered relative to the root,
// rel = (r - root) mod P, and rel's parent is rel with its lowest set bit
// cleared. Broadcast sends down the tree farthest child first, so in round t
// every rank holding the data sends it 2^(L-1-t) ranks on
// (L = ceil(log2 P)); reduce runs the same tree upwards, nearest child
// first. Both take ceil(log2 P) rounds and send the whole vector (B = 1).
//
// Reduce combines "mine (+) child's" and a child's subtree holds the ranks
// just above its parent's, in relative order. That is rank order only for
// root 0, so other roots require a commutative operator.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

#include "llvm/Support/MathExtras.h"

namespace collplan {
namespace {

class BinomialAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "binomial"; }
  llvm::StringRef summary() const override {
    return "binomial tree (MPICH): broadcast and reduce from any root in "
           "ceil(log2 P) rounds of whole-vector messages";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Broadcast,
                                               Collective::Reduce};
    return Supported;
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    H.Blocks = 1;
    H.RequiresCommutative = H.Kind == Collective::Reduce && H.Root != 0u;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    Program Prog;
    uint32_t P = H.Ranks, Root = H.Root.value_or(0);
    uint32_t L = llvm::Log2_32_Ceil(P);
    uint32_t Rel = (Rank + P - Root) % P;
    auto RealOf = [&](uint32_t R) {
      return uint32_t((uint64_t(R) + Root) % P);
    };
    BlockSet All = BlockSet::single(0);

    if (H.Kind == Collective::Reduce) {
      for (uint32_t T = 0; T < L; ++T) {
        uint32_t Mask = uint32_t(1) << T;
        if (Rel & Mask) {
          Prog.add(T, Op::send(RealOf(Rel - Mask), All));
          break;
        }
        if (uint64_t(Rel) + Mask < P)
          Prog.add(T, Op::recv(RealOf(Rel + Mask), All, Combine::Reduce));
      }
      return Prog;
    }

    // Broadcast: the root holds the data from the start; any other rank
    // receives it in the round whose distance is its lowest set bit.
    uint32_t FirstSend = 0;
    if (Rel != 0) {
      uint32_t Low = Rel & (~Rel + 1);
      uint32_t RecvRound = L - 1 - llvm::Log2_32(Low);
      Prog.add(RecvRound, Op::recv(RealOf(Rel - Low), All, Combine::Replace));
      FirstSend = RecvRound + 1;
    }
    for (uint32_t T = FirstSend; T < L; ++T) {
      uint32_t Mask = uint32_t(1) << (L - 1 - T);
      if (uint64_t(Rel) + Mask < P)
        Prog.add(T, Op::send(RealOf(Rel + Mask), All));
    }
    return Prog;
  }
};

} // namespace

const Algorithm &binomialAlgorithm() {
  static const BinomialAlgorithm Instance;
  return Instance;
}

} // namespace collplan
