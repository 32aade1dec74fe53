#!/usr/bin/env bash
# bench-tune.sh [--mpi openmpi|mpich] [--reps N] [--collectives LIST]
#               [--sizes LIST] [--measured SECONDS] [--candidates K]
#               [--reproducible] [--algorithms LIST] [--floor]
#               [--openmpi-rules | --mpich-json] [--against LIB] [--in-job]
#               [BUILD_DIR] [P]
#   — tune's choice against the MPI library's own selection.
#
# Tunes the collectives (default allreduce; LIST of allreduce, allgather,
# bcast, reduce, reduce_scatter, comma separated) for P ranks of this
# machine (8 B .. 16 MiB, the README's default cost parameters or
# COLLPLAN_PARAMS=FILE from collplan calibrate). With --measured tune also
# writes the model's runners-up (the K best at each size, --candidates,
# default 3) and collplan_tune_mpi (collplan_tune_mpich) measures them all and the
# library on the P ranks for that many seconds, each size going to the
# fastest (measured rules). With --reproducible tune takes only plans that
# give the same bits at every size (docs/reproducibility.md), which the
# interposer then asks of floating-point sums. With --algorithms tune
# chooses only among those families (one family: it serves every size, to
# compare an algorithm run by collplan with the library's own). Then times
# collplan_bench_calls (IMB-style, time per call) at each size (default
# 1 KiB, 64 KiB, 1 MiB, 16 MiB; --sizes "16 256 ..."): plain MPI with its
# default selection, and the same program through the interposer built for
# that MPI with the directory. --mpi picks the MPI (default openmpi: mpirun,
# libcollplan_mpi.so; mpich: mpiexec.mpich, libcollplan_mpich.so, the
# program built against MPICH). The two are run N times (default 3),
# interleaved so that drift hits both alike; prints per collective and size
# the medians in microseconds per call, the ratio of the medians with the
# quartiles of the per-pair ratios, and what served the size; then the
# worst ratio and every size where collplan won (ratio <= 0.90). With
# --floor (Open MPI) a third program joins each interleaved run: the same
# calls through libcollplan_pmpi_floor.so, a PMPI library that only forwards
# them, so floor/library is what being preloaded costs any interposer and
# tuned/floor what collplan adds to it. With --openmpi-rules (needs
# --measured) the measurement also times Open MPI's own algorithms, each
# forced, and writes Open MPI's rules file from them; a further program
# joins each run: plain Open MPI reading that file, so rules/library (with
# the quartiles of its per-pair ratios) is what
# measured rules give a user who does not preload collplan, and tuned/rules
# what collplan's plans add beyond them. --mpich-json (--mpi mpich, needs
# --measured) does the same with MPICH's selection file, merged into
# MPICH's own tree (MPICH takes a file as its whole tree and stops at a
# collective it has no entry for), which this script reads from the copy
# compiled into the installed libmpich. With --against LIB (a copy of an
# earlier build's interposer, for the same MPI) a further program joins each
# run: the same calls and directory through LIB, so against/library and
# tuned/against compare two builds of the executor in one run. With --in-job
# a further program joins each run: the interposed calls and the library's
# own (its PMPI_ entry points) timed in one job, repetition by repetition
# (collplan_bench_calls --pmpi); "in_job" is the median of the runs'
# per-repetition ratios, with their quartiles: what varies from one job to
# the next (where its ranks and buffers land) then hits both sides alike.
set -euo pipefail
MPI=openmpi
REPS=3
COLLS=allreduce
SIZES="1024 65536 1048576 16777216"
MEASURE=""
CANDIDATES=3
REPRODUCIBLE=""
ALGORITHMS=""
FLOOR=""
RULES=""
AGAINST=""
IN_JOB=""
while [ $# -gt 0 ]; do
  case $1 in
  --mpi) MPI=$2; shift 2 ;;
  --reps) REPS=$2; shift 2 ;;
  --collectives) COLLS=$2; shift 2 ;;
  --sizes) SIZES=$2; shift 2 ;;
  --measured) MEASURE=$2; shift 2 ;;
  --candidates) CANDIDATES=$2; shift 2 ;;
  --reproducible) REPRODUCIBLE=--reproducible; shift ;;
  --algorithms) ALGORITHMS=$2; shift 2 ;;
  --floor) FLOOR=1; shift ;;
  --openmpi-rules) RULES=openmpi; shift ;;
  --mpich-json) RULES=mpich; shift ;;
  --against) AGAINST=$2; shift 2 ;;
  --in-job) IN_JOB=1; shift ;;
  -h | --help) sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) break ;;
  esac
