#!/usr/bin/python3
"""Bytes a plan sends across a fat tree's upper level, counted from the plan.

  tools/evaluate/leaf_traffic.py [--collective C,...] [--ranks 64]
                                 [--leaf 8] [--taper 4] [--bytes N]
                                 [--algorithms A[@k=v+...],...]
                                 [--out FILE.csv] [--build DIR]

Ranks are placed in order, LEAF to a leaf switch (tools/evaluate/platforms.py
`fattree:P[:TAPER]`): a message between ranks of different leaves crosses
the upper level (leaf -> spine -> leaf), one inside a leaf does not. For
every collective and algorithm it compiles the plan (`collplan compile
-o plan.json`) and sums each send's bytes:
all of them, those that leave their leaf, the most any one leaf sends up
(its uplinks' load), and the tapered tree's bandwidth term: the sum over
rounds of the most a link carries in the round, a rank's own link (the
most a rank sends) or a leaf's uplinks (the most a leaf sends up, shared
by LEAF / TAPER uplinks), in bytes; times the link's time per byte it is
the β part of the plan's time on `fattree:P:TAPER`. The Bine paper's claim is about the second (up
to 33 % less global-link traffic than a binomial tree or butterfly). A block
range's bytes are those of the plan's even split of the vector (BlockLayout:
block b starts at b * bytes / blocks, rounded down).

Prints a table and, with --out, writes it as CSV (written whole).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile



def plan_json(collplan, collective, algorithm, ranks, size):
    """The compiled plan as a dict, or None with the reason."""
    algorithm, _, params = algorithm.partition("@")
    cmd = [collplan, "compile", "--collective", collective, "--algorithm",
           algorithm, "--topology", "flat", "--ranks", str(ranks),
           "--bytes", str(size), "--element-size", "4"]
    for p in filter(None, params.split("+")):
        cmd += ["--param", p]
    with tempfile.TemporaryDirectory(prefix="collplan-traffic-") as work:
        path = os.path.join(work, "plan.json")
        r = subprocess.run(cmd + ["-o", path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
        with open(path) as f:
            return json.load(f), ""


def traffic(plan, size, leaf, taper):
    """(bytes sent, bytes sent across leaves, the most one leaf sends up,
    the tapered tree's bandwidth term in bytes)."""
    blocks = plan["blocks"]

    def nbytes(ranges):
        return sum((e * size) // blocks - (b * size) // blocks
                   for b, e in ranges)

    total = across = 0
    up = {}  # leaf -> bytes
    up_in_round = {}  # (round, leaf) -> bytes
    rank_in_round = {}  # (round, rank) -> bytes
    for prog in plan["programs"]:
        rank = prog["rank"]
        for rnd in prog["rounds"]:
            for op in rnd["ops"]:
                if op["kind"] != "send":
                    continue
                n = nbytes(op["blocks"])
                total += n
                key = (rnd["index"], rank)
                rank_in_round[key] = rank_in_round.get(key, 0) + n
                if rank // leaf != op["peer"] // leaf:
                    across += n
                    up[rank // leaf] = up.get(rank // leaf, 0) + n
                    key = (rnd["index"], rank // leaf)
                    up_in_round[key] = up_in_round.get(key, 0) + n
    busiest = {}  # round -> the most one link carries
    uplinks = leaf // taper
    for (index, _), n in up_in_round.items():
        busiest[index] = max(busiest.get(index, 0), -(-n // uplinks))
    for (index, _), n in rank_in_round.items():
        busiest[index] = max(busiest.get(index, 0), n)
    return total, across, max(up.values(), default=0), sum(busiest.values())


DEFAULTS = {
    "allreduce": ["bine@variant=latency", "bine@variant=bandwidth",
                  "recursive-doubling", "rabenseifner", "swing@ports=1",
                  "ring"],
    "broadcast": ["bine@variant=latency", "bine@variant=bandwidth",
                  "binomial", "circulant"],
    "allgather": ["bine", "recursive-doubling", "swing@ports=1", "ring"],
    "reduce-scatter": ["bine", "swing@ports=1", "ring"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collective", default="allreduce,broadcast,allgather,"
                    "reduce-scatter", help="comma-separated collectives")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--leaf", type=int, default=8, help="ranks per leaf")
    ap.add_argument("--taper", type=int, default=4, help="a leaf has "
                    "LEAF / TAPER uplinks")
    ap.add_argument("--bytes", type=int, default=16 << 20)
    ap.add_argument("--algorithms", help="comma-separated (default: the "
                    "collective's Bine forms and the families they replace)")
    ap.add_argument("--out", help="CSV file")
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    collplan = os.path.join(args.build, "tools/collplan/collplan")
    if not os.path.exists(collplan):
        sys.exit(f"leaf_traffic: {collplan} is missing: build collplan")

    rows = []
    for collective in args.collective.split(","):
        algos = args.algorithms.split(",") if args.algorithms else \
            DEFAULTS.get(collective, ["bine"])
        for algo in algos:
            plan, why = plan_json(collplan, collective, algo, args.ranks,
                                  args.bytes)
            row = {"collective": collective, "algorithm": algo,
                   "ranks": args.ranks, "leaf": args.leaf,
                   "taper": args.taper,
                   "bytes": args.bytes, "sent": "", "across_leaves": "",
                   "across_share": "", "max_leaf_up": "",
                   "tapered_beta_bytes": "", "note": why}
            if plan is not None:
                total, across, up, tapered = traffic(plan, args.bytes,
                                                     args.leaf, args.taper)
                row.update(sent=total, across_leaves=across,
                           across_share=f"{across / total:.3f}" if total
                           else "", max_leaf_up=up, tapered_beta_bytes=tapered)
            rows.append(row)
            print(f"{collective:15} {algo:24} sent {row['sent']:>12} "
                  f"across {row['across_leaves']:>12} "
                  f"({row['across_share'] or '-':>5}) "
                  f"leaf up {row['max_leaf_up']:>11} "
                  f"tapered beta {row['tapered_beta_bytes']:>11} "
                  f"{row['note']}")
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
