#!/usr/bin/env bash
# bench-tcp.sh [BUILD_DIR] — collplan's TCP transport against Open MPI's TCP
# path and Gloo, the same ring plan side by side in one run.
#
# For P = 2, 3 and 4 ranks and 1 KiB, 64 KiB, 1 MiB and 16 MiB, runs
# collplan_bench_mpi under `mpirun --mca btl tcp,self`, which times in turns:
# the ring plan over MpiTransport (Open MPI's tcp BTL), the same plan over
# collplan's TcpTransport, MPI_Allreduce, and Gloo's allreduce (when the
# bench was built with libgloo-dev). tcp/plan_mpi is the figure to watch.
set -euo pipefail
BUILD=${1:-build}
COLLPLAN=$BUILD/tools/collplan/collplan
BENCH=$BUILD/runtime/bench/collplan_bench_mpi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for P in 2 3 4; do
  "$COLLPLAN" compile --ranks "$P" --algorithm ring -q -o "$WORK/ring$P.cplan"
  echo "P = $P, ring"
  mpirun --oversubscribe -n "$P" --mca btl tcp,self "$BENCH" \
    "$WORK/ring$P.cplan" 1024 65536 1048576 16777216
done