done
BUILD=${1:-build}
P=${2:-8}
COLLPLAN=$BUILD/tools/collplan/collplan
case $MPI in
openmpi)
  LIB=$BUILD/runtime/interposer/libcollplan_mpi.so
  FLOOR_LIB=$BUILD/runtime/bench/libcollplan_pmpi_floor.so
  APP=$BUILD/runtime/bench/collplan_bench_calls
  TUNE=$BUILD/runtime/tune/collplan_tune_mpi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  launch() { mpirun --oversubscribe -n "$P" "$@"; }
  run_rules() { mpirun --oversubscribe -n "$P" \
                  --mca coll_tuned_use_dynamic_rules 1 \
                  --mca coll_tuned_dynamic_rules_filename "$WORK/openmpi.rules" \
                  "$APP" "$1" $SIZES; }
  run() { mpirun --oversubscribe -n "$P" ${1:+-x LD_PRELOAD="$1"} \
            ${1:+-x COLLPLAN_PLANS="$WORK/plans"} "$APP" ${3:-} "$2" $SIZES; } ;;
mpich)
  LIB=$BUILD/runtime/interposer/libcollplan_mpich.so
  APP=$BUILD/runtime/bench/collplan_bench_calls_mpich
  TUNE=$BUILD/runtime/tune/collplan_tune_mpich
  launch() { mpiexec.mpich -n "$P" "$@"; }
  run_rules() { MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$WORK/mpich.json" \
                  mpiexec.mpich -n "$P" "$APP" "$1" $SIZES; }
  run() { mpiexec.mpich -n "$P" ${1:+-genv LD_PRELOAD "$1"} \
            ${1:+-genv COLLPLAN_PLANS "$WORK/plans"} "$APP" ${3:-} "$2" $SIZES; } ;;
*) echo "bench-tune.sh: --mpi $MPI: openmpi or mpich" >&2; exit 2 ;;
esac
if [ -n "$FLOOR" ] && [ "$MPI" != openmpi ]; then
  echo "bench-tune.sh: --floor preloads a library built for Open MPI" >&2
  exit 2
fi
if [ -n "$RULES" ] && { [ -z "$MEASURE" ] || [ "$MPI" != "$RULES" ]; }; then
  echo "bench-tune.sh: --openmpi-rules (Open MPI) and --mpich-json (MPICH)" \
    "come from --measured, on their MPI" >&2
  exit 2
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PARAMS=()
[ -n "${COLLPLAN_PARAMS:-}" ] && PARAMS=(--params "$COLLPLAN_PARAMS")
TUNED=$(echo "$COLLS" | sed 's/bcast/broadcast/; s/reduce_scatter/reduce-scatter/')
"$COLLPLAN" tune --collectives "$TUNED" --ranks "$P" --bytes 8:16MiB \
  ${MEASURE:+--candidates "$CANDIDATES"} $REPRODUCIBLE "${PARAMS[@]}" \
  ${ALGORITHMS:+--algorithms "$ALGORITHMS"} \
  -o "$WORK/plans" -q
if [ -n "$MEASURE" ]; then
  echo "bench-tune: measuring the directory for $MEASURE s" >&2
  FILE=()
  [ "$RULES" = openmpi ] && FILE=(--openmpi-rules "$WORK/openmpi.rules")
  [ "$RULES" = mpich ] && FILE=(--mpich-json "$WORK/measured.json")
  launch "$TUNE" "$WORK/plans" --bytes 16:16777216 --budget "$MEASURE" -q \
    "${FILE[@]}"
fi
if [ "$RULES" = mpich ]; then
  # MPICH's own tree (the one JSON text in libmpich naming MPIR_Barrier_
  # algorithms), the measured collectives' entries replaced.
  LIBMPICH=$(ldd "$APP" | awk '/libmpich\.so/ { print $3 }')
  strings -w -n 200 "$LIBMPICH" | /usr/bin/python3 -c '
import json, re, sys
text, measured = sys.stdin.read(), json.load(open(sys.argv[1]))
for m in re.finditer(r"\{\s*\"collective=", text):
    try:
        tree = json.JSONDecoder().raw_decode(text[m.start():])[0]
    except ValueError:
        continue
    if "MPIR_Barrier_intra" in json.dumps(tree):
        tree.update(measured)
        json.dump(tree, open(sys.argv[2], "w"), indent=1)
        sys.exit(0)
