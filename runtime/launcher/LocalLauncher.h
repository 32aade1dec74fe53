//===- LocalLauncher.h - P processes on this machine over TCP ---*- C++ -*-===//
//
// `collplan run -n P` forks P processes that meet over loopback TCP. The
// launcher opens rank 0's listening socket before forking (no race for a
// port), hands every child its TcpConfig, and collects each child's exit
// code and the text it reports through a pipe. A child that dies makes its
// peers fail on the closed connection; a child that is stopped makes them
// time out. Either way the launcher ends, with every rank's story, instead
// of hanging: once one child has failed, it kills those still running a
// timeout and a margin later. The children die with the launcher
// (PR_SET_PDEATHSIG, SIGKILL), however it ends: SIGTERM, SIGINT and SIGKILL
// alike, so there is nothing to forward.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_LAUNCHER_LOCALLAUNCHER_H
#define COLLPLAN_RUNTIME_LAUNCHER_LOCALLAUNCHER_H

#include "runtime/tcp/Rendezvous.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace collplan::runtime {

struct RankOutcome {
  /// The child's exit code; 128 + signal when a signal killed it.
  int ExitCode = 0;
  /// What the child reported (its Body's text).
  std::string Report;
  /// Why the launcher killed it, if it did.
  std::string Note;
};

/// What each child runs: returns its exit code and fills Report.
using RankBody =
    std::function<int(const TcpConfig &Config, std::string &Report)>;

/// Runs Body in Ranks forked processes. Timeout is each rank's TCP timeout.
/// Once one child has failed, the others get that long plus a margin (half
/// of it, at least a second) to fail on their own; then those still running
/// (a stopped or wedged rank) are killed (SIGKILL, by pid), with a Note
/// naming the rank that failed first. Children still running Deadline
/// after the start, when Deadline is non-zero, are killed too.
llvm::Expected<std::vector<RankOutcome>>
launchLocal(uint32_t Ranks, std::chrono::milliseconds Timeout,
            std::chrono::milliseconds Deadline, const RankBody &Body);

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_LAUNCHER_LOCALLAUNCHER_H
