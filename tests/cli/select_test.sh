#!/bin/sh
# select_test.sh COLLPLAN
# `collplan select` against oracles outside it: each candidate it lists is
# compiled on its own (`compile -a FAMILY --param ...`) and priced by `cost`;
# select's times must be those, its ranking their order; the JSON parses;
# -o writes the plan `compile` (auto) writes, byte for byte, stamped.
set -eu
C=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

check_ranking() { # NAME BYTES select-args...
  NAME=$1 BYTES=$2
  shift 2
  "$C" select "$@" --bytes "$BYTES" --format json >"$W/$NAME.json" ||
    fail "$NAME: select failed"
  # One line per ranked candidate: rank, time, family, --param flags.
  python3 - "$W/$NAME.json" >"$W/$NAME.rows" <<'PY' || fail "$NAME: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["lower_bound"] > 0 and d["best"]["algorithm"]
ranked = [c for c in d["candidates"] if c.get("skipped") is None]
assert ranked, "no candidate ranked"
for c in ranked:
    if c["priced_from_rank0"]:
        continue
    params = " ".join("--param %s=%s" % kv for kv in sorted(c["params"].items()))
    print(c["rank"], repr(c["predicted_time"]), c["algorithm"], params)
PY
  [ -s "$W/$NAME.rows" ] || fail "$NAME: nothing to check"
  : >"$W/$NAME.oracle"
  while read -r RANK TIME ALGO PARAMS; do
    # shellcheck disable=SC2086  # PARAMS is a list of flags
    "$C" compile "$@" -a "$ALGO" $PARAMS --bytes "$BYTES" \
      --allow-rank-dependent-rounding -q -o "$W/c.cplan" ||
      fail "$NAME: compile -a $ALGO $PARAMS"
    # shellcheck disable=SC2086  # COST_ARGS: the cost flags, if any
    "$C" cost "$W/c.cplan" --bytes "$BYTES" --format json ${COST_ARGS:-} \
      >"$W/cost.json"
    python3 - "$RANK" "$TIME" "$W/cost.json" "$ALGO $PARAMS" \
      >>"$W/$NAME.oracle" <<'PY' || fail "$NAME: $ALGO $PARAMS"
import json, sys
rank, t, path, what = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
oracle = json.load(open(path))["predicted_time"]
if abs(oracle - t) > 1e-9 * max(oracle, 1e-12):
    sys.exit("select says %r for %s, cost says %r" % (t, what, oracle))
print(rank, repr(oracle), what)
PY
  done <"$W/$NAME.rows"
  # The ranking is the order of the independently priced plans.
  python3 - "$W/$NAME.oracle" <<'PY' || fail "$NAME: ranking"
import sys
rows = [l.split(None, 2) for l in open(sys.argv[1])]
rows.sort(key=lambda r: int(r[0]))
times = [float(r[1]) for r in rows]
for a, b, ra, rb in zip(times, times[1:], rows, rows[1:]):
    if b < a * (1 - 1e-12):
        sys.exit("ranked %s before %s but cost says %r > %r" % (ra[2], rb[2], a, b))
print("%d candidates in cost order" % len(rows))
PY
}

check_ranking flat12 1MiB -c allreduce -P 12
check_ranking torus 64KiB -c allreduce -t torus:4x4
check_ranking nodes 4KiB -c allreduce -t nodes:4x4
check_ranking allgather 256KiB -c allgather -P 10
# Cost parameters from a file (--params), as calibrate writes them.
printf 'alpha: 1.5e-05\nbeta: 8e-10\ngamma: 3e-10\n' >"$W/p.yaml"
COST_ARGS="--params $W/p.yaml" check_ranking params 64KiB -c allreduce -P 12 \
  --params "$W/p.yaml"

# A plan too large to build just to price it is priced from rank 0 and says
# so (ring at P = 3000: 36 M operations, over the tuner's 20 M); at 8 bytes
# recursive doubling, which is built, is ahead of it.
"$C" select -P 3000 -a ring,recursive-doubling --bytes 8 --format json \
  >"$W/big.json"
python3 - "$W/big.json" <<'PY' || fail "rank 0 pricing"
import json, sys
c = {x["algorithm"]: x for x in json.load(open(sys.argv[1]))["candidates"]}
assert c["ring"]["priced_from_rank0"] is True, c["ring"]
assert c["recursive-doubling"]["priced_from_rank0"] is False
assert c["recursive-doubling"]["rank"] == 1 and c["ring"]["rank"] == 2, c
assert c["ring"]["rank0_bytes_sent"] > 0
PY

# The text table: a header with the bound, ranked rows, the best.
"$C" select -c allreduce -P 12 --bytes 1MiB >"$W/table.txt"
grep -q "lower bound" "$W/table.txt" || fail "no lower bound in the table"
grep -q "^ *1  " "$W/table.txt" || fail "no ranked row"
grep -q "^best: " "$W/table.txt" || fail "no best line"

# -o: the plan compile (auto) writes for the same request, stamped.
"$C" select -c allreduce -t torus:4x4 --bytes 64KiB -q -o "$W/sel.cplan"
"$C" compile -c allreduce -t torus:4x4 --bytes 64KiB -q -o "$W/comp.cplan"
cmp -s "$W/sel.cplan" "$W/comp.cplan" || fail "select -o differs from compile -o"
"$C" verify "$W/sel.cplan" --format json | grep -q '"stamp": "valid"' ||
  fail "select -o wrote an unstamped plan"

# Exit codes: usage 2, cannot compile 3, cannot write 4.
set +e
"$C" select -c nonsense -P 4 >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad collective"
"$C" select -P 4 -o "$W/x.txt" >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad extension"
"$C" select -c broadcast -P 4 -a ring >/dev/null 2>&1; [ $? -eq 3 ] ||
  fail "no family for the collective"
"$C" select -P 4 -q -o "$W/none/x.cplan" >/dev/null 2>&1; [ $? -eq 4 ] ||
  fail "unwritable output"
set -e
echo "select: OK"
