#!/bin/sh
# run_interposer_alltoallv.sh COLLPLAN LIBRARY APP WORKDIR P
# An alltoallv plan for P ranks weighted (s + 2d) % 3 + 1 per pair, and
# AlltoallvApp (mpi_run.sh: Open MPI or MPICH) with LIBRARY preloaded: its
# two calls whose counts are in the weights' proportion run from the plan on
# every rank, and the call with one pair off them goes to PMPI_Alltoallv on
# every rank, saying why; every result matches the library's (the app).
# Then the same plan kept to matrices of 4096 bytes and more (its file's
# name), and the app's 20 small calls and 3 large ones: the ranks agree on
# calls 1-4 (each below the range: to MPI), then back off, agreeing after
# gaps of 1, 2, 4 and 8 calls (calls 6, 9, 14 to MPI, 23 from the plan):
# 7 calls agreed to MPI, 15 sent there without agreeing, 1 from the plan.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS"
W=$(for S in $(seq 0 $((P - 1))); do for D in $(seq 0 $((P - 1))); do
  echo $(((S + 2 * D) % 3 + 1)); done; done | paste -sd, -)
PLAN=$PLANS/alltoallv-p$P-0-inf.cplan
"$COLLPLAN" compile -c alltoallv -a pairwise -P "$P" --weights "$W" -o "$PLAN" >/dev/null

sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$APP" 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; echo "FAIL: the program failed"; exit 1; }
cat "$WORK/out"
fail() { cat "$WORK/log"; echo "FAIL: $1"; exit 1; }
N=$(grep -c "rank [0-9]*: MPI_Alltoallv of any size on $P ranks: plan $PLAN" "$WORK/log" || true)
[ "$N" -eq "$P" ] || fail "the ranks did not all agree on $PLAN"
grep -q "of $P ranks: 2 call(s) from plans, 1 by MPI's own collectives (1 the ranks' counts are not the plan's weights)" "$WORK/log" ||
  fail "two calls did not run from the plan and one fall back"
N=$(grep -c "MPI_Alltoallv: the ranks' counts are not the plan's weights, calling PMPI_Alltoallv" "$WORK/log" || true)
[ "$N" -eq "$P" ] || fail "not every rank logged why it fell back"
echo "alltoallv ran from its plan on all $P ranks and fell back together"

FLOOR=$WORK/floor
mkdir -p "$FLOOR"
cp "$PLAN" "$FLOOR/alltoallv-p$P-4096-inf.cplan"
sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$FLOOR" COLLPLAN_VERBOSE=1 \
  -- "$APP" backoff 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; echo "FAIL: the program failed (backoff)"; exit 1; }
cat "$WORK/out"
grep -q "of $P ranks: 1 call(s) from plans, 22 by MPI's own collectives (7 outside the plan's sizes, 15 the agreement backed off)" "$WORK/log" ||
  fail "the agreement did not back off as its gaps say"
echo "alltoallv below the plan's sizes went to MPI, agreeing on 8 of 23 calls"
