//===- Finalize.h - From a compiled plan to a plan file's bytes -*- C++ -*-===//
//
// The one path from a compiled plan to the plan file a runtime will run:
// refuse a text plan past the readers' limit, verify (or take the verdict
// the tuner already reached on this very plan), stamp, and encode, once.
// `collplan compile`, `select -o`, `tune`, `import` and `export` take it, and
// so can a launcher that wants stamped plans without the command line.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SELECT_FINALIZE_H
#define COLLPLAN_SELECT_FINALIZE_H

#include "compiler/verify/Verifier.h"
#include "plan/ir/Plan.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace collplan {

struct FinalizeOptions {
  /// The format of the bytes wanted; none when only the stamp is (the plan
  /// is still encoded once, for its hash).
  std::optional<PlanFormat> Format;
  /// False: no verification and no stamp (`--no-verify`).
  bool Verify = true;
  VerifyMode Mode = VerifyMode::Auto;
  /// The stamp's verifier name, e.g. "collplan 0.4.0".
  std::string Verifier;
  /// The verifier's progress, if wanted.
  std::function<void(uint64_t Done, uint64_t Total)> Progress;
};

/// A plan ready to be written: its verdict, its stamp and its bytes, all
/// from one encoding.
struct FinalizedPlan {
  /// The verifier's result; none without verification. When it is invalid
  /// the plan was neither stamped nor encoded.
  std::optional<VerifyResult> Verdict;
  /// Seconds the verification took (the tuner's, when its verdict was
  /// taken).
  double VerifySeconds = 0;
  /// The plan hash (planHash).
  uint64_t Hash = 0;
  /// The file's bytes in Options.Format; empty without a format.
  std::string Bytes;

  bool failedVerification() const { return Verdict && !Verdict->Valid; }
};

/// A usage error when P written as F would exceed the plan-file limit:
/// checked before verifying, since such a file could never be read.
llvm::Error checkPlanFileSize(const Plan &P, PlanFormat F);

/// Verifies P unless Known holds a valid verdict on this very plan reached
/// in the default mode and Options.Mode is Auto; then stamps P (the runtime
/// runs only stamped plans) and encodes it once. Errors: a text plan past
/// the file limit.
llvm::Expected<FinalizedPlan> finalizePlan(Plan &P,
                                           const FinalizeOptions &Options,
                                           const VerifyResult *Known = nullptr);

} // namespace collplan

#endif // COLLPLAN_SELECT_FINALIZE_H
