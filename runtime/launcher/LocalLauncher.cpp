//===- LocalLauncher.cpp - P processes on this machine over TCP -----------===//

#include "runtime/launcher/LocalLauncher.h"

#include "runtime/tcp/JobSecret.h"
#include "runtime/tcp/SocketIo.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

namespace collplan::runtime {

namespace {

void killAll(const std::vector<pid_t> &Pids) {
  for (pid_t Pid : Pids)
    if (Pid > 0)
      kill(Pid, SIGKILL);
}

/// Writes all of Text to Fd, as far as the pipe takes it.
void writeReport(int Fd, const std::string &Text) {
  const char *P = Text.data();
  size_t Left = Text.size();
  while (Left) {
    ssize_t N = write(Fd, P, Left);
    if (N <= 0 && errno != EINTR)
      break;
    if (N > 0) {
      P += N;
      Left -= size_t(N);
    }
  }
}

/// Rank R's child process: runs Body, writes its report to ReportFd and
/// exits with its code. OpenPipes are the earlier ranks' pipe ends it closes.
/// Launcher is the parent's pid.
[[noreturn]] void runChild(uint32_t R, pid_t Launcher, const TcpConfig &Base,
                           int Listener, int ReportFd,
                           const std::vector<int> &OpenPipes,
                           const RankBody &Body) {
  // The rank dies with the launcher, however the launcher ends (SIGKILL
  // included): orphaned ranks spun or waited on their peers for minutes.
  // A launcher that died before the prctl left us another parent already.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != Launcher)
    _exit(128 + SIGKILL);
  for (uint32_t Q = 0; Q < R; ++Q)
    close(OpenPipes[Q]);
  TcpConfig Config = Base;
  Config.Rank = R;
  if (R == 0)
    Config.ListenSocket = Listener;
  else
    close(Listener);
  std::string Report;
  int Code = Body(Config, Report);
  writeReport(ReportFd, Report);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(Code);
}

/// Waits for child R and records its exit code.
void reap(pid_t Pid, RankOutcome &Outcome) {
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(Status))
    Outcome.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    Outcome.ExitCode = 128 + WTERMSIG(Status);
}

/// Milliseconds from now until End, at least 0, for poll().
int msUntil(std::chrono::steady_clock::time_point End) {
  auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
      End - std::chrono::steady_clock::now());
  return int(std::max<int64_t>(0, Left.count()));
}

/// Reads every pipe into its rank's report and reaps each child as its pipe
/// closes (it exited), until all have. Once one has failed, the others get
/// Grace to fail too (their own timeouts see the loss); past it, or past
/// Deadline (if positive) from the start, the rest are killed with a note
/// saying why. A stopped or wedged child otherwise keeps the launcher
/// waiting forever.
void superviseChildren(std::vector<int> &Pipes, const std::vector<pid_t> &Pids,
                       std::vector<RankOutcome> &Outcomes,
                       std::chrono::milliseconds Grace,
                       std::chrono::milliseconds Deadline) {
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  std::vector<bool> Reaped(Pids.size(), false);
  std::optional<Clock::time_point> GraceEnd;
  uint32_t FirstFailed = 0;
  size_t Open = Pipes.size();
  while (Open) {
    std::vector<pollfd> Polls;
    std::vector<uint32_t> Who;
    for (uint32_t R = 0; R < Pipes.size(); ++R)
      if (Pipes[R] >= 0) {
        Polls.push_back({Pipes[R], POLLIN, 0});
        Who.push_back(R);
      }
    int Wait = -1;
    if (Deadline.count() > 0)
      Wait = msUntil(Start + Deadline);
    if (GraceEnd)
      Wait = Wait < 0 ? msUntil(*GraceEnd) : std::min(Wait, msUntil(*GraceEnd));
    int N = poll(Polls.data(), Polls.size(), Wait);
    if (N < 0 && errno == EINTR)
      continue;
    if (N == 0) {
      // Past the deadline or the grace: the children are ours to end.
      std::string Why =
          GraceEnd
              ? "killed by the launcher: still running " +
                    std::to_string(Grace.count()) + " ms after rank " +
                    std::to_string(FirstFailed) + " failed (stopped or stuck)"
              : "killed by the launcher after " +
                    std::to_string(Deadline.count()) + " ms";
      for (uint32_t R = 0; R < Pids.size(); ++R)
        if (!Reaped[R]) {
          kill(Pids[R], SIGKILL);
          Outcomes[R].Note = Why;
        }
      return;
    }
    for (size_t I = 0; I < Polls.size(); ++I) {
      if (!Polls[I].revents)
        continue;
      uint32_t R = Who[I];
      char Buf[4096];
      ssize_t Got = read(Pipes[R], Buf, sizeof(Buf));
      if (Got > 0) {
        Outcomes[R].Report.append(Buf, size_t(Got));
      } else if (Got == 0 || errno != EINTR) {
        close(Pipes[R]);
        Pipes[R] = -1;
        --Open;
        reap(Pids[R], Outcomes[R]);
        Reaped[R] = true;
        if (Outcomes[R].ExitCode != 0 && !GraceEnd) {
          GraceEnd = Clock::now() + Grace;
          FirstFailed = R;
        }
      }
    }
  }
}

