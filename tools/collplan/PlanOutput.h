//===- PlanOutput.h - The command line's side of writing a plan -*- C++ -*-===//
//
// compiler/select/Finalize.h refuses a text plan past the readers' limit,
// verifies, stamps and encodes; here is what the commands add: progress on
// stderr, the stamp's verifier name, the diagnostics printed, exit codes,
// and the write. `compile`, `select -o`, `tune`, `import` and `export` take
// it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_PLANOUTPUT_H
#define COLLPLAN_TOOLS_PLANOUTPUT_H

#include "compiler/select/Finalize.h"
#include "plan/ir/Plan.h"
#include "plan/serialize/PlanFile.h"

#include <optional>
#include <string>

namespace collplan::cli {

/// finalizePlan with this collplan as the stamp's verifier: the exit code
/// (0; 1 with the diagnostics printed when P fails verification; 2 when the
/// text plan would be too large). Format, when given, is the encoding wanted
/// in Out.Bytes. Known: see finalizePlan.
int finalizeOrReport(Plan &P, std::optional<PlanFormat> Format, VerifyMode Mode,
                     bool Quiet, FinalizedPlan &Out,
                     const VerifyResult *Known = nullptr);

/// Writes Finalized's bytes to Path, whole or not at all: 0, or 4 printed.
int writeFinalized(const FinalizedPlan &Finalized, const std::string &Path);

/// Both: the exit code (0, 1, 2 or 4, printed).
int writeVerifiedPlan(Plan &P, const std::string &Path, PlanFormat F,
                      VerifyMode Mode, bool Quiet,
                      const VerifyResult *Known = nullptr);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_PLANOUTPUT_H
