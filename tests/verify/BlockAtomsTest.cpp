//===- BlockAtomsTest.cpp - Blocks that no operation tells apart ----------===//
//
// Expected atoms computed by hand from the boundaries.
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/BlockAtoms.h"

#include <doctest/doctest.h>

using namespace collplan;
using collplan::verify::BlockAtoms;

TEST_CASE("blocks that move together form atoms") {
  // Hand-computed: the boundaries 0, 2, 4, 8 and 10 cut 10 blocks in four.
  BlockAtoms A({4, 2, 4, 8}, 10);
  CHECK(A.size() == 4);
  CHECK(A.at(4) == 2);
  CHECK(A.at(10) == 4);
  CHECK(A.firstBlock(3) == 8);
  CHECK(A.atomsOf({2, 8}) == BlockRange{1, 3});
  // A vector far longer than its boundaries takes the sorting path.
  BlockAtoms Long({5}, uint64_t(1) << 40);
  CHECK(Long.size() == 2);
  CHECK(Long.at(5) == 1);
  CHECK(Long.firstBlock(1) == 5);
  // Every block its own atom.
  BlockAtoms Fine({1, 2, 3}, 4);
  CHECK(Fine.size() == 4);
  CHECK(Fine.at(3) == 3);
}
