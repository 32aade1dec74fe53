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
SimGrid's deterministic clock). Then --merge: one platform's rows of a
second run replace their own and keep the other platform's.
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

# --merge: a run of one platform and two sizes replaces those rows and keeps
# the others. Marks written into the file before show which is which.
path = os.path.join(WORK, "measured.csv")
for x in rows:
    if x["platform"] == "torus-4x4" and x["bytes"] == "32":
        x["served"] = "replaced-mark"
    if x["platform"] == "nodes-4x4" and x["bytes"] == "32":
        x["served"] = "kept-mark"
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
r = subprocess.run(["/usr/bin/python3", SCRIPT, "--platforms", "torus:4x4",
                    "--max-bytes", "128", "--merge", "--out", WORK,
                    "--build", BUILD], capture_output=True, text=True)
check(r.returncode == 0, "measured.py --merge exits 0: " + r.stderr[-2000:])
merged = list(csv.DictReader(open(path)))
check(len(merged) == len(rows), f"--merge: {len(merged)} rows, expected "
      f"{len(rows)}")
check(not any(x["served"] == "replaced-mark" for x in merged),
      "--merge: the run's rows replace the same platform and size")
check(sum(x["served"] == "kept-mark" for x in merged) == 2,
      "--merge: the other platform's rows are kept")
check(f"{len(rows)} sizes" in r.stdout, "--merge: the table is the merged "
      "rows'")
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("measured tuning in SMPI: OK")
