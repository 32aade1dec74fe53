#!/usr/bin/env bash
# The cost model's fidelity on this machine: calibrate over TCP (collplan
# calibrate) and over MPI (collplan_calibrate_mpi, when built), then time the
# same plans again REPS times, the transports interleaved, and print per
# (transport, plan, P, size) at P = 2 and P (default 4) the median measured
# time, its spread (max/min over the repetitions) and the predictions of
# three parameter sets fitted to the calibration's timings: "basic" (alpha,
# beta, gamma only), "full" (with the rank overhead o, o_B) and "ranges"
# (full, and messages above one or two fitted sizes priced with their own
# alpha and beta: docs/cost-model.md, "Large messages"), all three with the
# machine's cores shared by its ranks (docs/cost-model.md, "A node's cores
# shared by its ranks"), and "unshared": ranges without that term.
# Then, per transport and model, over P = 2 and 4 at 1 KiB .. 16 MiB: the
# median and worst |predicted/measured - 1|, and how often the plan the model
# ranks fastest (per collective, P and size) is within 10 % of the measured
# fastest. The load average is printed before and after.
# Each P runs in a job of its own (calibrate --min-ranks).
# --keep DIR keeps the timings in DIR; --from DIR fits and compares the
# timings a --keep run saved, running nothing (models compared on the same
# measurements). The cores are this machine's (nproc), kept in DIR/cores;
# a DIR without that file is taken to come from this machine.
# Usage: tools/bench-calibrate.sh [--reps N] [--ranks P] [--keep DIR | --from DIR] BUILD_DIR
set -eu
REPS=3
RANKS=4
KEEP=
FROM=
while [ $# -gt 1 ]; do
  case $1 in
  --reps) REPS=$2; shift 2 ;;
  --ranks) RANKS=$2; shift 2 ;;
  --keep) KEEP=$2; shift 2 ;;
  --from) FROM=$2; shift 2 ;;
  *) break ;;
  esac
done
BUILD=${1:-build}
COLLPLAN=$BUILD/tools/collplan/collplan
MPI_CAL=$BUILD/runtime/calibrate/collplan_calibrate_mpi
if [ -n "$FROM" ]; then
  WORK=$FROM
  REPS=$(cat "$WORK/reps")
  RANKS=$(cat "$WORK/ranks")
  TRANSPORTS=$(cat "$WORK/transports")
  CORES=$(cat "$WORK/cores" 2>/dev/null || nproc)
else
  if [ -n "$KEEP" ]; then
    WORK=$KEEP
    mkdir -p "$WORK"
  else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
  fi
  TRANSPORTS=tcp
  [ -x "$MPI_CAL" ] && command -v mpirun >/dev/null && TRANSPORTS="tcp mpi"
  echo "$REPS" >"$WORK/reps"
  echo "$RANKS" >"$WORK/ranks"
  echo "$TRANSPORTS" >"$WORK/transports"
  CORES=$(nproc)
  echo "$CORES" >"$WORK/cores"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# job TRANSPORT P ARGS...: calibrate's JSON for plans of P ranks, in a job
# of P ranks (waiting ranks of a bigger job would spin on the cores).
job() {
  local t=$1 p=$2
  shift 2
  if [ "$t" = tcp ]; then
    "$COLLPLAN" calibrate -n "$p" --min-ranks "$p" --format json "$@" 2>/dev/null
  else
    mpirun --oversubscribe -n "$p" "$MPI_CAL" --min-ranks "$p" --format json \
      "$@" 2>/dev/null
  fi
}
# sweep TRANSPORT OUT ARGS...: P = 2 and RANKS, their samples in one file.
sweep() {
  local t=$1 out=$2
  shift 2
  job "$t" 2 "$@" >"$out.2"
  job "$t" "$RANKS" "$@" >"$out.$RANKS"
  python3 - "$out" "$out.2" "$out.$RANKS" <<'PY'
import json, sys
parts = [json.load(open(f)) for f in sys.argv[2:]]
merged = dict(parts[-1])
merged["samples"] = [s for p in parts for s in p["samples"]]
json.dump(merged, open(sys.argv[1], "w"))
PY
}

if [ -z "$FROM" ]; then
  echo "== load: $(uptime)" | tee "$WORK/load"
  # Held-out timings only need some parameters to compare with; the
  # comparison below predicts them anew from each model's fit.
  echo "# defaults" >"$WORK/defaults.yaml"
  for t in $TRANSPORTS; do
    echo "== calibrate over $t on P = 2 and $RANKS"
    sweep "$t" "$WORK/$t-fit.json"
  done
  for r in $(seq "$REPS"); do
    for t in $TRANSPORTS; do
      echo "== held-out timing $r/$REPS over $t"
      sweep "$t" "$WORK/$t-eval-$r.json" --evaluate "$WORK/defaults.yaml"
    done
  done
  echo "== load: $(uptime)" | tee -a "$WORK/load"
