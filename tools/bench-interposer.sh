#!/usr/bin/env bash
# bench-interposer.sh [BUILD_DIR] — what the interposer costs an application.
#
# Runs collplan_bench_calls (time per call, IMB-style) three ways on P = 2
# and 4 ranks, for allreduce, allgather and bcast at 8 B, 1 KiB, 64 KiB and
# 1 MiB, with Open MPI forced to the algorithm the plan runs (ring, ring,
# binomial) so the only difference is the interposer:
#   mpi       plain Open MPI
#   fallback  interposer preloaded, no plan fits (dispatch + MPI's own call)
#   plan      interposer preloaded, the call runs from a collplan plan
# and prints the times in microseconds with the ratios to plain MPI.
set -euo pipefail
BUILD=${1:-build}
COLLPLAN=$BUILD/tools/collplan/collplan
LIB=$BUILD/runtime/interposer/libcollplan_mpi.so
APP=$BUILD/runtime/bench/collplan_bench_calls
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SIZES="8 1024 65536 1048576"
declare -A ALGORITHM=([allreduce]=ring [allgather]=ring [bcast]=binomial)
declare -A OMPI_NUMBER=([allreduce]=4 [allgather]=4 [bcast]=6)
declare -A COLLECTIVE=([allreduce]=allreduce [allgather]=allgather [bcast]=broadcast)

printf '%-9s %2s %8s %10s %10s %6s %10s %6s\n' call P bytes mpi_us \
  fallback_us ratio plan_us ratio
for P in 2 4; do
  for CALL in allreduce allgather bcast; do
    PLANS=$WORK/plans-$CALL-$P EMPTY=$WORK/empty
    mkdir -p "$PLANS" "$EMPTY"
    ROOT=()
    [ "$CALL" = bcast ] && ROOT=(--root 0)
    "$COLLPLAN" compile -c "${COLLECTIVE[$CALL]}" -a "${ALGORITHM[$CALL]}" \
      -P "$P" "${ROOT[@]}" -o "$PLANS/${COLLECTIVE[$CALL]}-p$P-0-inf.cplan" >/dev/null
    FORCE=(--mca coll_tuned_use_dynamic_rules 1
           --mca "coll_tuned_${CALL}_algorithm" "${OMPI_NUMBER[$CALL]}")
    RUN=(mpirun --oversubscribe -n "$P" "${FORCE[@]}")
    "${RUN[@]}" "$APP" "$CALL" $SIZES >"$WORK/mpi"
    "${RUN[@]}" -x LD_PRELOAD="$LIB" -x COLLPLAN_PLANS="$EMPTY" \
      "$APP" "$CALL" $SIZES >"$WORK/fallback"
    "${RUN[@]}" -x LD_PRELOAD="$LIB" -x COLLPLAN_PLANS="$PLANS" \
      "$APP" "$CALL" $SIZES >"$WORK/plan"
    paste "$WORK/mpi" "$WORK/fallback" "$WORK/plan" |
      awk -v c="$CALL" -v p="$P" '{ printf "%-9s %2d %8d %10.2f %10.2f %6.2f %10.2f %6.2f\n",
        c, p, $1, $2, $4, $4 / $2, $6, $6 / $2 }'
  done
done
