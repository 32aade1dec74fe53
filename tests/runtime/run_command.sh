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
# -n must match the plan's P: usage error, exit 2.
expect_exit 2 "P = 3" "$C" run -n 2 "$W/ring3.cplan"
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
echo "collplan run: all checks passed"
