//===- PlanCache.cpp - Plan directories tuned for a job, cached -----------===//

#include "tools/collplan/PlanCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <unistd.h>

#include <chrono>

namespace collplan::cli {

void addPlanRequestOptions(CLI::App &Cmd, PlanRequest &R) {
  Cmd.add_option("--cache", R.Cache,
                 "directory of cached plan directories (default "
                 "$COLLPLAN_CACHE, else $XDG_CACHE_HOME/collplan or "
                 "~/.cache/collplan)");
  Cmd.add_option("--collectives", R.Collectives,
                 "collectives to tune, comma separated")
      ->capture_default_str();
  Cmd.add_option("--bytes", R.Bytes, "sizes MIN:MAX to tune")
      ->capture_default_str();
  Cmd.add_option("--params", R.Params,
                 "cost parameters file (collplan calibrate)");
}

void note(const PlanRequest &R, const llvm::Twine &Line) {
  if (!R.Quiet)
    llvm::errs() << "collplan: " << R.Who << ": " << Line << "\n";
}

std::vector<std::string> tuneArguments(const PlanRequest &O,
                                       const JobShape &S) {
  std::vector<std::string> Args = {"tune",    "--collectives", O.Collectives,
                                   "--bytes", O.Bytes,         "-q"};
  constexpr uint64_t MaxEveryRoot = 256, MaxEverySize = 64;
  if (S.Ranks <= MaxEveryRoot)
    Args.insert(Args.end(), {"--roots", "all"});
  if (!S.Hostfile.empty()) {
    Args.insert(Args.end(), {"--hostfile", S.Hostfile});
  } else if (S.PerNode && S.PerNode < S.Ranks) {
    Args.insert(Args.end(),
                {"--topology", "nodes:" + std::to_string(S.Ranks / S.PerNode) +
                                   "x" + std::to_string(S.PerNode)});
  } else {
    // A flat job: its sub-communicators' sizes too, while that is cheap.
    Args.insert(Args.end(), {"--ranks", S.Ranks <= MaxEverySize
                                            ? "2:" + std::to_string(S.Ranks)
                                            : std::to_string(S.Ranks)});
  }
  if (!O.Params.empty())
    Args.insert(Args.end(), {"--params", O.Params});
  return Args;
}

/// What the directory's content depends on: tune's arguments, the files
/// they name, and this collplan.
namespace {

std::string cacheKey(const std::vector<std::string> &Args, const JobShape &S,
                     const PlanRequest &O) {
  std::string Key = "collplan " COLLPLAN_VERSION "\n" + llvm::join(Args, "\n");
  for (const std::string *File : {&S.Hostfile, &O.Params})
    if (!File->empty())
      if (auto Text = llvm::MemoryBuffer::getFile(*File))
        Key += "\n" + (*Text)->getBuffer().str();
  return llvm::utohexstr(llvm::xxHash64(Key), /*LowerCase=*/true);
}

std::string defaultCache() {
  llvm::SmallString<256> Dir;
  if (llvm::Optional<std::string> Env =
          llvm::sys::Process::GetEnv("COLLPLAN_CACHE"))
    return *Env;
  if (llvm::Optional<std::string> Xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME"))
    Dir = *Xdg;
  else if (!llvm::sys::path::home_directory(Dir))
    return "";
  else
    llvm::sys::path::append(Dir, ".cache");
  llvm::sys::path::append(Dir, "collplan");
  return Dir.str().str();
}

} // namespace

std::string collplanExecutable() {
  return llvm::sys::fs::getMainExecutable("collplan",
                                          (void *)&collplanExecutable);
}

// Tune writes a private directory, renamed into place once complete, so a
// directory in the cache is always whole (a concurrent job that loses the
// race uses the winner's).
llvm::Expected<std::string> cachedPlanDirectory(const PlanRequest &O,
                                                const JobShape &S) {
  std::vector<std::string> Args = tuneArguments(O, S);
  std::string Cache = O.Cache.empty() ? defaultCache() : O.Cache;
  if (Cache.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no cache directory (set COLLPLAN_CACHE)");
  llvm::SmallString<256> Dir(Cache);
  llvm::sys::path::append(Dir, cacheKey(Args, S, O));
  llvm::SmallString<256> Index(Dir);
  llvm::sys::path::append(Index, "plans.index");
  if (llvm::sys::fs::exists(Index)) {
    note(O, "plans for this job from " + Dir.str());
    return Dir.str().str();
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(Cache))
    return llvm::createStringError(EC, "cannot create the cache '%s': %s",
                                   Cache.c_str(), EC.message().c_str());
  llvm::SmallString<256> Private(Dir);
  Private += ".tmp-" + std::to_string(::getpid());
  std::string Self = collplanExecutable();
  std::vector<llvm::StringRef> Argv = {Self};
  for (const std::string &A : Args)
    Argv.push_back(A);
  Argv.insert(Argv.end(), {"-o", Private});
  note(O, "tuning plans for this job: collplan " + llvm::join(Args, " "));
  auto Start = std::chrono::steady_clock::now();
  std::string Message;
  int Code =
      llvm::sys::ExecuteAndWait(Self, Argv, llvm::None, {}, 0, 0, &Message);
  if (Code != 0) {
    llvm::sys::fs::remove_directories(Private);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "collplan tune failed (exit %d)%s%s",
        Code, Message.empty() ? "" : ": ", Message.c_str());
  }
  if (std::error_code EC = llvm::sys::fs::rename(Private, Dir)) {
    llvm::sys::fs::remove_directories(Private);
    if (!llvm::sys::fs::exists(Index))
      return llvm::createStringError(EC, "cannot store the plans in '%s': %s",
                                     Dir.c_str(), EC.message().c_str());
  }
  note(O, llvm::formatv("plans tuned in {0:f2} s into {1}",
                        std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - Start)
                            .count(),
                        Dir));
  return Dir.str().str();
}

} // namespace collplan::cli
