#!/bin/sh
# run_measured_mpich_rules.sh COLLPLAN TUNE_MPICH SPY APP_SOURCE WORKDIR
# MPICH's selection file from measurements of its own algorithms:
# collplan_tune_mpich --mpich-json times MPICH 4.0's allreduce and
# allgather algorithms (each forced through MPIR_CVAR_<C>_INTRA_ALGORITHM,
# written through MPI_T before its batches) beside MPICH's own decision on
# 4 ranks, and writes the JSON. Checked against the measurements CSV,
# recomputed here (each measured size's allreduce rule names the fastest
# algorithm, or, where MPICH's own call was at least as fast, the one timed
# nearest it); against MPICH itself: a copy naming an unknown algorithm
# aborts, so MPICH reads the file, and under the file SPY (MpichSendSpy.c)
# logs the messages each MPI_Allreduce of the plain program APP sends,
# which are the named algorithm's at every measured size (as they are
# under a hand-made file naming both algorithms, which shows the spy tells
# them apart); and bad input: an unwritable path is exit 4 before any
# measurement with nothing written, both libraries' files at once exit 2.
set -eu
COLLPLAN=$1 TUNE=$2 SPY=$3 SOURCE=$4 WORK=$5
P=4
SIZES="16 64 256 1024 4096"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
mpicc.mpich -O1 -o "$WORK/app" "$SOURCE"
# Two collectives: the second forces its algorithms after the first's are
# released (MPICH 4.0 crashes if the tool interface is started again).
"$COLLPLAN" tune --collectives allreduce,allgather -P $P --bytes 8:64KiB \
  -o "$WORK/plans" -q ||
  fail "tune failed"
# One call per batch, one batch per contender and size: MPICH's ranks poll,
# so on a loaded machine a call can take a time slice.
timeout -k 10 240 mpiexec.mpich -n $P "$TUNE" "$WORK/plans" --bytes 16:4096 \
  --budget 1s --batches 1 --calls 1 --noise 0 --mpich-json "$WORK/sel.json" \
  >"$WORK/measure.out" 2>"$WORK/measure.log" || {
  cat "$WORK/measure.out" "$WORK/measure.log"; fail "collplan_tune_mpich failed"; }
grep -q "mpich:recursive_doubling" "$WORK/measure.out" ||
  { cat "$WORK/measure.out"; fail "MPICH's recursive doubling was not timed"; }
cat "$WORK/sel.json"

# The file against the measurements; prints "BYTES ALGORITHM" per size.
python3 - "$WORK/sel.json" "$WORK/plans/measured-p$P.csv" \
  >"$WORK/expected" <<'PY' || fail "the file does not follow the measurements"
import csv, json, math, sys
tree = json.load(open(sys.argv[1]))
assert list(tree) == ["collective=allreduce", "collective=allgather"], list(tree)
gather = tree["collective=allgather"]["comm_type=intra"]
assert gather and all(k.startswith("total_msg_size") for k in gather), gather
assert {a for leaf in gather.values() for a in leaf} <= {
    "algorithm=MPIR_Allgather_intra_" + n
    for n in ("brucks", "recursive_doubling", "ring")}, gather
intra = tree["collective=allreduce"]["comm_type=intra"]
assert list(intra) == ["is_op_built_in=yes", "is_op_built_in=no"], list(intra)
assert list(intra["is_op_built_in=no"]) == [
    "algorithm=MPIR_Allreduce_intra_recursive_doubling"]
table = []  # (inclusive bound or None, algorithm)
for key, leaf in intra["is_op_built_in=yes"].items():
    (algo,) = leaf
    assert algo.startswith("algorithm=MPIR_Allreduce_"), algo
    bound = None if key == "avg_msg_size=any" else int(key.split("<=")[1])
    table.append((bound, algo[len("algorithm="):]))
assert table[-1][0] is None and all(b is not None for b, _ in table[:-1]), table
assert all(a[1] != b[1] for a, b in zip(table, table[1:])), "unmerged"
rows = [r for r in csv.DictReader(open(sys.argv[2]))
        if r["collective"] == "allreduce"]
sizes = sorted({int(r["bytes"]) for r in rows})
assert sizes == [16, 64, 256, 1024, 4096], sizes
# A boundary lies at a geometric middle of two measured sizes.
middles = {math.isqrt(a * b) for a, b in zip(sizes, sizes[1:])}
assert all(b + 1 in middles for b, _ in table[:-1]), (table, middles)
def selection(name):
    return "MPIR_Allreduce_intra_" + name
for size in sizes:
    mine = {r["contender"]: float(r["seconds"]) for r in rows
            if int(r["bytes"]) == size}
    forced = {k[len("mpich:"):]: v for k, v in mine.items()
              if k.startswith("mpich:")}
    assert set(forced) == {"recursive_doubling", "reduce_scatter_allgather"}, mine
    own = mine["library"]
    best = min(forced, key=forced.get)
    if own <= forced[best]:  # --noise 0: MPICH's own, as the nearest
        best = min(forced, key=lambda k: abs(forced[k] - own))
    got = next(a for b, a in table if b is None or size <= b)
    assert got == selection(best), (size, got, best, mine)
    print(size, got)
PY
cat "$WORK/expected"

