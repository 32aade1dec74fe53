//===- Rabenseifner.cpp - Rabenseifner's allreduce ------------------------===//
//
// Rabenseifner's allreduce as Thakur, Rabenseifner and Gropp (2005) describe
// it and MPICH implements it (the Swing paper, De Sensi et al., NSDI'24,
// §2.3.3, "bandwidth-optimal recursive doubling"): a reduce-scatter by
// recursive halving followed by an allgather by recursive doubling, sending
// 2(P'-1)/P' of the vector in 2 log2 P' rounds. Non-powers of two fold first
// (PowerOfTwoFold.h), for 2 log2 P' + 2 rounds.
//
// B = P' blocks. Halving round k pairs virtual rank v with v XOR 2^k (the
// nearest partner first, as in MPICH): both hold the same 2^(L-k) blocks, the
// lower rank keeps the lower half. A group of 2^k consecutive virtual ranks
// thus reduces together, so partials combine in rank order
// (OrderedCombine.h) and non-commutative operators are served; v ends with
// the block whose index is v bit-reversed. The allgather undoes the halving
// in reverse order (farthest partner first), so every exchange unites two
// adjacent intervals of blocks.
//
// Its reduce-scatter is the halving alone on P blocks (the contract's: rank
// r owns block r), so every block is combined in the allreduce's tree, the
// canonical one (docs/reproducibility.md). Nearest partner first leaves the
// blocks in bit-reversed order, so one more round hands each to its owner,
// idle ranks of the fold included. MPICH's recursive halving takes the
// farthest partner first, which needs no such round but combines in another
// tree. (Keeping strided block sets instead would save the round but make a
// plan O(P^2) ranges.)
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/OrderedCombine.h"
#include "compiler/algorithms/PowerOfTwoFold.h"

#include "llvm/ADT/SmallVector.h"

namespace collplan {
namespace {

class RabenseifnerAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "rabenseifner"; }
  llvm::StringRef summary() const override {
    return "recursive-halving reduce-scatter + recursive-doubling allgather "
           "(Rabenseifner): bandwidth-optimal in 2 log2 P rounds";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::ReduceScatter};
    return Supported;
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return PowerOfTwoFold::rankSymmetric(H.Ranks);
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = headerFor(*this, Request);
    H.Blocks = H.Kind == Collective::ReduceScatter
                   ? H.Ranks
                   : PowerOfTwoFold(H.Ranks).virtualRanks();
    H.Buffers = {"data", "scratch"};
    H.RequiresCommutative = false;
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    if (H.Kind == Collective::ReduceScatter)
      return buildReduceScatter(H, Rank);
    Program Prog;
    PowerOfTwoFold Fold(H.Ranks);
    uint32_t L = Fold.levels(), First = Fold.firstExchangeRound();
    BlockSet All = BlockSet::range(0, H.Blocks);
    uint32_t Last = First + 2 * L;
    OrderedPartial Partial;
    if (!openFoldedAllreduce(Fold, Rank, All, Last, Prog, Partial))
      return Prog;

    uint32_t V = Fold.virtualOf(Rank);
    llvm::SmallVector<BlockRange, 32> Held = halving(V, L, H.Blocks);
    auto Set = [](BlockRange R) { return BlockSet::range(R.Begin, R.End); };
    reduceByHalving(Prog, Fold, V, Held, First, Partial);
    if (L > 0)
      Partial.moveToData(Prog, First + L - 1, Set(Held[L]));

    // Allgather: round J re-unites Held[K+1] with its partner's half of
    // Held[K], for K = L-1 down to 0.
    for (uint32_t J = 0; J < L; ++J) {
      uint32_t K = L - 1 - J;
      uint32_t Peer = Fold.realOf(V ^ (uint32_t(1) << K));
      BlockSet Mine = Set(Held[K + 1]);
      Prog.add(First + L + J, Op::send(Peer, Mine));
      Prog.add(First + L + J,
               Op::recv(Peer, Set(Held[K]).subtract(Mine), Combine::Replace));
    }
    // The allgather left the whole result in the data buffer.
    if (Fold.isPaired(Rank))
      Prog.add(Last, Op::send(Fold.pairPartner(Rank), All));
    return Prog;
  }

