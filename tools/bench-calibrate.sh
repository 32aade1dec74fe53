#!/usr/bin/env bash
# Calibrates over TCP (and MPI when collplan_calibrate_mpi is built), then
# prints predicted (cost --params) against measured (collplan run over TCP)
# time per call of ring and recursive-doubling allreduce at P = 2 and 4,
# 1 KiB .. 16 MiB. Usage: tools/bench-calibrate.sh BUILD_DIR
set -eu
BUILD=${1:-build}
COLLPLAN=$BUILD/tools/collplan/collplan
MPI_CAL=$BUILD/runtime/calibrate/collplan_calibrate_mpi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== calibrate over TCP (collplan calibrate -n 2)"
"$COLLPLAN" calibrate -n 2 -o "$WORK/tcp.yaml" 2>/dev/null
if [ -x "$MPI_CAL" ]; then
  echo "== calibrate over MPI (mpirun -n 2 collplan_calibrate_mpi)"
  mpirun --oversubscribe -n 2 "$MPI_CAL" -o "$WORK/mpi.yaml" 2>/dev/null
fi
echo "== predicted (TCP parameters) vs measured (collplan run, TCP, mean of 10 calls)"
printf '%-20s %2s %9s %12s %12s %7s\n' algorithm P bytes predicted measured ratio
for A in ring recursive-doubling; do
  for P in 2 4; do
    "$COLLPLAN" compile -c allreduce -a $A -P $P -q -o "$WORK/$A$P.cplan"
    for B in 1KiB 16KiB 256KiB 1MiB 4MiB 16MiB; do
      pred=$("$COLLPLAN" cost "$WORK/$A$P.cplan" --bytes $B --params "$WORK/tcp.yaml" \
        --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['predicted_time'])")
      meas=$("$COLLPLAN" run -n $P "$WORK/$A$P.cplan" --bytes $B --iterations 10 \
        --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['seconds_per_call']['mean'])")
      python3 -c "
p, m = $pred, $meas
print(f'%-20s %2d %9s %9.1f us %9.1f us %6.2fx' % ('$A', $P, '$B', p*1e6, m*1e6, m/p))"
    done
  done
done
