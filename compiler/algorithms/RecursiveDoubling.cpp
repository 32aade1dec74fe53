//===- RecursiveDoubling.cpp - Recursive-doubling allreduce, allgather ---===//
//
// Thakur, Rabenseifner and Gropp, "Optimization of collective communication
// operations in MPICH" (IJHPCA 2005), summarised in the Swing paper
// (De Sensi et al., NSDI'24, §2.3.2, "latency-optimal recursive doubling"): in
// round k virtual rank v exchanges everything it has with v XOR 2^k, so after
// log2 P' rounds every rank has every contribution. Allreduce sends the whole
// vector each round (latency-optimal, log2 P' full-vector messages); allgather
// sends the 2^k blocks its group has gathered so far.
//
// Non-powers of two use MPICH's fold (PowerOfTwoFold.h): the even rank of
// each of the first rem pairs sends its data (allreduce: its vector;
// allgather: its block) to the odd rank in round 0, sits the exchange out and
// receives the finished result in the last round: log2 P' + 2 rounds.
//
// Allreduce combines partials in rank order (OrderedCombine.h): virtual
// ranks keep the real ranks' order and a group of 2^k virtual ranks covers
// contiguous real ranks, so non-commutative operators are served.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/OrderedCombine.h"
#include "compiler/algorithms/PowerOfTwoFold.h"

namespace collplan {
namespace {

class RecursiveDoublingAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "recursive-doubling"; }
  llvm::StringRef summary() const override {
    return "recursive doubling (MPICH): log2 P rounds (+2 when P is not a "
           "power of two); allreduce sends the whole vector every round";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {
        Collective::Allreduce, Collective::Allgather, Collective::Allgatherv};
    return Supported;
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return PowerOfTwoFold::rankSymmetric(H.Ranks);
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    if (H.Kind == Collective::Allreduce) {
      H.Blocks = 1;
      H.Buffers = {"data", "scratch"};
    } else {
      // One block per rank; allgatherv weighs them by the ranks' counts.
      H.Blocks = H.Ranks;
      H.Weights = Request.Weights;
    }
    H.RequiresCommutative = false;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    return H.Kind == Collective::Allreduce ? buildAllreduce(H, Rank)
                                           : buildAllgather(H, Rank);
  }

private:
  static Program buildAllreduce(const PlanHeader &H, uint32_t Rank) {
    Program Prog;
    PowerOfTwoFold Fold(H.Ranks);
    BlockSet All = BlockSet::range(0, H.Blocks);
    uint32_t Last = Fold.firstExchangeRound() + Fold.levels();
    OrderedPartial Partial;
    if (!openFoldedAllreduce(Fold, Rank, All, Last, Prog, Partial))
      return Prog;
    uint32_t V = Fold.virtualOf(Rank);
    for (uint32_t K = 0; K < Fold.levels(); ++K) {
      uint32_t Index = Fold.firstExchangeRound() + K;
      uint32_t PeerV = V ^ (uint32_t(1) << K);
      uint32_t Peer = Fold.realOf(PeerV);
      Prog.add(Index, Op::send(Peer, All, Partial.current()));
      Partial.combine(Prog, Index, Peer, All, PeerV > V);
    }
    if (Fold.isPaired(Rank))
      Prog.add(Last, Op::send(Fold.pairPartner(Rank), All, Partial.current()));
    if (!Prog.Rounds.empty())
      Partial.moveToData(Prog, Prog.Rounds.back().Index, All);
    return Prog;
  }

  static Program buildAllgather(const PlanHeader &H, uint32_t Rank) {
    Program Prog;
    PowerOfTwoFold Fold(H.Ranks);
    uint32_t Last = Fold.firstExchangeRound() + Fold.levels();
    if (Fold.isIdle(Rank)) {
      uint32_t Partner = Fold.pairPartner(Rank);
      Prog.add(0, Op::send(Partner, H.ownedBy(Rank)));
      Prog.add(Last,
               Op::recv(Partner,
                        BlockSet::range(0, H.Blocks).subtract(H.ownedBy(Rank)),
                        Combine::Replace));
      return Prog;
    }
    if (Fold.isPaired(Rank))
      Prog.add(0,
               Op::recv(Fold.pairPartner(Rank),
                        H.ownedBy(Fold.pairPartner(Rank)), Combine::Replace));
    // The blocks of the real ranks that virtual ranks [Lo, Lo + Size) stand
    // for: one interval, because the fold keeps the ranks' order.
    uint64_t PerRank = H.Blocks / H.Ranks;
    auto GroupBlocks = [&](uint32_t Lo, uint32_t Size) {
      return BlockSet::range(Fold.firstRealOf(Lo) * PerRank,
                             Fold.firstRealOf(Lo + Size) * PerRank);
    };
    uint32_t V = Fold.virtualOf(Rank);
    for (uint32_t K = 0; K < Fold.levels(); ++K) {
      uint32_t Index = Fold.firstExchangeRound() + K;
      uint32_t Size = uint32_t(1) << K;
      uint32_t PeerV = V ^ Size;
      uint32_t Peer = Fold.realOf(PeerV);
      Prog.add(Index, Op::send(Peer, GroupBlocks(V & ~(Size - 1), Size)));
      Prog.add(Index, Op::recv(Peer, GroupBlocks(PeerV & ~(Size - 1), Size),
                               Combine::Replace));
    }
    if (Fold.isPaired(Rank)) {
      uint32_t Partner = Fold.pairPartner(Rank);
      Prog.add(
          Last,
          Op::send(Partner,
                   BlockSet::range(0, H.Blocks).subtract(H.ownedBy(Partner))));
    }
    return Prog;
  }
};

} // namespace

const Algorithm &recursiveDoublingAlgorithm() {
  static const RecursiveDoublingAlgorithm Instance;
  return Instance;
}

} // namespace collplan
