#!/bin/sh
# run_mpich_coll_suite.sh COLLPLAN LIBRARY WORKDIR [P...]
# MPICH's own collective tests (test/mpi/coll of the MPICH release Debian
# ships, fetched as Debian's source package of the installed mpich, never
# copied into this repository) under LIBRARY, libcollplan_mpich.so, with a
# plan directory from `collplan tune` for every collective the interposer
# serves (broadcast and reduce from every root; every communicator size up
# to P, for the programs' sub-communicators), on P ranks (default 2, 3, 4
# and 8). Each program checks its own results and prints "No Errors". A
# program that fails under the interposer is run without it: if MPICH alone
# fails too (4.0.2 has such bugs), it is reported and not counted; otherwise
# the test fails. Exits 77 (skipped) when the
# source package cannot be fetched (no network to Debian's archive).
set -eu
COLLPLAN=$1 LIB=$2 WORK=$3
shift 3
PS=${*:-2 3 4 8}
SRC=$WORK/source
mkdir -p "$WORK" "$SRC"

# The programs that call only what the interposer serves (allreduce,
# reduce, broadcast, allgather(v), reduce-scatter-block) or the library's
# own beside them. Out: those needing the typed datatype pools (dtpools),
# allredmany (10,000 calls of one double: with more ranks than cores MPICH's
# busy polling makes it run for minutes with or without collplan) and
# allgatherv4 (a minute per run with or without collplan; its random counts
# are no plan's).
# NAME or NAME:N, N: P must divide N.
PROGRAMS="allred3 allred4 allred5 allred6 op_commutative red3 red4
  allgather2 allgather3 allgatherv2 allgatherv3 allgather_struct
  bcasttest bcastzerotype coll2:10 coll4 coll5 coll6:10 coll7:10 coll8 coll9
  coll10 coll12 coll13 longuser redscat red_scat_block red_scat_block2 opband
  opbor opbxor opland oplor oplxor opmax opmin opminloc opsum opprod"

# Debian's source of the installed mpich, through a private apt state: the
# machine's own sources and lists are left alone.
VERSION=$(dpkg-query -W -f='${source:Version}' mpich)
TREE=$SRC/mpich-${VERSION%%-*}
if [ ! -f "$TREE/test/mpi/util/mtest.c" ]; then
  CODENAME=$(. /etc/os-release && echo "$VERSION_CODENAME")
  mkdir -p "$SRC/apt/lists/partial" "$SRC/apt/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $CODENAME main" >"$SRC/apt/sources.list"
  APT="-o Dir::Etc::SourceList=$SRC/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$SRC/apt/lists -o Dir::Cache=$SRC/apt/cache -o APT::Sandbox::User=root"
  # shellcheck disable=SC2086  # APT is a list of options
  if ! (apt-get $APT update -qq && cd "$SRC" &&
        apt-get $APT source --download-only -qq "mpich=$VERSION") >"$SRC/fetch.log" 2>&1; then
    cat "$SRC/fetch.log"
    echo "SKIP: Debian's mpich $VERSION source package could not be fetched"
    exit 77
  fi
  tar -C "$SRC" -xJf "$SRC"/mpich_"${VERSION%%-*}".orig.tar.xz \
    "mpich-${VERSION%%-*}/test/mpi/coll" "mpich-${VERSION%%-*}/test/mpi/util" \
    "mpich-${VERSION%%-*}/test/mpi/include" "mpich-${VERSION%%-*}/COPYRIGHT"
fi

# Build: MPICH's test utilities with the few configure results they read.
BIN=$WORK/bin
mkdir -p "$BIN"
cat >"$BIN/mpitestconf.h" <<'CONF'
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_VSNPRINTF 1
#define USE_STDARG 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
CONF
T=$TREE/test/mpi
for U in mtest mtest_single mtest_common; do
  mpicc.mpich -O1 -w -c -I"$BIN" -I"$T/include" "$T/util/$U.c" -o "$BIN/$U.o"
done
for ENTRY in $PROGRAMS; do
  NAME=${ENTRY%%:*}
  mpicc.mpich -O1 -w -I"$BIN" -I"$T/include" "$T/coll/$NAME.c" "$BIN/mtest.o" \
    "$BIN/mtest_single.o" "$BIN/mtest_common.o" -lm -o "$BIN/$NAME"
done

# ok LOG: the program's run printed MPICH's verdict.
ok() { grep -q "No Errors" "$1"; }
passed=0 failed=0 mpich_failures="" from_plans=0
for P in $PS; do
  PLANS=$WORK/plans-p$P
  rm -rf "$PLANS" # A directory of an earlier run would be refused as stale.
  "$COLLPLAN" tune --collectives allreduce,allgather,allgatherv,broadcast,reduce,reduce-scatter \
    --roots all --ranks "2:$P" --bytes 1:64MiB -o "$PLANS" -q
  for ENTRY in $PROGRAMS; do
    NAME=${ENTRY%%:*}
    if [ "$NAME" != "$ENTRY" ] && [ $((${ENTRY#*:} % P)) -ne 0 ]; then
      continue
    fi
    LOG=$WORK/$NAME-p$P
    if timeout -k 5 120 mpiexec.mpich -n "$P" -genv LD_PRELOAD "$LIB" \
         -genv COLLPLAN_PLANS "$PLANS" -genv COLLPLAN_VERBOSE 1 "$BIN/$NAME" \
         >"$LOG.out" 2>"$LOG.err" && ok "$LOG.out"; then
      passed=$((passed + 1))
      N=$(sed -n 's/.*MPI_COMM_WORLD of [0-9]* ranks: \([0-9]*\) call(s) from plans.*/\1/p' "$LOG.err" | head -1)
      from_plans=$((from_plans + ${N:-0}))
    elif timeout -k 5 120 mpiexec.mpich -n "$P" "$BIN/$NAME" >"$LOG.plain" 2>&1 &&
         ok "$LOG.plain"; then
      failed=$((failed + 1))
      echo "FAIL: $NAME on $P ranks fails under the interposer, passes without it"
      tail -n 5 "$LOG.out" "$LOG.err"
    else
      mpich_failures="$mpich_failures $NAME/p$P"
    fi
  done
done
echo "MPICH's own failures (the program fails without collplan too):${mpich_failures:- none}"
echo "calls on MPI_COMM_WORLD served from plans: $from_plans"
[ "$from_plans" -gt 0 ] || { echo "FAIL: no call ran from a plan"; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
