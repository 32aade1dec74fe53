#!/usr/bin/python3
"""Collectives on simulated machines: collplan's plans beside SMPI's own.

  tools/evaluate/evaluate.py [--collective allreduce|alltoall|broadcast]
                             [--preset ci|full] [--platforms T,...]
                             [--sizes B,...] [--out DIR] [--build DIR]
                             [--common-start] [--merge] [--no-plots]

For every platform (tools/evaluate/platforms.py) and message size, it
compiles a plan of the collective with every collplan algorithm that serves
the topology and with `--algorithm auto`, runs each under `smpirun` through
the runtime's executor and MPI transport built against SMPI
(collplan_smpi_allreduce, collplan_smpi_alltoall, collplan_smpi_broadcast:
from rank 0), and runs SMPI's built-in
algorithms and its emulations of Open MPI's and MPICH's selectors through
the same harness. Beside every simulated time is the cost model's prediction
for the same plan on the platform's parameters (`collplan compile` prices
what it writes). Small cases check the result on every rank.

A size is the vector for allreduce and broadcast and, for alltoall, what each rank sends
to each rank (MPI_Alltoall's count times the type's size): the plan's
vector is then the P x P matrix, P^2 times that.

Writes DIR/results.csv (one row per platform, size and contender),
DIR/fidelity.csv (|predicted / simulated - 1| per platform and algorithm),
DIR/<platform>.svg (time per call against size, log-log) and prints the
summary tables; for the other collectives the files are named after it,
e.g. alltoall-results.csv, alltoall-fidelity.csv and alltoall-<platform>.svg. Progress goes to stderr.

Calls run back to back (the mean per call of a loop; broadcast: each after
a barrier). With --common-start every call starts on every rank at one
simulated instant, the setting the cost model prices (its rows' note says
"common start"). With --merge the run's rows replace those of the same
platform, size and contender in DIR's CSVs, the others are kept, and the
plots are drawn from the merged rows.
"""

import argparse
import csv
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import platforms  # noqa: E402

PRESETS = {
    # A few minutes: two small machines, three sizes.
    "ci": {
        "platforms": ["torus:4x4", "nodes:4x4"],
        "sizes": [64, 64 << 10, 1 << 20],
    },
    # The machines, 32 B to 64 MiB in powers of 8.
    "full": {
        "platforms": ["torus:8x8", "torus:16x16", "torus:8x8x8",
                      "nodes:64x16", "fattree:64", "flat:48"],
        "sizes": [32 << (3 * k) for k in range(8)],
    },
}

ALLTOALL_PRESETS = {
    # A minute: one small torus, three sizes.
    "ci": {
        "platforms": ["torus:4x4"],
        "sizes": [32, 4 << 10, 128 << 10],
    },
    # The machines, 32 B to 32 MiB per pair in powers of 4 (the top
    # cut per platform where the buffers do not fit: MAX_SHARED_PAIR_BYTES).
    "full": {
        "platforms": ["torus:8x8", "nodes:16x16", "flat:48"],
        "sizes": [32 << (2 * k) for k in range(11)],
    },
}

# SMPI's algorithms and selectors run beside the plans, per collective
# (names from SimGrid's src/smpi/colls/smpi_coll.cpp).
SMPI_BUILTINS = {
    "allreduce": ["rdb", "rab1", "lr", "ompi_ring_segmented", "smp_rsag",
                  "ompi", "mpich"],
    "alltoall": ["pair", "bruck", "ring", "basic_linear", "ompi", "mpich"],
    "broadcast": ["binomial_tree", "scatter_rdb_allgather",
                  "scatter_LR_allgather", "ompi", "mpich"],
}
# SMPI's name of a collective in --cfg=smpi/NAME:algorithm.
SMPI_CFG_NAME = {"broadcast": "bcast"}

