#!/usr/bin/python3
"""Measured tuning on simulated machines: the job is the simulated machine.

  tools/evaluate/measured.py [--preset ci|full] [--platforms T,...]
                             [--max-bytes B] [--out DIR] [--build DIR]

For every platform (tools/evaluate/platforms.py) it does what a user does
on a real allocation: `collplan tune --candidates 3` an allreduce plan
directory for the platform's topology and cost parameters, then runs
collplan_tune_mpi's own source, built against SMPI (collplan_smpi_tune),
on the simulated machine under `smpirun`, once with SMPI's emulation of
Open MPI's selector as "the library" (smpi/allreduce:ompi) and once with
MPICH's (mpich), at 32 B, 128 B, ... (powers of 4) up to the size the
machine's memory allows. The simulated clock has no noise: one batch per
contender and a noise band of 0.

Then, as a check independent of the tuner's own timing, every size is run
again through the evaluation's allreduce harness (collplan_smpi_allreduce):
the plan the measured directory serves there, or the library's call where
it serves the library, against the selector alone. The measured directory
must never be slower than the selector; the gain is printed, and so is the
model's choice alone (what `tune` without measurement serves), which can be
slower.

Writes DIR/measured.csv (one row per platform, library, size) and
DIR/measured-<platform>.svg, and prints the tables. With --merge the run's
rows replace those of the same platform, library and size in DIR's
measured.csv and the others are kept (the table printed and the plots are
the merged rows'). Exits 1 if the measured directory was slower than the
library anywhere in this run (beyond 1 %: the harness times whole calls,
the tuner batches of them).
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate  # noqa: E402
import platforms  # noqa: E402

PRESETS = {
    # Two small machines, a few sizes: minutes.
    "ci": {"platforms": ["torus:4x4", "nodes:4x4"], "max_bytes": 1 << 20},
    # The machines.
    "full": {"platforms": ["torus:8x8", "nodes:16x16", "flat:48"],
             "max_bytes": 32 << 20},
}
LIBRARIES = ["ompi", "mpich"]
# Each rank holds the user's two buffers and each contender's own: keep the
# simulated job under this many bytes of this machine's memory.
MEMORY_BUDGET = 6 << 30
CONTENDERS = 3 + 1  # the model's three best and the library
# Within this fraction the harness's re-run counts as not slower: it times
# single calls after a barrier, the tuner batches of calls.
TOLERANCE = 0.01


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sizes_for(platform, max_bytes):
    """32 B, 128 B, ... up to max_bytes and what the memory allows."""
    cap = MEMORY_BUDGET // (platform.ranks * (2 + CONTENDERS))
    out, s = [], 32
    while s <= min(max_bytes, cap):
        out.append(s)
        s *= 4
    return out


def smpirun(platform, files, program, cfg, sizes):
    """The tuner on the simulated job. One run measures every size, so it
    may take as long as the harness's runs of them all (torus:8x8's ten
    sizes took 880 s of a single run's 900 at load average 2-4)."""
    cmd = ["smpirun", "-np", str(platform.ranks), "-platform", files[0],
           "-hostfile", files[1]]
    cmd += ["--cfg=" + c for c in list(platform.smpi_cfg) + cfg]
    cmd += ["--log=root.thresh:error"] + program
    limit = evaluate.RUN_TIMEOUT * len(sizes)
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        sys.exit(f"measured: collplan_smpi_tune on {platform.name} ran "
                 f"past {limit} s")


def read_measurements(path):
    """{bytes: {contender: seconds}} and {bytes: chosen contender}."""
    times, chosen = {}, {}
    with open(path) as f:
        for r in csv.DictReader(f):
            b = int(r["bytes"])
            times.setdefault(b, {})[r["contender"]] = float(r["seconds"])
            if r["chosen"] == "1":
                chosen[b] = r["contender"]
    return times, chosen


# measured.csv's columns that hold numbers (read back by --merge).
INTEGER_FIELDS = ("ranks", "bytes", "contenders")
FLOAT_FIELDS = ("served_s", "library_s", "gain", "model_s",
                "tuner_library_s", "tuner_served_s")


