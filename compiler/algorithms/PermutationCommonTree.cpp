//===- PermutationCommonTree.cpp - One combine tree for permutation -------===//
//
// See PermutationCommonTree.h for the idea; this file holds the tree, the
// pools a rank keeps per placement, and their grouping into operations.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/PermutationCommonTree.h"
#include "compiler/algorithms/CommonCombineTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace collplan::permutation {
namespace {

using commontree::CombineTree;
using commontree::Piece;
using commontree::Pool;

uint64_t vectorsAt(uint32_t P, unsigned I) {
  return llvm::divideCeil(uint64_t(P), uint64_t(1) << I);
}

/// The tree copy 0 follows, over rank offsets from the block's index.
class CommonTree {
public:
  explicit CommonTree(uint32_t P) : P(P), LeafOf(P, commontree::NoNode) {
    unsigned L = P <= 1 ? 0 : llvm::Log2_64_Ceil(P);
    T.setRoot(build(/*IsA=*/true, L, 0));
  }
  const CombineTree &tree() const { return T; }
  uint32_t leaf(uint64_t Offset) const { return LeafOf[Offset % P]; }

private:
  /// The tree of shape A (q*) or B (q') after I steps, shifted by C: the
  /// recurrence of the header comment.
  uint32_t build(bool IsA, unsigned I, uint64_t C) {
    if (I == 0)
      return LeafOf[C % P] = T.addLeaf();
    uint64_t N = vectorsAt(P, I - 1), S = N / 2;
    if (IsA && N % 2)
      return build(true, I - 1, C);
    uint32_t Left = build(IsA, I - 1, C);
    return T.join(Left, build(false, I - 1, C + S));
  }

  uint32_t P;
  CombineTree T;
  std::vector<uint32_t> LeafOf;
};

/// Collects one step's operations by kind and slots, each over the
/// placements it applies to. Local operations keep each placement's order:
/// the t-th of every placement goes to phase t.
class StepOps {
public:
  void transfer(uint16_t From, uint16_t Into, uint64_t SenderPlacement,
                uint64_t ReceiverPlacement) {
    Sends[{From, Into}].push_back(SenderPlacement);
    Recvs[{From, Into}].push_back(ReceiverPlacement);
  }
  void local(unsigned Phase, Combine Mode, uint16_t From, uint16_t Into,
             uint64_t Placement) {
    Locals[{Phase, Mode, From, Into}].push_back(Placement);
  }
  void emit(PlacedStep &Step) {
    for (auto &[Key, Ps] : Sends)
      Step.Ops.push_back(
          {OpKind::Send, Combine::Replace, Key.first, Key.first, runsOf(Ps)});
    for (auto &[Key, Ps] : Recvs)
      Step.Ops.push_back(
          {OpKind::Recv, Combine::Replace, Key.second, Key.second, runsOf(Ps)});
    for (auto &[Key, Ps] : Locals) {
      auto [Phase, Mode, From, Into] = Key;
      Step.Ops.push_back({OpKind::Local, Mode, Into, From, runsOf(Ps)});
    }
  }

private:
  static PlacementRuns runsOf(std::vector<uint64_t> &Ps) {
    llvm::sort(Ps);
    PlacementRuns Runs;
    for (uint64_t K : Ps) {
      if (!Runs.empty() && Runs.back().second == K)
        ++Runs.back().second;
      else
        Runs.push_back({K, K + 1});
    }
    return Runs;
  }

  std::map<std::pair<uint16_t, uint16_t>, std::vector<uint64_t>> Sends, Recvs;
  std::map<std::tuple<unsigned, Combine, uint16_t, uint16_t>,
           std::vector<uint64_t>>
      Locals;
};

} // namespace

