//===- IndexCommand.cpp - collplan index: which calls a plan serves -------===//
//
// Adds plan files to their directory's index (plan/serialize/PlanIndex.h),
// so the interposer runs them for the calls given: a byte range, an
// operator, and from the plan's header its collective, P, root and counts.
// Only plans carrying a valid verification stamp are indexed, since the
// interposer would skip the others. --remove takes entries out. The index
// is rewritten whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/PlanIndex.h"
#include "plan/serialize/RankSlice.h"
#include "runtime/Reduction.h"

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

/// "MIN:MAX" with units, MAX may be inf: the range [MIN, MAX).
std::optional<std::string> parseRange(const std::string &Text, uint64_t &Min,
                                      uint64_t &Max) {
  auto [Lo, Hi] = llvm::StringRef(Text).split(':');
  if (Lo.empty() || Hi.empty())
    return "--bytes '" + Text + "': expected MIN:MAX, e.g. 0:64KiB or 1MiB:inf";
  llvm::Expected<uint64_t> L = parseByteSize(Lo.str());
  if (!L)
    return "--bytes '" + Text + "': " + llvm::toString(L.takeError());
  Min = *L;
  Max = UINT64_MAX;
  if (Hi != "inf") {
    llvm::Expected<uint64_t> H = parseByteSize(Hi.str());
    if (!H)
      return "--bytes '" + Text + "': " + llvm::toString(H.takeError());
    Max = *H;
  }
  if (Max <= Min)
    return "--bytes '" + Text + "': the range [MIN, MAX) is empty";
  return std::nullopt;
}

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
  uint64_t Min = 0, Max = UINT64_MAX;
  if (std::optional<std::string> Problem = parseRange(O.Bytes, Min, Max)) {
    printError(*Problem);
    return ExitUsage;
  }
  if (!O.Op.empty() && !runtime::parseReduceOp(O.Op)) {
    printError("--op '" + O.Op +
               "': expected sum, prod, min, max, band, bor, bxor, land, lor "
               "or lxor");
    return ExitUsage;
  }
  if (Dir.empty())
    Dir = ".";
  llvm::Expected<PlanIndex> Index = readPlanIndex(Dir);
  if (!Index)
    return reportError(Index.takeError(), ErrorKind::Usage);

  for (const std::string &P : O.Plans) {
    std::string File = llvm::sys::path::filename(P).str();
    if (O.Remove) {
      llvm::erase_if(Index->Plans,
                     [&](const PlanIndexEntry &E) { return E.File == File; });
      continue;
    }
    // Rank 0's slice carries the header and the whole plan's hash.
    llvm::Expected<RankSlice> S = readRankSlice(P, 0);
    if (!S)
      return reportError(S.takeError(), ErrorKind::Usage);
    if (llvm::Error E = checkStamp(S->Header, S->Hash, P))
      return reportError(std::move(E), ErrorKind::Usage);
    if (!O.Op.empty() && !reduces(S->Header.Kind)) {
      printError(P + " is a " + collectiveName(S->Header.Kind).str() +
                 " plan, which takes no operator (--op)");
      return ExitUsage;
    }
    PlanIndexEntry E = indexEntryFor(S->Header, File, Min, Max, O.Op);
    // Keep what tune said about a plan it chose.
    for (const PlanIndexEntry &Old : Index->Plans)
      if (Old.File == File)
        E.Why = Old.Why;
    Index->put(std::move(E));
  }
  if (llvm::Error E = writePlanIndex(Dir, *Index))
    return reportError(std::move(E), ErrorKind::Io);
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
