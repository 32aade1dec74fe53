//===- LaunchCommand.cpp - collplan launch -- mpirun ... ------------------===//
//
// Starts an MPI job on plans made for its own shape, for jobs started by a
// launcher (srun's steps have the SPANK plugin, runtime/slurm):
//
//   collplan launch [options] -- mpirun -n 16 --map-by ppr:4:node ./app
//
// It reads the job's shape from the launcher's command line (the ranks, and
// the nodes from --map-by ppr:K:node, -ppn K or a hostfile; in a Slurm
// batch script without -n, from the allocation), takes the plan
// directory `collplan tune` makes for that shape from a cache (making it,
// whole or not at all, when it is missing), and runs the launcher with the
// interposer built for that launcher's MPI preloaded and COLLPLAN_PLANS set
// on every rank. Whatever collplan cannot do (a command line it cannot
// read, an unwritable cache, no interposer) costs one line on stderr and the
// job runs on the library's own collectives: collplan never fails or hangs
// a job that would run without it.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/PlanCache.h"
#include "tools/collplan/SlurmShape.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace collplan::cli {
namespace {

struct LaunchOptions {
  std::vector<std::string> Command;
  PlanRequest Plans;
  std::string Interposer;
};

/// Which MPI a launcher starts, so that the right interposer is preloaded
/// and the ranks' environment is passed in that launcher's syntax.
enum class LauncherKind { OpenMpi, Hydra };

/// Open MPI's mpirun, or MPICH's Hydra (mpiexec.hydra, mpiexec.mpich and
/// the Intel MPI and MVAPICH launchers built on it): by the launcher's own
/// --version, since both install an `mpirun`.
std::optional<LauncherKind> launcherKind(const std::string &Launcher) {
  llvm::ErrorOr<std::string> Path = llvm::sys::findProgramByName(Launcher);
  if (!Path)
    return std::nullopt;
  llvm::SmallString<128> Out;
  if (llvm::sys::fs::createTemporaryFile("collplan-launcher", "txt", Out))
    return std::nullopt;
  llvm::FileRemover Remove(Out);
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), Out.str(),
                                                 Out.str()};
  std::string Message;
  if (llvm::sys::ExecuteAndWait(*Path, {*Path, "--version"}, llvm::None,
                                Redirects, /*SecondsToWait=*/10, 0,
                                &Message) != 0)
    return std::nullopt;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
      llvm::MemoryBuffer::getFile(Out);
  if (!Text)
    return std::nullopt;
  llvm::StringRef Version = (*Text)->getBuffer();
  if (Version.contains("Open MPI") || Version.contains("OpenRTE"))
    return LauncherKind::OpenMpi;
  if (Version.contains("HYDRA"))
    return LauncherKind::Hydra;
  return std::nullopt;
}

/// The ranks and nodes from the launcher's options; an error names what
/// could not be read. Options collplan does not know are the launcher's
/// business and left alone.
llvm::Expected<JobShape> shapeOf(llvm::ArrayRef<std::string> Command,
                                 SlurmShape &Slurm) {
  JobShape S;
  auto Number = [&](size_t I, uint64_t &Out) -> llvm::Error {
    if (I + 1 >= Command.size() ||
        llvm::StringRef(Command[I + 1]).getAsInteger(10, Out) || Out == 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s takes a positive count",
                                     Command[I].c_str());
    return llvm::Error::success();
  };
  for (size_t I = 1; I < Command.size(); ++I) {
    llvm::StringRef A = Command[I];
    if (A == "-n" || A == "-np" || A == "-c" || A == "--np" || A == "--n") {
      if (llvm::Error E = Number(I, S.Ranks))
        return E;
      ++I;
    } else if (A == "-ppn" || A == "--ppn") {
      if (llvm::Error E = Number(I, S.PerNode))
        return E;
      ++I;
    } else if ((A == "--map-by" || A == "-map-by") && I + 1 < Command.size()) {
      // ppr:K:node; other mappings say nothing collplan uses.
      llvm::SmallVector<llvm::StringRef, 3> Parts;
      llvm::StringRef(Command[I + 1]).split(Parts, ':');
      if (Parts.size() >= 3 && Parts[0] == "ppr" && Parts[2] == "node" &&
          (Parts[1].getAsInteger(10, S.PerNode) || S.PerNode == 0))
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "--map-by %s: not a count per node",
                                       Command[I + 1].c_str());
      ++I;
    } else if ((A == "--hostfile" || A == "-hostfile" || A == "-machinefile" ||
                A == "--machinefile" || A == "-f") &&
               I + 1 < Command.size()) {
      S.Hostfile = Command[++I];
    } else if (!A.startswith("-")) {
      break; // The program: the rest are its arguments.
    }
  }
  // Without a count, a launcher in a Slurm batch script starts a rank per
  // task of the allocation, laid out as Slurm lays them out.
  if (S.Ranks == 0 && S.Hostfile.empty() && !S.PerNode && inSlurmJob()) {
    if (llvm::Error E = readSlurmShape(Slurm))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no -n, and the Slurm allocation: %s",
                                     llvm::toString(std::move(E)).c_str());
    return Slurm.Job;
  }
  if (S.Ranks == 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the command gives no number of ranks (-n or -np)");
  if (S.PerNode && S.Ranks % S.PerNode)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "%llu ranks do not fill nodes of %llu",
        (unsigned long long)S.Ranks, (unsigned long long)S.PerNode);
  return S;
}

