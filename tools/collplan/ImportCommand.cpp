//===- ImportCommand.cpp - collplan import: MSCCL XML to a plan file ------===//
//
// Reads an MSCCL XML algorithm (plan/serialize/MscclXml.h), verifies the
// plan it gives and, with -o, writes it stamped along compile's path
// (PlanOutput.h), so `collplan run` and the interposer take it.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"
#include "tools/collplan/PlanOutput.h"

#include "plan/serialize/MscclXml.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>

namespace collplan::cli {
namespace {

struct ImportOptions {
  std::string File;
  std::string Output;
  VerifyMode Mode = VerifyMode::Auto;
  bool Quiet = false;
};

uint64_t roundsOf(const Plan &P) {
  uint64_t Last = 0;
  for (const Program &Prog : P.Programs)
    if (!Prog.Rounds.empty())
      Last = std::max<uint64_t>(Last, Prog.Rounds.back().Index + 1);
  return Last;
}

int runImport(const ImportOptions &O) {
  std::optional<PlanFormat> OutFormat;
  if (!O.Output.empty()) {
    OutFormat = formatForPath(O.Output);
    if (!OutFormat) {
      printError(O.Output + ": cannot tell the plan format from its name "
                            "(.yaml, .json or .cplan)");
      return ExitUsage;
    }
  }
  auto Start = std::chrono::steady_clock::now();
  llvm::Expected<Plan> P = readMscclXmlFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  double ImportSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  FinalizedPlan Finalized;
  if (int Code = finalizeOrReport(*P, OutFormat, O.Mode, O.Quiet, Finalized))
    return Code;
  if (OutFormat)
    if (int Code = writeFinalized(Finalized, O.Output))
      return Code;
  const std::optional<VerifyResult> &Verified = Finalized.Verdict;
  double VerifySeconds = Finalized.VerifySeconds;
  if (O.Quiet)
    return ExitSuccess;
  const PlanHeader &H = P->Header;
  llvm::outs() << O.File << ": " << collectiveName(H.Kind) << " '"
               << H.Params.at("msccl-name") << "', P = " << H.Ranks << ", "
               << H.Blocks << " blocks, " << roundsOf(*P) << " rounds, "
               << H.Buffers.size() << " buffers";
  if (H.Root)
    llvm::outs() << ", root " << *H.Root;
  llvm::outs() << "\n  imported in " << formatSeconds(ImportSeconds)
               << ", verified in " << formatSeconds(VerifySeconds)
               << (Verified->IdenticalResults
                       ? "; every rank ends with the same bits"
                       : "; ranks may differ in the last bits")
               << "\n";
  if (OutFormat)
    llvm::outs() << "  wrote " << O.Output << " (verified, stamped)\n";
  return ExitSuccess;
}

} // namespace

void addImportCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<ImportOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "import", "Import an MSCCL XML algorithm (MSCCLang, RCCL, SCCL/TACCL): "
                "deadlock check, verification, and with -o a stamped plan "
                "file. Exit 1 if it can deadlock or computes a wrong result, "
                "3 for a collective collplan does not model");
  Cmd->add_option("file", O->File, "MSCCL XML file")->required();
  Cmd->add_option("-o,--output", O->Output,
                  "plan file to write: .yaml, .json or .cplan (binary)");
  addVerifyModeOption(*Cmd, "--verify-mode", O->Mode);
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success");
  Cmd->callback([O, &Exit] { Exit = runImport(*O); });
}

} // namespace collplan::cli
