#!/bin/sh
# run_openmpi_rules.sh COLLPLAN SPY APP WORKDIR
# Shows that Open MPI reads and follows the rules file `collplan tune
# --openmpi-rules` writes. SPY (OmpiAlgorithmSpy.c, preloaded) logs which
# coll/base allreduce algorithm Open MPI runs for each call of the plain MPI
# program APP. With the rules file, every call must run the algorithm the
# file names for its size; without it (Open MPI's fixed decision) at least
# one size runs another, so the file made the difference; and the same file
# made invalid (its first rule not starting at 0 bytes, which Open MPI's
# reader refuses) is ignored, giving the fixed decision again.
set -eu
COLLPLAN=$1 SPY=$2 APP=$3 WORK=$4
P=4
rm -rf "$WORK" && mkdir -p "$WORK"
# Restricted to ring and recursive doubling, where Open MPI's fixed
# decision takes Rabenseifner for large vectors: the two must differ.
"$COLLPLAN" tune -c allreduce -P $P --bytes 8:4MiB -a ring,recursive-doubling \
  -o "$WORK/plans" --openmpi-rules "$WORK/rules" -q

# The rules, comments dropped: "MIN_BYTES ALGORITHM 0 0" lines.
sed 's/#.*//' "$WORK/rules" | awk 'NF == 4' >"$WORK/table"
cat "$WORK/table"
[ -s "$WORK/table" ] || { echo "FAIL: no rules"; exit 1; }
awk '$2 < 1 || $2 > 6 { exit 1 }' "$WORK/table" ||
  { echo "FAIL: an algorithm number outside Open MPI's 1..6"; exit 1; }
# Sizes: each rule's first size (at least 4 bytes) and 4 MiB.
SIZES=$(awk '{ print ($1 < 4 ? 4 : $1) }' "$WORK/table" | tr '\n' ' ')
SIZES="$SIZES 4194304"

run() { # LOG [mpirun options...]
  LOG=$1
  shift
  # shellcheck disable=SC2086  # SIZES is a list of arguments
  mpirun --oversubscribe -n $P -x LD_PRELOAD="$SPY" "$@" "$APP" $SIZES \
    2>"$LOG" >"$LOG.out" || {
    cat "$LOG.out" "$LOG"; echo "FAIL: the program failed"; exit 1; }
  grep -q "^ok" "$LOG.out" || { cat "$LOG.out"; echo "FAIL: wrong results"; exit 1; }
  # "BYTES ALGORITHM" per call, rank by rank (the program sends ints).
  awk '/^ompi-spy: allreduce/ { print 4 * $5, $3 }' "$LOG" | sort -n | uniq \
    >"$LOG.calls"
}
DYNAMIC="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename"
# shellcheck disable=SC2086
run "$WORK/with" $DYNAMIC "$WORK/rules"
run "$WORK/without"

# Every call ran the algorithm of the last rule at or below its size.
awk 'NR == FNR { min[NR] = $1; alg[NR] = $2; n = NR; next }
     { want = 0
       for (i = 1; i <= n; ++i) if (min[i] <= $1) want = alg[i]
       name["3"] = "recursivedoubling"; name["4"] = "ring"
       name["6"] = "redscat_allgather"; name["1"] = "basic_linear"
       name["2"] = "nonoverlapping"; name["5"] = "ring_segmented"
       if ($2 != name[want]) {
         printf "FAIL: %d bytes ran %s, the rules say %s\n", $1, $2, name[want]
         bad = 1 }
       else printf "%d bytes: %s, as the rules say\n", $1, $2 }
     END { exit bad }' "$WORK/table" "$WORK/with.calls"
if cmp -s "$WORK/with.calls" "$WORK/without.calls"; then
  echo "FAIL: Open MPI's fixed decision runs the same algorithms: the test shows nothing"
  exit 1
fi
echo "without the file:"; cat "$WORK/without.calls"

# An invalid copy (first rule at 1 byte, not 0) is refused by Open MPI.
awk 'BEGIN { done = 0 } !done && /^0 [0-9]+ 0 0/ { sub(/^0 /, "1 "); done = 1 } { print }' \
  "$WORK/rules" >"$WORK/bad-rules"
# shellcheck disable=SC2086
run "$WORK/bad" $DYNAMIC "$WORK/bad-rules"
cmp -s "$WORK/bad.calls" "$WORK/without.calls" ||
  { echo "FAIL: Open MPI followed an invalid rules file"; exit 1; }
echo "Open MPI followed the rules file and ignored an invalid copy of it"
