#!/usr/bin/python3
"""Plans on simulated machines (SimGrid SMPI) give right results and times.

  smpi_allreduce_test.py COLLPLAN DRIVER WORKDIR

Oracles, none of them collplan's own output:
  * every rank's result is the sum 1 + ... + P (the driver's --check);
  * a hand-computed time from the platform's figures (SimGrid's CM02 model:
    latency + bytes / bandwidth, SMPI's receive overhead per message);
  * SMPI's own implementations of the same algorithms (its ring `lr`, its
    recursive doubling `rdb`) take the same simulated time as the plan of
    that algorithm run through collplan's executor and MPI transport;
  * with --common-start one call takes the hand-computed time exactly, where
    calls back to back overlap.
"""

import os
import subprocess
import sys

import smpi_harness
from smpi_harness import platforms

COLLPLAN, DRIVER, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
check = smpi_harness.Checks()


def compile_plan(platform, algorithm, size, params=()):
    path = os.path.join(WORK, f"{platform.name}-{algorithm}-{size}.cplan")
    cmd = [COLLPLAN, "compile", "--algorithm", algorithm, "--topology",
           platform.topology, "--ranks", str(platform.ranks), "--bytes",
           str(size), "-o", path] + platform.cost_flags
    for p in params:
        cmd += ["--param", p]
    subprocess.run(cmd, check=True, capture_output=True)
    return path


def simulate(platform, target, size, *flags, cfg=()):
    return smpi_harness.simulate(WORK, platform, DRIVER, target, size, *flags,
                                 cfg=cfg)


# 1. Results: families with different shapes of rounds, on a torus and on
# nodes, at a count that is no multiple of the block count.
SIZE = 4 * 100003
for spec, algorithms in (
        ("torus:4x4", [("ring", ()), ("swing", ("ports=all",)),
                       ("swing", ("variant=latency",)), ("bucket", ()),
                       ("rabenseifner", ()), ("permutation", ())]),
        ("nodes:4x4", [("nap", ()), ("smp", ()), ("smp-rsag", ())]),
        ("flat:6", [("recursive-doubling", ()), ("circulant", ())])):
    platform = platforms.make(spec)
    for algorithm, params in algorithms:
        plan = compile_plan(platform, algorithm, SIZE, params)
        out = simulate(platform, [plan], SIZE, "--check")
        check(out is not None and out["checked"] and out["seconds"] > 0,
              f"{spec} {algorithm} {' '.join(params)}: every rank holds the "
              "sum")
# The harness's check is real: SMPI's own allreduce passes it.
out = simulate(platforms.make("torus:4x4"), ["--mpi"], SIZE, "--check")
check(out is not None and out["checked"], "SMPI's MPI_Allreduce passes too")

# 2. Time by hand: ring on two hosts of a switch is two rounds, each one
# message of m/2 bytes each way (full duplex): the route's latency, then
# m/2 bytes at the link rate.
flat2 = platforms.make("flat:2")
m = 1 << 20
expected = 2 * (platforms.SWITCH_ALPHA + (m / 2) / platforms.TORUS_LINK_BW)
# Ten calls: the ranks leave the barrier before them up to one latency
# apart, which one call would count.
out = simulate(flat2, [compile_plan(flat2, "ring", m)], m, "--iterations",
               "10")
check(out is not None and abs(out["seconds"] / expected - 1) < 0.01,
      f"ring on flat:2 at 1 MiB takes {expected * 1e6:.2f} us "
      f"(simulated {out and out['seconds'] * 1e6:.2f})")

# 3. The same algorithm, SMPI's implementation and collplan's plan: the
# same simulated time (within 2%) on a torus and on nodes.
for spec in ("torus:4x4", "nodes:4x4"):
    platform = platforms.make(spec)
    # Recursive doubling only below the pieces of MpiTransport (512 KiB):
    # above, its pieces share the node link differently from SMPI's single
    # messages (a few per cent).
    for ours, theirs, sizes in (("ring", "lr", (4096, 1 << 20)),
                                ("recursive-doubling", "rdb", (4096,))):
        for size in sizes:
            a = simulate(platform, [compile_plan(platform, ours, size)], size,
                         "--iterations", "10")
            b = simulate(platform, ["--mpi"], size, "--iterations", "10",
                         cfg=[f"smpi/allreduce:{theirs}"])
            check(a is not None and b is not None and
                  abs(a["seconds"] / b["seconds"] - 1) < 0.02,
                  f"{spec} {size} B: collplan {ours} "
                  f"{a and a['seconds'] * 1e6:.2f} us, SMPI {theirs} "
                  f"{b and b['seconds'] * 1e6:.2f} us")

# 4. --common-start: every rank starts each call at one simulated instant,
# so a single call takes the hand-computed time (no barrier skew) ...
out = simulate(flat2, [compile_plan(flat2, "ring", m)], m, "--common-start")
check(out is not None and abs(out["seconds"] / expected - 1) < 0.001,
      f"one ring call on flat:2 from a common start takes "
      f"{expected * 1e6:.2f} us (simulated {out and out['seconds'] * 1e6:.2f})")
# ... and a call whose critical path ends on other ranks than it starts on
# is not overlapped with the next. Bucket (ports=1) on torus:8x8 at 8
# floats: 4 rings of 7 rounds one after another, each round a 1-hop message
# of one float (8 of the 64 blocks hold one; the others are empty) that the
# next round forwards or reduces and forwards: 28 hops in a chain.
torus = platforms.make("torus:8x8")
bucket = compile_plan(torus, "bucket", 32, ("ports=1",))
hops = 28 * (platforms.TORUS_HOP_LAT + 4 / platforms.TORUS_LINK_BW)
one = simulate(torus, [bucket], 32, "--iterations", "10", "--common-start")
loop = simulate(torus, [bucket], 32, "--iterations", "10")
check(one is not None and abs(one["seconds"] / hops - 1) < 0.01,
      f"bucket on torus:8x8 at 32 B from a common start takes 28 hops, "
      f"{hops * 1e6:.2f} us (simulated {one and one['seconds'] * 1e6:.2f})")
check(loop is not None and loop["seconds"] < 0.9 * hops,
      f"back to back its calls overlap: {loop and loop['seconds'] * 1e6:.2f}"
      f" us a call")

check.finish()
