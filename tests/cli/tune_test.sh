#!/bin/sh
# tune_test.sh COLLPLAN
# `collplan tune` end to end, against oracles outside it: every plan in the
# directory verifies and carries a valid stamp; the index covers [0, inf)
# without gaps and names exactly the plan files written; at every size
# priced, the plan serving it is the cheapest of the directory's plans by
# `collplan cost`; the Open MPI file holds only Open MPI's algorithm
# numbers; the MPICH file is JSON naming MPICH algorithms; the output is
# deterministic; refusals have their exit codes.
set -eu
C=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$C" tune --collectives allreduce,allgather,reduce-scatter,broadcast -P 8 \
  --bytes 8:1GiB -o "$W/plans" --openmpi-rules "$W/rules" \
  --mpich-json "$W/mpich.json" >"$W/out" 2>"$W/err" ||
  { cat "$W/out" "$W/err"; fail "tune failed"; }
cat "$W/out"
grep -q "^collplan: tune: allreduce on P = 8: pricing every candidate at 28 sizes" \
  "$W/err" || { cat "$W/err"; fail "no progress lines on stderr"; }

# Every plan verifies, with a valid stamp.
for F in "$W"/plans/*.cplan; do
  "$C" verify "$F" --format json >"$W/v.json" || fail "$F does not verify"
  grep -q '"stamp": "valid"' "$W/v.json" || fail "$F has no valid stamp"
done

# The index: contiguous ranges from 0 to inf, exactly the files written.
python3 - "$W/plans" >"$W/ranges" <<'PY' || fail "index"
import os, sys, yaml
d = sys.argv[1]
index = yaml.safe_load(open(os.path.join(d, "plans.index")))
assert index["version"] == 1, index
tables = {}
for e in index["plans"]:
    tables.setdefault((e["collective"], e["ranks"]), []).append(e)
named = set()
for (coll, ranks), rs in tables.items():
    rs.sort(key=lambda r: r["min_bytes"])
    assert rs[0]["min_bytes"] == 0, rs[0]
    assert rs[-1]["max_bytes"] == "inf", rs[-1]
    for a, b in zip(rs, rs[1:]):
        assert a["max_bytes"] == b["min_bytes"], (a, b)
    for r in rs:
        assert r["file"] == "%s-p%d-%d-%s.cplan" % (
            coll, ranks, r["min_bytes"], r["max_bytes"]), r
        assert r["why"].startswith("fastest predicted at"), r
        named.add(r["file"])
        if coll == "allreduce":
            print(r["min_bytes"], r["max_bytes"], r["file"], r["algorithm"])
files = {f for f in os.listdir(d) if f.endswith(".cplan")}
assert files == named, (files ^ named)
PY
cat "$W/ranges"

# At every size priced (powers of two, 8 B .. 1 GiB), the allreduce plan
# serving it costs least among the directory's allreduce plans.
S=8
while [ "$S" -le 1073741824 ]; do
  BEST= BESTT=
  for F in "$W"/plans/allreduce-*.cplan; do
    T=$("$C" cost "$F" --bytes "$S" --no-verify --format json |
      python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["predicted_time"]))')
    echo "$S $T $(basename "$F")"
  done >"$W/costs.$S"
  SERVED=$(awk -v s="$S" '$1 <= s && ($2 == "inf" || s < $2) { print $3 }' "$W/ranges")
  python3 - "$W/costs.$S" "$SERVED" <<'PY' || fail "size $S"
import sys
rows = [l.split() for l in open(sys.argv[1])]
served = [float(t) for s, t, f in rows if f == sys.argv[2]][0]
best = min(float(t) for s, t, f in rows)
if served > best * (1 + 1e-9):
    sys.exit("%s costs %r, another plan %r" % (sys.argv[2], served, best))
PY
  S=$((S * 2))
done
echo "each size's plan is the cheapest of the directory's"

# Open MPI: only its own numbers, each collective's rules starting at 0.
sed 's/#.*//' "$W/rules" | awk 'NF == 4' >"$W/table"
[ -s "$W/table" ] || fail "no Open MPI rules"
awk '$2 < 1 || $2 > 9 || $3 != 0 || $4 != 0 { exit 1 }' "$W/table" ||
  fail "a rule outside Open MPI's numbering"
grep -q "^# *allreduce: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling," \
  "$W/rules" || fail "the numbering is not documented in the file"
grep -q "^# reduce-scatter: no rules" "$W/rules" ||
  fail "reduce-scatter not said to have no rules"

# MPICH: JSON whose leaves are MPICH 4.0 algorithms, each table ending in
# "any"; allreduce's table for built-in operators only, user-defined ones
# taking recursive doubling (runtime_tune_mpich_selection loads it into
# MPICH).
python3 - "$W/mpich.json" <<'PY' || fail "MPICH JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"collective=allreduce", "collective=allgather",
                  "collective=bcast"}, list(d)
