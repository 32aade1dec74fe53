//===- PlanOutput.h - Verifying, stamping and writing a plan file -*- C++
//-*-===//
//
// The one path from a compiled plan to a plan file that the runtime will
// run: refuse a text plan past the readers' limit, verify, stamp, write
// whole or not at all. `compile`, `select -o` and `tune` take it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_PLANOUTPUT_H
#define COLLPLAN_TOOLS_PLANOUTPUT_H

#include "compiler/verify/Verifier.h"
#include "plan/ir/Plan.h"
#include "plan/serialize/PlanFile.h"

#include <optional>
#include <string>

namespace collplan::cli {

/// Exit 2 (printed) when P written as F would exceed the plan-file limit;
/// 0 otherwise. Checked before verifying: such a file could never be read.
int checkPlanFileSize(const Plan &P, PlanFormat F);

/// Verifies P; on failure prints the diagnostics and returns 1 (nothing to
/// write), otherwise stamps P (the runtime runs only stamped plans), fills
/// Verified and Seconds and returns 0. Known, if given, is a valid verdict
/// the tuner reached on this very plan in the default mode: with Mode Auto
/// it is taken instead of verifying again (Seconds is then the time that
/// verification took).
int verifyAndStamp(Plan &P, VerifyMode Mode, bool Quiet,
                   std::optional<VerifyResult> &Verified, double &Seconds,
                   const VerifyResult *Known = nullptr);

/// The three steps and the write: the exit code (0, 1, 2 or 4, printed).
int writeVerifiedPlan(Plan &P, const std::string &Path, PlanFormat F,
                      VerifyMode Mode, bool Quiet,
                      const VerifyResult *Known = nullptr);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_PLANOUTPUT_H
