#!/bin/sh
# run_interposer_rounding.sh COLLPLAN LIBRARY APP WORKDIR P
# The default's promise that every rank ends with the same bits, kept by the
# interposer: with only a circulant census allreduce plan in the directory
# (whose ranks combine in different orders: the verifier's stamp says so), the
# float sum of FloatSumApp is left to the library with a log line, while
# its int sum (exact in any order) runs from the plan. With
# COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING=1 the float sum runs from the plan
# too, and its ranks' bits do differ: the guard is not vacuous.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS"
PLAN=$PLANS/allreduce-p$P-0-inf.cplan
"$COLLPLAN" compile -c allreduce -a circulant --param variant=census \
  --param order=rank-dependent -P "$P" -o "$PLAN" >/dev/null
fail() { cat "$WORK/out" "$WORK/log"; echo "FAIL: $1"; exit 1; }
run() { # [VAR=VALUE]...
  timeout -k 10 90 sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" \
    COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 "$@" -- "$APP" \
    >"$WORK/out" 2>"$WORK/log" || fail "the program failed or hung"
  cat "$WORK/out"
}
BYTES=$((4096 * 4))
run
N=$(grep -c "MPI_Allreduce: not running the circulant plan .* for P = $P for floating-point sums and products: its ranks may end with different bits .*COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING=1 allows it" "$WORK/log" || true)
[ "$N" -ge 1 ] || fail "the refused plan was not logged"
grep -q "MPI_Allreduce of $BYTES bytes on $P ranks: no plan fits" "$WORK/log" ||
  fail "the float sum did not fall back"
N=$(grep -c "MPI_Allreduce of $BYTES bytes on $P ranks: plan $PLAN" "$WORK/log" || true)
[ "$N" -eq "$P" ] || fail "the int sum did not run from the plan on every rank ($N)"
grep -q "0 floats differ from rank 0's bits" "$WORK/out" ||
  fail "the library's own float sum differs between ranks"

run COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING=1
N=$(grep -c "MPI_Allreduce of $BYTES bytes on $P ranks: plan $PLAN" "$WORK/log" || true)
# The float and the int sum, each on every rank.
[ "$N" -eq $((2 * P)) ] || fail "the float sum did not run from the plan once allowed ($N)"
if grep -q " 0 floats differ from rank 0's bits" "$WORK/out"; then
  fail "the circulant plan's ranks agree bitwise: the test shows nothing"
fi
echo "rank-dependent plans serve floating-point sums only when allowed"
