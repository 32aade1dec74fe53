#!/usr/bin/env bash
# Installs what collplan needs on a fresh Debian machine (idempotent) and
# builds it into ./build. Used by the README's two commands and by .ci/run.
# Open MPI is the MPI collplan builds against and `mpirun` runs; MPICH is
# installed beside it (its mpicc.mpich / mpirun.mpich, lower in Debian's
# alternatives): the interposer is built a second time against it
# (libcollplan_mpich.so), and the MPI tests run under it too. xz-utils and
# the archive keyring let the MPICH coll-suite test fetch and unpack Debian's
# mpich source package. Slurm (slurmctld, slurmd, srun/sbatch, munge and
# spank.h) lets the Slurm test start a private cluster on this machine and
# builds collplan's SPANK plugin (srun --collplan); its PMIx plugin serves
# `srun --mpi=pmix`.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake
  llvm-14-dev libcli11-dev libyaml-cpp-dev doctest-dev
  openmpi-bin libopenmpi-dev
  mpich libmpich-dev
  python3 python3-jsonschema python3-yaml
  libgloo-dev
  libsimgrid-dev python3-matplotlib
  libtinyxml2-dev
  xz-utils debian-archive-keyring
  slurmctld slurmd slurm-client libslurm-dev munge libpmix-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "collplan setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2
