#!/bin/sh
# mpi_run.sh P [VAR=VALUE]... -- PROGRAM [ARGUMENT]...
# Starts P ranks of PROGRAM with the variables set in their environment,
# under the MPI named by COLLPLAN_TEST_MPI: openmpi (the default; Open MPI's
# mpirun) or mpich (Debian's mpiexec.mpich, Hydra). Each launcher has its
# own syntax for the ranks' environment; the test scripts need not know it.
set -eu
N=$1
shift
MPI=${COLLPLAN_TEST_MPI:-openmpi}
IN_ENV=1
LEFT=$#
# Rotate every argument to the end, rewriting the variables on the way.
while [ "$LEFT" -gt 0 ]; do
  ARG=$1
  shift
  LEFT=$((LEFT - 1))
  if [ "$IN_ENV" = 1 ] && [ "$ARG" = -- ]; then
    IN_ENV=0
  elif [ "$IN_ENV" = 1 ] && [ "$MPI" = mpich ]; then
    set -- "$@" -genv "${ARG%%=*}" "${ARG#*=}"
  elif [ "$IN_ENV" = 1 ]; then
    set -- "$@" -x "$ARG"
  else
    set -- "$@" "$ARG"
  fi
done
case $MPI in
mpich) exec mpiexec.mpich -n "$N" "$@" ;;
openmpi) exec mpirun --oversubscribe -n "$N" "$@" ;;
*) echo "COLLPLAN_TEST_MPI=$MPI: not openmpi or mpich" >&2; exit 2 ;;
esac
