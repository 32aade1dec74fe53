#!/bin/sh
# run_interposer.sh COLLPLAN LIBRARY APP WORKDIR P
# Compiles a plan directory for P ranks with COLLPLAN, runs the unmodified
# MPI program APP (mpi_run.sh: under Open MPI or MPICH) with LIBRARY
# preloaded, and checks that it succeeded and that every collective really
# ran from a plan (the COLLPLAN_VERBOSE log names each plan file).
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS"
W=$(seq 1 "$P" | paste -sd, -)
"$COLLPLAN" compile -c allreduce -a ring -P "$P" -o "$PLANS/allreduce-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c reduce-scatter -a ring -P "$P" -o "$PLANS/reduce-scatter-p$P-0-inf.yaml" >/dev/null
"$COLLPLAN" compile -c allgather -a ring -P "$P" -o "$PLANS/allgather-p$P-0-inf.json" >/dev/null
"$COLLPLAN" compile -c allgatherv -a recursive-doubling -P "$P" --weights "$W" -o "$PLANS/allgatherv-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c alltoall -a bruck -P "$P" -o "$PLANS/alltoall-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c broadcast -a binomial -P "$P" --root 0 -o "$PLANS/broadcast-p$P-0-inf.cplan" >/dev/null
# Reduce: N ints (4012 bytes) to the last rank, N doubles (8024 bytes) to
# rank 0; the program's final 4-byte reduce to rank 0 must fall back, since
# the plan for its byte range has another root.
"$COLLPLAN" compile -c reduce -a binomial -P "$P" --root $((P - 1)) -o "$PLANS/reduce-p$P-0-8000.cplan" >/dev/null
"$COLLPLAN" compile -c reduce -a binomial -P "$P" --root 0 -o "$PLANS/reduce-p$P-8000-inf.yaml" >/dev/null
# A plan for another size must be ignored.
"$COLLPLAN" compile -c allreduce -a ring -P $((P + 1)) -o "$PLANS/allreduce-p$((P + 1))-0-inf.cplan" >/dev/null

sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$APP" 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; echo "FAIL: the program failed"; exit 1; }
cat "$WORK/out"
for F in MPI_Allreduce:allreduce-p$P-0-inf.cplan \
         MPI_Reduce_scatter_block:reduce-scatter-p$P-0-inf.yaml \
         MPI_Allgather:allgather-p$P-0-inf.json \
         MPI_Allgatherv:allgatherv-p$P-0-inf.cplan \
         MPI_Alltoall:alltoall-p$P-0-inf.cplan \
         MPI_Bcast:broadcast-p$P-0-inf.cplan \
         MPI_Reduce:reduce-p$P-0-8000.cplan \
         MPI_Reduce:reduce-p$P-8000-inf.yaml; do
  FN=${F%%:*} FILE=${F#*:}
  N=$(grep -c "rank [0-9]*: $FN of .*plan $PLANS/$FILE" "$WORK/log" || true)
  if [ "$N" -lt "$P" ]; then
    cat "$WORK/log"; echo "FAIL: $FN did not run from $FILE on every rank"; exit 1
  fi
done
if ! grep -q "MPI_Reduce of 4 bytes .*calling PMPI_Reduce" "$WORK/log"; then
  cat "$WORK/log"; echo "FAIL: a reduce to a root no plan serves did not fall back"; exit 1
fi
echo "every collective ran from its plan on all $P ranks"
