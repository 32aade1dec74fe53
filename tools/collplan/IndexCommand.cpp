//===- IndexCommand.cpp - collplan index: which calls a plan serves -------===//
//
// Adds plan files to their directory's index (plan/dispatch/PlanIndex.h),
// so the interposer runs them for the calls given: a byte range, an
// operator, and from the plan's header its collective, P, root and counts.
// Only plans carrying a valid verification stamp are indexed, since the
// interposer would skip the others; with --reproducible, only plans whose
// stamp says reproducible (or that do not reduce), and the index then asks
// that of every floating-point sum and product. --remove takes entries out.
// The index
// is rewritten whole or not at all. --show prints a directory's rules in
// the order the interposer tries them, with why each was made.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/dispatch/PlanIndex.h"
#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"

#include "plan/dispatch/PlanDirectoryRules.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace collplan::cli {
namespace {

struct IndexOptions {
  std::vector<std::string> Plans;
  std::string Bytes = "0:inf";
  std::string Op;
  bool Remove = false;
  bool Show = false;
  bool Reproducible = false;
  OutputFormat Format = OutputFormat::Text;
  bool Quiet = false;
};

std::string bytesText(uint64_t Bytes) {
  return Bytes == UINT64_MAX ? "inf" : formatBytes(double(Bytes));
}

llvm::json::Value ruleJson(const DispatchRule &R) {
  llvm::json::Object O{{"collective", collectiveName(R.Kind)},
                       {"ranks", R.Ranks},
                       {"min_bytes", R.MinBytes},
                       {"max_bytes", R.MaxBytes == UINT64_MAX
                                         ? llvm::json::Value(nullptr)
                                         : llvm::json::Value(R.MaxBytes)},
                       {"from_index", R.FromIndex}};
  if (R.Library)
    O["library"] = true;
  else
    O["file"] = R.File;
  if (R.Op)
    O["op"] = reduceOpName(*R.Op);
  if (R.Root)
    O["root"] = *R.Root;
  if (R.Counts)
    O["counts"] = llvm::json::Array(*R.Counts);
  if (!R.Algorithm.empty()) {
    O["algorithm"] = R.Algorithm;
    llvm::json::Object Params;
    for (const auto &[Name, Value] : R.Params)
      Params[Name] = Value;
    O["params"] = std::move(Params);
  }
  if (!R.Why.empty())
    O["why"] = R.Why;
  if (!R.Measured.empty()) {
    llvm::json::Object M;
    for (const auto &[Who, Seconds] : R.Measured)
      M[Who] = Seconds;
    O["measured"] = std::move(M);
    O["measured_bytes"] = R.MeasuredBytes;
  }
  return std::move(O);
}

/// --show: the directory's rules, most specific first, and its problems.
int showDirectory(const IndexOptions &O) {
  if (O.Plans.size() != 1) {
    printError("--show takes one plan directory");
    return ExitUsage;
  }
  llvm::Expected<PlanDirectoryRules> D = readPlanDirectoryRules(O.Plans[0]);
  if (!D)
    return reportError(D.takeError(), ErrorKind::Usage);
  // One table after another; within a table, the interposer's order.
  llvm::stable_sort(D->Rules, [](const DispatchRule &A, const DispatchRule &B) {
    return std::make_tuple(A.Kind, A.Ranks, A.Root) <
           std::make_tuple(B.Kind, B.Ranks, B.Root);
  });
  llvm::raw_ostream &OS = llvm::outs();
  Rounding Asked = D->ChosenRounding.value_or(Rounding::Identical);
  if (O.Format == OutputFormat::Json) {
    llvm::json::Array Rules, Problems;
    for (const DispatchRule &R : D->Rules)
      Rules.push_back(ruleJson(R));
    for (const std::string &P : D->Problems)
      Problems.push_back(P);
    OS << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                       {"directory", D->Dir},
                                       {"rounding", roundingName(Asked)},
                                       {"rules", std::move(Rules)},
                                       {"problems", std::move(Problems)}}));
    return ExitSuccess;
  }
  OS << D->Dir << ": " << D->Rules.size()
     << " rule(s); per collective, P and root in the order the interposer "
        "tries them\n";
  OS << "  floating-point sums and products: " << roundingName(Asked)
     << (D->ChosenRounding ? " (the index's rounding)" : " (the default)")
     << "\n";
  for (const DispatchRule &R : D->Rules) {
    OS << llvm::formatv("  {0,-14} P={1,-5} {2,10} .. {3,-10}",
                        collectiveName(R.Kind), R.Ranks, bytesText(R.MinBytes),
                        bytesText(R.MaxBytes));
    if (R.Op)
      OS << " op=" << reduceOpName(*R.Op);
    if (R.Root)
      OS << " root=" << *R.Root;
    OS << "  " << (R.Library ? "the library's own call" : R.File);
    if (!R.Algorithm.empty())
      OS << " (" << R.Algorithm << ")";
    if (!R.FromIndex)
      OS << " [by its name]";
    OS << "\n";
    if (!R.Why.empty())
      OS << "      why: " << R.Why << "\n";
    if (!R.Measured.empty()) {
      OS << "      measured at " << bytesText(R.MeasuredBytes) << ":";
      for (const auto &[Who, Seconds] : R.Measured)
        OS << llvm::formatv(" {0} {1:F2} us", Who, Seconds * 1e6);
      OS << "\n";
    }
  }
  for (const std::string &P : D->Problems)
    OS << "  problem: " << P << "\n";
  return ExitSuccess;
}