# Beyond this many bytes of user buffers in all (P x size x 2), the runs
# share one copy of the buffers (SMPI_SHARED_MALLOC): times only.
PRIVATE_BUFFER_LIMIT = 2 << 30
# Up to this many, every rank's result is checked.
CHECK_LIMIT = 256 << 20
RUN_TIMEOUT = 900  # seconds per smpirun
# Alltoall with shared buffers still maps each rank's P x size buffers in
# blocks (smpi/shared-malloc-blocksize): past this many bytes per pair and
# rank the mappings of P ranks pass vm.max_map_count, so larger sizes are
# cut (and said so in the row's note).
MAX_SHARED_RANK_BYTES = 2 << 30
# SMPI's basic_linear alltoall posts all P (P - 1) messages at once, and
# the simulator's sharing of them grows faster than their count: on
# nodes:16x16 (256 ranks) one call of 32 B had not finished after 600 s of
# simulation, so above this many ranks it is skipped (and said so).
MAX_LINEAR_ALLTOALL_RANKS = 128
# An alltoall run that takes longer is cut (its row says "timeout"): the
# selectors pick basic_linear at some sizes too.
ALLTOALL_RUN_TIMEOUT = 300
# The node-aware families need several ranks per node: on one rank per node
# they reduce to other families' plans (nap to recursive doubling).
NODE_AWARE = {"nap", "smp", "smp-rsag"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def algorithms_of(collplan, collective):
    """collplan's algorithms of the collective (compile refuses a topology
    one does not serve, and the row says why)."""
    out = subprocess.run([collplan, "list", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return [a["name"] for a in json.loads(out)
            if collective in a["collectives"]]


def vector_bytes(collective, platform, size):
    """The plan's vector: for alltoall the P x P matrix of size-byte
    blocks."""
    return size * platform.ranks ** 2 if collective == "alltoall" else size


def buffer_bytes(collective, platform, size):
    """The user buffers of every rank together (send and receive)."""
    per_rank = size * platform.ranks if collective == "alltoall" else size
    return platform.ranks * per_rank * 2


def measured_gamma(collplan):
    """This machine's float-sum reduction time per byte: SMPI charges the
    real reduction code's time to the simulated host, so the model must
    price it at the same rate."""
    out = subprocess.run([collplan, "calibrate", "-n", "2", "--format",
                          "json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["params"]["gamma"]


def compile_plan(collplan, collective, platform, gamma, algorithm, size,
                 path):
    """Compiles (and verifies) a plan; None with the reason if refused.
    ALGORITHM may carry parameters: nap@order=rank-dependent (several
    joined by +)."""
    algorithm, _, params = algorithm.partition("@")
    cmd = [collplan, "compile", "--collective", collective,
           "--algorithm", algorithm, "--topology", platform.topology,
           "--ranks", str(platform.ranks), "--bytes",
           str(vector_bytes(collective, platform, size)),
           "--gamma", f"{gamma:.6g}", "--element-size", "4",
           "--format", "json", "-o", path]
    cmd += platform.cost_flags
    for p in filter(None, params.split("+")):
        cmd += ["--param", p]
    if platform.ppn > 1 and platform.topology.startswith("torus"):
        cmd += ["--ppn", str(platform.ppn)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else ""
    info = json.loads(r.stdout)
    return info, ""


def simulate(collective, driver, platform, files, target, size,
             extra_cfg=(), common_start=False):
    """Seconds per call on the simulated platform (None and the reason if
    the run failed) and whether every rank's result was checked."""
    cfg = list(platform.smpi_cfg) + list(extra_cfg)
    # Ranks leave the barrier before the timed calls up to a latency apart:
    # several calls make that skew small beside a short call.
    moved = vector_bytes(collective, platform, size) // platform.ranks
    iterations = 10 if moved <= 64 << 10 else 3 if moved <= 1 << 20 else 1
    if collective == "alltoall" and platform.ranks > 64:
        # P - 1 rounds a call dwarf that skew, and a call of 255 rounds
        # takes minutes to simulate on a loaded machine.
        iterations = min(iterations, 2)
    if common_start:
        # Every call then starts alike and takes the same simulated time.
        iterations = 1
    args = [str(size), "--iterations", str(iterations)]
    if common_start:
        args.append("--common-start")
    total = buffer_bytes(collective, platform, size)
    checked = total <= CHECK_LIMIT
    if checked:
        args.append("--check")
    elif total > PRIVATE_BUFFER_LIMIT:
        args.append("--shared")
        # One mapping per block and rank: large blocks keep the count under
        # the kernel's vm.max_map_count.
        cfg.append("smpi/shared-malloc-blocksize:%d" % (64 << 20))
    cmd = ["smpirun", "-np", str(platform.ranks), "-platform", files[0],
           "-hostfile", files[1]] + ["--cfg=" + c for c in cfg]
    cmd += ["--log=root.thresh:error", driver] + target + args
    # Its own process group: on a timeout smpirun's child, the simulator,
    # goes too (killing smpirun alone left it running).
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=ALLTOALL_RUN_TIMEOUT if
                                 collective == "alltoall" else RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "timeout", False
    r = subprocess.CompletedProcess(cmd, p.returncode, out, err)
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["seconds"], "", checked
    err = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    return None, err, checked


def human(size):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def plot(rows, collective, platform_name, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    lines = {}
    for r in rows:
        if r["platform"] == platform_name and r["simulated_s"]:
            lines.setdefault(r["contender"], []).append(
                (int(r["bytes"]), float(r["simulated_s"])))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name in sorted(lines):
        pts = sorted(lines[name])
        style = "-" if name.startswith("collplan:") else "--"
        width = 2.5 if name == "collplan:auto" else 1.2
        ax.plot([p[0] for p in pts], [p[1] * 1e6 for p in pts], style,
                marker="o", markersize=3, linewidth=width, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes each rank sends to each rank" if
                  collective == "alltoall" else "message size (bytes)")
    ax.set_ylabel(f"simulated time per {collective} (µs)")
    ax.set_title(f"{collective} on {platform_name} (SimGrid SMPI)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def fidelity(rows):
    """Per (platform, algorithm): median and worst |predicted/simulated-1|."""
    groups = {}
    for r in rows:
        if r["predicted_s"] and r["simulated_s"]:
            err = abs(float(r["predicted_s"]) / float(r["simulated_s"]) - 1)
            groups.setdefault((r["platform"], r["contender"]), []).append(err)
    return [{"platform": p, "contender": c, "runs": len(e),
             "median_error": statistics.median(e), "worst_error": max(e)}
            for (p, c), e in sorted(groups.items())]


def read_rows(out, prefix):
    """The rows of DIR's results.csv, if any (--merge)."""
    path = os.path.join(out, prefix + "results.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def merged(kept, rows, key=None):
    """KEPT with the rows of RUN in place of those of the same KEY (by
    default platform, size and contender; in KEPT's order, new ones
    after)."""
    if key is None:
        def key(r):
            return (r["platform"], str(r["bytes"]), r["contender"])
    new = {key(r): r for r in rows}
    out = [new.pop(key(r), r) for r in kept]
    return out + [r for r in rows if key(r) in new]


def write_outputs(out, prefix, rows):
    """results.csv and fidelity.csv as they stand (after every platform, so
    a long run that stops keeps what it measured)."""
    fields = ["platform", "topology", "ranks", "bytes", "contender", "chosen",
              "simulated_s", "predicted_s", "checked", "note"]
    with open(os.path.join(out, prefix + "results.csv"), "w",
              newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    fid = fidelity(rows)
    with open(os.path.join(out, prefix + "fidelity.csv"), "w",
              newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fid[0]) if fid else
                           ["platform"])
        w.writeheader()
        w.writerows(fid)
    return fid


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collective", choices=sorted(SMPI_BUILTINS),
                    default="allreduce")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="ci")
    ap.add_argument("--platforms", help="comma-separated topology strings")
    ap.add_argument("--sizes", help="comma-separated byte counts")
    ap.add_argument("--algorithms", help="comma-separated collplan "
                    "algorithms (default: all that apply, and auto; none: "
                    "SMPI's only)")
    ap.add_argument("--builtins", help="comma-separated SMPI algorithms "
                    "(default: the collective's in SMPI_BUILTINS; empty or "
                    "none: collplan's plans only)")
    ap.add_argument("--compute", choices=["none", "measured"],
                    default="none", help="none (default): reductions cost "
                    "no simulated time, on both sides, since SMPI's built-in "
                    "collectives reduce inside the simulator for free; "
                    "measured: SMPI charges the executor's real CPU time "
                    "(reductions and bookkeeping) to the simulated host, "
                    "and the model prices reductions at this machine's rate")
    ap.add_argument("--out", default="evaluation")
    ap.add_argument("--build", default="build")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--common-start", action="store_true",
                    help="start every call on every rank at one simulated "
                    "instant (the cost model's setting) instead of back to "
                    "back")
    ap.add_argument("--merge", action="store_true",
                    help="replace the rows of the same platform, size and "
                    "contender in OUT's CSVs and keep the others")
    args = ap.parse_args()

    collective = args.collective
    preset = (ALLTOALL_PRESETS if collective == "alltoall" else
              PRESETS)[args.preset]
    prefix = "" if collective == "allreduce" else collective + "-"
    specs = args.platforms.split(",") if args.platforms else \
        preset["platforms"]
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else \
        preset["sizes"]
    builtins = [] if args.builtins in ("", "none") else \
        args.builtins.split(",") if args.builtins else \
        SMPI_BUILTINS[collective]
    collplan = os.path.join(args.build, "tools/collplan/collplan")
    driver = os.path.abspath(os.path.join(
        args.build, "runtime/smpi/collplan_smpi_" + collective))
    for f in (collplan, driver):
        if not os.path.exists(f):
            sys.exit(f"evaluate: {f} is missing: build with SimGrid "
                     "(tools/setup.sh installs libsimgrid-dev)")
    os.makedirs(args.out, exist_ok=True)

    if args.compute == "measured":
        gamma = measured_gamma(collplan)
        log(f"evaluate: reduction time on this machine {gamma:.3g} s/B")
        compute_cfg = []
    else:
        gamma = 0
        compute_cfg = ["smpi/simulate-computation:no"]
    kept = read_rows(args.out, prefix) if args.merge else []
    rows = []
    started = time.time()
    note = "common start" if args.common_start else ""
    for spec in specs:
        platform = platforms.make(spec)
        work = tempfile.mkdtemp(prefix="collplan-eval-")
        files = platform.write_files(work)
        algos = [] if args.algorithms == "none" else \
            args.algorithms.split(",") if args.algorithms else \
            [a for a in algorithms_of(collplan, collective)
             if platform.ppn > 1 or a not in NODE_AWARE] + ["auto"]
        total = len(sizes) * (len(algos) + len(builtins))
        done = 0
        for size in sizes:
            too_large = collective == "alltoall" and \
                size * platform.ranks > MAX_SHARED_RANK_BYTES
            for algo in algos:
                done += 1
                plan = os.path.join(work, f"{algo}-{size}.cplan")
                row = {"platform": platform.name, "topology": spec,
                       "ranks": platform.ranks, "bytes": size,
                       "contender": "collplan:" + algo, "chosen": "",
                       "simulated_s": "", "predicted_s": "", "checked": "",
                       "note": ""}
                if too_large:
                    info, why = None, "cut: a rank's buffers would pass " \
                        f"{MAX_SHARED_RANK_BYTES >> 30} GiB"
                else:
                    info, why = compile_plan(collplan, collective, platform,
                                             gamma, algo, size, plan)
                if too_large:
                    row["note"] = why
                elif info is None:
                    row["note"] = "not compiled: " + why
                else:
                    row["chosen"] = info["algorithm"] + "".join(
                        f" {k}={v}" for k, v in info["params"].items())
                    row["predicted_s"] = info["predicted_time"]
                    sim, why, checked = simulate(collective, driver, platform,
                                                 files, [plan], size,
                                                 compute_cfg,
                                                 args.common_start)
                    row["simulated_s"] = sim if sim is not None else ""
                    row["checked"] = checked if sim is not None else ""
                    row["note"] = why or note
                    os.remove(plan)
                rows.append(row)
                log(f"[{platform.name} {done}/{total} "
                    f"{time.time() - started:.0f}s] {human(size)} "
                    f"{row['contender']}: "
                    + (f"{float(row['simulated_s']) * 1e6:.2f} us"
                       if row["simulated_s"] != "" else row["note"]))
            for name in builtins:
                done += 1
                if too_large:
                    sim, why, checked = None, "cut: a rank's buffers would " \
                        f"pass {MAX_SHARED_RANK_BYTES >> 30} GiB", False
                elif name == "pair" and collective == "alltoall" and \
                        platform.ranks & (platform.ranks - 1):
                    # SMPI's pair pairs by XOR and aborts otherwise.
                    sim, why, checked = None, "skipped: SMPI's pair needs " \
                        "a power-of-two P", False
                elif name == "basic_linear" and \
                        platform.ranks > MAX_LINEAR_ALLTOALL_RANKS:
                    sim, why, checked = None, "skipped: SMPI's " \
                        "basic_linear posts P(P-1) messages at once, too " \
                        "many to simulate here", False
                elif name == "rab1" and platform.ranks > 64:
                    # SMPI 3.32's rab1 never finished on 256 ranks (nodes
                    # 16x16: 32 B, 1 KiB and 32 KiB each ran into the 900 s
                    # timeout); it ran on 64.
                    sim, why, checked = None, "skipped: SMPI's rab1 " \
                        "hangs above 64 ranks", False
                else:
                    sim, why, checked = simulate(
                        collective, driver, platform, files, ["--mpi"], size,
                        compute_cfg + ["smpi/%s:%s" % (SMPI_CFG_NAME.get(
                            collective, collective), name)],
                        args.common_start)
                    why = why or note
                rows.append({"platform": platform.name, "topology": spec,
                             "ranks": platform.ranks, "bytes": size,
                             "contender": "smpi:" + name, "chosen": "",
                             "simulated_s": sim if sim is not None else "",
                             "predicted_s": "",
                             "checked": checked if sim is not None else "",
                             "note": why})
                log(f"[{platform.name} {done}/{total} "
                    f"{time.time() - started:.0f}s] {human(size)} "
                    f"smpi:{name}: "
                    + (f"{sim * 1e6:.2f} us" if sim is not None else why))
            # After every size, so a long run that stops keeps what it
            # measured.
            fid = write_outputs(args.out, prefix, merged(kept, rows))
        if not args.no_plots:
            plot(merged(kept, rows), collective, platform.name,
                 os.path.join(args.out, prefix + platform.name + ".svg"))
        fid = write_outputs(args.out, prefix, merged(kept, rows))

    print("cost-model fidelity |predicted/simulated - 1|:")
    for g in fid:
        print(f"  {g['platform']:14} {g['contender']:30} runs {g['runs']:3}"
              f"  median {g['median_error']:.3f}  worst {g['worst_error']:.3f}")
    failures = [r for r in rows if r["simulated_s"] == "" and
                not r["note"].startswith(("not compiled", "cut:",
                                          "skipped:", "timeout"))]
    print(f"{len(rows)} runs, {len(failures)} failed to simulate; "
          f"results in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
