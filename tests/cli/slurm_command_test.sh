#!/usr/bin/env bash
# collplan slurm without a Slurm: the step's shape from a made-up srun
# environment (--dry-run), the directory from the cache, and the exit codes
# of what it cannot read or write. Usage: slurm_command_test.sh COLLPLAN
set -u
C=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
failed=0
fail() { echo "FAIL: $1"; sed 's/^/  | /' "$W/out" "$W/err" | head -8; failed=1; }
# run CODE VARS... -- ARGS...: collplan slurm in a clean Slurm environment.
run() {
  local code=$1 vars=()
  shift
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  env -u SLURM_JOB_ID -u SLURM_NODELIST -u SLURM_STEP_NODELIST -u SLURM_JOB_NODELIST \
    -u SLURM_TASKS_PER_NODE -u SLURM_STEP_TASKS_PER_NODE -u SLURM_DISTRIBUTION \
    -u SLURM_DIST_PLANESIZE -u SLURM_NTASKS -u SLURM_STEP_NUM_TASKS \
    "${vars[@]}" "$C" slurm "$@" >"$W/out" 2>"$W/err"
  local got=$?
  [ "$got" -eq "$code" ] || fail "collplan slurm $* (${vars[*]}): exit $got, expected $code"
}

run 0 SLURM_NODELIST='n[1-3]' SLURM_TASKS_PER_NODE='4(x3)' -- --dry-run
grep -q "tune .*--topology nodes:3x4" "$W/out" || fail "a block step is not nodes:3x4"
run 0 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='3,2' SLURM_DISTRIBUTION=cyclic -- --dry-run
grep -q "node of rank: 0 1 0 1 0" "$W/out" || fail "cyclic 3,2 is not srun's layout"
grep -q "tune .*--hostfile" "$W/out" || fail "a cyclic step is not tuned from a hostfile"
run 0 SLURM_NODELIST='a,b' SLURM_TASKS_PER_NODE='3,2' SLURM_DISTRIBUTION=plane SLURM_DIST_PLANESIZE=2 -- --dry-run
grep -q "node of rank: 0 0 1 1 0" "$W/out" || fail "plane=2 3,2 is not srun's layout"

# The directory: tuned, then the same from the cache; other node names, the
# same shape, the same directory.
run 0 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)' -- --cache "$W/cache" --bytes 8:64KiB
D1=$(cat "$W/out")
[ -f "$D1/plans.index" ] || fail "no plan directory printed"
grep -q "plans tuned in" "$W/err" || fail "not tuned"
run 0 SLURM_NODELIST='gpu[07-08]' SLURM_TASKS_PER_NODE='2(x2)' -- --cache "$W/cache" --bytes 8:64KiB
[ "$(cat "$W/out")" = "$D1" ] || fail "the same shape on other nodes got another directory"
grep -q "plans for this job from $D1" "$W/err" || fail "not from the cache"

# What it cannot do: exit 2 for the environment, 4 for the cache.
run 2 -- --dry-run
grep -q "not in a Slurm job step" "$W/err" || fail "no step not reported"
run 2 SLURM_NODELIST='n[1-2' SLURM_TASKS_PER_NODE='2(x2)' -- --dry-run
grep -q "host list 'n\[1-2': a '\[' without its '\]'" "$W/err" || fail "bad host list not reported"
run 2 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2' -- --dry-run
# A step on two of an allocation's three nodes (srun in salloc).
run 0 SLURM_NODELIST='n[1-3]' SLURM_TASKS_PER_NODE='2(x2)' -- --dry-run
grep -q "tune .*--topology nodes:2x2" "$W/out" || fail "a step on part of the allocation"
run 2 SLURM_NODELIST='n1' SLURM_TASKS_PER_NODE='2(x2)' -- --dry-run
grep -q "has 1 nodes" "$W/err" || fail "too few nodes not reported"
run 2 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)' SLURM_DISTRIBUTION=arbitrary -- --dry-run
run 2 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)' SLURM_NTASKS=5 -- --dry-run
touch "$W/file"
run 4 SLURM_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)' -- --cache "$W/file/cache"
grep -q "cannot create the cache" "$W/err" || fail "unwritable cache not reported"
[ "$failed" -eq 0 ] && echo "collplan slurm: shapes, cache and errors as expected"
exit "$failed"
