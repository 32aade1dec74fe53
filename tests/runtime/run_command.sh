#!/bin/sh
# run_command.sh COLLPLAN WORKDIR - `collplan run` end to end over TCP.
set -eu
C=$1 W=$2
rm -rf "$W" && mkdir -p "$W"
"$C" compile -c allreduce -a ring -P 3 -o "$W/ring3.cplan" >/dev/null
"$C" compile -c allgather -a ring -P 4 -o "$W/ag4.yaml" >/dev/null
"$C" run -n 3 "$W/ring3.cplan" --check --bytes 1001 --datatype int16 --op max
"$C" run -n 4 "$W/ag4.yaml" --check --bytes 64KiB --format json >"$W/out.json"
grep -q '"check": "passed"' "$W/out.json"
grep -q '"exit_code": 0' "$W/out.json"
# -n must match the plan's P: usage error, exit 2.
set +e
"$C" run -n 2 "$W/ring3.cplan" 2>"$W/err"; RC=$?
set -e
[ "$RC" -eq 2 ] && grep -q "P = 3" "$W/err"
set +e
"$C" run -n 3 "$W/ring3.cplan" --datatype float --op band 2>"$W/err"; RC=$?
set -e
[ "$RC" -eq 2 ] && grep -q "not defined on float" "$W/err"
echo "collplan run: all checks passed"
