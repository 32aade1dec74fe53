//===- Registry.cpp - The list of algorithm families ----------------------===//
//
// One line per family. Each family's file defines its getter; listing them
// here (rather than self-registering statics) keeps them alive in a static
// library and fixes the order `collplan list` prints.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

#include "llvm/ADT/STLExtras.h"

namespace collplan {

const Algorithm &ringAlgorithm();
const Algorithm &recursiveDoublingAlgorithm();
const Algorithm &rabenseifnerAlgorithm();
const Algorithm &binomialAlgorithm();
const Algorithm &permutationAlgorithm();
const Algorithm &circulantAlgorithm();
const Algorithm &swingAlgorithm();
const Algorithm &bucketAlgorithm();
const Algorithm &napAlgorithm();
const Algorithm &smpAlgorithm();
const Algorithm &smpRsagAlgorithm();

llvm::ArrayRef<const Algorithm *> allAlgorithms() {
  static const Algorithm *const All[] = {
      &ringAlgorithm(),         &recursiveDoublingAlgorithm(),
      &rabenseifnerAlgorithm(), &binomialAlgorithm(),
      &permutationAlgorithm(),  &circulantAlgorithm(),
      &swingAlgorithm(),        &bucketAlgorithm(),
      &napAlgorithm(),          &smpAlgorithm(),
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
