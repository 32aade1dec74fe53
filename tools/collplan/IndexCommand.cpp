//===- IndexCommand.cpp - collplan index: which calls a plan serves -------===//
//
// Adds plan files to their directory's index (plan/dispatch/PlanIndex.h),
// so the interposer runs them for the calls given: a byte range, an
// operator, and from the plan's header its collective, P, root and counts.
// Only plans carrying a valid verification stamp are indexed, since the
// interposer would skip the others. --remove takes entries out. The index
// is rewritten whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "plan/dispatch/PlanDirectoryWriter.h"
#include "plan/dispatch/PlanIndex.h"
#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/ADT/StringExtras.h"
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
  bool Quiet = false;
};

int runIndex(const IndexOptions &O) {
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
                  "verified plan files, all in one directory")
      ->required();
  Cmd->add_option("--bytes", O->Bytes,
                  "the calls' byte range MIN:MAX, MAX excluded (units "
                  "allowed; MAX may be inf)")
      ->capture_default_str();
  Cmd->add_option("--op", O->Op,
                  "serve this reduction operator only (sum, prod, min, max, "
                  "band, bor, bxor, land, lor, lxor); default: every one");
  Cmd->add_flag("--remove", O->Remove,
                "take the plans out of the index instead (the files stay)");
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success");
  Cmd->callback([O, &Exit] { Exit = runIndex(*O); });
}

} // namespace collplan::cli