/// The interposer for Kind: --interposer, COLLPLAN_INTERPOSER, or the one
/// beside this collplan (its build tree, or an installation's lib/).
std::string interposerFor(const LaunchOptions &O, LauncherKind Kind) {
  if (!O.Interposer.empty())
    return O.Interposer;
  if (llvm::Optional<std::string> Env =
          llvm::sys::Process::GetEnv("COLLPLAN_INTERPOSER"))
    return *Env;
  const char *Name = Kind == LauncherKind::OpenMpi ? "libcollplan_mpi.so"
                                                   : "libcollplan_mpich.so";
  std::string Self = collplanExecutable();
  llvm::StringRef Bin = llvm::sys::path::parent_path(Self);
  for (const char *Relative :
       {"../../runtime/interposer", "../lib", "../lib/collplan"}) {
    llvm::SmallString<256> Path(Bin);
    llvm::sys::path::append(Path, Relative, Name);
    llvm::sys::fs::make_absolute(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    if (llvm::sys::fs::exists(Path))
      return Path.str().str();
  }
  return "";
}

/// Replaces this process with the launcher: its exit status, signals and
/// terminal are the job's own.
int exec(const std::vector<std::string> &Command) {
  std::vector<char *> Argv;
  for (const std::string &A : Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  ::execvp(Argv[0], Argv.data());
  printError("cannot run '" + Command[0] + "': " + std::strerror(errno));
  return 127;
}

int runLaunch(const LaunchOptions &O) {
  std::vector<std::string> Command = O.Command;
  auto Plain = [&](const llvm::Twine &Why) {
    note(O.Plans, Why + "; running the job without plans");
    return exec(Command);
  };
  std::optional<LauncherKind> Kind = launcherKind(Command[0]);
  if (!Kind)
    return Plain("'" + Command[0] +
                 "' is neither Open MPI's mpirun nor a Hydra mpiexec");
  std::string Library = interposerFor(O, *Kind);
  if (Library.empty() || !llvm::sys::fs::exists(Library))
    return Plain(
        "no interposer for " +
        llvm::Twine(*Kind == LauncherKind::OpenMpi ? "Open MPI" : "MPICH") +
        " (build it, or give --interposer)");
  llvm::Expected<std::string> Dir = [&]() -> llvm::Expected<std::string> {
    SlurmShape Slurm; // Its hostfile, if any, is removed once tune read it.
    llvm::Expected<JobShape> Shape = shapeOf(Command, Slurm);
    if (!Shape)
      return Shape.takeError();
    return cachedPlanDirectory(O.Plans, *Shape);
  }();
  if (!Dir)
    return Plain(llvm::toString(Dir.takeError()));
  // The ranks' environment, in the launcher's syntax, right after its name.
  std::vector<std::string> Env =
      *Kind == LauncherKind::OpenMpi
          ? std::vector<std::string>{"-x", "LD_PRELOAD=" + Library, "-x",
                                     "COLLPLAN_PLANS=" + *Dir}
          : std::vector<std::string>{"-genv", "LD_PRELOAD",     Library,
                                     "-genv", "COLLPLAN_PLANS", *Dir};
  Command.insert(Command.begin() + 1, Env.begin(), Env.end());
  return exec(Command);
}

} // namespace

void addLaunchCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<LaunchOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "launch",
      "Run an MPI job on plans made for its shape: collplan launch -- mpirun "
      "-n 16 ./app. The shape comes from the launcher's -n/-np, --map-by "
      "ppr:K:node, -ppn K or hostfile; the plan directory from a cache "
      "(tuned when missing); the interposer for the launcher's MPI is "
      "preloaded. Anything collplan cannot do leaves the job running "
      "without plans, with one line on stderr.");
  addPlanRequestOptions(*Cmd, O->Plans);
  Cmd->add_option("--interposer", O->Interposer,
                  "the interposer library to preload (default: the one "
                  "built for the launcher's MPI beside collplan)");
  Cmd->add_flag("--quiet,-q", O->Plans.Quiet, "no lines on stderr");
  Cmd->add_option("command", O->Command,
                  "the launcher and its arguments, after --")
      ->required();
  Cmd->callback([O, &Exit] { Exit = runLaunch(*O); });
}

} // namespace collplan::cli