sys.exit("no MPIR selection tree in " + sys.argv[3])
' "$WORK/measured.json" "$WORK/mpich.json" "$LIBMPICH"
fi
for C in ${COLLS//,/ }; do
  for ((I = 0; I < REPS; ++I)); do
    echo "bench-tune: $MPI, P = $P, $C, pair $((I + 1)) of $REPS" >&2
    run "" "$C" >"$WORK/$C.mpi.$I"
    run "$LIB" "$C" >"$WORK/$C.plan.$I"
    [ -z "$FLOOR" ] || run "$FLOOR_LIB" "$C" >"$WORK/$C.floor.$I"
    [ -z "$RULES" ] || run_rules "$C" >"$WORK/$C.rules.$I"
    [ -z "$AGAINST" ] || run "$AGAINST" "$C" >"$WORK/$C.against.$I"
    [ -z "$IN_JOB" ] || run "$LIB" "$C" --pmpi >"$WORK/$C.injob.$I"
  done
done
# What served each size, in the interposer's own order of the rules.
"$COLLPLAN" index --show "$WORK/plans" --format json >"$WORK/rules.json"
echo "# $MPI, P = $P, $REPS interleaved pairs${MEASURE:+, measured ${MEASURE} s}${REPRODUCIBLE:+, reproducible}; us per call, medians"
printf '%-14s %9s %12s %12s %6s %13s %s%s%s%s\n' collective bytes library_us \
  tuned_us ratio pair_q1-q3 "${FLOOR:+ floor/lib tuned/floor}" \
  "${RULES:+ rules/lib rules_q1-q3 tuned/rules}" \
  "${AGAINST:+ against/lib against_q1-q3 tuned/against}" \
  "${IN_JOB:+ in_job in_job_q1-q3} served_by"
/usr/bin/python3 - "$WORK" "$REPS" "$COLLS" "$FLOOR" "$RULES" "$AGAINST" \
  "$IN_JOB" <<'PY'
import json, statistics, sys
work, reps, colls = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
extras = [k for k, on in (("floor", sys.argv[4]), ("rules", sys.argv[5]),
                          ("against", sys.argv[6])) if on]
rules = json.load(open(work + "/rules.json"))["rules"]
names = {"bcast": "broadcast", "reduce_scatter": "reduce-scatter"}
worst, wins = (0, ""), []
def served(coll, size):
    # The first rule covering the call (collplan index --show lists each
    # table's rules in the interposer's order; no operator or root here).
    for e in rules:
        hi = float("inf") if e["max_bytes"] is None else e["max_bytes"]
        if e["collective"] == names.get(coll, coll) and e["min_bytes"] <= size < hi:
            if e.get("library"):
                return "library (measured)"
            return " ".join([e.get("algorithm", e["file"])] + [
                "%s=%s" % kv for kv in sorted(e.get("params", {}).items())] +
                (["(measured)"] if e.get("measured") else []))
    return "no plan"
for coll in colls:
    def times(kind):
        runs = [dict(l.split()[:2] for l in open("%s/%s.%s.%d" % (work, coll, kind, i)))
                for i in range(reps)]
        return {int(b): [float(r[b]) for r in runs] for b in runs[0]}
    lib, plan = times("mpi"), times("plan")
    other = {k: times(k) for k in extras}
    in_job = {}
    if sys.argv[7]:
        for i in range(reps):
            for line in open("%s/%s.injob.%d" % (work, coll, i)):
                f = line.split()
                in_job.setdefault(int(f[0]), []).append(float(f[3]))
    for size in sorted(lib):
        m, p = statistics.median(lib[size]), statistics.median(plan[size])
        pairs = sorted(b / a for a, b in zip(lib[size], plan[size]))
        q = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else pairs * 3
        ratio = p / m
        worst = max(worst, (ratio, "%s %d" % (coll, size)))
        if ratio <= 0.90:
            wins.append("%s %d (%.2f)" % (coll, size, ratio))
        extra = ""
        for k in extras:
            f = statistics.median(other[k][size])
            extra += " %9.2f" % (f / m)
            if k in ("rules", "against"):  # and its per-pair ratios' quartiles
                r = sorted(b / a for a, b in zip(lib[size], other[k][size]))
                rq = statistics.quantiles(r, n=4) if len(r) > 1 else r * 3
                extra += " %5.2f-%-5.2f" % (rq[0], rq[2])
            extra += " %11.2f" % (p / f)
        if in_job:  # each run's median per-repetition ratio, one job each
            r = sorted(in_job[size])
            rq = statistics.quantiles(r, n=4) if len(r) > 1 else r * 3
            extra += " %6.2f %5.2f-%-5.2f" % (statistics.median(r), rq[0], rq[2])
        print("%-14s %9d %12.2f %12.2f %6.2f %6.2f-%-6.2f%s  %s" %
              (coll, size, m, p, ratio, q[0], q[2], extra, served(coll, size)))
print("# worst ratio %.2f at %s; collplan ahead (<= 0.90): %s" %
      (worst[0], worst[1], ", ".join(wins) or "none"))
PY
