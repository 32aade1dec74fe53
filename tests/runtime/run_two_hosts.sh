#!/bin/sh
# run_two_hosts.sh COLLPLAN WORKDIR - one job over two "hosts": two network
# namespaces joined by a veth pair, ranks 0-1 on 10.77.0.1 and ranks 2-3 on
# 10.77.0.2, started as another launcher would (COLLPLAN_RANK/SIZE/ADDR).
# Ranks 2 and 3 cannot listen on rank 0's address: they must listen on their
# own interface and be reached at the address they published. Exit 77 (ctest
# skips) when network namespaces cannot be made here (not root).
set -eu
C=$1 W=$2
rm -rf "$W" && mkdir -p "$W"
A=collplanA$$ B=collplanB$$
ip netns add "$A" 2>/dev/null || { echo "no network namespaces: skipped"; exit 77; }
if ! ip netns add "$B" 2>/dev/null; then
  ip netns del "$A"
  echo "no network namespaces: skipped"
  exit 77
fi
trap 'ip netns del "$A"; ip netns del "$B"' EXIT
ip link add "va$$" type veth peer name "vb$$"
ip link set "va$$" netns "$A"
ip link set "vb$$" netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev "va$$"
ip -n "$B" addr add 10.77.0.2/24 dev "vb$$"
for NS in "$A" "$B"; do ip -n "$NS" link set lo up; done
ip -n "$A" link set "va$$" up
ip -n "$B" link set "vb$$" up

"$C" compile -c allreduce -a ring -P 4 -o "$W/ring4.cplan" >/dev/null
PIDS=
for R in 0 1 2 3; do
  NS=$A
  [ "$R" -ge 2 ] && NS=$B
  ip netns exec "$NS" env COLLPLAN_RANK=$R COLLPLAN_SIZE=4 \
    COLLPLAN_ADDR=10.77.0.1:29517 COLLPLAN_SECRET=two-hosts \
    COLLPLAN_TIMEOUT=20 "$C" run "$W/ring4.cplan" --check --bytes 1MiB \
    >"$W/rank$R.out" 2>"$W/rank$R.err" &
  PIDS="$PIDS $!"
done
for PID in $PIDS; do
  wait "$PID" || { cat "$W"/rank*.err; echo "FAIL: a rank failed"; exit 1; }
done
for R in 0 1 2 3; do
  grep -q "check           passed" "$W/rank$R.out" ||
    { echo "FAIL: rank $R: check not passed"; exit 1; }
done
echo "run_two_hosts: 4 ranks on two network namespaces passed"