llvm::Expected<CommonTreeReduction> commonTreeReduction(uint32_t P, uint64_t J,
                                                        uint32_t MostSlots) {
  CommonTree T(P);
  CommonTreeReduction Out;
  unsigned L = P <= 1 ? 0 : llvm::Log2_64_Ceil(P);
  // Placement k of a rank is its block rank - k; every rank starts with its
  // own contribution, offset k from that block, in data.
  std::vector<Pool> Pools(P);
  for (uint64_t K = 0; K < P; ++K)
    Pools[K] = {{T.leaf(K), 0}};
  for (unsigned I = 0; I < L; ++I) {
    uint64_t N = vectorsAt(P, I), S = N / 2, H2 = N - S;
    // As in the rank-dependent form: placements [H2, J + N - 1) leave for
    // rank - S, and land S lower, on placements that stay.
    uint64_t SendEnd = std::min<uint64_t>(J + N - 1, H2 + P);
    std::vector<Pool> Next(P);
    std::vector<bool> Kept(P, false);
    for (uint64_t K = 0; K < std::min<uint64_t>(J + H2 - 1, P); ++K)
      Kept[K] = true;
    StepOps Ops;
    for (uint64_t Y = H2; Y < SendEnd; ++Y) {
      uint64_t From = Y % P, Into = (Y - S) % P;
      if (!Kept[Into])
        continue;
      // The receiver's own pool as the round began: pieces it holds are
      // not sent again.
      const Pool &Own = Pools[Into];
      Pool Merged = Own;
      for (const Piece &X : Pools[From]) {
        if (llvm::any_of(Own, [&](const Piece &Y) {
              return T.tree().contains(Y.Node, X.Node);
            }))
          continue;
        uint16_t Slot = commontree::freeSlot(Merged);
        if (Slot >= MostSlots)
          return llvm::createStringError(
              llvm::inconvertibleErrorCode(),
              "order=identical would hold more than %u partials "
              "of one block at once at P = %u, J = %llu",
              MostSlots, P, (unsigned long long)J);
        Out.Slots = std::max<uint32_t>(Out.Slots, Slot + 1);
        Ops.transfer(X.Slot, Slot, From, Into);
        ++Out.BlocksSent;
        Merged.push_back({X.Node, Slot});
      }
      unsigned Phase = 0;
      Out.BlocksCombined +=
          commontree::settle(T.tree(), Merged, [&](uint16_t Src, uint16_t Dst) {
            Ops.local(Phase++, Combine::Reduce, Src, Dst, Into);
          });
      Next[Into] = std::move(Merged);
    }
    for (uint64_t K = 0; K < P; ++K)
      if (Kept[K] && Next[K].empty())
        Next[K] = std::move(Pools[K]);
    if (I + 1 == L)
      for (uint64_t K = 0; K < J; ++K) {
        // The J complete vectors end in data, where the distribution
        // phase reads them.
        if (Next[K].size() != 1 || Next[K][0].Node != T.tree().root())
          llvm::report_fatal_error("permutation: a copy missed its tree");
        if (Next[K][0].Slot != 0)
          Ops.local(~0u, Combine::Replace, Next[K][0].Slot, 0, K);
      }
    Out.Steps.push_back({S, {}});
    Ops.emit(Out.Steps.back());
    Pools = std::move(Next);
  }
  return Out;
}

void CommonTreeReduction::appendRounds(uint32_t P, uint32_t Rank,
                                       Program &Prog) const {
  auto BlocksOf = [&](const PlacementRuns &Runs) {
    // Placements [Lo, Hi) are blocks Rank - Hi + 1 .. Rank - Lo, mod P.
    BlockSet Out;
    for (auto [Lo, Hi] : Runs)
      Out.insert(BlockSet::wrapped((Rank + P - (Hi - 1)) % P, Hi - Lo, P));
    return Out;
  };
  for (uint32_t Round = 0; Round < Steps.size(); ++Round) {
    const PlacedStep &St = Steps[Round];
    uint32_t To = uint32_t((Rank + P - St.Shift % P) % P);
    uint32_t From = uint32_t((Rank + St.Shift) % P);
    for (const PlacedOp &O : St.Ops) {
      switch (O.Kind) {
      case OpKind::Send:
        Prog.add(Round, Op::send(To, BlocksOf(O.Runs), O.Source));
        break;
      case OpKind::Recv:
        Prog.add(Round, Op::recv(From, BlocksOf(O.Runs), O.Mode, O.Dest));
        break;
      case OpKind::Local:
        Prog.add(Round, Op::local(O.Source, O.Dest, BlocksOf(O.Runs), O.Mode));
        break;
      }
    }
  }
}

} // namespace collplan::permutation
