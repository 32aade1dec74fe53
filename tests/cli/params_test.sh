#!/usr/bin/env bash
# --params FILE (cost parameters file): precedence flag > file > built-in
# default, and bad files rejected with exit 2 naming the key and line.
# Oracle: a ring allreduce on P ranks has 2(P-1) rounds of one message each
# (Thakur, Rabenseifner and Gropp 2005), so with beta and gamma negligible
# its predicted time is 2(P-1) alpha; the default alpha is README's 2e-6 s.
# Usage: params_test.sh COLLPLAN
set -u
COLLPLAN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$COLLPLAN" compile -c allreduce -a ring -P 4 -q -o "$WORK/ring.cplan" ||
  fail "compile ring"
# predicted ARGS...: predicted_time of the ring plan at 8 bytes.
predicted() {
  "$COLLPLAN" cost "$WORK/ring.cplan" --bytes 8 --format json "$@" \
    >"$WORK/cost.json" 2>"$WORK/err" || { cat "$WORK/err"; echo nan; return; }
  python3 -c "import json; print(json.load(open('$WORK/cost.json'))['predicted_time'])"
}
# near GOT WANT WHAT: GOT within 1% of WANT.
near() {
  python3 -c "import sys; g,w=float('$1'),float('$2'); sys.exit(0 if abs(g-w)<=0.01*w else 1)" ||
    fail "$3: got $1, expected $2"
}
printf '# measured by hand\nalpha: 1e-3\nbeta: 1e-15   # tiny\ngamma: 1e-15\n' \
  >"$WORK/p.yaml"
near "$(predicted)" 12e-6 "built-in default alpha"
near "$(predicted --params "$WORK/p.yaml")" 6e-3 "file over default"
near "$(predicted --params "$WORK/p.yaml" --alpha 2e-3)" 12e-3 "flag over file"
near "$(predicted --alpha 2e-3 --params "$WORK/p.yaml")" 12e-3 \
  "flag over file, flag first"
# A rank's overhead: every ring round sends one message and receives one,
# so o = 1e-3 makes each of the 6 rounds 2e-3; a flag of 0 turns it off, and
# a file may say 0 as the flags may.
printf 'overhead: 1e-3\ngamma: 0\n' >"$WORK/o.yaml"
near "$(predicted --params "$WORK/o.yaml")" 12e-3 "overhead from the file"
near "$(predicted --params "$WORK/o.yaml" --overhead 0)" 12e-6 \
  "--overhead 0 over the file"
# compile accepts it too (it prices --algorithm auto).
"$COLLPLAN" compile -c allreduce -a ring -P 4 -q --params "$WORK/p.yaml" \
  -o "$WORK/r2.cplan" || fail "compile --params"

# bad FILE-CONTENT PATTERN: exit 2 and stderr matching PATTERN.
bad() {
  printf "$1" >"$WORK/bad.yaml"
  "$COLLPLAN" cost "$WORK/ring.cplan" --params "$WORK/bad.yaml" \
    >/dev/null 2>"$WORK/err"
  local got=$?
  [ $got -eq 2 ] || fail "bad file '$1': exit $got, expected 2"
  grep -q -- "$2" "$WORK/err" || fail "bad file '$1': message lacks '$2': $(head -1 "$WORK/err")"
}
bad 'alpha: 1e-6\nlatency: 3\n' "bad.yaml:2: unknown key 'latency'"
bad 'beta: fast\n' "bad.yaml:1: key 'beta': expected a number"
bad 'alpha: -1e-6\n' "bad.yaml:1: key 'alpha': expected a non-negative number"
bad 'alpha: nan\n' "bad.yaml:1: key 'alpha'"
bad 'alpha 1e-6\n' "bad.yaml:1: expected 'key: number'"
bad 'alpha: 1e-6\nalpha: 2e-6\n' "bad.yaml:2: key 'alpha' given twice"
"$COLLPLAN" cost "$WORK/ring.cplan" --params "$WORK/missing.yaml" \
  >/dev/null 2>"$WORK/err"
[ $? -eq 2 ] && grep -q "cannot read parameters file" "$WORK/err" ||
  fail "unreadable file: not exit 2"

[ $failed -eq 0 ] && echo "params_test: all passed"
exit $failed
