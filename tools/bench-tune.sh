#!/usr/bin/env bash
# bench-tune.sh [BUILD_DIR] [P] — tune's choice against Open MPI's default.
#
# Tunes allreduce for P ranks of this machine (8 B .. 16 MiB, the README's
# default cost parameters or COLLPLAN_PARAMS=FILE from collplan calibrate),
# then times collplan_bench_calls (IMB-style, time per call) at 1 KiB,
# 64 KiB, 1 MiB and 16 MiB twice: plain Open MPI with its default
# selection, and through the interposer running tune's plans. Prints the
# microseconds per call, the ratio, and the plan that served each size.
set -euo pipefail
BUILD=${1:-build}
P=${2:-8}
COLLPLAN=$BUILD/tools/collplan/collplan
LIB=$BUILD/runtime/interposer/libcollplan_mpi.so
APP=$BUILD/runtime/bench/collplan_bench_calls
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SIZES="1024 65536 1048576 16777216"
PARAMS=()
[ -n "${COLLPLAN_PARAMS:-}" ] && PARAMS=(--params "$COLLPLAN_PARAMS")
"$COLLPLAN" tune -c allreduce --ranks "$P" --bytes 8:16MiB "${PARAMS[@]}" \
  -o "$WORK/plans" -q
RUN=(mpirun --oversubscribe -n "$P")
"${RUN[@]}" "$APP" allreduce $SIZES >"$WORK/mpi"
"${RUN[@]}" -x LD_PRELOAD="$LIB" -x COLLPLAN_PLANS="$WORK/plans" \
  "$APP" allreduce $SIZES >"$WORK/plan"
printf '%8s %12s %12s %6s  %s\n' bytes openmpi_us tuned_us ratio plan
paste "$WORK/mpi" "$WORK/plan" | while read -r BYTES MPI _ PLAN _; do
  FILE=$(/usr/bin/python3 - "$WORK/plans/plans.index" "$BYTES" <<'PY'
import sys, yaml
size = int(sys.argv[2])
for e in yaml.safe_load(open(sys.argv[1]))["plans"]:
    hi = float("inf") if e["max_bytes"] == "inf" else e["max_bytes"]
    if e["min_bytes"] <= size < hi:
        params = " ".join("%s=%s" % kv for kv in sorted(e["params"].items()))
        print(e["algorithm"], params)
PY
)
  awk -v b="$BYTES" -v m="$MPI" -v p="$PLAN" -v f="$FILE" \
    'BEGIN { printf "%8d %12.2f %12.2f %6.2f  %s\n", b, m, p, p / m, f }'
done
