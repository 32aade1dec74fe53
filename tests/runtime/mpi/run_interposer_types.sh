#!/bin/sh
# run_interposer_types.sh COLLPLAN LIBRARY APP WORKDIR P
# Runs InterposedTypesApp (ranks describing the same bytes with different
# datatypes and layouts) with LIBRARY preloaded on P ranks and checks that it
# neither hangs nor fails, that every such call ran from its plan on every
# rank, that a misnamed plan file is reported, and that the user-defined
# operator's fallback and the communicator's summary are logged. Then gives
# rank 0 a plan directory the other ranks do not have and checks that the
# first call fails on every rank with a message naming both sides, instead of
# hanging.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$PLANS" "$WORK/empty"
W=$(seq 1 "$P" | paste -sd, -)
"$COLLPLAN" compile -c allgather -a ring -P "$P" -o "$PLANS/allgather-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c allgatherv -a recursive-doubling -P "$P" --weights "$W" -o "$PLANS/allgatherv-p$P-0-inf.cplan" >/dev/null
"$COLLPLAN" compile -c broadcast -a binomial -P "$P" --root 0 -o "$PLANS/broadcast-p$P-0-inf.yaml" >/dev/null
"$COLLPLAN" compile -c allreduce -a ring -P "$P" -o "$PLANS/allreduce-p$P-0-inf.cplan" >/dev/null
# A misnamed plan is reported, not silently skipped.
cp "$PLANS/allreduce-p$P-0-inf.cplan" "$PLANS/allreduce-p$P-0-64KiB.cplan"

fail() { cat "$WORK/out" "$WORK/log"; echo "FAIL: $1"; exit 1; }
# A hang is a failure: bound the run (generously; the machine may be busy).
timeout -k 10 90 sh "$MPI_RUN" "$P" \
  LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 -- "$APP" \
  2>"$WORK/log" >"$WORK/out" || fail "the program failed or hung"
cat "$WORK/out"
for FN in MPI_Allgather MPI_Allgatherv MPI_Bcast; do
  N=$(grep -c "rank [0-9]*: $FN of .*: plan " "$WORK/log" || true)
  [ "$N" -ge "$P" ] || fail "$FN did not run from a plan on every rank"
done
N=$(grep -c "ignoring $PLANS/allreduce-p$P-0-64KiB.cplan: 64KiB: not a byte count" "$WORK/log" || true)
[ "$N" -eq 1 ] || fail "the misnamed plan file was not reported exactly once"
grep -q "MPI_Allreduce: a user-defined operator, calling PMPI_Allreduce" "$WORK/log" ||
  fail "the user-defined operator's fallback was not logged"
grep -q "MPI_COMM_WORLD of $P ranks: 3 call(s) from plans, 2 by MPI's own collectives (1 a user-defined operator, 1 no plan fits)" "$WORK/log" ||
  fail "no summary for MPI_COMM_WORLD at MPI_Finalize"

# Rank 0 alone has plans: every rank must fail the first call, not hang.
cat >"$WORK/split.sh" <<SPLIT
#!/bin/sh
if [ "\${OMPI_COMM_WORLD_RANK:-\$PMI_RANK}" = 0 ]; then COLLPLAN_PLANS=$PLANS; else COLLPLAN_PLANS=$WORK/empty; fi
export COLLPLAN_PLANS
exec "$APP"
SPLIT
set +e
timeout -k 10 90 sh "$MPI_RUN" "$P" \
  LD_PRELOAD="$LIB" -- sh "$WORK/split.sh" 2>"$WORK/log" >"$WORK/out"
RC=$?
set -e
[ "$RC" -ne 0 ] || fail "ranks with different plans ran to completion"
[ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || fail "ranks with different plans hung"
grep -q "MPI_Allgather: the ranks found different plans for MPI_Allgather of $((24 * P)) bytes on $P ranks: this rank has $PLANS/allgather-p$P-0-inf.cplan (hash [0-9a-f]*); the hashes on the communicator range from none (no plan) to [0-9a-f]*" "$WORK/log" ||
  fail "rank 0 did not name both sides"
grep -q "this rank has no plan that fits; the hashes on the communicator range from none (no plan) to [0-9a-f]*" "$WORK/log" ||
  fail "the other ranks did not name both sides"
echo "interposer with mixed datatypes and layouts: all checks passed on $P ranks"
