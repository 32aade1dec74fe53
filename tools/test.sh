#!/usr/bin/env bash
# Set-up (tools/setup.sh), then every test under ctest. Extra arguments go to
# ctest, e.g. `tools/test.sh -LE 'sweep|slow'` to skip the long sweeps.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
# Open MPI refuses to run as root unless told; the MPI tests start mpirun.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure --timeout 900 "$@"
