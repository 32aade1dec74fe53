#!/usr/bin/python3
"""The tapered fat tree (platforms.py `fattree:P:TAPER`), the broadcast
driver on it, and leaf_traffic.py's count of what crosses its leaves.

  smpi_tapered_fattree_test.py COLLPLAN ALLREDUCE_DRIVER BROADCAST_DRIVER WORKDIR

Oracles, none of them collplan's own output:
  * the taper, from the platform's figures by hand: SMPI's recursive
    doubling allreduce (`rdb`) on 16 ranks, 8 to a leaf, runs three rounds
    inside the leaves (distances 1, 2, 4) and one across (distance 8). A
    round moves the whole vector, n / B each, B the link bandwidth; across a
    4:1 tapered tree the 8 ranks of a leaf share its 2 uplinks, so that
    round takes 4 n / B: (3 + 4) / 4 = 1.75 times the untapered time;
  * every rank ends with the root's vector (collplan_smpi_broadcast
    --check) for a Bine plan and SMPI's own broadcast, on the tapered tree;
  * leaf_traffic.py's count, by hand: MPICH's recursive-doubling allgather
    on 16 ranks (distances 1, 2, 4, 8, each rank sending 1, 2, 4, 8
    sixteenths of the vector n) crosses the leaves of 8 only at distance 8:
    16 ranks x n/2 = 8n of the 15n sent; a leaf's 8 ranks send 4n up, over
    2 uplinks 2n, more than a rank's own n/2 that round, and the rounds
    inside the leaves add n/16 + n/8 + n/4: the tapered term is 39n/16.
"""

import os
import subprocess
import sys

import smpi_harness
from smpi_harness import platforms

COLLPLAN, ALLREDUCE, BROADCAST, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
check = smpi_harness.Checks()


def simulate(platform, driver, target, size, *flags, cfg=()):
    return smpi_harness.simulate(WORK, platform, driver, target, size, *flags,
                                 cfg=cfg, timeout=120)


# 1. The taper: bandwidth-bound rdb, 4 MiB (84 us a round against 1 us of
# latency).
SIZE = 4 << 20
times = {}
for spec in ("fattree:16", "fattree:16:4"):
    out = simulate(platforms.make(spec), ALLREDUCE, ["--mpi"], SIZE,
                   cfg=["smpi/allreduce:rdb"])
    check(out is not None, f"{spec}: SMPI's rdb allreduce runs")
    times[spec] = out["seconds"] if out else None
if all(times.values()):
    ratio = times["fattree:16:4"] / times["fattree:16"]
    check(abs(ratio / 1.75 - 1) < 0.05,
          f"tapered / full-bisection rdb time {ratio:.3f}, by hand 1.75")

# 2. The broadcast driver on the tapered tree: a Bine plan of each variant
# and SMPI's own, every rank's vector checked.
tapered = platforms.make("fattree:16:4")
SIZE = 4 * 10007
for variant in ("latency", "bandwidth"):
    plan = os.path.join(WORK, f"bine-{variant}.cplan")
    subprocess.run([COLLPLAN, "compile", "--collective", "broadcast",
                    "--algorithm", "bine", "--param", f"variant={variant}",
                    "--topology", tapered.topology, "--ranks",
                    str(tapered.ranks), "--bytes", str(SIZE), "-o", plan]
                   + tapered.cost_flags, check=True, capture_output=True)
    out = simulate(tapered, BROADCAST, [plan], SIZE, "--check")
    check(out is not None and out["checked"],
          f"bine broadcast ({variant}) reaches every rank")
out = simulate(tapered, BROADCAST, ["--mpi"], SIZE, "--check",
               cfg=["smpi/bcast:binomial_tree"])
check(out is not None and out["checked"],
      "SMPI's binomial_tree broadcast through the same driver")

# 3. The upper-level traffic counted from a plan (tools/evaluate, on the
# path smpi_harness set).
import leaf_traffic  # noqa: E402

N = 16 << 10
plan, why = leaf_traffic.plan_json(COLLPLAN, "allgather",
                                   "recursive-doubling", 16, N)
check(plan is not None, "recursive-doubling allgather compiles " + why)
if plan:
    sent, across, up, tapered = leaf_traffic.traffic(plan, N, 8, 4)
    check((sent, across, up, tapered) == (15 * N, 8 * N, 4 * N,
                                          39 * N // 16),
          f"leaf traffic {sent, across, up, tapered}, by hand "
          f"{15 * N, 8 * N, 4 * N, 39 * N // 16}")

check.finish()
