#!/usr/bin/python3
"""Alltoall plans on simulated machines (SimGrid SMPI): right results, and
the times of SMPI's own implementations of the same schedules.

  smpi_alltoall_test.py COLLPLAN DRIVER WORKDIR

Oracles, none of them collplan's own output:
  * every rank ends with every sender's block for it, in sender order (the
    driver's --check, from values it computes apart from any plan);
  * SMPI's MPI_Alltoall passes the same check;
  * SMPI's own pairwise exchange (`pair`, XOR partners) and direct exchange
    (`basic_linear`: every message posted at once) take the same simulated
    time as collplan's pairwise plan and its Bruck plan of radix P with all
    ports (the direct exchange), run through the executor and MPI transport.
"""

import os
import subprocess
import sys

import smpi_harness
from smpi_harness import platforms

COLLPLAN, DRIVER, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
check = smpi_harness.Checks()


def compile_plan(platform, algorithm, pair_bytes, params=()):
    """An alltoall plan whose vector is the P x P matrix of pair_bytes."""
    path = os.path.join(WORK, f"{platform.name}-{algorithm}-{pair_bytes}-"
                        + "-".join(params) + ".cplan")
    cmd = [COLLPLAN, "compile", "--collective", "alltoall", "--algorithm",
           algorithm, "--topology", platform.topology, "--ranks",
           str(platform.ranks), "--bytes",
           str(pair_bytes * platform.ranks ** 2), "-o", path]
    cmd += platform.cost_flags
    for p in params:
        cmd += ["--param", p]
    subprocess.run(cmd, check=True, capture_output=True)
    return path


def simulate(platform, target, pair_bytes, *flags, cfg=()):
    return smpi_harness.simulate(WORK, platform, DRIVER, target, pair_bytes,
                                 *flags, cfg=cfg)

# 1. Results: every family, on a torus, on nodes and on a flat machine of a
# P that is no power of two, at a size that is no multiple of 8.
PAIR = 4 * 1001
for spec, algorithms in (
        ("torus:4x4", [("pairwise", ()), ("bruck", ("radix=2",)),
                       ("bruck", ("radix=4", "ports=all")),
                       ("dimension-pairwise", ()), ("auto", ())]),
        ("nodes:2x3", [("pairwise", ()), ("bruck", ("radix=3",))]),
        ("flat:6", [("pairwise", ()), ("bruck", ()), ("auto", ())])):
    platform = platforms.make(spec)
    for algorithm, params in algorithms:
        plan = compile_plan(platform, algorithm, PAIR, params)
        out = simulate(platform, [plan], PAIR, "--check")
        check(out is not None and out["checked"] and out["seconds"] > 0,
              f"{spec} {algorithm} {' '.join(params)}: every rank holds "
              "every block addressed to it")
out = simulate(platforms.make("flat:6"), ["--mpi"], PAIR, "--check")
check(out is not None and out["checked"], "SMPI's MPI_Alltoall passes too")

# 2. The same schedule, SMPI's implementation and collplan's plan: the same
# simulated time (within 1 %).
torus = platforms.make("torus:4x4")
for ours, params, theirs in (
        ("pairwise", (), "pair"),
        ("bruck", ("radix=16", "ports=all"), "basic_linear")):
    for size in (256, 64 << 10):
        a = simulate(torus, [compile_plan(torus, ours, size, params)], size,
                     "--iterations", "10")
        b = simulate(torus, ["--mpi"], size, "--iterations", "10",
                     cfg=[f"smpi/alltoall:{theirs}"])
        check(a is not None and b is not None and
              abs(a["seconds"] / b["seconds"] - 1) < 0.01,
              f"torus:4x4 {size} B a pair: collplan {ours} "
              f"{' '.join(params)} {a and a['seconds'] * 1e6:.2f} us, SMPI "
              f"{theirs} {b and b['seconds'] * 1e6:.2f} us")

# 3. On a flat switch a rank's messages of a round share its port (the
# cost model's and SimGrid's), so auto picks the direct exchange, which
# takes SMPI's basic_linear's time (one latency, then a row's bytes at the
# link's rate).
flat = platforms.make("flat:6")
for size in (256, 64 << 10):
    plan = compile_plan(flat, "auto", size)
    shown = subprocess.run([COLLPLAN, "show", plan], capture_output=True,
                           text=True).stdout
    check("with bruck ports=all radix=6;" in shown,
          f"flat:6 {size} B a pair: auto is the direct exchange")
    a = simulate(flat, [plan], size, "--iterations", "10")
    b = simulate(flat, ["--mpi"], size, "--iterations", "10",
                 cfg=["smpi/alltoall:basic_linear"])
    check(a is not None and b is not None and
          abs(a["seconds"] / b["seconds"] - 1) < 0.01,
          f"flat:6 {size} B a pair: auto {a and a['seconds'] * 1e6:.2f} us, "
          f"SMPI basic_linear {b and b['seconds'] * 1e6:.2f} us")

check.finish()
