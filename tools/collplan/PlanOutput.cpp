//===- PlanOutput.cpp - Verifying, stamping and writing a plan file -------===//

#include "tools/collplan/PlanOutput.h"

#include "plan/serialize/TextPlanSize.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace collplan::cli {

int checkPlanFileSize(const Plan &P, PlanFormat F) {
  if (F == PlanFormat::Binary)
    return ExitSuccess;
  uint64_t Floor = textPlanBytesAtLeast(P, F);
  if (Floor <= MaxPlanFileBytes)
    return ExitSuccess;
  printError("the plan as " + formatName(F).upper() + " would take at least " +
             formatBytes(double(Floor)) + ", past the " +
             formatBytes(double(MaxPlanFileBytes)) +
             " plan files may have; nothing was written. Write it as "
             ".cplan (binary), which is far smaller");
  return ExitUsage;
}

int verifyAndStamp(Plan &P, VerifyMode Mode, bool Quiet,
                   std::optional<VerifyResult> &Verified, double &Seconds,
                   const VerifyResult *Known) {
  if (Known && Known->Valid && Mode == VerifyMode::Auto) {
    Verified = *Known;
    Seconds = Known->Stats.Seconds;
    P.Header.Stamp =
        stampFor(P, Known->IdenticalResults, "collplan " COLLPLAN_VERSION);
    return ExitSuccess;
  }
  VerifyOptions VO;
  VO.Mode = Mode;
  if (!Quiet)
    VO.Progress = progressReporter("verifying");
  auto Start = std::chrono::steady_clock::now();
  Verified = verifyPlan(P, VO);
  Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (!Verified->Valid) {
    printError("the " + P.Header.Algorithm +
               " plan failed verification; nothing was written:");
    for (const Diagnostic &D : Verified->Errors)
      llvm::errs() << "  " << D.str() << "\n";
    return ExitInvalid;
  }
  P.Header.Stamp =
      stampFor(P, Verified->IdenticalResults, "collplan " COLLPLAN_VERSION);
  return ExitSuccess;
}

int writeVerifiedPlan(Plan &P, const std::string &Path, PlanFormat F,
                      VerifyMode Mode, bool Quiet, const VerifyResult *Known) {
  if (int Code = checkPlanFileSize(P, F))
    return Code;
  std::optional<VerifyResult> Verified;
  double Seconds = 0;
  if (int Code = verifyAndStamp(P, Mode, Quiet, Verified, Seconds, Known))
    return Code;
  if (llvm::Error E = writePlanFile(P, Path, F))
    return reportError(std::move(E), ErrorKind::Io);
  return ExitSuccess;
}

} // namespace collplan::cli
