#!/bin/sh
# run_command.sh COLLPLAN WORKDIR - `collplan run` end to end over TCP.
set -eu
C=$1 W=$2
rm -rf "$W" && mkdir -p "$W"
fail() { cat "$W/err" 2>/dev/null || true; echo "FAIL: $1"; exit 1; }
# expect_exit CODE TEXT COMMAND...: COMMAND exits CODE, its stderr has TEXT.
expect_exit() {
  CODE=$1 TEXT=$2
  shift 2
  set +e
  "$@" >"$W/out" 2>"$W/err"; RC=$?
  set -e
  [ "$RC" -eq "$CODE" ] || fail "exit $RC, not $CODE: $*"
  grep -q -e "$TEXT" "$W/err" || fail "no '$TEXT' in the errors of: $*"
}
"$C" compile -c allreduce -a ring -P 3 -o "$W/ring3.cplan" >/dev/null
"$C" compile -c allgather -a ring -P 4 -o "$W/ag4.yaml" >/dev/null
"$C" run -n 3 "$W/ring3.cplan" --check --bytes 1001 --datatype int16 --op max
"$C" run -n 4 "$W/ag4.yaml" --check --bytes 64KiB --format json >"$W/out.json"
grep -q '"check": "passed"' "$W/out.json" || fail "check not passed"
grep -q '"exit_code": 0' "$W/out.json" || fail "exit code not 0"
# -n defaults to the plan's P; given, it must match: usage error, exit 2.
"$C" run "$W/ring3.cplan" --check --format json >"$W/out.json"
grep -q '"ranks": 3' "$W/out.json" || fail "P not taken from the plan"
grep -q '"check": "passed"' "$W/out.json" || fail "check not passed without -n"
expect_exit 2 "P = 3; -n 2 does not match (leave -n out" \
  "$C" run -n 2 "$W/ring3.cplan"
expect_exit 2 "P = 3; -n 0 does not match" "$C" run -n 0 "$W/ring3.cplan"
# Only verified plans run: compile stamps what it verified; a plan without a
# stamp, or changed after it, is refused (exit 2) unless trusted.
"$C" compile -c allreduce -a ring -P 3 --no-verify -o "$W/unstamped.yaml" \
  >/dev/null
expect_exit 2 "no verification stamp" "$C" run "$W/unstamped.yaml"
grep -q "collplan verify --stamp" "$W/err" || fail "no remedy named"
"$C" run "$W/unstamped.yaml" --trust-unverified --check >"$W/out" ||
  fail "a trusted unverified plan did not run"
"$C" verify "$W/unstamped.yaml" >"$W/out"
grep -q "verification stamp: none" "$W/out" || fail "verify: no stamp not said"
"$C" verify --stamp "$W/unstamped.yaml" >"$W/out"
grep -q "verification stamp written" "$W/out" || fail "verify --stamp"
"$C" run "$W/unstamped.yaml" --check >"$W/out" ||
  fail "a plan stamped by verify --stamp did not run"
# An edit that leaves a valid plan (the algorithm's name) makes it stale.
sed 's/^algorithm: ring$/algorithm: ring2/' "$W/unstamped.yaml" >"$W/edited.yaml"
grep -q "^algorithm: ring2$" "$W/edited.yaml" || fail "the edit did not apply"
"$C" verify "$W/edited.yaml" >"$W/out"
grep -q "verification stamp: stale" "$W/out" || fail "verify: stale not said"
expect_exit 2 "changed after it was verified" "$C" run "$W/edited.yaml"
"$C" compile -c allreduce -a ring -P 3 --no-verify -o "$W/unstamped.cplan" \
  >/dev/null
expect_exit 2 "no verification stamp" env COLLPLAN_RANK=0 COLLPLAN_SIZE=3 \
  COLLPLAN_ADDR=127.0.0.1:1 "$C" run "$W/unstamped.cplan"
# One rank per process, as another launcher would start them: each reads its
# own rank's program (a .cplan slice, or the whole YAML plan) and checks.
# run_job PLAN P: starts P ranks on a port of their own, all must pass.
PORT=$((20000 + $$ % 20000))
run_job() {
  PORT=$((PORT + 1))
  R=0 PIDS=
  while [ "$R" -lt "$2" ]; do
    # With a third argument, rank r > 0 listens on 127.0.0.(r+1) as if on a
    # host of its own: the others must reach it at the address it published.
    LISTEN=
    [ "$#" -ge 3 ] && [ "$R" -gt 0 ] && LISTEN=127.0.0.$((R + 1))
    env COLLPLAN_RANK=$R COLLPLAN_SIZE=$2 COLLPLAN_ADDR=127.0.0.1:$PORT \
      ${LISTEN:+COLLPLAN_LISTEN_ADDR=$LISTEN} \
      COLLPLAN_TIMEOUT=20 "$C" run "$1" --check --bytes 4000 \
      >"$W/rank$R.out" 2>"$W/rank$R.err" &
    PIDS="$PIDS $!"
    R=$((R + 1))
  done
  R=0
  for PID in $PIDS; do
    wait "$PID" || { cat "$W"/rank*.err; fail "a rank of $1 failed"; }
  done
  while [ "$R" -lt "$2" ]; do
    grep -q "check           passed" "$W/rank$R.out" ||
      fail "rank $R of $1: check not passed"
    R=$((R + 1))
  done
}
run_job "$W/ring3.cplan" 3
run_job "$W/ag4.yaml" 4
run_job "$W/ag4.yaml" 4 own-addresses
expect_exit 2 "COLLPLAN_LISTEN_ADDR" env COLLPLAN_RANK=1 COLLPLAN_SIZE=3 \
  COLLPLAN_ADDR=127.0.0.1:1 COLLPLAN_LISTEN_ADDR=::1 "$C" run "$W/ring3.cplan"
