#!/usr/bin/env python3
"""Validates the plans collplan writes against schemas/plan.schema.json.

Uses python3-jsonschema and python3-yaml (Debian packages), so the schema and
the writers are checked by code that is not ours. Checks that:
  * the schema itself is a valid draft 2020-12 schema;
  * every sample plan, YAML and JSON, validates;
  * the YAML and JSON forms of each sample load to the same data;
  * hand-made broken variants are rejected (the schema is not vacuous).

Usage: validate_plan_schema.py EMITTER SCHEMA
Exit status 77 (skipped) when the Python modules are missing.
"""

import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"skipped: {e}; install python3-jsonschema python3-yaml")
    sys.exit(77)


def main():
    emitter, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([emitter, tmp], check=True)
        names = sorted(os.listdir(tmp))
        if len(names) < 10:
            failures.append(f"expected at least 10 sample files, got {names}")
        loaded = {}
        for name in names:
            path = os.path.join(tmp, name)
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f) if name.endswith(".yaml") else json.load(f)
            loaded[name] = data
            for error in validator.iter_errors(data):
                failures.append(f"{name}: {list(error.absolute_path)}: {error.message}")
        for name in names:
            if name.endswith(".yaml"):
                twin = name[: -len(".yaml")] + ".json"
                if loaded.get(twin) != loaded[name]:
                    failures.append(f"{name} and {twin} hold different data")

    base = loaded["hand-built.yaml"]
    first_op = lambda p: p["programs"][0]["rounds"][0]["ops"][0]
    broken = {
        "missing ranks": lambda p: p.pop("ranks"),
        "unknown top-level field": lambda p: p.update(extra=1),
        "wrong format tag": lambda p: p.update(format="other"),
        "version as a string": lambda p: p.update(version="1"),
        "zero ranks": lambda p: p.update(ranks=0),
        "too many ranks": lambda p: p.update(ranks=2**24 + 1),
        "too many blocks": lambda p: p.update(blocks=2**40 + 1),
        "unknown collective": lambda p: p.update(collective="scan"),
        "integer parameter": lambda p: p["params"].update(segments=4),
        "first buffer not data": lambda p: p["buffers"].__setitem__(0, "tmp"),
        "torus without dims": lambda p: p["topology"].pop("dims"),
        "flat with dims": lambda p: p["topology"].update(kind="flat"),
        "unknown op kind": lambda p: first_op(p).update(kind="sned"),
        "negative peer": lambda p: first_op(p).update(peer=-1),
        "send with combine": lambda p: first_op(p).update(combine="reduce"),
        "recv without combine": lambda p: p["programs"][0]["rounds"][0]["ops"][1].pop("combine"),
        "one-element range": lambda p: first_op(p).update(blocks=[[1]]),
        "round without ops": lambda p: p["programs"][0]["rounds"][0].pop("ops"),
        "negative round": lambda p: p["programs"][0]["rounds"][0].update(index=-1),
    }
    for what, mutate in broken.items():
        plan = copy.deepcopy(base)
        mutate(plan)
        if validator.is_valid(plan):
            failures.append(f"the schema accepts a plan with {what}")

    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(names)} sample plans, {len(broken)} broken variants checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
