//===- PlanOutput.cpp - The command line's side of writing a plan ---------===//

#include "tools/collplan/PlanOutput.h"

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

int finalizeOrReport(Plan &P, std::optional<PlanFormat> Format, VerifyMode Mode,
                     bool Quiet, FinalizedPlan &Out,
                     const VerifyResult *Known) {
  FinalizeOptions Options;
  Options.Format = Format;
  Options.Mode = Mode;
  Options.Verifier = "collplan " COLLPLAN_VERSION;
  if (!Quiet)
    Options.Progress = progressReporter("verifying");
  llvm::Expected<FinalizedPlan> F = finalizePlan(P, Options, Known);
  if (!F)
    return reportError(F.takeError(), ErrorKind::Usage);
  Out = std::move(*F);
  if (Out.failedVerification()) {
    printError("the " + P.Header.Algorithm +
               " plan failed verification; nothing was written:");
    for (const Diagnostic &D : Out.Verdict->Errors)
      llvm::errs() << "  " << D.str() << "\n";
    return ExitInvalid;
  }
  return ExitSuccess;
}

int writeFinalized(const FinalizedPlan &Finalized, const std::string &Path) {
  if (llvm::Error E = writeFileAtomically(Path, Finalized.Bytes, "plan file"))
    return reportError(std::move(E), ErrorKind::Io);
  return ExitSuccess;
}

int writeVerifiedPlan(Plan &P, const std::string &Path, PlanFormat F,
                      VerifyMode Mode, bool Quiet, const VerifyResult *Known) {
  FinalizedPlan Finalized;
  if (int Code = finalizeOrReport(P, F, Mode, Quiet, Finalized, Known))
    return Code;
  return writeFinalized(Finalized, Path);
}

} // namespace collplan::cli
