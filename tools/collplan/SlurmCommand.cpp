//===- SlurmCommand.cpp - collplan slurm: plans for a Slurm job step ------===//
//
// The plan directory for the job step described by srun's environment,
// printed on stdout: collplan's SPANK plugin (runtime/slurm) runs this in
// srun before the tasks start and hands the directory to them.
//
//   collplan slurm [--cache DIR] [--bytes MIN:MAX] ... [--dry-run]
//
// The step's shape is read from SLURM_STEP_NODELIST (or SLURM_NODELIST),
// SLURM_STEP_TASKS_PER_NODE (or SLURM_TASKS_PER_NODE), SLURM_DISTRIBUTION
// and SLURM_DIST_PLANESIZE: a rank -> node map (plan/ir/SlurmStep.h). The
// cache is keyed by the shape, not by the nodes' names, so every step of
// the same shape shares one directory: a block step of equal nodes is
// nodes:NxK, any other map a hostfile of nodes numbered in order.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/PlanCache.h"

#include "plan/ir/Error.h"
#include "plan/ir/SlurmStep.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace collplan::cli {
namespace {

struct SlurmOptions {
  PlanRequest Plans;
  bool DryRun = false;
};

std::string env(std::initializer_list<const char *> Names) {
  for (const char *Name : Names)
    if (llvm::Optional<std::string> V = llvm::sys::Process::GetEnv(Name))
      if (!V->empty())
        return *V;
  return "";
}

/// The step's rank -> node map, or a usage error naming the variable.
llvm::Expected<std::vector<uint32_t>> stepNodeOfRank() {
  std::string Tasks =
      env({"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  if (Tasks.empty())
    return makeError(ErrorKind::Usage,
                     "not in a Slurm job step (no SLURM_TASKS_PER_NODE)");
  llvm::Expected<std::vector<uint64_t>> PerNode = parseSlurmTasksPerNode(Tasks);
  if (!PerNode)
    return PerNode.takeError();
  std::string Hosts =
      env({"SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_JOB_NODELIST"});
  llvm::Expected<std::vector<std::string>> Names = expandSlurmHostlist(Hosts);
  if (!Names)
    return Names.takeError();
  if (Names->size() != PerNode->size())
    return makeError(ErrorKind::Usage,
                     "the node list '%s' has %zu nodes, the tasks per node "
                     "'%s' %zu",
                     Hosts.c_str(), Names->size(), Tasks.c_str(),
                     PerNode->size());
  uint64_t Plane = 0;
  std::string PlaneText = env({"SLURM_DIST_PLANESIZE"});
  if (!PlaneText.empty() && llvm::StringRef(PlaneText).getAsInteger(10, Plane))
    return makeError(ErrorKind::Usage, "SLURM_DIST_PLANESIZE '%s'",
                     PlaneText.c_str());
  llvm::Expected<std::vector<uint32_t>> NodeOf =
      slurmNodeOfRank(*PerNode, env({"SLURM_DISTRIBUTION"}), Plane);
  if (!NodeOf)
    return NodeOf.takeError();
  std::string Total = env({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"});
  uint64_t Count;
  if (!Total.empty() && (llvm::StringRef(Total).getAsInteger(10, Count) ||
                         Count != NodeOf->size()))
    return makeError(ErrorKind::Usage,
                     "SLURM_NTASKS '%s' is not the %zu tasks of '%s'",
                     Total.c_str(), NodeOf->size(), Tasks.c_str());
  return NodeOf;
}

int runSlurm(const SlurmOptions &O) {
  llvm::Expected<std::vector<uint32_t>> NodeOf = stepNodeOfRank();
  if (!NodeOf)
    return reportError(NodeOf.takeError(), ErrorKind::Usage);
  JobShape Shape;
  Shape.Ranks = NodeOf->size();
  uint32_t Nodes = *std::max_element(NodeOf->begin(), NodeOf->end()) + 1;
  // Equal nodes filled in rank order: nodes:NxK, as launch describes it.
  bool Block = Shape.Ranks % Nodes == 0;
  for (size_t R = 0; Block && R < NodeOf->size(); ++R)
    Block = (*NodeOf)[R] == R / (Shape.Ranks / Nodes);
  llvm::SmallString<128> Hostfile;
  llvm::Optional<llvm::FileRemover> Remove;
  if (Block) {
    Shape.PerNode = Shape.Ranks / Nodes;
  } else {
    // The nodes by number: the same shape on other nodes is the same key.
    std::string Text;
    for (uint32_t N : *NodeOf)
      Text += "node" + std::to_string(N) + "\n";
    int FD;
    if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
            "collplan-slurm", "hosts", FD, Hostfile))
      return reportError(
          makeError(ErrorKind::Io,
                    "cannot write the step's hostfile: " + EC.message()),
          ErrorKind::Io);
    Remove.emplace(Hostfile);
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
    Out.close();
    if (Out.has_error())
      return reportError(
          makeError(ErrorKind::Io, "cannot write the step's hostfile"),
          ErrorKind::Io);
    Shape.Hostfile = Hostfile.str().str();
  }
  if (O.DryRun) {
    llvm::outs() << "ranks: " << Shape.Ranks << "\nnodes: " << Nodes
                 << "\ntune: " << llvm::join(tuneArguments(O.Plans, Shape), " ")
                 << "\n";
    if (!Block) {
      llvm::outs() << "node of rank:";
      for (uint32_t N : *NodeOf)
        llvm::outs() << " " << N;
      llvm::outs() << "\n";
    }
    return ExitSuccess;
  }
  llvm::Expected<std::string> Dir = cachedPlanDirectory(O.Plans, Shape);
  if (!Dir)
    return reportError(Dir.takeError(), ErrorKind::Io);
  llvm::outs() << *Dir << "\n";
  return ExitSuccess;
}

} // namespace

void addSlurmCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<SlurmOptions>();
  O->Plans.Who = "slurm";
  CLI::App *Cmd = App.add_subcommand(
      "slurm",
      "Print the plan directory for the Slurm job step in the environment "
      "(SLURM_NODELIST, SLURM_TASKS_PER_NODE, SLURM_DISTRIBUTION), from the "
      "cache or tuned now, as collplan launch does. Run by collplan's SPANK "
      "plugin inside srun.");
  Cmd->add_option("--cache", O->Plans.Cache,
                  "directory of cached plan directories (default "
                  "$COLLPLAN_CACHE, else $XDG_CACHE_HOME/collplan or "
                  "~/.cache/collplan)");
  Cmd->add_option("--collectives", O->Plans.Collectives,
                  "collectives to tune, comma separated")
      ->capture_default_str();
  Cmd->add_option("--bytes", O->Plans.Bytes, "sizes MIN:MAX to tune")
      ->capture_default_str();
  Cmd->add_option("--params", O->Plans.Params,
                  "cost parameters file (collplan calibrate)");
  Cmd->add_flag("--dry-run", O->DryRun,
                "print the step's shape and tune's arguments, tune nothing");
  Cmd->add_flag("--quiet,-q", O->Plans.Quiet, "no lines on stderr");
  Cmd->callback([O, &Exit] { Exit = runSlurm(*O); });
}

} // namespace collplan::cli
