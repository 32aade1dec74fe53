#!/usr/bin/env bash
# bench-reproducible.sh [--reps N] [--sizes LIST] [BUILD_DIR] [P]
#   — what --reproducible costs on this machine (docs/reproducibility.md).
#
# Tunes allreduce and reduce-scatter for P ranks (default 4) twice, with and
# without --reproducible, then times collplan_bench_calls (float sums,
# IMB-style) plain under Open MPI and through the interposer with each
# directory, the three in turn, N times (default 7). Prints per collective
# and size the medians in microseconds per call, reproducible ÷ default with
# the quartiles of the per-run ratios, and each against plain Open MPI.
set -euo pipefail
REPS=7
SIZES="1024 65536 1048576 16777216"
while [ $# -gt 0 ]; do
  case $1 in
  --reps) REPS=$2; shift 2 ;;
  --sizes) SIZES=$2; shift 2 ;;
  -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) break ;;
  esac
done
BUILD=${1:-build}
P=${2:-4}
COLLPLAN=$BUILD/tools/collplan/collplan
LIB=$BUILD/runtime/interposer/libcollplan_mpi.so
APP=$BUILD/runtime/bench/collplan_bench_calls
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TUNE=("$COLLPLAN" tune --collectives allreduce,reduce-scatter -P "$P"
      --bytes 8:16MiB -q)
"${TUNE[@]}" -o "$WORK/default"
"${TUNE[@]}" --reproducible -o "$WORK/reproducible"
run() { # run DIR COLLECTIVE: plain Open MPI when DIR is empty
  # shellcheck disable=SC2086  # SIZES is a list of arguments
  mpirun --oversubscribe -n "$P" ${1:+-x LD_PRELOAD="$LIB"} \
    ${1:+-x COLLPLAN_PLANS="$1"} "$APP" "$2" $SIZES
}
for C in allreduce reduce_scatter; do
  for ((I = 0; I < REPS; ++I)); do
    echo "bench-reproducible: P = $P, $C, run $((I + 1)) of $REPS" >&2
    run "" "$C" >"$WORK/$C.plain.$I"
    run "$WORK/reproducible" "$C" >"$WORK/$C.reproducible.$I"
    run "$WORK/default" "$C" >"$WORK/$C.default.$I"
  done
done
echo "# P = $P, $REPS runs of each in turn; us per call, medians"
/usr/bin/python3 - "$WORK" "$REPS" <<'PY'
import statistics as st, sys
work, reps = sys.argv[1], int(sys.argv[2])
print("%-14s %9s %10s %13s %10s %10s %11s %11s %13s" % (
    "collective", "bytes", "plain_us", "reproducible", "default",
    "repr/def", "q1-q3", "repr/plain", "default/plain"))
for c in ("allreduce", "reduce_scatter"):
    def times(kind):
        runs = [dict(l.split()[:2] for l in open("%s/%s.%s.%d" % (work, c, kind, i)))
                for i in range(reps)]
        return {int(b): [float(r[b]) for r in runs] for b in runs[0]}
    p, r, d = times("plain"), times("reproducible"), times("default")
    for s in sorted(p):
        pairs = sorted(a / b for a, b in zip(r[s], d[s]))
        q = st.quantiles(pairs, n=4) if len(pairs) > 1 else pairs * 3
        mp, mr, md = st.median(p[s]), st.median(r[s]), st.median(d[s])
        print("%-14s %9d %10.2f %13.2f %10.2f %10.2f %5.2f-%-5.2f %11.2f %13.2f" % (
            c, s, mp, mr, md, mr / md, q[0], q[2], mr / mp, md / mp))
PY
