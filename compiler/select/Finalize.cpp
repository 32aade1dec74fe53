//===- Finalize.cpp - From a compiled plan to a plan file's bytes ---------===//

#include "compiler/select/Finalize.h"

#include "plan/ir/Error.h"
#include "plan/serialize/TextPlanSize.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace collplan {

namespace {

std::string gibibytes(uint64_t Bytes) {
  std::string Out;
  llvm::raw_string_ostream(Out)
      << llvm::format("%.2f GiB", double(Bytes) / double(uint64_t(1) << 30));
  return Out;
}

} // namespace

llvm::Error checkPlanFileSize(const Plan &P, PlanFormat F) {
  if (F == PlanFormat::Binary)
    return llvm::Error::success();
  uint64_t Floor = textPlanBytesAtLeast(P, F);
  if (Floor <= MaxPlanFileBytes)
    return llvm::Error::success();
  return makeError(ErrorKind::Usage,
                   "the plan as " + formatName(F).upper() +
                       " would take at least " + gibibytes(Floor) +
                       ", past the " + gibibytes(MaxPlanFileBytes) +
                       " plan files may have; nothing was written. Write it "
                       "as .cplan (binary), which is far smaller");
}

llvm::Expected<FinalizedPlan> finalizePlan(Plan &P,
                                           const FinalizeOptions &Options,
                                           const VerifyResult *Known) {
  if (Options.Format)
    if (llvm::Error E = checkPlanFileSize(P, *Options.Format))
      return E;
  FinalizedPlan Out;
  if (Options.Verify) {
    if (Known && Known->Valid && Options.Mode == VerifyMode::Auto) {
      Out.Verdict = *Known;
      Out.VerifySeconds = Known->Stats.Seconds;
    } else {
      VerifyOptions VO;
      VO.Mode = Options.Mode;
      VO.Progress = Options.Progress;
      auto Start = std::chrono::steady_clock::now();
      Out.Verdict = verifyPlan(P, VO);
      Out.VerifySeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - Start)
                              .count();
      if (!Out.Verdict->Valid)
        return Out;
    }
  }
  // One encoding gives the hash the stamp binds and a .cplan file's bytes;
  // a text file is the one more encoding its format needs.
  EncodedPlan E = encodeCanonical(P);
  Out.Hash = E.Hash;
  if (Out.Verdict)
    P.Header.Stamp =
        VerificationStamp{E.Hash, Out.Verdict->IdenticalResults,
                          Out.Verdict->Reproducible, Options.Verifier};
  if (Options.Format == PlanFormat::Binary)
    Out.Bytes = stampedBinary(E, P.Header.Stamp);
  else if (Options.Format)
    Out.Bytes = encodePlan(P, *Options.Format);
  return Out;
}

} // namespace collplan
