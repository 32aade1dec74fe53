#!/bin/sh
# run_interposer_edges.sh COLLPLAN LIBRARY APP WORKDIR
# Runs InterposedEdgeApp on 4 ranks with LIBRARY preloaded and a plan
# directory with two allreduce plans for different byte ranges, plans for
# the 2-rank communicators the app splits off, and a file whose plan is for
# another P than its name says and an unverified plan (both must be ignored,
# not hang). Checks the
# results (the app does), which plan served which call, and the fallbacks.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS"
"$COLLPLAN" compile -c allreduce -a ring -P 4 -o "$PLANS/allreduce-p4-0-4096.cplan" >/dev/null
"$COLLPLAN" compile -c allreduce -a rabenseifner -P 4 -o "$PLANS/allreduce-p4-4096-inf-sum.yaml" >/dev/null
"$COLLPLAN" compile -c reduce-scatter -a permutation -P 4 -o "$PLANS/reduce-scatter-p4-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c allgather -a ring -P 4 -o "$PLANS/allgather-p4-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c allgatherv -a circulant -P 4 --weights 1,2,3,4 --param blocks=3 -o "$PLANS/allgatherv-p4-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c broadcast -a circulant -P 4 --root 1 --param blocks=5 -o "$PLANS/broadcast-p4-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c allreduce -a recursive-doubling -P 2 -o "$PLANS/allreduce-p2-0-inf.json" >/dev/null
# The intercommunicator's local group has 3 ranks: never used there.
"$COLLPLAN" compile -c allgatherv -a recursive-doubling -P 3 --weights 1,1,1 -o "$PLANS/allgatherv-p3-0-inf.cplan" >/dev/null
# Named for P = 2, holds a plan for P = 3.
"$COLLPLAN" compile -c allgather -a ring -P 3 -o "$PLANS/allgather-p2-0-inf.cplan" >/dev/null

# Unverified (no stamp): skipped on every rank with the reason, so the
# broadcast from rank 0 falls back to MPI's own.
"$COLLPLAN" compile -c broadcast -a binomial -P 4 --root 0 --no-verify -o "$PLANS/broadcast-p4-0-1000.cplan" >/dev/null

# run LOG [VAR=VALUE]: the app under the interposer; a hang is a failure,
# so the run is bounded (generously; the machine may be busy).
run() {
  LOG=$1
  shift
  timeout -k 10 90 sh "$MPI_RUN" 4 LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" \
    COLLPLAN_VERBOSE=1 "$@" -- "$APP" 2>"$LOG" >"$WORK/out" || {
    cat "$WORK/out" "$LOG"; echo "FAIL: the program failed or hung"; exit 1; }
  cat "$WORK/out"
}
run "$WORK/log"
fail() { cat "$LOG"; echo "FAIL: $1"; exit 1; }
expect_plan() { # FUNCTION FILE MINIMUM-LINES
  N=$(grep -c "rank [0-9]*: $1 of .*plan $PLANS/$2 " "$LOG" || true)
  [ "$N" -ge "$3" ] || fail "$1 did not run from $2 ($N lines)"
}
expect_plan MPI_Allreduce allreduce-p4-0-4096.cplan 4
expect_plan MPI_Allreduce allreduce-p4-4096-inf-sum.yaml 4
expect_plan MPI_Allreduce allreduce-p2-0-inf.json 4
expect_plan MPI_Reduce_scatter_block reduce-scatter-p4-0-inf.cplan 4
expect_plan MPI_Allgather allgather-p4-0-inf.cplan 4
expect_plan MPI_Allgatherv allgatherv-p4-0-inf.cplan 4
expect_plan MPI_Bcast broadcast-p4-0-inf.cplan 4
grep -q "ignoring $PLANS/allgather-p2-0-inf.cplan" "$WORK/log" ||
  fail "the plan for the wrong P was not reported"
grep -q "ignoring $PLANS/broadcast-p4-0-1000.cplan: .*no verification stamp" "$WORK/log" ||
  fail "the unverified plan was not reported"
grep -q "MPI_Bcast of 800 bytes on 4 ranks: no plan fits" "$WORK/log" ||
  fail "the broadcast from rank 0 did not fall back"
