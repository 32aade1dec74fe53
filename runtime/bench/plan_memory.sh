#!/bin/sh
# plan_memory.sh BUILD_DIR [WORKDIR] - peak memory of one process loading a
# plan: whole (readPlanFile + planHash, as the interposer and `collplan run`
# did before rank slices) against one rank's slice (readRankSlice, what they
# do now), for ring allreduce at P = 1024 and Rabenseifner allreduce at
# P = 16384 as .cplan files. Needs GNU time (Debian package "time").
#
#   runtime/bench/plan_memory.sh build /tmp/plan-memory
set -eu
BUILD=$1 W=${2:-/tmp/collplan-plan-memory}
C=$BUILD/tools/collplan/collplan
BENCH=$BUILD/runtime/bench/collplan_bench_plan_load
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time"; exit 2; }
mkdir -p "$W"
# peak_kb PLAN RANK MODE: the bench's maximum resident set size in KB.
peak_kb() {
  /usr/bin/time -v "$BENCH" "$1" "$2" "$3" 2>"$W/time" >"$W/bench"
  sed -n 's/.*Maximum resident set size (kbytes): //p' "$W/time"
}
seconds() { sed -n 's/.*, \([0-9.]*\) s$/\1/p' "$W/bench"; }
printf '%-36s %10s %6s %14s %9s %14s %9s\n' plan bytes rank \
  "whole peak KB" "whole s" "slice peak KB" "slice s"
for SPEC in ring:1024 rabenseifner:16384; do
  A=${SPEC%%:*} P=${SPEC##*:}
  F=$W/allreduce-$A-p$P.cplan
  [ -s "$F" ] || "$C" compile -c allreduce -a "$A" --ranks "$P" --no-verify \
    -q -o "$F"
  R=$((P / 2))
  WHOLE=$(peak_kb "$F" "$R" whole) WHOLE_S=$(seconds)
  SLICE=$(peak_kb "$F" "$R" slice) SLICE_S=$(seconds)
  printf '%-36s %10s %6s %14s %9s %14s %9s\n' "$(basename "$F")" \
    "$(wc -c <"$F")" "$R" "$WHOLE" "$WHOLE_S" "$SLICE" "$SLICE_S"
done
