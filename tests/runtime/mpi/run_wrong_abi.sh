#!/bin/sh
# run_wrong_abi.sh COLLPLAN LIBRARY APP WORKDIR
# LIBRARY is the interposer built for the other MPI than the one APP
# (TunedSizesApp) runs on (COLLPLAN_TEST_MPI names APP's). With a plan
# directory that would serve every call, the program must still succeed on
# the library's own collectives (APP checks its results), with exactly one
# line naming the mismatch, and no call may run from a plan.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4
MPI_RUN=$(dirname "$0")/mpi_run.sh
P=3
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS"
"$COLLPLAN" compile -c allreduce -a ring -P "$P" -o "$PLANS/allreduce-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c allgather -a ring -P "$P" -o "$PLANS/allgather-p$P-0-inf.cplan" >/dev/null
fail() { cat "$WORK/out" "$WORK/log"; echo "FAIL: $1"; exit 1; }
timeout -k 10 90 sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" \
  COLLPLAN_VERBOSE=2 -- "$APP" 12 4096 1048576 2>"$WORK/log" >"$WORK/out" ||
  fail "the program failed or hung with the other MPI's interposer"
cat "$WORK/out"
N=$(grep -c "collplan: this interposer is built for .*, but the program runs .*: every collective goes to the library's own; preload libcollplan_mpi.*\.so instead" "$WORK/log" || true)
[ "$N" -eq 1 ] || fail "the mismatch was reported $N times, not once"
if grep -q "plan $PLANS" "$WORK/log"; then
  fail "a call ran from a plan through the other MPI's interposer"
fi
cat "$WORK/log"
echo "the interposer for the other MPI stood aside: one line, right results"
