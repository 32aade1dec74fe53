#!/usr/bin/env bash
# bench-tune.sh [--mpi openmpi|mpich] [--reps N] [BUILD_DIR] [P]
#   — tune's choice against the MPI library's own selection.
#
# Tunes allreduce for P ranks of this machine (8 B .. 16 MiB, the README's
# default cost parameters or COLLPLAN_PARAMS=FILE from collplan calibrate),
# then times collplan_bench_calls (IMB-style, time per call) at 1 KiB,
# 64 KiB, 1 MiB and 16 MiB: plain MPI with its default selection, and the
# same program through the interposer built for that MPI running tune's
# plans. --mpi picks the MPI (default openmpi: mpirun, libcollplan_mpi.so;
# mpich: mpiexec.mpich, libcollplan_mpich.so, the program built against
# MPICH). The two are run N times (default 3), interleaved so that drift
# hits both alike; prints per size the medians in microseconds per call,
# the ratio of the medians with the range of the per-pair ratios, and the
# plan that served the size.
set -euo pipefail
MPI=openmpi
REPS=3
while [ $# -gt 0 ]; do
  case $1 in
  --mpi) MPI=$2; shift 2 ;;
  --reps) REPS=$2; shift 2 ;;
  -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) break ;;
  esac
done
BUILD=${1:-build}
P=${2:-8}
COLLPLAN=$BUILD/tools/collplan/collplan
case $MPI in
openmpi)
  LIB=$BUILD/runtime/interposer/libcollplan_mpi.so
  APP=$BUILD/runtime/bench/collplan_bench_calls
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  run() { mpirun --oversubscribe -n "$P" ${1:+-x LD_PRELOAD="$1"} \
            ${1:+-x COLLPLAN_PLANS="$WORK/plans"} "$APP" allreduce $SIZES; } ;;
mpich)
  LIB=$BUILD/runtime/interposer/libcollplan_mpich.so
  APP=$BUILD/runtime/bench/collplan_bench_calls_mpich
  run() { mpiexec.mpich -n "$P" ${1:+-genv LD_PRELOAD "$1"} \
            ${1:+-genv COLLPLAN_PLANS "$WORK/plans"} "$APP" allreduce $SIZES; } ;;
*) echo "bench-tune.sh: --mpi $MPI: openmpi or mpich" >&2; exit 2 ;;
esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SIZES="1024 65536 1048576 16777216"
PARAMS=()
[ -n "${COLLPLAN_PARAMS:-}" ] && PARAMS=(--params "$COLLPLAN_PARAMS")
"$COLLPLAN" tune -c allreduce --ranks "$P" --bytes 8:16MiB "${PARAMS[@]}" \
  -o "$WORK/plans" -q
for ((I = 0; I < REPS; ++I)); do
  echo "bench-tune: $MPI, P = $P, pair $((I + 1)) of $REPS" >&2
  run "" >"$WORK/mpi.$I"
  run "$LIB" >"$WORK/plan.$I"
done
echo "# $MPI, P = $P, $REPS interleaved pairs; us per call, medians"
printf '%8s %12s %12s %6s %13s  %s\n' bytes library_us tuned_us ratio \
  pair_ratios plan
/usr/bin/python3 - "$WORK" "$REPS" <<'PY'
import statistics, sys, yaml
work, reps = sys.argv[1], int(sys.argv[2])
def times(kind):
    runs = [dict(l.split()[:2] for l in open("%s/%s.%d" % (work, kind, i)))
            for i in range(reps)]
    return {int(b): [float(r[b]) for r in runs] for b in runs[0]}
lib, plan = times("mpi"), times("plan")
index = yaml.safe_load(open(work + "/plans/plans.index"))["plans"]
for size in sorted(lib):
    name = ""
    for e in index:
        hi = float("inf") if e["max_bytes"] == "inf" else e["max_bytes"]
        if e["min_bytes"] <= size < hi:
            name = e["algorithm"] + " " + " ".join(
                "%s=%s" % kv for kv in sorted(e["params"].items()))
    m, p = statistics.median(lib[size]), statistics.median(plan[size])
    pairs = [b / a for a, b in zip(lib[size], plan[size])]
    print("%8d %12.2f %12.2f %6.2f %6.2f-%-6.2f  %s" %
          (size, m, p, p / m, min(pairs), max(pairs), name.strip()))
PY
