//===- Registry.cpp - The list of algorithm families ----------------------===//
//
// One line per family. Each family's file defines its getter; listing them
// here (rather than self-registering statics) keeps them alive in a static
// library and fixes the order `collplan list` prints.
//
// The order is also what "simpler" means when the tuner breaks a tie between
// families of equal time and rounds (compiler/select/Tuner.h): the earlier
// wins. It runs from the textbook algorithms (ring, recursive doubling,
// Rabenseifner, binomial trees, pairwise exchange, Bruck, dimension-ordered
// pairwise) through the papers' generalisations (permutation, circulant,
// swing, bine, trivance, bucket) to the node-aware compositions (nap, smp,
// smp-rsag); a new family goes where it fits in that order.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

#include "llvm/ADT/STLExtras.h"

namespace collplan {

const Algorithm &ringAlgorithm();
const Algorithm &recursiveDoublingAlgorithm();
const Algorithm &rabenseifnerAlgorithm();
const Algorithm &binomialAlgorithm();
const Algorithm &pairwiseAlgorithm();
const Algorithm &bruckAlgorithm();
const Algorithm &dimensionPairwiseAlgorithm();
const Algorithm &permutationAlgorithm();
const Algorithm &circulantAlgorithm();
const Algorithm &swingAlgorithm();
const Algorithm &bineAlgorithm();
const Algorithm &trivanceAlgorithm();
const Algorithm &bucketAlgorithm();
const Algorithm &napAlgorithm();
const Algorithm &smpAlgorithm();
const Algorithm &smpRsagAlgorithm();

llvm::ArrayRef<const Algorithm *> allAlgorithms() {
  static const Algorithm *const All[] = {
      &ringAlgorithm(),
      &recursiveDoublingAlgorithm(),
      &rabenseifnerAlgorithm(),
      &binomialAlgorithm(),
      &pairwiseAlgorithm(),
      &bruckAlgorithm(),
      &dimensionPairwiseAlgorithm(),
      &permutationAlgorithm(),
      &circulantAlgorithm(),
      &swingAlgorithm(),
      &bineAlgorithm(),
      &trivanceAlgorithm(),
      &bucketAlgorithm(),
      &napAlgorithm(),
      &smpAlgorithm(),
      &smpRsagAlgorithm(),
  };
  return All;
}

const Algorithm *findAlgorithm(llvm::StringRef Name) {
  for (const Algorithm *A : allAlgorithms())
    if (A->name() == Name)
      return A;
  return nullptr;
}

} // namespace collplan
