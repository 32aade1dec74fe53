#!/bin/sh
# run_mpich_selection.sh COLLPLAN APP_SOURCE WORKDIR
# Loads `collplan tune --mpich-json` into MPICH (Debian's mpich, 4.0.2) and
# shows that MPICH reads it and follows it:
#   1. a copy with an algorithm name MPICH does not know makes MPICH abort,
#      so MPICH parses the file (otherwise running fine would prove nothing);
#   2. under the file itself, MPI_SUM and a user-defined operator give the
#      right sums at a size of every range; a user-defined operator takes
#      the file's is_op_built_in=no branch, recursive doubling: on every
#      rank log2 P combines of the whole vector (the algorithm's definition);
#   3. a copy without that branch, whose size table then applies to the
#      user-defined operator too, runs recursive doubling below the
#      table's threshold and reduce-scatter + allgather above it, which
#      MPICH 4.0.2 aborts on (it asserts a built-in operator): MPICH picks
#      the algorithm the file names on each side of the threshold, and the
#      branch collplan writes is what keeps such programs alive.
set -eu
COLLPLAN=$1 SOURCE=$2 WORK=$3
P=4
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $1"; exit 1; }

mpicc.mpich -O1 -o "$WORK/app" "$SOURCE"
"$COLLPLAN" tune -c allreduce --ranks "$P" --bytes 8:16MiB \
  --mpich-json "$WORK/sel.json" -q
cat "$WORK/sel.json"

# The table for built-in operators: the largest size (doubles) of the first
# recursive-doubling range and the first size of the first reduce-scatter +
# allgather range; the broken and the unguarded copies.
/usr/bin/python3 - "$WORK" <<'PY' >"$WORK/counts" || fail "the file's shape"
import json, sys
work = sys.argv[1]
tree = json.load(open(work + "/sel.json"))
intra = tree["collective=allreduce"]["comm_type=intra"]
assert list(intra) == ["is_op_built_in=yes", "is_op_built_in=no"], list(intra)
assert list(intra["is_op_built_in=no"]) == [
    "algorithm=MPIR_Allreduce_intra_recursive_doubling"]
rd = rsag = None
low = 0
for key, leaf in intra["is_op_built_in=yes"].items():
    (algo,) = leaf
    high = None if key.endswith("=any") else int(key.split("<=")[1])
    if algo.endswith("recursive_doubling") and rd is None:
        rd = max(low, 8) // 8            # whole doubles inside the range
    if algo.endswith("reduce_scatter_allgather") and rsag is None:
        rsag = (low + 7) // 8 + 8
    low = (high or 0) + 1
if rd is None or rsag is None:
    sys.exit("the table needs a recursive-doubling and a reduce-scatter + "
             "allgather range for this test; got %s" % list(intra["is_op_built_in=yes"]))
print(rd, rsag)
unguarded = {"collective=allreduce": {"comm_type=intra": intra["is_op_built_in=yes"]}}
json.dump(unguarded, open(work + "/unguarded.json", "w"))
text = open(work + "/sel.json").read()
open(work + "/broken.json", "w").write(
    text.replace("MPIR_Allreduce_intra_recursive_doubling",
                 "MPIR_Allreduce_intra_no_such_algorithm"))
PY
read -r SMALL LARGE <"$WORK/counts"
echo "recursive doubling at $SMALL doubles, reduce-scatter + allgather at $LARGE"

# run FILE OP COUNTS...: the app on P ranks of MPICH under selection FILE.
run() {
  FILE=$1 OP=$2
  shift 2
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$FILE timeout -k 10 90 \
    mpirun.mpich -n "$P" "$WORK/app" "$OP" "$WORK/out" "$@" \
    >"$WORK/log" 2>&1
}

# 1. MPICH parses the file.
if run "$WORK/broken.json" builtin "$SMALL"; then
  cat "$WORK/log"; fail "MPICH ran a file naming an unknown algorithm"
fi
grep -q "Abort" "$WORK/log" || { cat "$WORK/log"; fail "no abort on the broken file"; }

# 2. The file itself.
run "$WORK/sel.json" builtin "$SMALL" "$LARGE" ||
  { cat "$WORK/log"; fail "MPI_SUM under the file"; }
run "$WORK/sel.json" user "$SMALL" "$LARGE" ||
  { cat "$WORK/log"; fail "a user-defined operator under the file"; }
for R in 0 1 2 3; do
  for C in "$SMALL" "$LARGE"; do
    grep -qx "$C: $C $C" "$WORK/out/rank-$R" ||
      { cat "$WORK/out/rank-$R"; fail "rank $R did not run recursive doubling at $C"; }
  done
done

# 3. Without the branch: the size table decides for the user operator too.
run "$WORK/unguarded.json" user "$SMALL" ||
  { cat "$WORK/log"; fail "recursive doubling below the threshold"; }
grep -qx "$SMALL: $SMALL $SMALL" "$WORK/out/rank-0" || fail "not recursive doubling"
if run "$WORK/unguarded.json" user "$LARGE"; then
  cat "$WORK/log"; fail "MPICH did not take reduce-scatter + allgather above the threshold"
fi
grep -q "allreduce_intra_reduce_scatter_allgather" "$WORK/log" ||
  { cat "$WORK/log"; fail "the abort was not reduce-scatter + allgather's"; }
echo "MPICH follows collplan's selection file: all checks passed"
