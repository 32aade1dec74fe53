//===- VerifyCommand.cpp - collplan verify --------------------------------===//
//
// Exit 0 when every file is a valid plan, 1 when any is invalid, 2 when any
// cannot be read or parsed (the CI use: verify every plan before it ships).
//
//===----------------------------------------------------------------------===//

#include "compiler/verify/Verifier.h"
#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

namespace {

struct VerifyCommandOptions {
  std::vector<std::string> Files;
  OutputFormat Format = OutputFormat::Text;
  VerifyMode Mode = VerifyMode::Auto;
  size_t MaxErrors = 20;
  bool Stamp = false;
};

struct FileVerdict {
  std::string File;
  bool Readable = true;
  /// Whether the plan's collective combines contributions: only then is
  /// its reproducibility worth a line.
  bool Reduces = false;
  VerifyResult Result;
  /// The file's verification stamp: "valid" (for this content), "stale"
  /// (for other content), "none", or "stamped" (by this run, --stamp).
  std::string Stamp;
};

std::string stampState(const Plan &P) {
  if (!P.Header.Stamp)
    return "none";
  return P.Header.Stamp->PlanHash == planHash(P) ? "valid" : "stale";
}

void printJson(const std::vector<FileVerdict> &Verdicts) {
  llvm::json::OStream J(llvm::outs(), 2);
  auto Location = [&](const char *Name, int64_t V) {
    if (V >= 0)
      J.attribute(Name, V);
    else
      J.attribute(Name, nullptr);
  };
  J.array([&] {
    for (const FileVerdict &V : Verdicts)
      J.object([&] {
        J.attribute("file", V.File);
        J.attribute("valid", V.Result.Valid);
        J.attribute("readable", V.Readable);
        J.attributeArray("errors", [&] {
          for (const Diagnostic &D : V.Result.Errors)
            J.object([&] {
              Location("rank", D.Where.Rank);
              Location("round", D.Where.Round);
              Location("op", D.Where.Op);
              J.attribute("message", D.Message);
            });
        });
        if (!V.Readable)
          return;
        const VerifyStats &S = V.Result.Stats;
        J.attributeObject("stats", [&] {
          J.attribute("ranks", int64_t(S.Ranks));
          J.attribute("rounds", int64_t(S.Rounds));
          J.attribute("blocks", int64_t(S.Blocks));
          J.attribute("messages", int64_t(S.Messages));
          J.attribute("block_transfers", int64_t(S.BlockTransfers));
          J.attribute("mode", verifyModeName(S.ModeUsed));
        });
        if (!V.Stamp.empty())
          J.attribute("stamp", V.Stamp);
        if (V.Result.Valid) {
          J.attribute("identical_results", V.Result.IdenticalResults);
          if (!V.Result.IdenticalResults)
            J.attribute("different_orders", V.Result.DifferentOrders);
          J.attribute("reproducible", V.Result.Reproducible);
          if (!V.Result.Reproducible)
            J.attribute("non_canonical", V.Result.NonCanonical);
        }
      });
  });
  llvm::outs() << "\n";
}

void printText(const std::vector<FileVerdict> &Verdicts) {
  for (const FileVerdict &V : Verdicts) {
    const VerifyStats &S = V.Result.Stats;
    if (V.Result.Valid) {
      llvm::outs() << V.File << ": valid (" << S.Ranks << " ranks, " << S.Rounds
                   << " rounds, " << S.Blocks << " blocks, " << S.Messages
                   << " messages; " << verifyModeName(S.ModeUsed) << ")\n";
      if (!V.Result.IdenticalResults)
        llvm::outs() << "  results may differ in the last bits between ranks "
                        "(floating point): "
                     << V.Result.DifferentOrders << "\n";
      if (V.Reduces && V.Result.Reproducible)
        llvm::outs() << "  reproducible: every reduced block follows the "
                        "canonical tree, at any message size\n";
      else if (V.Reduces)
        llvm::outs() << "  not reproducible across message sizes: "
                     << V.Result.NonCanonical << "\n";
      if (V.Stamp == "stamped")
        llvm::outs() << "  verification stamp written\n";
      else if (V.Stamp != "valid")
        llvm::outs() << "  verification stamp: " << V.Stamp
                     << " (the runtime runs only stamped plans; add one with "
                        "--stamp)\n";
      continue;
    }
    llvm::outs() << V.File << ": " << (V.Readable ? "INVALID" : "UNREADABLE")
                 << "\n";
    for (const Diagnostic &D : V.Result.Errors)
      llvm::outs() << "  " << D.str() << "\n";
  }
}

int runVerify(const VerifyCommandOptions &O) {
  VerifyOptions VO;
  VO.Mode = O.Mode;
  VO.MaxErrors = O.MaxErrors;
  std::vector<FileVerdict> Verdicts;
  int Exit = ExitSuccess;
  for (const std::string &File : O.Files) {
    FileVerdict V;
    V.File = File;
    llvm::Expected<Plan> P = readPlanFile(File);
    if (!P) {
      ErrorReport R = takeErrorReport(P.takeError(), ErrorKind::Usage);
      // A reader that parsed the file but found what it describes cannot
      // work (an MSCCL file that deadlocks) reports it as invalid, not as
      // unreadable; an unreadable file still decides the exit code.
      // verify's codes are 0, 1 and 2: a file it cannot model (an MSCCL
      // step type collplan lacks) is unusable input, like a malformed one.
      V.Readable = R.Kind == ErrorKind::Invalid;
      V.Result.Errors.push_back({{}, R.Message});
      if (!V.Readable)
        Exit = ExitUsage;
      else if (Exit == ExitSuccess)
        Exit = ExitInvalid;
    } else {
      VO.Progress = progressReporter("verifying " + File);
      V.Result = verifyPlan(*P, VO);
      V.Reduces = reduces(P->Header.Kind);
      if (!V.Result.Valid && Exit == ExitSuccess)
        Exit = ExitInvalid;
      V.Stamp = stampState(*P);
      if (V.Result.Valid && O.Stamp) {
        // Rewritten whole, in its own format, with the verdict recorded.
        P->Header.Stamp =
            stampFor(*P, V.Result.IdenticalResults, V.Result.Reproducible,
                     "collplan " COLLPLAN_VERSION);
        std::optional<PlanFormat> F = formatForPath(File);
        llvm::Error E =
            F ? writePlanFile(*P, File, *F)
              : makeError(ErrorKind::Usage,
                          File + ": cannot tell its format from its name "
                                 "(.yaml, .json, .cplan); not stamped");
        if (E) {
          ErrorReport R = takeErrorReport(std::move(E), ErrorKind::Io);
          V.Result.Errors.push_back({{}, R.Message});
          Exit = exitCodeFor(R.Kind);
        } else {
          V.Stamp = "stamped";
        }
      }
    }
    Verdicts.push_back(std::move(V));
  }
  O.Format == OutputFormat::Json ? printJson(Verdicts) : printText(Verdicts);
  return Exit;
}

} // namespace

void addVerifyCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<VerifyCommandOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "verify", "Verify plan files: matching sends and receives, every "
                "contribution combined exactly once, the collective's end "
                "state. Exit 0 if all are valid, 1 if any is invalid, 2 if "
                "any cannot be read");
  Cmd->add_option("files", O->Files, "plan files (.yaml, .json, .cplan)")
      ->required();
  addFormatOption(*Cmd, O->Format);
  addVerifyModeOption(*Cmd, "--mode", O->Mode);
  Cmd->add_flag("--stamp", O->Stamp,
                "record the verdict in each valid file (rewritten whole, in "
                "its format): collplan run and the interposer run only plans "
                "with a stamp for their exact content");
  Cmd->add_option("--max-errors", O->MaxErrors,
                  "diagnostics to report per file")
      ->capture_default_str();
  Cmd->callback([O, &Exit] { Exit = runVerify(*O); });
}

} // namespace collplan::cli