if grep -q "MPI_Allgatherv of .* on 3 ranks: plan" "$WORK/log"; then
  fail "a plan served an intercommunicator"
fi
# COLLPLAN_TRUST_UNVERIFIED=1: the unstamped plan serves that broadcast on
# every rank (the app checks its results).
run "$WORK/log-trusted" COLLPLAN_TRUST_UNVERIFIED=1
expect_plan MPI_Bcast broadcast-p4-0-1000.cplan 4
if grep -q "ignoring $PLANS/broadcast-p4-0-1000.cplan" "$LOG"; then
  fail "the trusted unverified plan was still skipped"
fi

# The index: a broadcast plan for root 0 under a name that says nothing,
# listed by `collplan index`, serves the broadcasts from rank 0 (root 1's
# named plan still serves root 1's).
"$COLLPLAN" compile -c broadcast -a binomial -P 4 --root 0 -o "$PLANS/bcast-from-root-0.cplan" >/dev/null
# Refused: an unverified plan (exit 2, nothing indexed), an operator for a
# broadcast, plans in two directories.
CODE=0
"$COLLPLAN" index "$PLANS/broadcast-p4-0-1000.cplan" 2>"$WORK/err" || CODE=$?
[ "$CODE" -eq 2 ] && grep -q "collplan verify --stamp" "$WORK/err" ||
  { cat "$WORK/err"; echo "FAIL: an unverified plan was indexed ($CODE)"; exit 1; }
[ ! -e "$PLANS/plans.index" ] || { echo "FAIL: a refused index was written"; exit 1; }
CODE=0
"$COLLPLAN" index --op sum "$PLANS/bcast-from-root-0.cplan" 2>"$WORK/err" || CODE=$?
[ "$CODE" -eq 2 ] || { cat "$WORK/err"; echo "FAIL: --op on a broadcast ($CODE)"; exit 1; }
CODE=0
"$COLLPLAN" index "$PLANS/bcast-from-root-0.cplan" "$WORK/other.cplan" 2>"$WORK/err" || CODE=$?
[ "$CODE" -eq 2 ] || { cat "$WORK/err"; echo "FAIL: two directories ($CODE)"; exit 1; }
"$COLLPLAN" index "$PLANS/bcast-from-root-0.cplan" --bytes 0:1MiB
grep -q "root: 0" "$PLANS/plans.index" || { cat "$PLANS/plans.index"; echo "FAIL: no root in the index"; exit 1; }
run "$WORK/log-indexed"
expect_plan MPI_Bcast bcast-from-root-0.cplan 4
expect_plan MPI_Bcast broadcast-p4-0-inf.cplan 4
if grep -q "ignoring $PLANS/bcast-from-root-0.cplan" "$LOG"; then
  fail "the indexed plan was taken for a misnamed one"
fi
# Out of the index again: the file is misnamed, reported and not run.
"$COLLPLAN" index --remove "$PLANS/bcast-from-root-0.cplan" -q
run "$WORK/log-removed"
grep -q "ignoring $PLANS/bcast-from-root-0.cplan" "$LOG" ||
  fail "the plan taken out of the index was not reported as misnamed"
grep -q "MPI_Bcast of 800 bytes on 4 ranks: no plan fits" "$LOG" ||
  fail "the broadcast from rank 0 did not fall back without the index"
# An index that is a FIFO nobody writes (every rank hung at its first
# collective) or a link to /dev/zero (every rank aborted): reported, and the
# named plans serve as without an index. run() bounds the time.
rm -f "$PLANS/plans.index"
mkfifo "$PLANS/plans.index"
run "$WORK/log-fifo-index"
grep -q "plans.index': not a regular file" "$LOG" ||
  fail "the FIFO index was not reported"
expect_plan MPI_Allreduce allreduce-p4-0-4096.cplan 4
rm "$PLANS/plans.index"
ln -s /dev/zero "$PLANS/plans.index"
run "$WORK/log-zero-index"
grep -q "plans.index': not a regular file" "$LOG" ||
  fail "the /dev/zero index was not reported"
expect_plan MPI_Allreduce allreduce-p4-0-4096.cplan 4
rm "$PLANS/plans.index"
echo "interposer edge cases: all checks passed"
