#!/bin/bash
# bench-slurm.sh [--reps N] [BUILD]
# The time srun --collplan adds to a step's start, on a private Slurm cluster
# started here as the Slurm test does (tests/runtime/slurm/slurm_cluster.sh:
# two slurmd on this host; needs root and Slurm).
#  1. srun --mpi=pmix -N 2 -n 4 of TunedSizesApp at 8 bytes, without the
#     plugin, with the interposer and the cached plans given by hand
#     (--export: what the plugin sets, without the plugin), with --collplan
#     from the cache and with --collplan on an empty cache (tuned each
#     time): N interleaved rounds, median, min and max of srun's wall time.
#     The plugin's own cost is --collplan against "by hand".
#  2. `collplan slurm` alone, what the plugin runs, for steps of 16 tasks
#     per node up to P = 1024: cold (tuned) once, then from the cache
#     (median of 5).
# A benchmark that prints figures, not a test.
set -eu
REPS=7
if [ "${1:-}" = "--reps" ]; then REPS=$2; shift 2; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)
C=$B/tools/collplan/collplan
APP=$B/tests/runtime/runtime_tuned_sizes_app
PLUGIN=$B/runtime/slurm/collplan_spank.so
for F in "$C" "$APP" "$PLUGIN"; do
  [ -e "$F" ] || { echo "missing $F: build collplan, runtime_tuned_sizes_app and collplan_spank"; exit 2; }
done
. "$ROOT/tests/runtime/slurm/slurm_cluster.sh"
cluster_check || exit $?
W=$(mktemp -d /tmp/collplan-bench-slurm.XXXXXX)
trap 'cluster_down; rm -rf "$W"' EXIT
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cluster_up "$W/cluster" "required $PLUGIN collplan=$C cache=$W/cache bytes=8:1MiB"

stats() { # label, then seconds on stdin
  python3 -c '
import statistics, sys
x = sorted(float(v) for v in sys.stdin.read().split())
print(f"{sys.argv[1]:<34} median {statistics.median(x):.3f} s  min {x[0]:.3f}  max {x[-1]:.3f}  (n={len(x)})")' "$1"
}
timed() { # srun arguments: prints the wall time in seconds
  S=$EPOCHREALTIME
  timeout -k 5 300 srun --mpi=pmix -N 2 -n 4 "$@" "$APP" 8 >/dev/null 2>"$W/err" ||
    { cat "$W/err" >&2; echo "srun failed" >&2; exit 1; }
  E=$EPOCHREALTIME
  awk "BEGIN { print $E - $S }"
}

echo "== srun --mpi=pmix -N 2 -n 4, $REPS interleaved rounds"
timed --collplan >/dev/null # the cache's first fill, not counted
DIR=$(ls -d "$W"/cache/*/)
HAND="--export=ALL,LD_PRELOAD=$B/runtime/interposer/libcollplan_mpi.so,COLLPLAN_PLANS=$DIR"
: >"$W/plain" && : >"$W/hand" && : >"$W/cached" && : >"$W/cold"
for I in $(seq "$REPS"); do
  timed >>"$W/plain"
  timed "$HAND" >>"$W/hand"
  timed --collplan >>"$W/cached"
  printf 'required %s collplan=%s cache=%s bytes=8:1MiB\n' "$PLUGIN" "$C" "$W/cold$I" \
    >"$W/cluster/plugstack.conf"
  timed --collplan >>"$W/cold"
  printf 'required %s collplan=%s cache=%s bytes=8:1MiB\n' "$PLUGIN" "$C" "$W/cache" \
    >"$W/cluster/plugstack.conf"
done
stats "without the plugin" <"$W/plain"
stats "interposer and plans by hand" <"$W/hand"
stats "--collplan, from the cache" <"$W/cached"
stats "--collplan, empty cache (tuned)" <"$W/cold"

echo "== collplan slurm alone (what the plugin runs), 16 tasks per node"
for P in 16 64 256 1024; do
  N=$((P / 16))
  export SLURM_NODELIST="n[1-$N]" SLURM_TASKS_PER_NODE="16(x$N)" SLURM_NTASKS=$P
  [ "$N" -eq 1 ] && export SLURM_NODELIST=n1 SLURM_TASKS_PER_NODE=16
  S=$EPOCHREALTIME
  "$C" slurm -q --cache "$W/alone" >/dev/null
  E=$EPOCHREALTIME
  COLD=$(awk "BEGIN { print $E - $S }")
  for I in 1 2 3 4 5; do
    S=$EPOCHREALTIME
    "$C" slurm -q --cache "$W/alone" >/dev/null
    E=$EPOCHREALTIME
    awk "BEGIN { print $E - $S }"
  done >"$W/alone$P"
  printf 'P = %-5s cold (tuned) %8.3f s   ' "$P" "$COLD"
  stats "from the cache" <"$W/alone$P"
done
