//===- Verifier.h - Symbolic execution of a plan ----------------*- C++ -*-===//
//
// ARCHITECTURE.md rule 3: the verifier trusts no generator. It matches
// every send with its receive round by round, then executes the plan
// symbolically, tracking which ranks' contributions every (rank, buffer,
// block) holds, and checks the end state the collective promises. It never
// calls algorithm code.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_VERIFY_VERIFIER_H
#define COLLPLAN_VERIFY_VERIFIER_H

#include "plan/ir/Plan.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace collplan {

enum class VerifyMode : uint8_t {
  Auto,   ///< Exact for small P, hashed above.
  Exact,  ///< Contribution sets as bitsets: exact, O(P) bits per block.
  Hashed, ///< Counts plus sums of random 64-bit hashes: O(1) per block.
};

struct VerifyOptions {
  VerifyMode Mode = VerifyMode::Auto;
  /// Stop after this many diagnostics.
  size_t MaxErrors = 20;
  /// Symbolic state is streamed over chunks of blocks so it stays within
  /// this many bytes.
  uint64_t MemoryBudget = uint64_t(512) << 20;
  /// Seed of the hashed mode's random contribution hashes.
  uint64_t Seed = 0x9e3779b97f4a7c15ULL;
  /// If set, told now and then how many of the symbolic replay's chunks of
  /// blocks are done, from the calling thread: long runs show progress.
  std::function<void(uint64_t Done, uint64_t Total)> Progress;
  /// Stop the replay at the first block some ranks combine in different
  /// orders: the caller (the tuner, passing over such plans) only wants
  /// IdenticalResults, and a rank-dependent plan usually shows it in its
  /// first chunk of blocks. A stopped run is not Valid: it checked only part
  /// of the plan.
  bool StopAtDifferentOrders = false;
  /// Stop the replay at the first promised block combined in another tree
  /// than the canonical one (the tuner's --reproducible). A stopped run is
  /// not Valid.
  bool StopAtNonCanonicalTree = false;
};

struct VerifyStats {
  uint32_t Ranks = 0;
  uint64_t Rounds = 0; ///< Distinct global round indices.
  uint64_t Blocks = 0;
  uint64_t Messages = 0;       ///< Matched send/recv pairs.
  uint64_t BlockTransfers = 0; ///< Sum of blocks over all messages.
  VerifyMode ModeUsed = VerifyMode::Exact;
  double Seconds = 0; ///< Wall time the verification took.
};

struct VerifyResult {
  bool Valid = false;
  std::vector<Diagnostic> Errors;
  /// Whether every rank that ends with a reduced block combined it in the
  /// same tree (up to swapping operands), so floating-point results are
  /// bit-identical on every rank. Decided for valid plans; trivially true
  /// where each reduced block ends on one rank only.
  bool IdenticalResults = true;
  /// When not: the first block found and two ranks that differ.
  std::string DifferentOrders;
  /// Whether every promised block of a reducing collective was combined in
  /// the canonical tree for P (CombineTrees::canonicalTree), so that every
  /// element has that tree at any message size: calls of any size, served
  /// by any such plan, give the same bits (docs/reproducibility.md).
  /// Decided for valid plans; trivially true for a collective that does not
  /// reduce, and for P = 1.
  bool Reproducible = true;
  /// When not: the first block found and the rank holding it.
  std::string NonCanonical;
  VerifyStats Stats;
};

VerifyResult verifyPlan(const Plan &P, const VerifyOptions &Options = {});

llvm::StringRef verifyModeName(VerifyMode M);

} // namespace collplan

#endif // COLLPLAN_VERIFY_VERIFIER_H