int runIndex(const IndexOptions &O) {
  if (O.Show)
    return showDirectory(O);
  if (O.Plans.empty()) {
    printError("give the plan files to index (or --show DIR)");
    return ExitUsage;
  }
  // Every plan in one directory: the index is that directory's.
  std::string Dir = llvm::sys::path::parent_path(O.Plans.front()).str();
  for (const std::string &P : O.Plans)
    if (llvm::sys::path::parent_path(P) != Dir) {
      printError("the plans must lie in one directory, whose index lists "
                 "them: " +
                 O.Plans.front() + " and " + P + " do not");
      return ExitUsage;
    }
  llvm::Expected<ByteRange> Range = parseByteRange("--bytes", O.Bytes);
  if (!Range)
    return reportError(Range.takeError(), ErrorKind::Usage);
  uint64_t Min = Range->Min, Max = Range->Max.value_or(UINT64_MAX);
  if (Max <= Min) {
    printError("--bytes '" + O.Bytes + "': the range [MIN, MAX) is empty");
    return ExitUsage;
  }
  std::optional<ReduceOp> Op;
  if (!O.Op.empty() && !(Op = parseReduceOp(O.Op))) {
    printError("--op '" + O.Op + "': expected " + reduceOpChoices());
    return ExitUsage;
  }
  if (Dir.empty())
    Dir = ".";

  PlanDirectoryUpdate U;
  if (O.Reproducible)
    U.ChosenRounding = Rounding::Reproducible;
  for (const std::string &P : O.Plans) {
    std::string File = llvm::sys::path::filename(P).str();
    if (O.Remove) {
      U.Removed.push_back(File);
      continue;
    }
    // Rank 0's slice carries the header and the whole plan's hash.
    llvm::Expected<RankSlice> S = readRankSlice(P, 0);
    if (!S)
      return reportError(S.takeError(), ErrorKind::Usage);
    if (llvm::Error E = checkStamp(S->Header, S->Hash, P))
      return reportError(std::move(E), ErrorKind::Usage);
    if (O.Reproducible && reduces(S->Header.Kind) &&
        !S->Header.Stamp->Reproducible) {
      printError(P + ": its stamp does not say reproducible (the verifier "
                     "found it leaves the canonical tree); --reproducible "
                     "indexes only plans that follow it");
      return ExitUsage;
    }
    if (Op && !reduces(S->Header.Kind)) {
      printError(P + " is a " + collectiveName(S->Header.Kind).str() +
                 " plan, which takes no operator (--op)");
      return ExitUsage;
    }
    U.Rules.push_back(ruleFor(S->Header, File, Min, Max, Op));
  }
  llvm::Expected<PlanIndex> Index = updatePlanDirectory(Dir, std::move(U));
  if (!Index)
    return reportError(Index.takeError(), ErrorKind::Io);
  if (!O.Quiet)
    llvm::outs() << "wrote " << planIndexPath(Dir) << ": "
                 << Index->Plans.size() << " plan(s) listed\n";
  return ExitSuccess;
}

} // namespace

void addIndexCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<IndexOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "index",
      "List plan files in their directory's plans.index, which the "
      "interposer reads: the calls each serves (bytes, operator, and from "
      "the plan its collective, P, root and counts)");
  Cmd->add_option("plans", O->Plans,
                  "verified plan files, all in one directory (with --show: "
                  "the directory)");
  Cmd->add_option("--bytes", O->Bytes,
                  "the calls' byte range MIN:MAX, MAX excluded (units "
                  "allowed; MAX may be inf)")
      ->capture_default_str();
  Cmd->add_option("--op", O->Op,
                  "serve this reduction operator only (sum, prod, min, max, "
                  "band, bor, bxor, land, lor, lxor); default: every one");
  Cmd->add_flag("--remove", O->Remove,
                "take the plans out of the index instead (the files stay)");
  Cmd->add_flag("--reproducible", O->Reproducible,
                "index only plans whose stamp says reproducible (every reduced "
                "element in the canonical tree, docs/reproducibility.md), and "
                "record 'rounding: reproducible' in the index: the interposer "
                "then serves floating-point sums and products only from such "
                "plans");
  Cmd->add_flag("--show", O->Show,
                "print the directory's rules (index entries, plan file "
                "names, measured library rules) in the order the interposer "
                "tries them, with why each was made");
  addFormatOption(*Cmd, O->Format);
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success");
  Cmd->callback([O, &Exit] { Exit = runIndex(*O); });
}

} // namespace collplan::cli
