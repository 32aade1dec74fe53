#!/bin/sh
# run_launch.sh COLLPLAN APP APP_MPICH WORKDIR
# `collplan launch -- LAUNCHER ...` end to end with TunedSizesApp (which
# checks its own results): under Open MPI's mpirun the plans are tuned into
# the cache on the first start and every rank runs its calls from them;
# the second start takes them from the cache; under MPICH's mpiexec the
# MPICH interposer serves them and -ppn 2 makes a nodes topology (APP_MPICH,
# or skipped when empty). Whatever collplan cannot do leaves
# the job running plain, and the job's own exit status comes back.
set -eu
C=$1 APP=$2 APP_MPICH=$3 W=$4
rm -rf "$W" && mkdir -p "$W"
fail() { cat "$W/out" "$W/err"; echo "FAIL: $1"; exit 1; }
launch() { # LAUNCHER ARGS...: collplan launch with the test's cache
  timeout -k 10 120 "$C" launch --cache "$W/cache" -- "$@" >"$W/out" 2>"$W/err"
}

launch mpirun --oversubscribe -n 4 -x COLLPLAN_VERBOSE=1 "$APP" 64 65536 ||
  fail "the job failed"
grep -q "^ok: 2 sizes" "$W/out" || fail "the program did not finish"
grep -q "collplan: launch: plans tuned in .* into $W/cache/" "$W/err" ||
  fail "no plans were tuned into the cache"
N=$(grep -c "rank [0-9]: MPI_Allreduce of 65536 bytes on 4 ranks: plan $W/cache/" "$W/err" || true)
[ "$N" -eq 4 ] || fail "the allreduce did not run from the cache's plans on every rank ($N)"
DIRS=$(find "$W/cache" -mindepth 1 -maxdepth 1 | wc -l)
[ "$DIRS" -eq 1 ] || fail "the cache holds $DIRS entries, not one whole directory"

launch mpirun --oversubscribe -n 4 -x COLLPLAN_VERBOSE=1 "$APP" 64 ||
  fail "the second job failed"
grep -q "collplan: launch: plans for this job from $W/cache/" "$W/err" ||
  fail "the second start did not take the cached plans"
if grep -q "tuning plans" "$W/err"; then fail "the second start tuned again"; fi

if [ -n "$APP_MPICH" ]; then
  # -ppn 2: two nodes of two (Hydra wraps its one host round).
  launch mpiexec.mpich -n 4 -ppn 2 "$APP_MPICH" 64 || fail "the -ppn job failed"
  grep -q "tune .*--topology nodes:2x2" "$W/err" ||
    fail "-ppn 2 was not read as 2 nodes of 2"

  launch mpiexec.mpich -n 3 -genv COLLPLAN_VERBOSE 1 "$APP_MPICH" 64 65536 ||
    fail "the MPICH job failed"
  N=$(grep -c "rank [0-9]: MPI_Allreduce of 65536 bytes on 3 ranks: plan $W/cache/" "$W/err" || true)
  [ "$N" -eq 3 ] || fail "under MPICH the allreduce did not run from plans ($N)"
fi

# A cache that cannot be made: one line, the job runs plain.
touch "$W/file"
timeout -k 10 120 "$C" launch --cache "$W/file/cache" -- mpirun --oversubscribe \
  -n 2 "$APP" 64 >"$W/out" 2>"$W/err" || fail "the job failed without a cache"
grep -q "^ok: 1 sizes" "$W/out" || fail "the job without a cache did not run"
grep -q "cannot create the cache .*; running the job without plans" "$W/err" ||
  fail "the unusable cache was not reported"
# The job's own failure is the command's.
set +e
timeout -k 10 120 "$C" launch --cache "$W/cache" -- mpirun --oversubscribe -n 2 false \
  >"$W/out" 2>"$W/err"
RC=$?
set -e
[ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] || fail "a failing job's status was lost ($RC)"
echo "collplan launch: plans tuned, cached and served; fallbacks plain"
