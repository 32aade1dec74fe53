#!/usr/bin/env bash
# --reproducible end to end: compile, select, verify, tune and index, with
# their exit codes and messages. Oracles: recursive doubling, Rabenseifner
# and the circulant census in one tree follow the canonical tree
# (docs/reproducibility.md) at every P, and a ring
# allreduce on P > 2 ranks is a chain of P - 1 sums, which is not it.
# Usage: reproducible_test.sh COLLPLAN
set -u
COLLPLAN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# compile: auto under --reproducible picks a family that follows the tree,
# and says so; at 1 MiB on 24 ranks the default pick does not.
"$COLLPLAN" compile -P 24 --bytes 1MiB --format json -o "$WORK/d.cplan" \
  >"$WORK/d.json" || fail "compile default"
[ "$(json "$WORK/d.json" "d['reproducible']")" = False ] ||
  fail "the default pick at 1 MiB on 24 ranks was already reproducible"
for B in 8 64KiB 1MiB 64MiB; do
  "$COLLPLAN" compile -P 24 --bytes "$B" --reproducible --format json \
    -o "$WORK/r.cplan" >"$WORK/r.json" || fail "compile --reproducible at $B"
  [ "$(json "$WORK/r.json" "d['reproducible']")" = True ] ||
    fail "--reproducible at $B chose a plan that is not"
  # At 8 B the census in one tree (the canonical tree too) takes 5 rounds
  # where recursive doubling's fold takes 6.
  case $B:$(json "$WORK/r.json" "d['algorithm'] + ' ' + d['params'].get('order', '')") in
  *:recursive-doubling* | *:rabenseifner*) ;;
  8:"circulant identical") ;;
  *) fail "--reproducible at $B chose $(json "$WORK/r.json" "d['algorithm']")" ;;
  esac
done
"$COLLPLAN" compile -P 24 --bytes 1MiB --reproducible >"$WORK/out" ||
  fail "compile --reproducible (text)"
grep -q "reproducible: every reduced block follows the canonical tree" \
  "$WORK/out" || fail "compile does not say it is reproducible"

# A named family is built as asked, with the verifier's word.
"$COLLPLAN" compile -P 5 -a ring --reproducible -o "$WORK/ring.cplan" \
  >"$WORK/out" || fail "compile -a ring --reproducible"
grep -q "not reproducible across message sizes: rank [0-9]* combines block" \
  "$WORK/out" || fail "compile -a ring does not say where it leaves the tree"

# verify prints the verdict, and json carries it.
"$COLLPLAN" verify "$WORK/ring.cplan" >"$WORK/out" || fail "verify ring"
grep -q "not reproducible across message sizes" "$WORK/out" ||
  fail "verify does not say the ring is not reproducible"
"$COLLPLAN" verify "$WORK/r.cplan" --format json >"$WORK/v.json" ||
  fail "verify json"
[ "$(json "$WORK/v.json" "d[0]['reproducible']")" = True ] ||
  fail "verify --format json lacks reproducible: true"

# select: the passed-over candidates say why.
"$COLLPLAN" select -P 24 --bytes 1MiB --reproducible >"$WORK/out" ||
  fail "select --reproducible"
grep -q "not reproducible across message sizes" "$WORK/out" ||
  fail "select does not show why candidates were passed over"

# tune records the rounding its plans were chosen by; the plans are stamped.
"$COLLPLAN" tune -c allreduce -P 6 --bytes 8:16MiB --reproducible \
  -o "$WORK/dir" -q >/dev/null 2>"$WORK/err" || fail "tune --reproducible"
grep -q "^rounding: reproducible" "$WORK/dir/plans.index" ||
  fail "the index does not record rounding: reproducible"
for F in "$WORK"/dir/*.cplan; do
  "$COLLPLAN" verify "$F" | grep -q "reproducible: every reduced block" ||
    fail "$F is not reproducible"
done
"$COLLPLAN" index --show "$WORK/dir" >"$WORK/out" || fail "index --show"
grep -q "floating-point sums and products: reproducible (the index's rounding)" \
  "$WORK/out" || fail "index --show does not say the rounding"
"$COLLPLAN" tune -c allreduce -P 6 --bytes 8:16MiB -o "$WORK/dir2" -q \
  >/dev/null 2>&1 || fail "tune"
grep -q "^rounding: identical" "$WORK/dir2/plans.index" ||
  fail "a default tune does not record rounding: identical"

# index --reproducible: refuses a plan that leaves the tree, exit 2, and
# writes nothing; lists one that follows it and records the rounding.
mkdir -p "$WORK/idx"
"$COLLPLAN" compile -P 5 -a ring -q -o "$WORK/idx/ring.cplan" || fail "ring"
"$COLLPLAN" compile -P 5 -a rabenseifner -q -o "$WORK/idx/rab.cplan" ||
  fail "rabenseifner"
"$COLLPLAN" index --reproducible "$WORK/idx/ring.cplan" 2>"$WORK/err"
[ $? -eq 2 ] || fail "index --reproducible of a ring plan: not exit 2"
grep -q "its stamp does not say reproducible" "$WORK/err" ||
  fail "index --reproducible does not say why"
[ ! -e "$WORK/idx/plans.index" ] || fail "a refused index was written"
"$COLLPLAN" index --reproducible -q "$WORK/idx/rab.cplan" ||
  fail "index --reproducible of a Rabenseifner plan"
grep -q "^rounding: reproducible" "$WORK/idx/plans.index" ||
  fail "index --reproducible does not record the rounding"
# A bad rounding in an index is named.
printf 'version: 1\nrounding: exact\nplans: []\n' >"$WORK/idx/plans.index"
"$COLLPLAN" index --show "$WORK/idx" >"$WORK/out" 2>&1
grep -q "'rounding' is identical, rank-dependent or reproducible" "$WORK/out" ||
  fail "a bad rounding is not named"

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "reproducible: all checks passed"
