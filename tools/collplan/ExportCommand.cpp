//===- ExportCommand.cpp - collplan export: a plan as MSCCL XML -----------===//
//
// Writes a plan (any format collplan reads) as an MSCCL XML algorithm
// (plan/serialize/MscclXml.h), refusing, with the limit named, a plan the
// MSCCL runtimes could not load. The plan is verified (and its stamp, if
// any, checked) first, and the file is read back before it is written: what
// collplan exports, collplan imports.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/PlanOutput.h"

#include "plan/serialize/MscclXml.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace collplan::cli {
namespace {

struct ExportOptions {
  std::string File;
  std::string To = "msccl-xml";
  std::string Output;
  MscclExportOptions Xml;
  bool OlderExecutor = false;
  bool Quiet = false;
};

int runExport(ExportOptions O) {
  if (O.To != "msccl-xml") {
    printError("--to: unknown target '" + O.To + "' (msccl-xml)");
    return ExitUsage;
  }
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  // An MSCCL runtime checks nothing: what leaves collplan must be what its
  // verifier accepts, and a stamped plan must still be what was stamped.
  if (P->Header.Stamp)
    if (llvm::Error E = checkStamp(P->Header, planHash(*P), O.File))
      return reportError(std::move(E), ErrorKind::Usage);
  FinalizedPlan Finalized;
  if (int Code = finalizeOrReport(*P, std::nullopt, VerifyMode::Auto,
                                  /*Quiet=*/true, Finalized))
    return Code;
  if (O.OlderExecutor)
    O.Xml.Limits.StepsPerThreadblock = 256;
  llvm::Expected<std::string> Xml = encodeMscclXml(*P, O.Xml);
  if (!Xml)
    return reportError(Xml.takeError(), ErrorKind::CannotCompile);
  llvm::Expected<Plan> Back = decodeMscclXml(*Xml, O.Output);
  if (!Back)
    return reportError(
        makeError(
            ErrorKind::Invalid,
            "the exported file does not import back; nothing was "
            "written: " +
                takeErrorReport(Back.takeError(), ErrorKind::Invalid).Message),
        ErrorKind::Invalid);
  if (llvm::Error E = writeFileAtomically(O.Output, *Xml))
    return reportError(std::move(E), ErrorKind::Io);
  if (!O.Quiet)
    llvm::outs() << "wrote " << O.Output << ": " << P->Header.Ranks << " gpus, "
                 << O.Xml.Channels << " channel(s), " << O.Xml.Protocol << ", "
                 << O.Xml.Dialect << " dialect\n";
  return ExitSuccess;
}

} // namespace

void addExportCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<ExportOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "export", "Write a plan as an MSCCL XML algorithm (for MSCCL/RCCL "
                "runtimes); exit 3 if it cannot fit their limits");
  Cmd->add_option("plan", O->File, "plan file (.yaml, .json, .cplan, .xml)")
      ->required();
  Cmd->add_option("--to", O->To, "target format: msccl-xml")
      ->capture_default_str();
  Cmd->add_option("--dialect", O->Xml.Dialect,
                  "rccl (coll=\"reducescatter\", outofplace, minBytes, "
                  "maxBytes) or msccl (the older executors' form)")
      ->capture_default_str();
  Cmd->add_option("--protocol", O->Xml.Protocol, "Simple, LL or LL128")
      ->capture_default_str();
  Cmd->add_option("--channels", O->Xml.Channels,
                  "channels to spread each pair's messages over")
      ->capture_default_str();
  Cmd->add_flag("--older-executor", O->OlderExecutor,
                "allow 256 steps per threadblock (the older executor) "
                "instead of 64");
  Cmd->add_option("-o,--output", O->Output, "MSCCL XML file to write")
      ->required();
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success");
  Cmd->callback([O, &Exit] { Exit = runExport(*O); });
}

} // namespace collplan::cli
