#!/usr/bin/python3
"""tools/evaluate/measured.py's CI preset end to end: measured tuning on two
small simulated machines (torus:4x4 and nodes:4x4), against SMPI's
emulations of Open MPI's and MPICH's selectors.

  measured_ci_test.py BUILD_DIR WORKDIR

Checks that the script succeeds (it exits 1 when the measured directory is
slower than the library at any size, re-run through the allreduce harness),
that every platform, library and size has a row, that the re-run agrees:
the directory is never slower than the library alone, and that the
measurement did more than keep the model's choice: somewhere a runner-up of
`tune --candidates` serves, and somewhere the library does (on this
SimGrid's deterministic clock).
"""

import csv
import os
import subprocess
import sys

BUILD, WORK = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "../../tools/evaluate/measured.py")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


r = subprocess.run(["/usr/bin/python3", SCRIPT, "--preset", "ci", "--out",
                    WORK, "--build", BUILD], capture_output=True, text=True)
print(r.stdout)
check(r.returncode == 0, "measured.py exits 0: " + r.stderr[-2000:])
rows = list(csv.DictReader(open(os.path.join(WORK, "measured.csv"))))
# 32 B .. 512 KiB in powers of 4: 8 sizes, two machines, two libraries.
check(len(rows) == 2 * 2 * 8, f"{len(rows)} rows, expected 32")
for name in ("torus-4x4", "nodes-4x4"):
    for lib in ("ompi", "mpich"):
        mine = [x for x in rows if x["platform"] == name
                and x["library"] == lib]
        check(sorted(int(x["bytes"]) for x in mine) ==
              [32 << (2 * k) for k in range(8)],
              f"{name} against {lib}: every size")
    check(os.path.getsize(os.path.join(WORK, f"measured-{name}.svg")) > 0,
          f"{name}: a plot")
for x in rows:
    check(float(x["served_s"]) <= float(x["library_s"]) * 1.01,
          f"{x['platform']} {x['library']} {x['bytes']} B: not slower than "
          f"the library ({x['served']})")
    check(int(x["contenders"]) >= 3,
          f"{x['platform']} {x['bytes']} B: the library and two plans timed")
check(any(x["served"].startswith("candidates/") for x in rows),
      "a runner-up serves somewhere")
check(any(x["served"] == "library" for x in rows),
      "the library serves somewhere")
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("measured tuning in SMPI: OK")