/// Waits for the children superviseChildren did not reap (those it killed).
void reapChildren(const std::vector<pid_t> &Pids, std::vector<int> &Pipes,
                  std::vector<RankOutcome> &Outcomes) {
  for (uint32_t R = 0; R < Pids.size(); ++R) {
    if (Pipes[R] < 0)
      continue;
    close(Pipes[R]);
    reap(Pids[R], Outcomes[R]);
  }
}

} // namespace

llvm::Expected<std::vector<RankOutcome>>
launchLocal(uint32_t Ranks, std::chrono::milliseconds Timeout,
            std::chrono::milliseconds Deadline, const RankBody &Body) {
  TcpConfig Base;
  Base.Size = Ranks;
  Base.Timeout = Timeout;
  Base.Port = 0;
  // The caller's secret if it set one (ranks it starts elsewhere may join),
  // else a fresh one only these children know (forked: no exec, so it never
  // appears in a command line or /proc/PID/environ).
  if (const char *S = std::getenv("COLLPLAN_SECRET"); S && *S) {
    Base.Secret = S;
  } else {
    llvm::Expected<std::string> Secret = newJobSecret();
    if (!Secret)
      return Secret.takeError();
    Base.Secret = std::move(*Secret);
  }
  llvm::Expected<int> Listener = listenOn(Base.Host, Base.Port);
  if (!Listener)
    return Listener.takeError();
  std::fflush(stdout);
  std::fflush(stderr);

  pid_t Launcher = getpid();
  std::vector<pid_t> Pids(Ranks, -1);
  std::vector<int> Pipes(Ranks, -1);
  std::vector<RankOutcome> Outcomes(Ranks);
  for (uint32_t R = 0; R < Ranks; ++R) {
    int Fds[2];
    if (pipe2(Fds, O_CLOEXEC) != 0) {
      killAll(Pids);
      return errnoError("pipe");
    }
    pid_t Pid = fork();
    if (Pid < 0) {
      killAll(Pids);
      return errnoError("fork");
    }
    if (Pid == 0) {
      close(Fds[0]);
      runChild(R, Launcher, Base, *Listener, Fds[1], Pipes, Body);
    }
    close(Fds[1]);
    Pids[R] = Pid;
    Pipes[R] = Fds[0];
  }
  close(*Listener);

  // A rank waiting on the one that failed times out Timeout after its own
  // last progress, which may come a little after the failure: the grace
  // leaves it that long and a margin, so it ends with its own error rather
  // than the launcher's kill.
  auto Grace = Timeout + std::max<std::chrono::milliseconds>(
                             std::chrono::seconds(1), Timeout / 2);
  superviseChildren(Pipes, Pids, Outcomes, Grace, Deadline);
  reapChildren(Pids, Pipes, Outcomes);
  return Outcomes;
}

} // namespace collplan::runtime
