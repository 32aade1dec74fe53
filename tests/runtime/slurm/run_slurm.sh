#!/bin/bash
# run_slurm.sh COLLPLAN APP WORKDIR [SPANK_PLUGIN]
# A real Slurm started here (slurm_cluster.sh: munged, slurmctld, two slurmd
# for nodes n1 and n2 on this host) runs TunedSizesApp, an unmodified MPI
# program that checks its own results, on 4 ranks over both nodes: with
# `srun --mpi=pmix`, as a batch job whose script calls Open MPI's mpirun,
# and as one whose script calls `collplan launch -- mpirun` (plans for the
# allocation's shape).
# With SPANK_PLUGIN (collplan's SPANK plugin) it then runs the program with
# `srun --collplan`: plans tuned into the cache for the step's shape on the
# first start, taken from it on the second, a directory given by the user
# served as is, and every ill-formed request running plain with one line.
# Exit 77 (skipped) when not root or when Slurm is not installed.
set -u
C=$1 APP=$2 W=$3 PLUGIN=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/slurm_cluster.sh"
cluster_check || exit $?
rm -rf "$W" && mkdir -p "$W"
trap cluster_down EXIT
# Two slurmd on one host: Open MPI's shared-memory transport would take ranks
# of "different nodes" for neighbours with colliding segment names. TCP only,
# over loopback (the host's other interfaces are no use between its "nodes").
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LINE=
[ -n "$PLUGIN" ] && LINE="required $PLUGIN collplan=$C cache=$W/cache bytes=8:1MiB"
cluster_up "$W/cluster" "$LINE" || exit 1

fail() {
  cat "$W/out" "$W/err" 2>/dev/null
  echo "FAIL: $1"
  exit 1
}
served() { # RANKS DIR: every rank ran its 65536-byte allreduce from DIR
  N=$(grep -c "rank [0-9]*: MPI_Allreduce of 65536 bytes on $1 ranks: plan $2/" "$W/err")
  [ "$N" -eq "$1" ] || fail "$N of $1 ranks ran the allreduce from plans in $2"
}
step() { # srun's arguments: the step, bounded in time.
  timeout -k 5 90 srun "$@" >"$W/out" 2>"$W/err"
}

# srun --mpi=pmix: Open MPI 4.1 takes its ranks from Slurm's PMIx server.
step --mpi=pmix -N 2 -n 4 "$APP" 64 65536 || fail "srun --mpi=pmix failed"
grep -q "^ok: 2 sizes" "$W/out" || fail "srun --mpi=pmix: no result"

# sbatch + mpirun: mpirun finds the allocation and starts its daemons
# through srun.
cat >"$W/job.sh" <<JOB
#!/bin/sh
mpirun --display-map "$APP" 64 65536
JOB
timeout -k 5 120 sbatch --wait -N 2 -n 4 -o "$W/batch.out" "$W/job.sh" \
  >"$W/out" 2>"$W/err" || { cat "$W/batch.out"; fail "sbatch + mpirun failed"; }
grep -q "^ok: 2 sizes" "$W/batch.out" || { cat "$W/batch.out"; fail "sbatch + mpirun: no result"; }
grep -q "Data for node: n2" "$W/batch.out" || { cat "$W/batch.out"; fail "mpirun did not use node n2"; }
echo "Slurm: srun --mpi=pmix and sbatch + mpirun ran the program on n1 and n2"

# collplan launch -- mpirun in a batch script: without -n, the shape is the
# allocation's (two nodes of two).
export COLLPLAN_VERBOSE=1
CACHE=$W/cache
cat >"$W/job-launch.sh" <<JOB
#!/bin/sh
"$C" launch --cache "$CACHE" -- mpirun "$APP" 64 65536
JOB
timeout -k 5 120 sbatch --wait -N 2 -n 4 -o "$W/err" "$W/job-launch.sh" \
  >"$W/out" 2>&1 || fail "sbatch + collplan launch -- mpirun failed"
grep -q "^ok: 2 sizes" "$W/err" || fail "sbatch + collplan launch: no result"
grep -q "collplan: launch: tuning plans for this job: collplan tune .*--topology nodes:2x2" "$W/err" ||
  fail "collplan launch did not take the allocation's shape"
served 4 "$CACHE"
rm -rf "$CACHE"
echo "Slurm: collplan launch -- mpirun in a batch script served the program from plans"
[ -z "$PLUGIN" ] && exit 0

# srun --collplan: the plugin tunes plans for the step's shape into the cache
# (two nodes of two: nodes:2x2) and every rank's calls run from them.
step --mpi=pmix --collplan -N 2 -n 4 "$APP" 64 65536 || fail "srun --collplan failed"
grep -q "^ok: 2 sizes" "$W/out" || fail "srun --collplan: no result"
grep -q "collplan: slurm: tuning plans for this job: collplan tune .*--topology nodes:2x2" "$W/err" ||
  fail "the step was not tuned as two nodes of two"
