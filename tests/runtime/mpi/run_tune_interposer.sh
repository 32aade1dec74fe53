#!/bin/sh
# run_tune_interposer.sh COLLPLAN LIBRARY APP WORKDIR P
# `collplan tune` a plan directory for allreduce and allgather on P ranks,
# then run the unmodified MPI program APP with LIBRARY (the interposer)
# preloaded at a size inside every range the index lists: APP checks every
# element, and the COLLPLAN_VERBOSE log must show each range's plan serving
# its calls on every rank.
set -eu
COLLPLAN=$1 LIB=$2 APP=$3 WORK=$4 P=$5
MPI_RUN=$(dirname "$0")/mpi_run.sh
PLANS=$WORK/plans
rm -rf "$WORK" && mkdir -p "$WORK"
"$COLLPLAN" tune --collectives allreduce,allgather -P "$P" --bytes 8:4MiB \
  -o "$PLANS" 2>"$WORK/tune.log" >"$WORK/tune.out" || {
  cat "$WORK/tune.out" "$WORK/tune.log"; echo "FAIL: tune failed"; exit 1; }
cat "$WORK/tune.out"
grep -q "collplan: tune: allreduce on P = $P: pricing" "$WORK/tune.log" ||
  { cat "$WORK/tune.log"; echo "FAIL: no progress lines"; exit 1; }

# From the index: the first and last sizes of each range (APP's allreduce sends whole
# ints; its allgather gathers P equal shares of whole ints), and the plan
# file each call size must run from.
python3 - "$PLANS/plans.index" "$P" >"$WORK/cases" <<'PY'
import sys, yaml
index, P = yaml.safe_load(open(sys.argv[1])), int(sys.argv[2])
for r in index["plans"]:
    unit = 4 if r["collective"] == "allreduce" else 4 * P
    lo = max(r["min_bytes"], unit)
    size = -(-lo // unit) * unit
    hi = r["max_bytes"]
    if hi != "inf" and size >= hi:
        sys.exit("no size of whole units in range %s" % r)
    # The range's first and last sizes (a few MiB into an open one).
    top = (hi - 1) // unit * unit if hi != "inf" else max(size, 3 << 20) // unit * unit
    for s in sorted({size, top}):
        print(r["collective"], s, r["file"])
PY
SIZES=$(cut -d' ' -f2 "$WORK/cases" | sort -n | uniq | tr '\n' ' ')
echo "sizes: $SIZES"
# shellcheck disable=SC2086  # SIZES is a list of arguments
sh "$MPI_RUN" "$P" LD_PRELOAD="$LIB" COLLPLAN_PLANS="$PLANS" COLLPLAN_VERBOSE=1 \
  -- "$APP" $SIZES 2>"$WORK/log" >"$WORK/out" || {
  cat "$WORK/out" "$WORK/log"; echo "FAIL: the program failed"; exit 1; }
cat "$WORK/out"
while read -r COLL SIZE FILE; do
  FN=MPI_Allreduce
  [ "$COLL" = allgather ] && FN=MPI_Allgather
  N=$(grep -c "rank [0-9]*: $FN of $SIZE bytes.*plan $PLANS/$FILE" "$WORK/log" || true)
  if [ "$N" -lt "$P" ]; then
    grep "$FN" "$WORK/log" | head -20
    echo "FAIL: $FN of $SIZE bytes did not run from $FILE on every rank"; exit 1
  fi
  echo "$FN of $SIZE bytes: $FILE on all $P ranks"
done <"$WORK/cases"
echo "every range's plan ran, results correct"
