//===- SlurmCommand.cpp - collplan slurm: plans for a Slurm job step ------===//
//
// The plan directory for the job step described by srun's environment,
// printed on stdout: collplan's SPANK plugin (runtime/slurm) runs this in
// srun before the tasks start and hands the directory to them.
//
//   collplan slurm [--cache DIR] [--bytes MIN:MAX] ... [--dry-run]
//
// The step's shape is read from the environment (SlurmShape.h).
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/PlanCache.h"
#include "tools/collplan/SlurmShape.h"

#include "plan/ir/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {
namespace {

struct SlurmOptions {
  PlanRequest Plans;
  bool DryRun = false;
};

int runSlurm(const SlurmOptions &O) {
  SlurmShape S;
  if (llvm::Error E = readSlurmShape(S))
    return reportError(std::move(E), ErrorKind::Usage);
  const JobShape &Shape = S.Job;
  if (O.DryRun) {
    llvm::outs() << "ranks: " << Shape.Ranks << "\nnodes: " << S.Nodes
                 << "\ntune: " << llvm::join(tuneArguments(O.Plans, Shape), " ")
                 << "\nnode of rank:";
    for (uint32_t N : S.NodeOf)
      llvm::outs() << " " << N;
    llvm::outs() << "\n";
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
  addPlanRequestOptions(*Cmd, O->Plans);
  Cmd->add_flag("--dry-run", O->DryRun,
                "print the step's shape and tune's arguments, tune nothing");
  Cmd->add_flag("--quiet,-q", O->Plans.Quiet, "no lines on stderr");
  Cmd->callback([O, &Exit] { Exit = runSlurm(*O); });
}

} // namespace collplan::cli
