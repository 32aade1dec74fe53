"""What the SMPI tests share: a tally of their checks, and one run of a
driver under smpirun on a platform of tools/evaluate/platforms.py."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../tools/evaluate"))
import platforms  # noqa: E402,F401  (the tests take it from here)


class Checks:
    """check(ok, what) prints each verdict; finish() exits 1 on a failure."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            self.failures.append(what)

    def finish(self):
        print(f"{len(self.failures)} failure(s)")
        sys.exit(1 if self.failures else 0)


def simulate(work, platform, driver, target, size, *flags, cfg=(),
             timeout=300):
    """The driver's JSON line from one simulated run (None if it failed:
    the end of smpirun's stderr is printed). Computation is not simulated:
    the times are the network's."""
    xml, hosts = platform.write_files(work)
    cfg = platform.smpi_cfg + ["smpi/simulate-computation:no"] + list(cfg)
    cmd = ["smpirun", "-np", str(platform.ranks), "-platform", xml,
           "-hostfile", hosts] + ["--cfg=" + c for c in cfg]
    cmd += ["--log=root.thresh:error", driver] + target + [str(size)]
    cmd += list(flags)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    print(r.stderr[-2000:], file=sys.stderr)
    return None