expect_exit 2 "P = 3 but COLLPLAN_SIZE=4" env COLLPLAN_RANK=0 COLLPLAN_SIZE=4 \
  COLLPLAN_ADDR=127.0.0.1:1 "$C" run "$W/ring3.cplan"
expect_exit 2 "rank 3 is not one of the plan's 3 ranks" env COLLPLAN_RANK=3 \
  COLLPLAN_SIZE=4 COLLPLAN_ADDR=127.0.0.1:1 "$C" run "$W/ring3.cplan"
expect_exit 2 "not defined on float" \
  "$C" run -n 3 "$W/ring3.cplan" --datatype float --op band
expect_exit 2 "cannot read" "$C" run -n 3 "$W/missing.cplan"
# A timeout of 0 (or less) would fail every wait at once: usage errors.
expect_exit 2 "timeout" "$C" run -n 3 "$W/ring3.cplan" --timeout 0
expect_exit 2 "timeout" "$C" run -n 3 "$W/ring3.cplan" --timeout -1
expect_exit 2 "COLLPLAN_TIMEOUT=0" env COLLPLAN_RANK=0 COLLPLAN_SIZE=3 \
  COLLPLAN_ADDR=127.0.0.1:29599 COLLPLAN_TIMEOUT=0 "$C" run "$W/ring3.cplan"
# An address that is not IPv4 is a usage error, not a failed run.
expect_exit 2 "IPv6" env COLLPLAN_RANK=0 COLLPLAN_SIZE=3 \
  COLLPLAN_ADDR='[::1]:29599' "$C" run "$W/ring3.cplan"
# A launcher's own variables describe the rank, and errors name them.
expect_exit 2 "OMPI_COMM_WORLD_SIZE=2" env OMPI_COMM_WORLD_RANK=0 \
  OMPI_COMM_WORLD_SIZE=2 "$C" run "$W/ring3.cplan"
# --check with no call to check cannot pass.
expect_exit 2 "at least one call" \
  "$C" run -n 3 "$W/ring3.cplan" --check --iterations 0 --warmup 0
# A rank whose peer never arrives fails with exit 5 within its timeout.
expect_exit 5 "could not connect to rank 0" env COLLPLAN_RANK=1 \
  COLLPLAN_SIZE=3 COLLPLAN_ADDR=127.0.0.1:1 COLLPLAN_TIMEOUT=1 \
  "$C" run "$W/ring3.cplan"
# A stopped rank: the others time out, then the launcher kills it a timeout
# later and names it, instead of waiting for it for ever.
"$C" run -n 3 "$W/ring3.cplan" --timeout 1 --iterations 100000000 \
  >"$W/out" 2>"$W/err" &
RUN=$!
sleep 0.5
STOPPED=$(pgrep -P "$RUN" | head -n 1)
[ -n "$STOPPED" ] || fail "no rank process to stop"
kill -STOP "$STOPPED"
set +e
wait "$RUN"; RC=$?
set -e
[ "$RC" -eq 5 ] || fail "exit $RC, not 5, with a stopped rank"
grep -q "stopped or stuck" "$W/err" || fail "the stopped rank is not named"
# A header claiming 2^40 blocks over a 2-rank ring (issue 26, item 3): the
# reference result walked every block and never returned (nor did
# --timeout fire, the ranks were not waiting). Now it is by element: the
# check fails at once, for a plan whose blocks do not say what its
# operations do.
"$C" compile -c allreduce -a ring -P 2 -o "$W/ring2.yaml" >/dev/null
sed 's/^blocks: 2$/blocks: 1099511627776/' "$W/ring2.yaml" >"$W/huge-blocks.yaml"
expect_exit 1 "expected" timeout 20 "$C" run "$W/huge-blocks.yaml" --check \
  --trust-unverified --timeout 5
# A vector past this machine's memory: each rank says so (it aborted).
expect_exit 5 "cannot allocate the buffers" timeout 20 "$C" run \
  "$W/ring3.cplan" --bytes 1000GB
echo "collplan run: all checks passed"