grep -q "collplan: slurm: plans tuned in .* into $CACHE/" "$W/err" || fail "no plans tuned into the cache"
served 4 "$CACHE"

# The same shape again: from the cache, not tuned again.
step --mpi=pmix --collplan=tune -N 2 -n 4 "$APP" 64 65536 || fail "the second srun --collplan failed"
grep -q "collplan: slurm: plans for this job from $CACHE/" "$W/err" || fail "the cache was not used"
grep -q "tuning plans" "$W/err" && fail "the second step tuned again"
served 4 "$CACHE"

# Three tasks dealt cyclically over two nodes: an explicit node map.
step --mpi=pmix --collplan -N 2 -n 3 -m cyclic "$APP" 65536 || fail "the cyclic step failed"
grep -q "collplan tune .*--hostfile" "$W/err" || fail "the cyclic step was not tuned from its node map"
served 3 "$CACHE"

# A step on one node of a two-node allocation (srun sees the allocation's
# node list): one node of two.
timeout -k 5 90 salloc -N 2 -n 4 srun --mpi=pmix --collplan -N 1 -n 2 "$APP" 65536 \
  >"$W/out" 2>"$W/err" || fail "srun --collplan in salloc failed"
grep -q "collplan tune .*--ranks 2:2" "$W/err" || fail "the step in salloc was not one node of two ranks"
served 2 "$CACHE"

# A directory of the user's own, taken as it is.
"$C" tune -c allreduce -P 4 --bytes 8:1MiB -q -o "$W/mine" || fail "collplan tune failed"
step --mpi=pmix --collplan="$W/mine" -N 2 -n 4 "$APP" 65536 || fail "srun --collplan=DIR failed"
served 4 "$W/mine"
# Relative to srun's directory: the tasks get it absolute.
(cd "$W" && step --mpi=pmix --collplan=./mine --chdir=/ -N 2 -n 4 "$APP" 65536) ||
  fail "srun --collplan=./DIR failed"
served 4 "$W/mine"
grep -q "collplan: slurm" "$W/err" && fail "--collplan=DIR ran collplan slurm"

# measure: one line, then the cost model's plans.
step --mpi=pmix --collplan=measure -N 2 -n 4 "$APP" 65536 || fail "srun --collplan=measure failed"
grep -q "collplan: --collplan=measure: the plugin tunes by the cost model only" "$W/err" ||
  fail "measure was not reported"
served 4 "$CACHE"

# What the plugin cannot serve: one line each, the step runs plain.
plain() { # WHAT EXPECTED-LINE SRUN-ARGS...
  WHAT=$1 LINE=$2
  shift 2
  step --mpi=pmix "$@" "$APP" 65536 || fail "$WHAT: the step failed"
  grep -q "^ok: 1 sizes" "$W/out" || fail "$WHAT: no result"
  grep -q "$LINE" "$W/err" || fail "$WHAT: not reported"
  grep -q "plan $CACHE/\|plan $W/mine/" "$W/err" && fail "$WHAT: plans were used"
  [ "$(grep -c '^collplan' "$W/err")" -eq 1 ] || fail "$WHAT: not one line"
}
plain "an unknown value" "collplan: unknown --collplan value 'fast'.*running the step without plans" \
  --collplan=fast -N 2 -n 4
plain "a missing directory" "collplan: --collplan: not a directory: $W/none; running the step without plans" \
  --collplan="$W/none" -N 2 -n 4
# An arbitrary distribution: a node map collplan does not read.
printf 'n2\nn1\nn2\nn2\n' >"$W/arbitrary"
SLURM_HOSTFILE=$W/arbitrary plain "an arbitrary distribution" \
  "collplan: distribution 'arbitrary': collplan reads block, cyclic and plane; running the step without plans" --collplan -m arbitrary -n 4
# A cache that cannot be made (plugstack.conf is read at each srun).
touch "$W/file"
printf 'required %s collplan=%s cache=%s bytes=8:1MiB\n' "$PLUGIN" "$C" "$W/file/cache" \
  >"$W/cluster/plugstack.conf"
plain "an unwritable cache" "collplan: cannot create the cache '$W/file/cache': .*; running the step without plans" --collplan -N 2 -n 4
# A collplan that does not answer: the step starts after the timeout.
printf '#!/bin/sh\nsleep 60\n' >"$W/stuck" && chmod +x "$W/stuck"
printf 'required %s collplan=%s timeout=1\n' "$PLUGIN" "$W/stuck" >"$W/cluster/plugstack.conf"
plain "a collplan that hangs" \
  "collplan: collplan slurm did not finish within 1 s; running the step without plans" \
  --collplan -N 2 -n 4
# A plugstack.conf argument the plugin does not know.
printf 'required %s speed=11\n' "$PLUGIN" >"$W/cluster/plugstack.conf"
plain "an unknown plugstack.conf argument" \
  "collplan: plugstack.conf argument not understood: speed=11; running the step without plans" \
  --collplan -N 2 -n 4
echo "srun --collplan: tuned, cached, a user's directory served; every fallback plain"