else
  cat "$WORK/load"
fi
# The same timings fitted four times: without the rank overhead (basic),
# with it (full), with the size ranges too (ranges), each with the node's
# cores shared by its ranks, and ranges without the cores (unshared).
MODELS="basic full ranges unshared"
for t in $TRANSPORTS; do
  for m in $MODELS; do
    case $m in
    basic) keys=alpha,beta,gamma ;;
    full) keys=alpha,beta,gamma,overhead,overhead_per_byte ;;
    ranges | unshared) keys=alpha,beta,gamma,overhead,overhead_per_byte,medium_message_bytes,alpha_medium,beta_medium,large_message_bytes,alpha_large,beta_large ;;
    esac
    cores=$CORES
    [ "$m" = unshared ] && cores=0
    "$COLLPLAN" calibrate --timings "$WORK/$t-fit.json" --fit "$keys" \
      --cores-per-node "$cores" -o "$WORK/$t-$m.yaml" >/dev/null
    echo "   $t $m: $(grep -v '^#' "$WORK/$t-$m.yaml" | tr '\n' ' ')"
  done
done

python3 - "$WORK" "$COLLPLAN" "$REPS" "$MODELS" $TRANSPORTS <<'PY'
import json, statistics, subprocess, sys
work, collplan, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
models, transports = sys.argv[4].split(), sys.argv[5:]
KIB, MIB = 1024, 1024 * 1024
summary = []
for t in transports:
    runs = [json.load(open(f"{work}/{t}-eval-{r}.json")) for r in range(1, reps + 1)]
    base = runs[0]
    merged = dict(base)
    merged["samples"] = []
    spread = []
    for i, s in enumerate(base["samples"]):
        times = [run["samples"][i]["measured"] for run in runs]
        m = dict(s)
        m["measured"] = statistics.median(times)
        merged["samples"].append(m)
        spread.append(max(times) / min(times))
    json.dump(merged, open(f"{work}/{t}-median.json", "w"))
    pred = {}
    for model in models:
        out = subprocess.run(
            [collplan, "calibrate", "--timings", f"{work}/{t}-median.json",
             "--evaluate", f"{work}/{t}-{model}.yaml", "--format", "json"],
            check=True, capture_output=True, text=True).stdout
        pred[model] = [s["predicted"] for s in json.loads(out)["samples"]]
    print(f"\n== {t}: predicted/measured (median of {reps} held-out timings; "
          f"spread = max/min)")
    print("%-20s %-9s %2s %9s %12s %6s" % (
        "algorithm", "coll", "P", "bytes", "measured", "spread") +
        "".join(" %12s %6s" % (m, "ratio") for m in models))
    points = []
    for i, s in enumerate(merged["samples"]):
        if s["ranks"] not in (2, 4) or not KIB <= s["bytes"] <= 16 * MIB:
            continue
        meas = s["measured"]
        row = dict(s, spread=spread[i], **{m: pred[m][i] for m in models})
        points.append(row)
        print("%-20s %-9s %2d %9d %9.1f us %6.2f" % (
            s["algorithm"], s["collective"], s["ranks"], s["bytes"], meas * 1e6,
            spread[i]) + "".join(" %9.1f us %6.2f" % (row[m] * 1e6, row[m] / meas)
                                 for m in models))
    for model in models:
        err = [abs(p[model] / p["measured"] - 1) for p in points]
        groups = {}
        for p in points:
            groups.setdefault((p["collective"], p["ranks"], p["bytes"]), []).append(p)
        hits = 0
        for g in groups.values():
            chosen = min(g, key=lambda p: p[model])
            hits += chosen["measured"] <= 1.10 * min(p["measured"] for p in g)
        summary.append((t, model, statistics.median(err), max(err),
                        hits, len(groups), statistics.median(spread)))
        for P in (2, int(merged["ranks"])):
            sub = [abs(p[model] / p["measured"] - 1) for p in points
                   if p["ranks"] == P]
            if sub:
                print(f"{t} {model} P={P}: median {100 * statistics.median(sub):.1f}%"
                      f" worst {100 * max(sub):.1f}%")
print("\n== summary over P = 2 and 4, 1 KiB .. 16 MiB "
      "(targets: median <= 15 %, worst <= 40 %, best plan >= 90 %)")
print("%-4s %-8s %8s %8s %14s %14s" % ("", "model", "median", "worst",
                                        "best plan", "median spread"))
for t, model, med, worst, hits, n, spr in summary:
    print("%-4s %-8s %7.1f%% %7.1f%% %6d/%d %4.0f%% %13.2f" % (
        t, model, 100 * med, 100 * worst, hits, n, 100 * hits / n, spr))
PY
