# slurm_cluster.sh - sourced: a private Slurm cluster on this one machine.
#
#   . slurm_cluster.sh; cluster_up WORKDIR PLUGSTACK_LINE; ...; cluster_down
#
# munged, slurmctld and two slurmd started in Slurm's multiple-slurmd mode
# (nodes n1 and n2 of two CPUs each, one host, each slurmd on its own port)
# from files written under WORKDIR: a fresh munge key and socket, free ports,
# state and spool directories, PMIx's temporary directory per node (two
# slurmd on one host would otherwise share it), and the tasks' TMPDIR with
# job ids from a random start (Open MPI names its session directories by
# them: another cluster on this machine must not meet them). No cgroups: processes are
# tracked through /proc (proctrack/linuxproc) and tasks are not bound.
# Every daemon runs in the foreground under this shell, so cluster_down (set
# as a trap by the caller) stops exactly what cluster_up started. The caller
# exports SLURM_CONF for srun and sbatch. Needs root (slurmd starts tasks
# as the job's user): cluster_check returns 77, ctest's skip, otherwise.

cluster_check() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "not root: slurmd cannot start tasks; skipped"
    return 77
  fi
  for P in munged slurmctld slurmd srun sbatch; do
    command -v "$P" >/dev/null 2>&1 ||
      { echo "$P not installed (tools/setup.sh installs Slurm); skipped"; return 77; }
  done
  return 0
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

CLUSTER_PIDS=
cluster_up() { # WORKDIR PLUGSTACK_LINE
  CW=$1
  mkdir -p "$CW/munge" "$CW/state" "$CW/log" "$CW/spooln1" "$CW/spooln2" \
    "$CW/tmpn1" "$CW/tmpn2"
  chmod 700 "$CW/munge"
  head -c 1024 /dev/urandom >"$CW/munge/munge.key"
  chmod 400 "$CW/munge/munge.key"
  # --force: munged refuses to run as root otherwise.
  munged --foreground --force --socket="$CW/munge/sock" \
    --key-file="$CW/munge/munge.key" --pid-file="$CW/munge/pid" \
    --log-file="$CW/munge/log" --seed-file="$CW/munge/seed" \
    >"$CW/log/munged.out" 2>&1 &
  CLUSTER_PIDS="$CLUSTER_PIDS $!"
  H=$(hostname -s)
  CP=$(free_port) D1=$(free_port) D2=$(free_port)
  printf '%s\n' "$2" >"$CW/plugstack.conf"
  cat >"$CW/slurm.conf" <<CONF
ClusterName=collplantest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$CP
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$CW/munge/sock
CredType=cred/munge
StateSaveLocation=$CW/state
SlurmdSpoolDir=$CW/spool%n
SlurmctldPidFile=$CW/slurmctld.pid
SlurmdPidFile=$CW/slurmd-%n.pid
SlurmctldLogFile=$CW/log/slurmctld.log
SlurmdLogFile=$CW/log/slurmd-%n.log
TmpFS=$CW/tmp%n
PlugStackConfig=$CW/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
FirstJobId=$((RANDOM * 8 + 1))
SlurmdParameters=config_overrides
KillWait=2
NodeName=n1 NodeHostname=$H NodeAddr=127.0.0.1 Port=$D1 CPUs=2
NodeName=n2 NodeHostname=$H NodeAddr=127.0.0.1 Port=$D2 CPUs=2
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=5 State=UP
CONF
  export SLURM_CONF="$CW/slurm.conf"
  mkdir -p "$CW/tasktmp"
  export TMPDIR="$CW/tasktmp"
  for I in $(seq 50); do [ -S "$CW/munge/sock" ] && break; sleep 0.1; done
  slurmctld -D -i -f "$SLURM_CONF" >"$CW/log/slurmctld.out" 2>&1 &
  CLUSTER_PIDS="$CLUSTER_PIDS $!"
  for N in n1 n2; do
    slurmd -D -f "$SLURM_CONF" -N "$N" >"$CW/log/slurmd-$N.out" 2>&1 &
    CLUSTER_PIDS="$CLUSTER_PIDS $!"
  done
  # Both nodes idle, or give up after 30 s.
  for I in $(seq 150); do
    [ "$(sinfo -h -o '%t %D' 2>/dev/null)" = "idle 2" ] && return 0
    sleep 0.2
  done
  echo "the cluster did not come up:"
  sinfo 2>&1
  tail -n 5 "$CW"/log/*.log
  return 1
}

cluster_down() {
  # Jobs first, while slurmd can still end their steps (slurmstepd leaves
  # with its step), then the daemons.
  if [ -n "${CW:-}" ] && [ -f "$CW/slurm.conf" ]; then
    scancel --quiet --user=root 2>/dev/null || true
    for I in $(seq 50); do
      [ -z "$(squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for P in $CLUSTER_PIDS; do kill "$P" 2>/dev/null || true; done
  for P in $CLUSTER_PIDS; do
    for I in $(seq 50); do kill -0 "$P" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$P" 2>/dev/null || true
  done
  CLUSTER_PIDS=
  return 0
}
