//===- CommonCombineTree.cpp - One combine tree, partials as subtrees -----===//
//
// See CommonCombineTree.h for the idea; this file holds the tree's
// arithmetic and the merging of a rank's pieces.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/CommonCombineTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

namespace collplan::commontree {

uint32_t CombineTree::addLeaf() {
  uint32_t Pos = uint32_t(LeafAt.size());
  Nodes.push_back({Pos, Pos + 1});
  LeafAt.push_back(uint32_t(Nodes.size() - 1));
  Root = LeafAt.back();
  return Root;
}

uint32_t CombineTree::join(uint32_t Left, uint32_t Right) {
  if (Nodes[Left].Hi != Nodes[Right].Lo)
    llvm::report_fatal_error("CombineTree: a join of intervals apart");
  Nodes.push_back({Nodes[Left].Lo, Nodes[Right].Hi, Left, Right});
  uint32_t Id = uint32_t(Nodes.size() - 1);
  Nodes[Left].Parent = Nodes[Right].Parent = Id;
  Nodes[Left].Sibling = Right;
  Nodes[Right].Sibling = Left;
  Root = Id;
  return Id;
}

void CombineTree::maximalSubtrees(uint32_t Lo, uint32_t Hi,
                                  llvm::SmallVectorImpl<uint32_t> &Out) const {
  if (Lo < Hi)
    descend(Root, Lo, Hi, Out);
}

void CombineTree::descend(uint32_t N, uint32_t Lo, uint32_t Hi,
                          llvm::SmallVectorImpl<uint32_t> &Out) const {
  const Node &X = Nodes[N];
  if (X.Hi <= Lo || Hi <= X.Lo)
    return; // apart
  if (Lo <= X.Lo && X.Hi <= Hi) {
    Out.push_back(N);
    return;
  }
  descend(X.Left, Lo, Hi, Out);
  descend(X.Right, Lo, Hi, Out);
}

CombineTree canonicalTree(uint32_t P) {
  CombineTree T;
  uint32_t Virtual = 1;
  while (Virtual * 2 <= P)
    Virtual *= 2;
  uint32_t Folded = P - Virtual;
  std::vector<uint32_t> Level;
  for (uint32_t V = 0; V < Virtual; ++V) {
    if (V < Folded) {
      uint32_t A = T.addLeaf();
      Level.push_back(T.join(A, T.addLeaf()));
    } else {
      Level.push_back(T.addLeaf());
    }
  }
  for (; Level.size() > 1; Level.resize(Level.size() / 2))
    for (size_t I = 0; I < Level.size() / 2; ++I)
      Level[I] = T.join(Level[2 * I], Level[2 * I + 1]);
  T.setRoot(Level.empty() ? NoNode : Level[0]);
  return T;
}

uint16_t freeSlot(llvm::ArrayRef<Piece> Used) {
  for (uint16_t S = 0;; ++S)
    if (llvm::none_of(Used, [S](const Piece &X) { return X.Slot == S; }))
      return S;
}

uint64_t
settle(const CombineTree &T, Pool &Own,
       llvm::function_ref<void(uint16_t From, uint16_t Into)> OnCombine) {
  uint64_t Combined = 0;
  Pool Kept;
  for (const Piece &X : Own)
    if (llvm::none_of(Own, [&](const Piece &Y) {
          return Y.Node != X.Node && T.contains(Y.Node, X.Node);
        }))
      Kept.push_back(X);
  Own = std::move(Kept);
  for (bool Changed = true; Changed;) {
    Changed = false;
    llvm::sort(Own, [&](const Piece &A, const Piece &B) {
      return T.lo(A.Node) < T.lo(B.Node);
    });
    for (size_t I = 0; I + 1 < Own.size(); ++I) {
      if (T.sibling(Own[I].Node) != Own[I + 1].Node)
        continue;
      uint16_t Into = std::min(Own[I].Slot, Own[I + 1].Slot);
      uint16_t From = std::max(Own[I].Slot, Own[I + 1].Slot);
      OnCombine(From, Into);
      ++Combined;
      Own[I] = {T.parent(Own[I].Node), Into};
      Own.erase(Own.begin() + I + 1);
      Changed = true;
    }
  }
  return Combined;
}

} // namespace collplan::commontree
