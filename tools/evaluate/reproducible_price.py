#!/usr/bin/python3
"""The price of reproducible allreduce on simulated machines.

  tools/evaluate/reproducible_price.py [RESULTS.csv] [--format text|json]

Reads the rows evaluate.py wrote (docs/evaluation/results.csv by default)
and prints, per platform and size, the simulated time of what `--reproducible`
may choose (the faster of recursive doubling and Rabenseifner, the families
that follow the canonical tree: docs/reproducibility.md) beside the fastest
collplan plan, `auto`'s choice and SMPI's Open MPI and MPICH selectors, with
the ratios. It simulates nothing itself.
"""

import argparse
import collections
import csv
import json
import os
import sys

REPRODUCIBLE = ("collplan:recursive-doubling", "collplan:rabenseifner")


def price(rows):
    times = collections.defaultdict(dict)
    for r in rows:
        if r["simulated_s"]:
            times[(r["platform"], int(r["bytes"]))][r["contender"]] = float(
                r["simulated_s"])
    out = []
    for (platform, size), t in sorted(times.items()):
        repro = {c: t[c] for c in REPRODUCIBLE if c in t}
        plans = {c: v for c, v in t.items()
                 if c.startswith("collplan:") and c != "collplan:auto"}
        if not repro or not plans:
            continue
        chosen = min(repro, key=repro.get)
        best = min(plans, key=plans.get)
        row = {"platform": platform, "bytes": size,
               "reproducible": chosen.split(":")[1],
               "reproducible_s": repro[chosen],
               "fastest": best.split(":")[1], "fastest_s": plans[best],
               "price": repro[chosen] / plans[best]}
        for name in ("collplan:auto", "smpi:ompi", "smpi:mpich"):
            if name in t:
                row[name.split(":")[1] + "_ratio"] = repro[chosen] / t[name]
        out.append(row)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default=os.path.join(
        here, "..", "..", "docs", "evaluation", "results.csv"))
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args()
    with open(args.results, newline="") as f:
        rows = price(csv.DictReader(f))
    if not rows:
        print(f"{args.results}: no rows with recursive doubling or "
              "Rabenseifner", file=sys.stderr)
        return 1
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    print("platform      size      reproducible       fastest plan        "
          "price   /auto  /ompi  /mpich")
    for r in rows:
        print(f"{r['platform']:<13} {r['bytes']:>9}  "
              f"{r['reproducible']:<18} {r['fastest']:<18} "
              f"{r['price']:6.2f}  {r.get('auto_ratio', float('nan')):5.2f}  "
              f"{r.get('ompi_ratio', float('nan')):5.2f}  "
              f"{r.get('mpich_ratio', float('nan')):5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