private:
  /// The blocks virtual rank V is responsible for after each halving round
  /// of Blocks blocks: Held[K + 1] is the half of Held[K] that bit K of V
  /// picks (the nearest partner first).
  static llvm::SmallVector<BlockRange, 32> halving(uint32_t V, uint32_t Levels,
                                                   uint64_t Blocks) {
    llvm::SmallVector<BlockRange, 32> Held{BlockRange{0, Blocks}};
    for (uint32_t K = 0; K < Levels; ++K) {
      BlockRange R = Held.back();
      uint64_t Mid = R.Begin + R.size() / 2;
      Held.push_back((V >> K) & 1 ? BlockRange{Mid, R.End}
                                  : BlockRange{R.Begin, Mid});
    }
    return Held;
  }

  /// The virtual rank whose halving ends with block B.
  static uint32_t holderOf(uint64_t B, uint32_t Levels, uint64_t Blocks) {
    uint32_t V = 0;
    BlockRange R{0, Blocks};
    for (uint32_t K = 0; K < Levels; ++K) {
      uint64_t Mid = R.Begin + R.size() / 2;
      if (B >= Mid) {
        V |= uint32_t(1) << K;
        R.Begin = Mid;
      } else {
        R.End = Mid;
      }
    }
    return V;
  }

  /// The halving's rounds, from round First: virtual rank V keeps
  /// Held[K + 1], sends its partner the rest of Held[K] and combines what
  /// it receives, in rank order.
  static void reduceByHalving(Program &Prog, const PowerOfTwoFold &Fold,
                              uint32_t V, llvm::ArrayRef<BlockRange> Held,
                              uint32_t First, OrderedPartial &Partial) {
    auto Set = [](BlockRange R) { return BlockSet::range(R.Begin, R.End); };
    for (uint32_t K = 0; K + 1 < Held.size(); ++K) {
      uint32_t PeerV = V ^ (uint32_t(1) << K);
      uint32_t Peer = Fold.realOf(PeerV);
      BlockSet Keep = Set(Held[K + 1]);
      Prog.add(First + K,
               Op::send(Peer, Set(Held[K]).subtract(Keep), Partial.current()));
      Partial.combine(Prog, First + K, Peer, Keep, PeerV > V);
    }
  }

  /// The halving on P blocks, then one round that hands every block to its
  /// owner (the halving leaves them in bit-reversed order).
  static Program buildReduceScatter(const PlanHeader &H, uint32_t Rank) {
    Program Prog;
    PowerOfTwoFold Fold(H.Ranks);
    uint32_t L = Fold.levels(), First = Fold.firstExchangeRound();
    uint32_t Remap = First + L;
    auto Set = [](BlockRange R) { return BlockSet::range(R.Begin, R.End); };
    auto ReceiveOwn = [&] {
      uint32_t From = Fold.realOf(holderOf(Rank, L, H.Blocks));
      if (From != Rank)
        Prog.add(Remap,
                 Op::recv(From, BlockSet::single(Rank), Combine::Replace));
    };
    if (Fold.isIdle(Rank)) {
      Prog.add(0,
               Op::send(Fold.pairPartner(Rank), BlockSet::range(0, H.Blocks)));
      ReceiveOwn();
      return Prog;
    }
    OrderedPartial Partial;
    if (Fold.isPaired(Rank))
      Partial.combine(Prog, 0, Fold.pairPartner(Rank),
                      BlockSet::range(0, H.Blocks),
                      /*IncomingIsHigher=*/false);

    uint32_t V = Fold.virtualOf(Rank);
    llvm::SmallVector<BlockRange, 32> Held = halving(V, L, H.Blocks);
    reduceByHalving(Prog, Fold, V, Held, First, Partial);
    BlockSet Mine = Set(Held[L]);
    if (Mine.contains(Rank))
      Partial.moveToData(Prog, L > 0 ? Remap - 1 : 0, BlockSet::single(Rank));
    Mine.forEachBlock([&](uint64_t B) {
      if (B != Rank)
        Prog.add(Remap,
                 Op::send(uint32_t(B), BlockSet::single(B), Partial.current()));
    });
    ReceiveOwn();
    return Prog;
  }
};

} // namespace

const Algorithm &rabenseifnerAlgorithm() {
  static const RabenseifnerAlgorithm Instance;
  return Instance;
}

} // namespace collplan
