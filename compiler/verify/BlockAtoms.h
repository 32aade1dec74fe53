//===- BlockAtoms.h - Blocks that no operation tells apart ------*- C++ -*-===//
//
// An atom is a maximal run of consecutive blocks that every replayed
// operation, and every rank's input and output, either covers whole or not
// at all. The blocks of one atom start in the same state, go through the
// same operations and are promised the same end state, so the replay keeps
// one set per atom rather than per block. A plan that splits its vector into
// many blocks but moves them in a few large ranges (permutation with a large
// r, recursive halving on a long vector) then costs what its structure
// costs, not what its block count does; a plan whose every block travels
// alone (Swing) keeps one atom per block.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_BLOCKATOMS_H
#define COLLPLAN_VERIFY_BLOCKATOMS_H

#include "plan/ir/BlockSet.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace collplan {
namespace verify {

class BlockAtoms {
public:
  /// Boundaries: the Begin and End of every range that must stay whole, in
  /// any order, each within [0, Blocks].
  BlockAtoms(llvm::ArrayRef<uint64_t> Boundaries, uint64_t Blocks) {
    build(Boundaries.size(), Blocks, [&](auto Add) {
      for (uint64_t B : Boundaries)
        Add(B);
    });
  }
  /// The same for the Begin and End of every range of Lists, without a list
  /// of them (the replay's ranges number millions at large P).
  BlockAtoms(std::initializer_list<llvm::ArrayRef<BlockRange>> Lists,
             uint64_t Blocks) {
    uint64_t Count = 0;
    for (llvm::ArrayRef<BlockRange> L : Lists)
      Count += 2 * L.size();
    build(Count, Blocks, [&](auto Add) {
      for (llvm::ArrayRef<BlockRange> L : Lists)
        for (const BlockRange &R : L) {
          Add(R.Begin);
          Add(R.End);
        }
    });
  }

  uint64_t size() const { return Start.size() - 1; }
  /// The atom that starts at block Boundary (size() for the vector's end);
  /// Boundary must be one of the boundaries given.
  uint64_t at(uint64_t Boundary) const {
    if (Identity)
      return Boundary;
    return std::lower_bound(Start.begin(), Start.end(), Boundary) -
           Start.begin();
  }
  BlockRange atomsOf(const BlockRange &R) const {
    return {at(R.Begin), at(R.End)};
  }
  uint64_t firstBlock(uint64_t Atom) const { return Start[Atom]; }

private:
  /// Count boundaries, which Each passes to the function it is given.
  template <typename EachFn>
  void build(uint64_t Count, uint64_t Blocks, EachFn Each) {
    // A bitmap when the vector is not much longer than the list (the usual
    // case, and linear), a sort otherwise.
    if (Blocks / 8 <= Count && Blocks < UINT32_MAX) {
      llvm::BitVector Is(Blocks + 1);
      Is.set(0);
      Is.set(Blocks);
      Each([&](uint64_t B) { Is.set(B); });
      for (unsigned B : Is.set_bits())
        Start.push_back(B);
    } else {
      Start.reserve(Count + 2);
      Each([&](uint64_t B) { Start.push_back(B); });
      Start.push_back(0);
      Start.push_back(Blocks);
      std::sort(Start.begin(), Start.end());
      Start.erase(std::unique(Start.begin(), Start.end()), Start.end());
    }
    Identity = size() == Blocks;
  }

  std::vector<uint64_t> Start; ///< Each atom's first block, then Blocks.
  bool Identity = false;       ///< Every block is an atom.
};

} // namespace verify
} // namespace collplan

#endif // COLLPLAN_VERIFY_BLOCKATOMS_H
