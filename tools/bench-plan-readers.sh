#!/bin/sh
# Peak memory and wall time of 'collplan verify' reading ring allreduce plans
# in each format, for one or two collplan binaries side by side (before and
# after a change to the readers).
#
#   tools/bench-plan-readers.sh [-d DIR] [-c GiB] BEFORE [AFTER] -- P...
#
# BEFORE, AFTER: collplan binaries; the plans are compiled once, by the last
# one given. -c caps each verify's address space (default 16 GiB) so that a
# reader that needs more fails instead of starving the machine; such a run is
# reported with its exit status. Needs GNU time (/usr/bin/time, Debian package time).
set -eu

Dir=/tmp/bench-plan-readers
CapGiB=16
while getopts d:c: Opt; do
  case $Opt in
  d) Dir=$OPTARG ;;
  c) CapGiB=$OPTARG ;;
  *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))

Bins=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  Bins="$Bins $1"
  shift
done
[ $# -gt 0 ] && shift
[ -n "$Bins" ] && [ $# -gt 0 ] || {
  echo "usage: $0 [-d DIR] [-c GiB] BEFORE [AFTER] -- P..." >&2
  exit 2
}
[ -x /usr/bin/time ] || {
  echo "$0: needs GNU time (apt-get install time)" >&2
  exit 2
}
Compiler=$(echo $Bins | awk '{print $NF}')
mkdir -p "$Dir"

# "<max RSS MiB> <wall s> <exit>" of one verify run, under the cap.
measure() {
  Log="$Dir/time.log"
  set +e
  (ulimit -v $((CapGiB * 1024 * 1024)) &&
    /usr/bin/time -v -o "$Log" "$1" verify "$2" >/dev/null 2>&1)
  Exit=$?
  set -e
  awk -v code="$Exit" '
    /Maximum resident set size/ { rss = $NF / 1024 }
    /Elapsed \(wall clock\)/ {
      n = split($NF, t, ":"); wall = 0
      for (i = 1; i <= n; i++) wall = wall * 60 + t[i]
    }
    END { printf "%.0f %.1f %s\n", rss, wall, code }' "$Log"
}

printf '%-6s %-6s %10s' P format "file MiB"
for B in $Bins; do
  printf ' | %-28s' "$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$B")")")")")"
done
printf '\n'
for P in "$@"; do
  for Ext in yaml json cplan; do
    Plan="$Dir/ring$P.$Ext"
    [ -s "$Plan" ] ||
      "$Compiler" compile -c allreduce -a ring --ranks "$P" -q --no-verify \
        -o "$Plan" || {
        printf '%-6s %-6s refused by compile\n' "$P" "$Ext"
        continue
      }
    Size=$(($(stat -c %s "$Plan") / 1048576))
    printf '%-6s %-6s %10s' "$P" "$Ext" "$Size"
    for B in $Bins; do
      measure "$B" "$Plan" >"$Dir/result"
      read -r Rss Wall Code <"$Dir/result"
      Status=ok
      [ "$Code" = 0 ] || Status="exit $Code"
      printf ' | %7s MiB %7s s %-8s' "$Rss" "$Wall" "$Status"
    done
    printf '\n'
  done
done
