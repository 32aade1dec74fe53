//===- PlanCache.h - Plan directories tuned for a job, cached ---*- C++ -*-===//
//
// `collplan launch` and `collplan slurm` both need "the plan directory
// `collplan tune` makes for this job's shape", without tuning it again for
// every job: this is that one cache. A directory is keyed by tune's
// arguments, the files they name and collplan's version, and is made by
// tune in a private directory renamed into place, so the cache only ever
// holds whole directories.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_PLANCACHE_H
#define COLLPLAN_TOOLS_PLANCACHE_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace collplan::cli {

/// What to tune and where to keep it; the same for every job of a user.
struct PlanRequest {
  std::string Cache; ///< Empty: $COLLPLAN_CACHE, else ~/.cache/collplan.
  std::string Collectives =
      "allreduce,reduce-scatter,allgather,allgatherv,broadcast,reduce";
  std::string Bytes = "8:1GiB";
  std::string Params;
  std::string Who = "launch"; ///< The subcommand, in its lines on stderr.
  bool Quiet = false;
};

/// A job as the cache keys it: its ranks, and its nodes as a count per node
/// (every node the same) or a hostfile (one node name per rank).
struct JobShape {
  uint64_t Ranks = 0;
  uint64_t PerNode = 0; ///< 0: not given.
  std::string Hostfile;
};

/// One line on stderr, "collplan: <Who>: Line", unless quiet.
void note(const PlanRequest &R, const llvm::Twine &Line);

/// collplan tune's arguments for the shape (without the output directory).
std::vector<std::string> tuneArguments(const PlanRequest &R, const JobShape &S);

/// The directory of plans for S, from the cache or tuned now; an error
/// says why there is none (no cache directory, tune failed).
llvm::Expected<std::string> cachedPlanDirectory(const PlanRequest &R,
                                                const JobShape &S);

/// The options of a PlanRequest (--cache, --collectives, --bytes,
/// --params), for the subcommands that take one.
void addPlanRequestOptions(CLI::App &Cmd, PlanRequest &R);

/// This collplan's own executable.
std::string collplanExecutable();

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_PLANCACHE_H
