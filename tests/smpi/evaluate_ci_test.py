#!/usr/bin/python3
"""tools/evaluate/evaluate.py's CI preset end to end, and two of the papers'
claims on its small machines.

  evaluate_ci_test.py BUILD_DIR WORKDIR

Checks that every contender ran (or, for a collplan family, was refused by
compile with a reason), that every rank's result was checked, that the CSVs
and one SVG plot per platform were written, and:
  * Swing (De Sensi et al.) beats ring, recursive doubling and Rabenseifner
    at 1 MiB on a 4x4 torus (the paper's Fig. 8 regime);
  * NAP (Bienz et al.) beats SMP and recursive doubling at 64 B on 4 nodes
    of 4 ranks (the paper's small-message regime).
"""

import csv
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

BUILD, WORK = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))
EVALUATE = os.path.join(HERE, "../../tools/evaluate/evaluate.py")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


r = subprocess.run([EVALUATE, "--preset", "ci", "--build", BUILD, "--out",
                    WORK], capture_output=True, text=True, timeout=1200)
print(r.stdout)
check(r.returncode == 0, "evaluate.py --preset ci exits 0")
if r.returncode:
    print(r.stderr[-3000:])
    sys.exit(1)

rows = list(csv.DictReader(open(os.path.join(WORK, "results.csv"))))
platforms = sorted({r["platform"] for r in rows})
check(platforms == ["nodes-4x4", "torus-4x4"], f"platforms {platforms}")
for r in rows:
    ran = r["simulated_s"] != ""
    refused = r["note"].startswith("not compiled")
    check(ran or (refused and r["contender"].startswith("collplan:")),
          f"{r['platform']} {r['bytes']} B {r['contender']} "
          f"{'ran' if ran else r['note']}")
    if ran:
        check(r["checked"] == "True",
              f"{r['platform']} {r['bytes']} B {r['contender']}: checked")
        if r["contender"].startswith("collplan:"):
            check(float(r["predicted_s"]) > 0, "a prediction beside it")
for p in platforms:
    svg = os.path.join(WORK, p + ".svg")
    try:
        root = ET.parse(svg).getroot()
        check(root.tag.endswith("svg"), f"{svg} is an SVG picture")
    except (OSError, ET.ParseError) as e:
        check(False, f"{svg}: {e}")
check(os.path.getsize(os.path.join(WORK, "fidelity.csv")) > 0,
      "fidelity.csv written")


def time_of(platform, size, contender):
    for r in rows:
        if (r["platform"], int(r["bytes"]), r["contender"]) == \
                (platform, size, contender):
            return float(r["simulated_s"])
    raise KeyError(contender)


swing = time_of("torus-4x4", 1 << 20, "collplan:swing")
for other in ("ring", "recursive-doubling", "rabenseifner"):
    t = time_of("torus-4x4", 1 << 20, "collplan:" + other)
    check(swing < t, f"torus 4x4, 1 MiB: swing {swing * 1e6:.1f} us < "
          f"{other} {t * 1e6:.1f} us")
nap = time_of("nodes-4x4", 64, "collplan:nap")
for other in ("smp", "recursive-doubling"):
    t = time_of("nodes-4x4", 64, "collplan:" + other)
    check(nap < t, f"nodes 4x4, 64 B: nap {nap * 1e6:.2f} us < "
          f"{other} {t * 1e6:.2f} us")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
