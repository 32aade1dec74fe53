//===- SlurmShape.cpp - A Slurm job's shape from its environment ----------===//

#include "tools/collplan/SlurmShape.h"

#include "plan/ir/Error.h"
#include "plan/ir/SlurmStep.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace collplan::cli {
namespace {

std::string env(std::initializer_list<const char *> Names) {
  for (const char *Name : Names)
    if (llvm::Optional<std::string> V = llvm::sys::Process::GetEnv(Name))
      if (!V->empty())
        return *V;
  return "";
}

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
  // A step on some of the allocation's nodes sees the allocation's list
  // (srun in salloc or sbatch): the names do not matter, only the count.
  if (Names->size() < PerNode->size())
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

} // namespace

bool inSlurmJob() { return !env({"SLURM_JOB_ID"}).empty(); }

llvm::Error readSlurmShape(SlurmShape &S) {
  llvm::Expected<std::vector<uint32_t>> NodeOf = stepNodeOfRank();
  if (!NodeOf)
    return NodeOf.takeError();
  S.NodeOf = std::move(*NodeOf);
  S.Job = JobShape();
  S.Job.Ranks = S.NodeOf.size();
  S.Nodes = *std::max_element(S.NodeOf.begin(), S.NodeOf.end()) + 1;
  // Equal nodes filled in rank order: nodes:NxK, as launch describes it.
  uint64_t PerNode = S.Job.Ranks / S.Nodes;
  bool Block = S.Job.Ranks % S.Nodes == 0;
  for (size_t R = 0; Block && R < S.NodeOf.size(); ++R)
    Block = S.NodeOf[R] == R / PerNode;
  if (Block) {
    S.Job.PerNode = PerNode;
    return llvm::Error::success();
  }
  // The nodes by number: the same shape on other nodes is the same key.
  std::string Text;
  for (uint32_t N : S.NodeOf)
    Text += "node" + std::to_string(N) + "\n";
  int FD;
  llvm::SmallString<128> Hostfile;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
          "collplan-slurm", "hosts", FD, Hostfile))
    return makeError(ErrorKind::Io,
                     "cannot write the job's hostfile: " + EC.message());
  S.Remove.setFile(Hostfile);
  llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
  Out << Text;
  Out.close();
  if (Out.has_error()) {
    Out.clear_error();
    return makeError(ErrorKind::Io,
                     "cannot write the job's hostfile " + Hostfile);
  }
  S.Job.Hostfile = Hostfile.str().str();
  return llvm::Error::success();
}

} // namespace collplan::cli
