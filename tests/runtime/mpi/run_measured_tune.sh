#!/bin/sh
# run_measured_tune.sh COLLPLAN TUNE_MPI LIBRARY APP WORKDIR P BENCH
# Measured tuning end to end: `collplan tune --candidates 3` a directory for
# allreduce and allgather on P ranks (the model's choice and two runners-up
# per size), then collplan_tune_mpi measures it on P ranks under mpirun.
# With a noise band so wide the library always stays, every measured size
# must become a library rule, with every contender's time as evidence, and
# the interposer must send those calls to the library on purpose, saying
# so, with right results (APP checks every element). With no noise band,
# each measured size gets the fastest contender: the library only where it
# measured at least as fast as every plan. A plan of the candidates folder
# that a measured rule names serves calls. --resume takes what an earlier
# run measured. Bad input ends in a documented exit code and leaves the
# directory as it was.
set -eu
COLLPLAN=$1 TUNE=$2 LIB=$3 APP=$4 WORK=$5 P=$6 BENCH=$7
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
"$COLLPLAN" tune --collectives allreduce,allgather -P "$P" --bytes 8:1MiB \
  --candidates 3 -q -o "$PLANS" || fail "tune failed"
ls "$PLANS"/candidates/*.cplan >/dev/null 2>&1 || fail "tune wrote no runners-up"
"$COLLPLAN" verify "$PLANS"/candidates/*.cplan >/dev/null ||
  fail "a runner-up does not verify"

measure() { # measure NOISE [ARGS...]: runs collplan_tune_mpi
  NOISE=$1
  shift
  sh "$MPI_RUN" "$P" COLLPLAN_VERBOSE=1 -- "$TUNE" "$PLANS" --bytes 16:4096 --budget 2s \
    --noise "$NOISE" "$@" >"$WORK/measure.out" 2>"$WORK/measure.log" || {
    cat "$WORK/measure.out" "$WORK/measure.log"
    fail "collplan_tune_mpi --noise $NOISE failed"
  }
}

check_index() { # check_index MODE: the measured rules and their evidence
  python3 - "$PLANS" "$1" <<'PY'
import os, sys, yaml
plans, mode = sys.argv[1], sys.argv[2]
rules = yaml.safe_load(open(os.path.join(plans, "plans.index")))["plans"]
measured = [r for r in rules if "measured" in r]
for coll in ("allreduce", "allgather"):
    mine = sorted((r for r in measured if r["collective"] == coll),
                  key=lambda r: r["min_bytes"])
    # Sizes 16, 64, 256, 1024 and 4096: five ranges from 0 to inf, one
    # after the other, each with a rule.
    assert len(mine) == 5, mine
    assert mine[0]["min_bytes"] == 0 and mine[-1]["max_bytes"] == "inf"
    for a, b in zip(mine, mine[1:]):
        assert a["max_bytes"] == b["min_bytes"], (a, b)
    for r in mine:
        m = r["measured"]
        timed = [k for k in m if k != "library"]
        # The model's choice and at least one runner-up were timed.
        assert "library" in m and len(timed) >= 2, r
        assert any(k.startswith("candidates/") for k in timed), r
        for k in timed:
            assert os.path.isfile(os.path.join(plans, k)), k
        assert r["min_bytes"] <= r["measured_bytes"] < (
            float("inf") if r["max_bytes"] == "inf" else r["max_bytes"]), r
        fastest = min(m[k] for k in timed)
        if mode == "always":
            assert r.get("library"), r
        elif r.get("library"):
            assert m["library"] <= fastest, r
        else:
            # Strictly faster; the evidence is rounded to the nanosecond.
            assert m[r["file"]] == fastest and fastest <= m["library"], r
# The model's plans stay listed.
assert sum(1 for r in rules if "file" in r and "measured" not in r) >= 2
print("%d measured rule(s)" % len(measured))
PY
}

# Noise band 1000: the plan would have to be 1000 times faster.
measure 1000
grep -q "allreduce" "$WORK/measure.out" || fail "no measurements printed"
check_index always || fail "library rules wrong after --noise 1000"
# Every measurement is in the CSV: two collectives at 16, 64, ..., 4096
# bytes, a row per contender, the library chosen at each.
python3 - "$PLANS/measured-p$P.csv" <<'PY' || fail "the measurements CSV is wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = {(r["collective"], r["bytes"]) for r in rows}
assert len(sizes) == 10, sizes
assert {c for c, _ in sizes} == {"allreduce", "allgather"}, rows
assert all(float(r["seconds"]) > 0 for r in rows), rows
for s in sizes:
    mine = [r for r in rows if (r["collective"], r["bytes"]) == s]
    assert len(mine) >= 3, mine
    assert [r["contender"] for r in mine if r["chosen"] == "1"] == ["library"], mine
PY
grep -q "measuring allreduce on P = $P: 5 sizes" "$WORK/measure.log" ||
  { cat "$WORK/measure.log"; fail "no progress lines"; }
# Every plan was timed as an interposed call runs it: through the
# interposer's decision (its log line), the model's choice and runners-up.
for FN in MPI_Allreduce MPI_Allgather; do
  for DIR in "$PLANS" "$PLANS/candidates"; do
    grep -q "$FN of [0-9]* bytes on $P ranks: plan $DIR/[^/]*\.cplan" \
      "$WORK/measure.log" ||
      { cat "$WORK/measure.log"; fail "$FN: no plan of $DIR timed through the interposer"; }
  done
done
"$COLLPLAN" verify "$PLANS"/*.cplan >/dev/null || fail "a plan no longer verifies"
sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$APP" 64 4096 65536 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; fail "the program failed"; }
# Each of the three sizes, on every rank (the allgather's size is rounded to
# P equal shares of whole ints).
for FN in MPI_Allreduce MPI_Allgather; do
  N=$(grep -c "$FN of [0-9]* bytes on $P ranks: tuned: the library's own call measured faster here, calling PMPI_" "$WORK/log" || true)
  [ "$N" -ge $((3 * P)) ] || { cat "$WORK/log"; fail "$FN was not sent to the library on purpose on every rank"; }
done
if grep -q ": plan $PLANS" "$WORK/log"; then
  cat "$WORK/log"; fail "a plan ran where a library rule covers the call"
fi
grep -q "tuned: the library's own call measured faster here)" "$WORK/log" ||
  grep -q "by MPI's own collectives (.*tuned: the library's own call" "$WORK/log" ||
  { cat "$WORK/log"; fail "the summary does not count the tuned calls"; }

# A call repeated under a library rule goes straight to the library, and
# is still counted: collplan_bench_calls makes 51 warm-up calls and 20
# repetitions of 200 allgathers of 64 B (its own barriers and reductions of
# its times call PMPI_, which the interposer does not see).
sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$BENCH" allgather 64 2>"$WORK/bench.log" >"$WORK/bench.out" || {
  cat "$WORK/bench.out" "$WORK/bench.log"; fail "the benchmark failed"; }
grep -q "MPI_COMM_WORLD of $P ranks: 0 call(s) from plans, 4051 by MPI's own collectives (4051 tuned: the library's own call measured faster here)" "$WORK/bench.log" ||
  { cat "$WORK/bench.log"; fail "repeated library calls miscounted"; }

# No noise band: a new measurement replaces the old rules.
measure 0
check_index exact || fail "a measured rule is not the fastest contender"

# --resume takes every size the last run measured, and writes the same
# index; with the CSV cut after the first table, it measures the rest.
cp "$PLANS/plans.index" "$WORK/index.measured"
measure 0 --resume
grep -q -- "--resume: 10 size(s) taken" "$WORK/measure.log" ||
  { cat "$WORK/measure.log"; fail "--resume measured again"; }
cmp -s "$PLANS/plans.index" "$WORK/index.measured" ||
  fail "--resume wrote another index"
grep -v "^allgather," "$PLANS/measured-p$P.csv" >"$WORK/partial.csv"
mv "$WORK/partial.csv" "$PLANS/measured-p$P.csv"
measure 0 --resume
grep -q -- "--resume: 5 size(s) taken" "$WORK/measure.log" ||
  { cat "$WORK/measure.log"; fail "--resume did not measure what was missing"; }
grep -q "^allgather " "$WORK/measure.out" || fail "allgather was not measured"
check_index exact || fail "the resumed measurement is wrong"

# A measured rule naming a runner-up of candidates/ serves its calls: one
# such rule made by hand here, as a measurement would make it when the
# runner-up wins (which timing cannot promise in a test).
python3 - "$PLANS" <<'PY' || fail "cannot point a rule at a runner-up"
import os, sys, yaml
plans = sys.argv[1]
path = os.path.join(plans, "plans.index")
doc = yaml.safe_load(open(path))
runners = [r for r in yaml.safe_load(open(os.path.join(plans, "candidates", "plans.index")))["plans"]
           if r["collective"] == "allreduce"]
for r in doc["plans"]:
    if "measured" in r and r["collective"] == "allreduce" and r["min_bytes"] == 0:
        r.pop("library", None)
        r["file"] = "candidates/" + runners[0]["file"]
        r["max_bytes"] = "inf"
doc["plans"] = [r for r in doc["plans"] if not ("measured" in r and r["collective"] == "allreduce" and r["min_bytes"] != 0)]
yaml.safe_dump(doc, open(path, "w"))
PY
sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$APP" 64 4096 65536 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; fail "the program failed on a runner-up"; }
N=$(grep -c "MPI_Allreduce of [0-9]* bytes on $P ranks: plan $PLANS/candidates/" "$WORK/log" || true)
[ "$N" -ge $((3 * P)) ] || { cat "$WORK/log"; fail "the runner-up did not serve"; }
measure 0 # Restores measured rules for what follows.

# Bad input: exit 2, nothing written.
cp "$PLANS/plans.index" "$WORK/index.before"
for ARGS in "--budget 0" "--budget 10x" "--noise -1" "--bytes 64:16"; do
  # shellcheck disable=SC2086  # ARGS is a list of arguments
  if sh "$MPI_RUN" "$P" -- "$TUNE" "$PLANS" $ARGS >"$WORK/bad.out" 2>&1; then
    fail "collplan_tune_mpi $ARGS succeeded"
  fi
  grep -q "expected --bytes MIN:MAX" "$WORK/bad.out" || { cat "$WORK/bad.out"; fail "no message for $ARGS"; }
done
sh "$MPI_RUN" 1 -- "$TUNE" "$PLANS" >"$WORK/bad.out" 2>&1 && fail "P = 1 succeeded"
grep -q "has no plans for P = 1" "$WORK/bad.out" || { cat "$WORK/bad.out"; fail "no message for a P without plans"; }
sh "$MPI_RUN" "$P" -- "$TUNE" "$WORK/missing" >"$WORK/bad.out" 2>&1 && fail "a missing directory succeeded"
# A rank killed mid-measurement ends the job (mpirun's own rule), promptly,
# and the index is as it was: only rank 0 writes it, at the end.
sh "$MPI_RUN" "$P" -- "$TUNE" "$PLANS" --budget 120 -q >"$WORK/killed.out" 2>&1 &
JOB=$!
sleep 3
VICTIM=$(pgrep -f "^$TUNE $PLANS --budget 120" | tail -1 || true)
[ -n "$VICTIM" ] || fail "no rank to kill"
kill -9 "$VICTIM"
WAITED=0
while kill -0 "$JOB" 2>/dev/null && [ "$WAITED" -lt 60 ]; do
  sleep 1
  WAITED=$((WAITED + 1))
done
if kill -0 "$JOB" 2>/dev/null; then
  kill -9 "$JOB"; fail "the job hung after a rank was killed"
fi
wait "$JOB" && fail "the job succeeded although a rank was killed"
cmp -s "$PLANS/plans.index" "$WORK/index.before" || fail "bad input changed the index"
# An index that cannot be written (here a directory in its place): exit 4,
# after measuring, with the reason; the plans are untouched.
mkdir -p "$WORK/unwritable"
cp "$PLANS"/*.cplan "$WORK/unwritable/"
mkdir "$WORK/unwritable/plans.index"
if sh "$MPI_RUN" "$P" -- "$TUNE" "$WORK/unwritable" --bytes 16:64 --budget 1 \
  >"$WORK/unwritable.out" 2>&1; then
  fail "an unwritable index succeeded"
else
  CODE=$?
fi
[ "$CODE" -eq 4 ] || { cat "$WORK/unwritable.out"; fail "exit $CODE for an unwritable index, expected 4"; }
grep -q "plans.index" "$WORK/unwritable.out" || { cat "$WORK/unwritable.out"; fail "the unwritable index is not named"; }
# Without --noise the band widens where the node runs more ranks than it
# has cores (its timings change from job to job), and only there.
if [ "$P" -gt "$(nproc)" ]; then
  grep -q "more ranks than it has cores: noise band 0.35" "$WORK/unwritable.out" ||
    { cat "$WORK/unwritable.out"; fail "no wider noise band on $P ranks and $(nproc) cores"; }
elif grep -q "noise band 0.35" "$WORK/unwritable.out"; then
  cat "$WORK/unwritable.out"; fail "a wider noise band on $P ranks and $(nproc) cores"
fi
for F in "$PLANS"/*.cplan; do
  cmp -s "$F" "$WORK/unwritable/$(basename "$F")" || fail "a plan changed"
done
echo "measured tuning: library rules with evidence, fallback on purpose, bad input refused"
