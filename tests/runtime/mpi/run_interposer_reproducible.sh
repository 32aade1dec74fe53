#!/bin/sh
# run_interposer_reproducible.sh COLLPLAN LIBRARY APP WORKDIR P
# Reproducible sums under the interposer (ReproducibleSumApp: the same
# floats and doubles summed by calls of four sizes):
# - a directory tuned with --reproducible records 'rounding: reproducible',
#   serves every call from its plans, and gives the same bits at every size
#   and on every rank;
# - a ring plan (identical on every rank, but its blocks' chains move with
#   the size) does give other bits at other sizes: the check is not vacuous;
# - with COLLPLAN_REPRODUCIBLE=1 the interposer refuses that ring plan for
#   floating-point sums, says so, and leaves each call to the library;
# - what the default directory (tune without --reproducible) and plain MPI
#   give is printed for the record.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { cat "$WORK/out" "$WORK/log"; echo "FAIL: $1"; exit 1; }
run() { # DIR [VAR=VALUE]...
  DIR=$1
  shift
  timeout -k 10 120 sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" \
    COLLPLAN_PLANS="$DIR" COLLPLAN_VERBOSE=1 "$@" -- "$APP" \
    >"$WORK/out" 2>"$WORK/log" || fail "the program failed or hung"
  cat "$WORK/out"
}
# The calls' sizes in bytes: 7, 200, 1664 and 2048 elements of 4 and 8.
SIZES="28 800 6656 8192 56 1600 13312 16384"

"$COLLPLAN" tune --collectives allreduce -P "$P" --bytes 8:1MiB \
  --reproducible -o "$WORK/repro" >/dev/null
grep -q "^rounding: reproducible" "$WORK/repro/plans.index" ||
  fail "tune --reproducible did not record it in the index"
run "$WORK/repro"
for B in $SIZES; do
  N=$(grep -c "MPI_Allreduce of $B bytes on $P ranks: plan " "$WORK/log" || true)
  [ "$N" -eq "$P" ] || fail "the call of $B bytes did not run from a plan on every rank ($N)"
done
grep -q "float sums: 0 elements differ across sizes; 0 differ across ranks" \
  "$WORK/out" || fail "reproducible float sums differ"
grep -q "double sums: 0 elements differ across sizes; 0 differ across ranks" \
  "$WORK/out" || fail "reproducible double sums differ"

mkdir -p "$WORK/ring"
"$COLLPLAN" compile -c allreduce -a ring -P "$P" \
  -o "$WORK/ring/allreduce-p$P-0-inf.cplan" >/dev/null
run "$WORK/ring"
if grep -q "float sums: 0 elements differ across sizes" "$WORK/out"; then
  fail "the ring plan gives the same bits at every size: the test shows nothing"
fi
run "$WORK/ring" COLLPLAN_REPRODUCIBLE=1
grep -q "MPI_Allreduce: not running the ring plan .* for P = $P for floating-point sums and products: they are asked to be reproducible" \
  "$WORK/log" || fail "the refused ring plan was not logged"
for B in $SIZES; do
  grep -q "MPI_Allreduce of $B bytes on $P ranks: no reproducible plan fits, calling PMPI_Allreduce" \
    "$WORK/log" || grep -q "MPI_Allreduce of $B bytes on $P ranks: no plan fits, calling PMPI_Allreduce" \
    "$WORK/log" || fail "the call of $B bytes did not fall back with a line"
  if grep -q "MPI_Allreduce of $B bytes on $P ranks: plan " "$WORK/log"; then
    fail "the ring plan served a floating-point sum of $B bytes"
  fi
done

echo "for the record, the default directory (tune without --reproducible):"
"$COLLPLAN" tune --collectives allreduce -P "$P" --bytes 8:1MiB \
  -o "$WORK/default" >/dev/null
run "$WORK/default"
echo "and plain MPI:"
timeout -k 10 120 sh "$MPI_RUN" "$P" -- "$APP" >"$WORK/out" 2>"$WORK/log" ||
  fail "the program failed or hung without the interposer"
cat "$WORK/out"
echo "reproducible directories give the same bits at every size"