def read_rows(out):
    """The rows of DIR's measured.csv, if any, numbers parsed (--merge)."""
    path = os.path.join(out, "measured.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in INTEGER_FIELDS:
            r[k] = int(r[k])
        for k in FLOAT_FIELDS:
            r[k] = float(r[k])
    return rows


def merged(kept, rows):
    """KEPT with RUN's rows in place of those of the same platform, library
    and size (evaluate.merged)."""
    return evaluate.merged(
        kept, rows, key=lambda r: (r["platform"], r["library"], r["bytes"]))


def model_choice(plans, size):
    """The file the model chose for size (its index's unmeasured rule)."""
    import yaml
    with open(os.path.join(plans, "plans.index")) as f:
        for r in yaml.safe_load(f)["plans"]:
            hi = float("inf") if r["max_bytes"] == "inf" else r["max_bytes"]
            if "measured" not in r and r["min_bytes"] <= size < hi:
                return r["file"]
    return None


def plot(rows, name, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for lib in LIBRARIES:
        mine = sorted((r for r in rows if r["platform"] == name
                       and r["library"] == lib), key=lambda r: r["bytes"])
        if not mine:
            continue
        x = [r["bytes"] for r in mine]
        ax.plot(x, [r["library_s"] * 1e6 for r in mine], "--", marker="o",
                markersize=3, label=f"smpi:{lib} (the library alone)")
        ax.plot(x, [r["served_s"] * 1e6 for r in mine], "-", marker="o",
                markersize=3, linewidth=2,
                label=f"measured directory, against {lib}")
    first = sorted((r for r in rows if r["platform"] == name),
                   key=lambda r: r["bytes"])
    seen = {}
    for r in first:
        seen.setdefault(r["bytes"], r["model_s"])
    ax.plot(sorted(seen), [seen[b] * 1e6 for b in sorted(seen)], ":",
            marker="x", label="the model's choice alone")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("simulated time per allreduce (µs)")
    ax.set_title(f"measured tuning on {name} (SimGrid SMPI)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="ci")
    ap.add_argument("--platforms", help="comma-separated topology strings")
    ap.add_argument("--max-bytes", type=int,
                    help="largest size measured (default: the preset's)")
    ap.add_argument("--out", default="evaluation")
    ap.add_argument("--build", default="build")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--merge", action="store_true",
                    help="replace the rows of the same platform, library "
                    "and size in OUT's measured.csv and keep the others")
    args = ap.parse_args()
    preset = PRESETS[args.preset]
    specs = args.platforms.split(",") if args.platforms else \
        preset["platforms"]
    max_bytes = args.max_bytes or preset["max_bytes"]
    collplan = os.path.join(args.build, "tools/collplan/collplan")
    tuner = os.path.abspath(os.path.join(args.build,
                                         "runtime/smpi/collplan_smpi_tune"))
    driver = os.path.abspath(os.path.join(
        args.build, "runtime/smpi/collplan_smpi_allreduce"))
    for f in (collplan, tuner, driver):
        if not os.path.exists(f):
            sys.exit(f"measured: {f} is missing: build with SimGrid "
                     "(tools/setup.sh installs libsimgrid-dev)")
    os.makedirs(args.out, exist_ok=True)
    # As evaluate.py's default: reductions cost no simulated time on either
    # side, since SMPI's own collectives reduce for free.
    cfg = ["smpi/simulate-computation:no"]
    kept = read_rows(args.out) if args.merge else []
    rows, slower = [], []
    started = time.time()
    for spec in specs:
        platform = platforms.make(spec)
        sizes = sizes_for(platform, max_bytes)
        work = tempfile.mkdtemp(prefix="collplan-measured-")
        files = platform.write_files(work)
        tuned = os.path.join(work, "tuned")
        cmd = [collplan, "tune", "-c", "allreduce", "--topology",
               platform.topology, "--ranks", str(platform.ranks),
               "--bytes", f"{sizes[0]}:{sizes[-1]}", "--candidates", "3",
               "-q", "-o", tuned] + platform.cost_flags
        if platform.ppn > 1 and platform.topology.startswith("torus"):
            cmd += ["--ppn", str(platform.ppn)]
        subprocess.run(cmd, check=True)
        for lib in LIBRARIES:
            plans = os.path.join(work, lib)
            shutil.copytree(tuned, plans)
            log(f"[{platform.name} {time.time() - started:.0f}s] measuring "
                f"against smpi:{lib}, {len(sizes)} sizes")
            r = smpirun(platform, files,
                        [tuner, plans, "--bytes", f"{sizes[0]}:{sizes[-1]}",
                         "--budget", "1e-9", "--batches", "1", "--calls",
                         "4", "--noise", "0", "-q"],
                        cfg + ["smpi/allreduce:" + lib], sizes)
            if r.returncode != 0:
                sys.exit(f"measured: collplan_smpi_tune failed on "
                         f"{platform.name}: {r.stderr.strip()[-2000:]}")
            times, chosen = read_measurements(
                os.path.join(plans, f"measured-p{platform.ranks}.csv"))
            for size in sizes:
                served = chosen[size]
                model = model_choice(plans, size)
                # The independent re-run: what the directory serves, and the
                # library alone, through the evaluation's harness.
                if served == "library":
                    target = ["--mpi"]
                else:
                    target = [os.path.join(plans, served)]
                served_s, why, _ = evaluate.simulate(
                    "allreduce", driver, platform, files, target, size,
                    cfg + ["smpi/allreduce:" + lib])
                library_s, why2, _ = evaluate.simulate(
                    "allreduce", driver, platform, files, ["--mpi"], size,
                    cfg + ["smpi/allreduce:" + lib])
                if served_s is None or library_s is None:
                    sys.exit(f"measured: {platform.name} {size} B: "
                             f"{why or why2}")
                row = {"platform": platform.name, "topology": spec,
                       "ranks": platform.ranks, "library": lib,
                       "bytes": size, "served": served,
                       "served_s": served_s, "library_s": library_s,
                       "gain": library_s / served_s,
                       "model": model, "model_s": times[size][model],
                       "tuner_library_s": times[size]["library"],
                       "tuner_served_s": times[size][served],
                       "contenders": len(times[size])}
                rows.append(row)
                if served_s > library_s * (1 + TOLERANCE):
                    slower.append(row)
                log(f"[{platform.name} {time.time() - started:.0f}s] "
                    f"{evaluate.human(size)} vs {lib}: {served} "
                    f"{served_s * 1e6:.2f} us, library "
                    f"{library_s * 1e6:.2f} us")
        shutil.rmtree(work)
        everything = merged(kept, rows)
        # Whole or not at all, and before the plot (which needs
        # matplotlib): a run stopped mid-write keeps the old file.
        path = os.path.join(args.out, "measured.csv")
        with open(path + ".tmp", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(everything)
        os.replace(path + ".tmp", path)
        if not args.no_plots:
            plot(everything, platform.name,
                 os.path.join(args.out, f"measured-{platform.name}.svg"))

    rows = merged(kept, rows)
    print("measured tuning on simulated machines: the directory against "
          "the library alone (re-run through the allreduce harness)")
    print(f"{'platform':12} {'library':7} {'bytes':>9} {'library_us':>11} "
          f"{'served_us':>10} {'gain':>6} {'model/lib':>9}  served by")
    for r in rows:
        print(f"{r['platform']:12} {r['library']:7} {r['bytes']:>9} "
              f"{r['library_s'] * 1e6:>11.2f} {r['served_s'] * 1e6:>10.2f} "
              f"{r['gain']:>6.2f} "
              f"{r['model_s'] / r['tuner_library_s']:>9.2f}  {r['served']}")
    behind = sum(r["served_s"] > r["library_s"] * (1 + TOLERANCE)
                 for r in rows)
    print(f"{len(rows)} sizes; slower than the library at {behind}; "
          f"the model's choice alone slower than the library at "
          f"{sum(r['model_s'] > r['tuner_library_s'] for r in rows)}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
