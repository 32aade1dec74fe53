#!/usr/bin/env bash
# bench-alltoallv.sh [BUILD_DIR] [REPS] — what the interposer's MPI_Alltoallv
# costs beside Open MPI's own, with an alltoallv plan in the directory (so
# every call pays the ranks' agreement: one PMPI_Allreduce of three int64).
#
# On P = 2 and 4 ranks (mpirun --oversubscribe), REPS (default 5) interleaved
# pairs of runs of collplan_bench_calls alltoallv (each a median over 20
# repetitions of the slowest rank's time per call):
#   mpi   plain Open MPI
#   plan  libcollplan_mpi.so preloaded, COLLPLAN_PLANS from `collplan tune
#         -c alltoallv` (its plan serves every call: equal counts)
# and prints per size a pair the medians of each, and the median and
# quartiles of the ratio plan/mpi over the pairs.
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-5}
COLLPLAN=$BUILD/tools/collplan/collplan
LIB=$(realpath "$BUILD/runtime/interposer/libcollplan_mpi.so")
APP=$BUILD/runtime/bench/collplan_bench_calls
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SIZES=${SIZES:-"8 64 512 4096 32768 262144 1048576"}

for P in 2 4; do
  "$COLLPLAN" tune -c alltoallv -P "$P" -o "$WORK/plans-$P" 2>/dev/null |
    grep -- '->' | sed "s/^/# P = $P: /"
  for R in $(seq "$REPS"); do
    mpirun --oversubscribe -n "$P" "$APP" alltoallv $SIZES >"$WORK/mpi-$P-$R"
    mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$LIB" \
      -x COLLPLAN_PLANS="$WORK/plans-$P" "$APP" alltoallv $SIZES \
      >"$WORK/plan-$P-$R"
  done
done
python3 - "$WORK" "$REPS" <<'PY'
import statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
def read(path):
    return {int(b): float(t) for b, t in (l.split() for l in open(path))}
print(f"{'P':>2} {'bytes/pair':>10} {'mpi_us':>10} {'plan_us':>10}"
      f" {'ratio':>6} {'q1':>6} {'q3':>6}")
for p in (2, 4):
    mpi = [read(f"{work}/mpi-{p}-{r}") for r in range(1, reps + 1)]
    plan = [read(f"{work}/plan-{p}-{r}") for r in range(1, reps + 1)]
    for b in sorted(mpi[0]):
        ratios = sorted(x[b] / m[b] for x, m in zip(plan, mpi))
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else \
            ratios * 3
        print(f"{p:>2} {b:>10} {statistics.median(m[b] for m in mpi):>10.2f}"
              f" {statistics.median(x[b] for x in plan):>10.2f}"
              f" {statistics.median(ratios):>6.2f} {q[0]:>6.2f} {q[2]:>6.2f}")
PY
