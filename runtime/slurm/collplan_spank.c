/*===- collplan_spank.c - srun --collplan: plans for the step's shape -----===*
 *
 * A SPANK plugin for srun. With --collplan (or --collplan=tune) it asks
 * `collplan slurm` for the plan directory tuned for the step's shape (from
 * the cache, or tuned now) before the tasks start; with --collplan=DIR it
 * takes the plan directory DIR as it is. The tasks then get LD_PRELOAD (the
 * interposer) and COLLPLAN_PLANS (the directory), and each loads only its
 * own rank's slice of a plan at its first call. In srun's environment
 * (local context, slurm_spank_local_user_init) rather than slurmstepd's, so
 * the plans are tuned once per step, as the user, not once per node.
 *
 * Whatever it cannot do (a value it does not know, a shape `collplan slurm`
 * cannot read, an unwritable cache, a tune that fails or outlasts its
 * timeout, a missing interposer) costs one line on srun's stderr and the
 * step runs on the MPI library's own collectives: the plugin never fails a
 * step. plugstack.conf arguments (all optional, defaults from the build):
 *
 *   optional /path/collplan_spank.so collplan=/path/collplan
 *       interposer=/path/libcollplan_mpi.so cache=DIR bytes=MIN:MAX
 *       collectives=C1,C2 params=FILE timeout=SECONDS
 *
 *===----------------------------------------------------------------------===*/

#include <slurm/spank.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

SPANK_PLUGIN(collplan, 1);

#ifndef COLLPLAN_DEFAULT_COLLPLAN
#define COLLPLAN_DEFAULT_COLLPLAN "collplan"
#endif
#ifndef COLLPLAN_DEFAULT_INTERPOSER
#define COLLPLAN_DEFAULT_INTERPOSER ""
#endif

static int Requested;
static char Value[PATH_MAX];

/* Never fails: a value it does not know is reported in local_user_init,
 * where the step can still run plain (a failing callback fails srun). */
static int collplanOption(int Val, const char *Arg, int Remote) {
  (void)Val, (void)Remote;
  Requested = 1;
  snprintf(Value, sizeof Value, "%s", Arg ? Arg : "");
  return 0;
}

struct spank_option spank_options[] = {
    {"collplan", "[DIR|tune|measure]",
     "run MPI collectives from collplan plans: tuned for this step's shape "
     "and cached (tune, the default), or from the plan directory DIR",
     2, 0, collplanOption},
    SPANK_OPTIONS_TABLE_END};

/* The plugin's arguments from plugstack.conf. */
struct Config {
  const char *Collplan, *Interposer, *Cache, *Bytes, *Collectives, *Params;
  int Timeout;
};

static void plain(const char *Why, const char *What) {
  slurm_spank_log("collplan: %s%s; running the step without plans", Why,
                  What ? What : "");
}

static int readConfig(int Argc, char **Argv, struct Config *C) {
  C->Collplan = COLLPLAN_DEFAULT_COLLPLAN;
  C->Interposer = COLLPLAN_DEFAULT_INTERPOSER;
  C->Cache = C->Bytes = C->Collectives = C->Params = NULL;
  C->Timeout = 300;
  for (int I = 0; I < Argc; ++I) {
    const char *A = Argv[I];
    const char *Eq = strchr(A, '=');
    size_t Key = Eq ? (size_t)(Eq - A) : strlen(A);
#define COLLPLAN_ARG(Name, Field)                                              \
  if (Eq && Key == strlen(Name) && !strncmp(A, Name, Key)) {                   \
    C->Field = Eq + 1;                                                         \
    continue;                                                                  \
  }
    COLLPLAN_ARG("collplan", Collplan)
    COLLPLAN_ARG("interposer", Interposer)
    COLLPLAN_ARG("cache", Cache)
    COLLPLAN_ARG("bytes", Bytes)
    COLLPLAN_ARG("collectives", Collectives)
    COLLPLAN_ARG("params", Params)
#undef COLLPLAN_ARG
    if (Eq && Key == 7 && !strncmp(A, "timeout", 7) && atoi(Eq + 1) > 0) {
      C->Timeout = atoi(Eq + 1);
      continue;
    }
    plain("plugstack.conf argument not understood: ", A);
    return -1;
  }
  return 0;
}

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec + (double)T.tv_nsec * 1e-9;
}

/* One stream of the child's, read into a buffer (what does not fit is
 * read and dropped, so the child never blocks on a full pipe). */
struct Stream {
  int Fd;
  char *Text;
  size_t Size, Got;
};

/* Reads both streams to their end or until Deadline; 0 if both ended. */
static int drain(struct Stream *S, double Deadline) {
  for (;;) {
    struct pollfd P[2];
    int Of[2], N = 0;
    for (int I = 0; I < 2; ++I)
      if (S[I].Fd >= 0)
        Of[N] = I, P[N++] = (struct pollfd){S[I].Fd, POLLIN, 0};
    if (N == 0)
      return 0;
    int Left = (int)((Deadline - now()) * 1000);
    if (Left <= 0)
      return -1;
    int Ready = poll(P, (nfds_t)N, Left);
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready <= 0)
      return -1;
    for (int J = 0; J < N; ++J) {
      if (!P[J].revents)
        continue;
      struct Stream *T = &S[Of[J]];
      char Scratch[512];
      int Full = T->Got + 1 >= T->Size;
      ssize_t R = read(T->Fd, Full ? Scratch : T->Text + T->Got,
                       Full ? sizeof Scratch : T->Size - 1 - T->Got);
      if (R < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (R <= 0) {
        close(T->Fd);
        T->Fd = -1;
      } else if (!Full) {
        T->Got += (size_t)R;
        T->Text[T->Got] = '\0';
      }
    }
  }
}

