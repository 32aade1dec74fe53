#!/bin/sh
# run_measured_openmpi_rules.sh COLLPLAN TUNE_MPI SPY APP WORKDIR
# Open MPI's rules file from measurements of its own algorithms:
# collplan_tune_mpi --openmpi-rules times every coll_tuned allreduce
# algorithm (each forced on its own communicator) beside Open MPI's own
# decision on 4 ranks, and writes the rules. Checked against the
# measurements CSV (each measured size's rule names the fastest contender,
# 0 where Open MPI's own decision was fastest), against Open MPI itself (SPY,
# OmpiAlgorithmSpy.c, logs the algorithm each call of the plain MPI program
# APP runs under the file: the file's, at every size it names one), and
# bad input: an unwritable rules path is exit 4 before any measurement,
# with nothing written.
set -eu
COLLPLAN=$1 TUNE=$2 SPY=$3 APP=$4 WORK=$5
P=4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
"$COLLPLAN" tune -c allreduce -P $P --bytes 8:64KiB -o "$WORK/plans" -q ||
  fail "tune failed"
mpirun --oversubscribe -n $P "$TUNE" "$WORK/plans" --bytes 16:65536 \
  --budget 2s --noise 0 --openmpi-rules "$WORK/rules" \
  >"$WORK/measure.out" 2>"$WORK/measure.log" || {
  cat "$WORK/measure.out" "$WORK/measure.log"; fail "collplan_tune_mpi failed"; }
grep -q "openmpi:ring" "$WORK/measure.out" ||
  { cat "$WORK/measure.out"; fail "Open MPI's ring was not timed"; }

# The rules, comments dropped: "MIN_BYTES ALGORITHM 0 0" lines.
sed 's/#.*//' "$WORK/rules" | awk 'NF == 4' >"$WORK/table"
cat "$WORK/table"
python3 - "$WORK/table" "$WORK/plans/measured-p$P.csv" <<'PY' ||
import csv, math, sys
table = [tuple(map(int, l.split()[:2])) for l in open(sys.argv[1])]
assert table and table[0][0] == 0, table
assert all(a[0] < b[0] for a, b in zip(table, table[1:])), table
assert all(a[1] != b[1] for a, b in zip(table, table[1:])), "unmerged " + str(table)
# Open MPI 4.1.4's allreduce algorithms (MPI_T enumeration), by name.
ids = {"basic_linear": 1, "nonoverlapping": 2, "recursive_doubling": 3,
       "ring": 4, "segmented_ring": 5, "rabenseifner": 6}
rows = list(csv.DictReader(open(sys.argv[2])))
sizes = sorted({int(r["bytes"]) for r in rows})
assert sizes == [16, 64, 256, 1024, 4096, 16384, 65536], sizes
for i, size in enumerate(sizes):
    mine = {r["contender"]: float(r["seconds"]) for r in rows
            if int(r["bytes"]) == size}
    forced = {k[len("openmpi:"):]: v for k, v in mine.items()
              if k.startswith("openmpi:")}
    assert {"ring", "recursive_doubling", "basic_linear"} <= set(forced), mine
    best = min(forced, key=forced.get)
    want = 0 if mine["library"] <= forced[best] else ids[best]
    # The rule covering the size: geometric middles between measured sizes.
    low = 0 if i == 0 else int(math.isqrt(sizes[i - 1] * size))
    got = [alg for start, alg in table if start <= size][-1]
    assert got == want, (size, got, want, mine)
    assert any(start <= low for start, _ in table), (size, table)
print("each measured size's rule is its fastest contender")
PY
  fail "the rules do not follow the measurements"

# Open MPI runs what the file says.
# Each rule's first size and each measured size.
SIZES="$(awk '{ print ($1 < 16 ? 16 : $1) }' "$WORK/table" | tr '\n' ' ')"
SIZES="$SIZES 16 64 256 1024 4096 16384 65536"
# shellcheck disable=SC2086  # SIZES is a list of arguments
mpirun --oversubscribe -n $P -x LD_PRELOAD="$SPY" \
  --mca coll_tuned_use_dynamic_rules 1 \
  --mca coll_tuned_dynamic_rules_filename "$WORK/rules" "$APP" $SIZES \
  2>"$WORK/spy.log" >"$WORK/app.out" || {
  cat "$WORK/app.out" "$WORK/spy.log"; fail "the program failed"; }
grep -q "^ok" "$WORK/app.out" || { cat "$WORK/app.out"; fail "wrong results"; }
awk '/^ompi-spy: allreduce/ { print 4 * $5, $3 }' "$WORK/spy.log" | sort -n |
  uniq >"$WORK/calls"
awk 'NR == FNR { min[NR] = $1; alg[NR] = $2; n = NR; next }
     { want = 0
       for (i = 1; i <= n; ++i) if (min[i] <= $1) want = alg[i]
       name["1"] = "basic_linear"; name["2"] = "nonoverlapping"
       name["3"] = "recursivedoubling"; name["4"] = "ring"
       name["5"] = "ring_segmented"; name["6"] = "redscat_allgather"
       if (want == 0) next  # Open MPI decides
       if ($2 != name[want]) {
         printf "FAIL: %d bytes ran %s, the rules say %s\n", $1, $2, name[want]
         bad = 1 }
       else { printf "%d bytes: %s, as the rules say\n", $1, $2; ok = 1 } }
     END { exit bad }' "$WORK/table" "$WORK/calls" ||
  fail "Open MPI did not follow the measured rules"

# An unwritable rules path: exit 4 before measuring, nothing written.
cp "$WORK/plans/plans.index" "$WORK/index.before"
set +e
mpirun --oversubscribe -n $P "$TUNE" "$WORK/plans" --bytes 16:64 \
  --budget 1s --openmpi-rules "$WORK/no/such/folder/rules" \
  >"$WORK/bad.out" 2>"$WORK/bad.log"
CODE=$?
set -e
[ "$CODE" -eq 4 ] || { cat "$WORK/bad.log"; fail "exit $CODE, not 4"; }
grep -q "cannot write into" "$WORK/bad.log" || { cat "$WORK/bad.log"; fail "no message"; }
cmp -s "$WORK/plans/plans.index" "$WORK/index.before" ||
  fail "the index changed although nothing was measured"
[ ! -e "$WORK/no" ] || fail "a rules file or folder appeared"
echo "measured Open MPI rules: followed by Open MPI, bad path refused"