for coll, tree in d.items():
    rules = tree["comm_type=intra"]
    if coll == "collective=allreduce":
        assert list(rules) == ["is_op_built_in=yes", "is_op_built_in=no"], rules
        assert rules["is_op_built_in=no"] == {
            "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}
        rules = rules["is_op_built_in=yes"]
        assert "algorithm=MPIR_Allreduce_intra_ring" not in json.dumps(rules)
    keys = list(rules)
    assert keys[-1].endswith("=any"), keys
    for k, leaf in rules.items():
        (alg,) = leaf.keys()
        assert alg.startswith("algorithm=MPIR_"), alg
PY

# Deterministic: the same request writes the same bytes.
"$C" tune --collectives allreduce,allgather,reduce-scatter,broadcast -P 8 \
  --bytes 8:1GiB -o "$W/again" --openmpi-rules "$W/rules2" \
  --mpich-json "$W/mpich2.json" -q
for F in "$W"/plans/*; do
  cmp -s "$F" "$W/again/$(basename "$F")" || fail "$(basename "$F") differs"
done
cmp -s "$W/rules" "$W/rules2" && cmp -s "$W/mpich.json" "$W/mpich2.json" ||
  fail "the tuning files differ between two runs"

# Without -o only the libraries' files, the same as with it.
"$C" tune --collectives allreduce,allgather,reduce-scatter,broadcast -P 8 \
  --bytes 8:1GiB --openmpi-rules "$W/rules3" -q
cmp -s "$W/rules" "$W/rules3" || fail "the rules differ without -o"

# Several roots in one directory: broadcast from roots 0 and 2, then from 3
# and a reduce to 3 in later runs beside them. Each (collective, root) keeps
# its own files and index entries covering [0, inf), and every plan's header
# has the root its entry says (before --roots, a second root's run replaced
# the first's files under the same names).
"$C" tune -c broadcast -P 4 --roots 0,2 --bytes 8:1MiB -o "$W/roots" -q
"$C" tune -c broadcast -P 4 --root 3 --bytes 8:1MiB -o "$W/roots" -q
"$C" tune -c reduce -P 4 --roots 3 --bytes 8:1MiB -o "$W/roots" -q
for F in "$W"/roots/*.cplan; do
  "$C" show "$F" | head -1 | sed "s|^|$(basename "$F") |"
done >"$W/roots.shown"
python3 - "$W/roots" "$W/roots.shown" <<'PY' || fail "roots"
import os, re, sys, yaml
d = sys.argv[1]
shown = {}
for line in open(sys.argv[2]):
    name = line.split()[0]
    m = re.search(r"root (\d+)", line)
    shown[name] = int(m.group(1)) if m else None
tables = {}
for e in yaml.safe_load(open(os.path.join(d, "plans.index")))["plans"]:
    tables.setdefault((e["collective"], e["root"]), []).append(e)
    assert shown[e["file"]] == e["root"], (e, shown[e["file"]])
assert set(tables) == {("broadcast", 0), ("broadcast", 2), ("broadcast", 3),
                       ("reduce", 3)}, sorted(tables)
for key, rs in tables.items():
    rs.sort(key=lambda r: r["min_bytes"])
    assert rs[0]["min_bytes"] == 0 and rs[-1]["max_bytes"] == "inf", key
    for a, b in zip(rs, rs[1:]):
        assert a["max_bytes"] == b["min_bytes"], (a, b)
files = {f for f in os.listdir(d) if f.endswith(".cplan")}
assert files == {e["file"] for rs in tables.values() for e in rs}, files
PY
echo "roots: four tables side by side"

# Several communicator sizes in one run: each P's table covers [0, inf).
"$C" tune -c allreduce --ranks 2:4,8 --bytes 8:1MiB -o "$W/sizes" -q
python3 - "$W/sizes" <<'PY' || fail "communicator sizes"
import os, sys, yaml
entries = yaml.safe_load(open(os.path.join(sys.argv[1], "plans.index")))["plans"]
tables = {}
for e in entries:
    tables.setdefault(e["ranks"], []).append(e)
assert sorted(tables) == [2, 3, 4, 8], sorted(tables)
for p, rs in tables.items():
    rs.sort(key=lambda r: r["min_bytes"])
    assert rs[0]["min_bytes"] == 0 and rs[-1]["max_bytes"] == "inf", p
    for a, b in zip(rs, rs[1:]):
        assert a["max_bytes"] == b["min_bytes"], (a, b)
PY

# Refusals: another tune's plans in the directory (2), bad sizes (2), a
# directory that cannot be created (4), roots that are no ranks (2).
# --candidates K: the model's K best at each size, the choice in the
# directory, the runners-up in its candidates/ folder (verified, stamped,
# indexed); a new tune of a table replaces that table's runners-up, files
# and all, and leaves other tables' alone.
CD=$W/cand
"$C" tune --collectives allreduce,allgather -P 8 --bytes 8:1MiB --candidates 3 \
  -o "$CD" -q || fail "tune --candidates 3 failed"
"$C" verify "$CD"/candidates/*.cplan >/dev/null || fail "a runner-up does not verify"
listed() { # listed COLLECTIVE: the runner-up files the folder's index lists
  python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print(" ".join(sorted(r["file"] for r in d["plans"] if r["collective"] == sys.argv[2])))
' "$CD/candidates/plans.index" "$1"
}
on_disk() { # on_disk COLLECTIVE: the runner-up files in the folder
  (cd "$CD/candidates" && ls "$1"-p8-*.cplan 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
}
[ -n "$(listed allreduce)" ] && [ -n "$(listed allgather)" ] || fail "no runners-up listed"
[ "$(listed allreduce)" = "$(on_disk allreduce)" ] || fail "listed and written runners-up differ"
# Each runner-up is another plan than the choice it runs beside.
python3 - "$CD" <<'PY' || fail "a runner-up repeats the model's choice"
import sys, yaml
main = yaml.safe_load(open(sys.argv[1] + "/plans.index"))["plans"]
runners = yaml.safe_load(open(sys.argv[1] + "/candidates/plans.index"))["plans"]
for r in runners:
    for m in main:
        overlap = m["collective"] == r["collective"] and m["min_bytes"] < (
            float("inf") if r["max_bytes"] == "inf" else r["max_bytes"]) and r["min_bytes"] < (
            float("inf") if m["max_bytes"] == "inf" else m["max_bytes"])
        same = (m["algorithm"], m.get("params", {})) == (r["algorithm"], r.get("params", {}))
        assert not (overlap and same and m["min_bytes"] == r["min_bytes"] and m["max_bytes"] == r["max_bytes"]), (m, r)
PY
GATHERED=$(listed allgather)
"$C" tune -c allreduce -P 8 --bytes 8:1MiB --candidates 2 -o "$CD" -q ||
  fail "tune --candidates 2 failed"
[ "$(listed allreduce)" = "$(on_disk allreduce)" ] || fail "old runners-up left behind"
[ "$(listed allgather)" = "$GATHERED" ] || fail "another table's runners-up changed"
"$C" tune -c allreduce -P 8 --bytes 8:1MiB -o "$CD" -q || fail "tune failed"
[ -z "$(listed allreduce)$(on_disk allreduce)" ] || fail "runners-up of a table tuned without --candidates remain"
[ "$(listed allgather)" = "$GATHERED" ] || fail "another table's runners-up changed"
for K in 0 9; do
  if "$C" tune -c allreduce -P 8 --candidates $K -o "$CD" -q 2>/dev/null; then
    fail "--candidates $K accepted"
  fi
done

set +e
"$C" compile -c allreduce -a ring -P 8 -q -o "$W/plans/allreduce-p8-0-100.cplan"
"$C" tune -c allreduce -P 8 -o "$W/plans" -q 2>"$W/stale.err"
[ $? -eq 2 ] || fail "foreign plans in the directory were not refused"
grep -q "allreduce-p8-0-100.cplan" "$W/stale.err" || fail "the foreign plan not named"
"$C" tune -c allreduce -P 8 --bytes 1GiB:8 -o "$W/x" -q 2>/dev/null
[ $? -eq 2 ] || fail "MIN > MAX accepted"
"$C" tune -c allreduce -P 8 --bytes 8 -o "$W/x" -q 2>/dev/null
[ $? -eq 2 ] || fail "--bytes without a range accepted"
"$C" tune -c allreduce -P 8 -q 2>/dev/null
[ $? -eq 2 ] || fail "nothing to write accepted"
touch "$W/file"
"$C" tune -c allreduce -P 8 -o "$W/file/sub" -q 2>/dev/null
[ $? -eq 4 ] || fail "an impossible directory was not exit 4"
"$C" tune -c broadcast -P 4 --roots 0,4 -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "--roots with a root past P accepted"
"$C" tune -c broadcast -P 4 --roots 0 --root 1 -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "--roots and --root together accepted"
"$C" tune -c broadcast -P 300 --roots all -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "--roots all for 300 ranks accepted"
"$C" tune -c allreduce --ranks 4:2 -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "--ranks MIN > MAX accepted"
"$C" tune -c allreduce --ranks 1:300 -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "300 communicator sizes accepted"
"$C" tune -c allreduce --ranks 2,4 --openmpi-rules "$W/y.rules" -q 2>/dev/null
[ $? -eq 2 ] || fail "several sizes for the Open MPI file accepted"
"$C" tune -c allreduce --ranks 2,4 --topology nodes:2x2 -o "$W/y" -q 2>/dev/null
[ $? -eq 2 ] || fail "several sizes with a topology accepted"
set -e

# Alltoallv's plans start where the ranks' agreement (a 24-byte allreduce,
# priced log2 P (alpha + 24 beta)) is at most 5 % of the plan: on P = 2,
# 20 * 2.0024 us = 40.05 us; pairwise moves the matrix's quarter in one
# message, 2 us + S/4 * 1e-10: 28.2 us at 1 MiB, 54.4 us at 2 MiB.
"$C" tune -c alltoallv -P 2 --alpha 2e-6 --beta 1e-10 -o "$W/v" -q
[ -f "$W/v/alltoallv-p2-2097152-inf.cplan" ] && [ "$(ls "$W/v" | wc -l)" -eq 2 ] ||
  { ls "$W/v"; fail "alltoallv's plan does not start at 2 MiB"; }
echo "tune: OK"