/* Runs `collplan slurm ...` and puts the directory it prints in Dir. Its
 * lines on stderr (tuned, or from the cache) are passed on to srun's; when
 * it fails, its last line is the one line saying why the step runs plain.
 * Returns 0 on success. */
static int tunedDirectory(const struct Config *C, char *Dir, size_t Size) {
  const char *Argv[16];
  int N = 0;
  Argv[N++] = C->Collplan;
  Argv[N++] = "slurm";
  if (C->Cache)
    Argv[N++] = "--cache", Argv[N++] = C->Cache;
  if (C->Bytes)
    Argv[N++] = "--bytes", Argv[N++] = C->Bytes;
  if (C->Collectives)
    Argv[N++] = "--collectives", Argv[N++] = C->Collectives;
  if (C->Params)
    Argv[N++] = "--params", Argv[N++] = C->Params;
  Argv[N] = NULL;
  int Out[2], Err[2];
  if (pipe(Out) != 0 || pipe(Err) != 0) {
    plain("cannot run collplan: ", strerror(errno));
    return -1;
  }
  pid_t Child = fork();
  if (Child < 0) {
    close(Out[0]), close(Out[1]), close(Err[0]), close(Err[1]);
    plain("cannot run collplan: ", strerror(errno));
    return -1;
  }
  if (Child == 0) {
    setpgid(0, 0); /* So that a timeout ends tune's processes too. */
    dup2(Out[1], STDOUT_FILENO);
    dup2(Err[1], STDERR_FILENO);
    close(Out[0]), close(Out[1]), close(Err[0]), close(Err[1]);
    execv(C->Collplan, (char *const *)Argv);
    _exit(127);
  }
  close(Out[1]), close(Err[1]);
  char Messages[4096];
  struct Stream S[2] = {{Out[0], Dir, Size, 0},
                        {Err[0], Messages, sizeof Messages, 0}};
  Dir[0] = Messages[0] = '\0';
  int TimedOut = drain(S, now() + C->Timeout) != 0;
  for (int I = 0; I < 2; ++I)
    if (S[I].Fd >= 0)
      close(S[I].Fd);
  if (TimedOut)
    kill(-Child, SIGKILL);
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR)
    ;
  size_t Got = S[0].Got;
  while (Got && (Dir[Got - 1] == '\n' || Dir[Got - 1] == '\r'))
    Dir[--Got] = '\0';
  size_t Said = S[1].Got;
  while (Said && Messages[Said - 1] == '\n')
    Messages[--Said] = '\0';
  if (TimedOut) {
    char Seconds[32];
    snprintf(Seconds, sizeof Seconds, "%d s", C->Timeout);
    plain("collplan slurm did not finish within ", Seconds);
    return -1;
  }
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0 && Got > 0) {
    if (Said)
      slurm_spank_log("%s", Messages);
    return 0;
  }
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 127) {
    plain("cannot run ", C->Collplan);
    return -1;
  }
  /* collplan's last line, without its "collplan: error: " prefix. */
  const char *Why = strrchr(Messages, '\n');
  Why = Why ? Why + 1 : Messages;
  const char *Prefix = "collplan: error: ";
  if (!strncmp(Why, Prefix, strlen(Prefix)))
    Why += strlen(Prefix);
  plain(*Why ? Why : "collplan slurm found no plans for this step", NULL);
  return -1;
}

int slurm_spank_local_user_init(spank_t Spank, int Argc, char **Argv) {
  (void)Spank;
  if (!Requested)
    return 0;
  double Start = now();
  struct Config C;
  if (readConfig(Argc, Argv, &C) != 0)
    return 0;
  if (!C.Interposer[0] || access(C.Interposer, R_OK) != 0) {
    plain("no interposer library: ",
          C.Interposer[0] ? C.Interposer : "(give interposer=PATH)");
    return 0;
  }
  char Dir[PATH_MAX];
  struct stat St;
  if (Value[0] == '\0' || !strcmp(Value, "tune") || !strcmp(Value, "measure")) {
    if (!strcmp(Value, "measure"))
      slurm_spank_log("collplan: --collplan=measure: the plugin tunes by the "
                      "cost model only; measure the directory with `srun "
                      "collplan_tune_mpi DIR`");
    if (tunedDirectory(&C, Dir, sizeof Dir) != 0)
      return 0;
  } else if (strchr(Value, '/') || !strcmp(Value, ".")) {
    /* Absolute, so that a task that changes directory still finds it. */
    if (stat(Value, &St) != 0 || !S_ISDIR(St.st_mode) ||
        !realpath(Value, Dir)) {
      plain("--collplan: not a directory: ", Value);
      return 0;
    }
  } else {
    slurm_spank_log("collplan: unknown --collplan value '%s' (expected tune, "
                    "measure or a directory, a path with '/'); running the "
                    "step without plans",
                    Value);
    return 0;
  }
  /* srun passes its environment to the tasks: set here, seen there. */
  const char *Old = getenv("LD_PRELOAD");
  size_t Length = strlen(C.Interposer) + (Old ? strlen(Old) + 2 : 1);
  char *Preload = malloc(Length);
  if (!Preload) {
    plain("out of memory", NULL);
    return 0;
  }
  snprintf(Preload, Length, "%s%s%s", C.Interposer, Old && *Old ? ":" : "",
           Old ? Old : "");
  setenv("COLLPLAN_PLANS", Dir, 1);
  setenv("LD_PRELOAD", Preload, 1);
  free(Preload);
  slurm_verbose("collplan: plans from %s (%.3f s)", Dir, now() - Start);
  return 0;
}