# run FILE: the app on P ranks of MPICH under selection FILE, spied on.
run() {
  # shellcheck disable=SC2086  # SIZES is a list of arguments
  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$1 timeout -k 10 120 \
    mpiexec.mpich -n $P -genv LD_PRELOAD "$SPY" "$WORK/app" $SIZES \
    >"$WORK/app.out" 2>"$WORK/spy.log"
}
# MPICH reads the file: a copy naming an unknown algorithm aborts.
sed 's/"algorithm=MPIR_Allreduce_[a-z_]*"/"algorithm=MPIR_Allreduce_intra_no_such"/' \
  "$WORK/sel.json" >"$WORK/broken.json"
if run "$WORK/broken.json"; then
  cat "$WORK/app.out" "$WORK/spy.log"; fail "MPICH ran a file naming an unknown algorithm"
fi
# ran LOG EXPECTED: each rank's messages within each call, by the
# algorithms' definitions on 4 ranks with a vector of N bytes: recursive
# doubling sends N twice under MPIR_ALLREDUCE_TAG (14); reduce-scatter +
# allgather (Rabenseifner) N/2, N/4, N/4, N/2 under it. (Smp needs more than one node and is left out
# with its first call's error; nb is not forced, see MpichAlgorithms.cpp.)
cat >"$WORK/ran.py" <<'PY'
import collections, sys
want = {int(l.split()[0]): l.split()[1] for l in open(sys.argv[2])}
calls = collections.defaultdict(list)  # (pid, bytes) -> [(bytes, tag)]
inside = {}
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0] != "mpich-spy:":
        continue
    pid = f[1]
    if f[2] == "allreduce":
        inside[pid] = 4 * int(f[3])
        calls[(pid, inside[pid])] = []
    elif f[2] == "end":
        inside.pop(pid)
    elif f[2] == "send" and pid in inside:
        calls[(pid, inside[pid])].append((int(f[3]), int(f[5])))
def algorithm(n, sends):
    tags = {t for _, t in sends}
    sizes = sorted(b for b, _ in sends)
    if tags == {14} and sizes == [n, n]:
        return "MPIR_Allreduce_intra_recursive_doubling"
    if tags == {14} and sizes == sorted([n // 2, n // 4, n // 4, n // 2]):
        return "MPIR_Allreduce_intra_reduce_scatter_allgather"
    return "unknown %s" % sends
pids = {p for p, _ in calls}
assert len(pids) == 4, pids
bad = 0
for size, name in sorted(want.items()):
    ran = {algorithm(size, calls[(p, size)]) for p in pids}
    ok = ran == {name}
    bad += not ok
    print("%d bytes: ran %s, the file names %s%s" %
          (size, ", ".join(sorted(ran)), name, "" if ok else "  <-- FAIL"))
sys.exit(bad)
PY
ran() { python3 "$WORK/ran.py" "$@"; }
# The observer tells the two apart: a hand-made file naming recursive
# doubling up to 127 B and reduce-scatter + allgather above.
cat >"$WORK/control.json" <<'JSON'
{"collective=allreduce": {"comm_type=intra": {
  "avg_msg_size<=127": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
  "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}}}
JSON
printf '%s\n' "16 MPIR_Allreduce_intra_recursive_doubling" \
  "64 MPIR_Allreduce_intra_recursive_doubling" \
  "256 MPIR_Allreduce_intra_reduce_scatter_allgather" \
  "1024 MPIR_Allreduce_intra_reduce_scatter_allgather" \
  "4096 MPIR_Allreduce_intra_reduce_scatter_allgather" >"$WORK/control"
run "$WORK/control.json" || { cat "$WORK/app.out" "$WORK/spy.log"; fail "the program failed"; }
ran "$WORK/spy.log" "$WORK/control" || fail "the observer does not tell the algorithms apart"
# The measured file.
run "$WORK/sel.json" || { cat "$WORK/app.out" "$WORK/spy.log"; fail "the program failed"; }
grep -q "^ok" "$WORK/app.out" || { cat "$WORK/app.out"; fail "wrong sums"; }
ran "$WORK/spy.log" "$WORK/expected" || fail "MPICH did not run what the file names"

# An unwritable path: exit 4 before measuring, nothing written.
cp "$WORK/plans/plans.index" "$WORK/index.before"
set +e
timeout -k 10 120 mpiexec.mpich -n $P "$TUNE" "$WORK/plans" --bytes 16:64 \
  --budget 1s --mpich-json "$WORK/no/such/folder/sel.json" \
  >"$WORK/bad.out" 2>"$WORK/bad.log"
CODE=$?
set -e
[ "$CODE" -eq 4 ] || { cat "$WORK/bad.log"; fail "exit $CODE, not 4"; }
grep -q "cannot write into" "$WORK/bad.log" || { cat "$WORK/bad.log"; fail "no message"; }
cmp -s "$WORK/plans/plans.index" "$WORK/index.before" ||
  fail "the index changed although nothing was measured"
[ ! -e "$WORK/no" ] || fail "a file or folder appeared"
# Both libraries' files: a usage error.
set +e
timeout -k 10 120 mpiexec.mpich -n 1 "$TUNE" "$WORK/plans" \
  --openmpi-rules "$WORK/r" --mpich-json "$WORK/j" >"$WORK/both.out" 2>&1
CODE=$?
set -e
[ "$CODE" -eq 2 ] || { cat "$WORK/both.out"; fail "both files: exit $CODE, not 2"; }
[ ! -e "$WORK/r" ] && [ ! -e "$WORK/j" ] || fail "a file appeared"
echo "measured MPICH selection: followed by MPICH, bad input refused"
