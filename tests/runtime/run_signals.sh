#!/bin/bash
# run_signals.sh COLLPLAN WORKDIR - `collplan run`'s ranks die with it,
# whatever signal ends it (issue 26, item 3: killed launchers left their
# ranks spinning for half an hour).
set -eu
set -m # Background jobs take SIGINT, as they do at a terminal.
C=$1 W=$2
rm -rf "$W" && mkdir -p "$W"
fail() { echo "FAIL: $1"; exit 1; }
# Whether PID is gone (or a zombie waiting to be reaped: it runs no more).
gone() {
  local State
  State=$(ps -o stat= -p "$1" 2>/dev/null || true)
  [ -z "$State" ] || [ "${State#Z}" != "$State" ]
}
"$C" compile -c allreduce -a ring -P 4 -o "$W/ring4.cplan" >/dev/null
for SIG in TERM INT KILL; do
  "$C" run "$W/ring4.cplan" --iterations 100000000 >/dev/null 2>&1 &
  LAUNCHER=$!
  RANKS=""
  for _ in $(seq 100); do
    RANKS=$(pgrep -P "$LAUNCHER" || true)
    [ "$(echo "$RANKS" | wc -w)" -eq 4 ] && break
    sleep 0.1
  done
  [ "$(echo "$RANKS" | wc -w)" -eq 4 ] || fail "SIG$SIG: the 4 ranks did not start"
  kill -"$SIG" "$LAUNCHER"
  wait "$LAUNCHER" || true
  for R in $RANKS; do
    for _ in $(seq 50); do
      gone "$R" && break
      sleep 0.1
    done
    gone "$R" || { kill -KILL $RANKS 2>/dev/null; fail "SIG$SIG: rank $R outlived its launcher"; }
  done
done
echo "collplan run: ranks die with their launcher"
