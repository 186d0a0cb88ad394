#!/usr/bin/env python3
"""The Spark SQL package against `rocprof-rs` on a dataset the `ranks` stage brought back.

    compare_spark.py DATASET --rocprof-rs PATH [--step-marker '^step ']

Runs `python -m rocprof_rs_spark ranks|stats` (Spark in local mode; pyspark and Java here, not
on the GPU machine) and `rocprof-rs ranks|stats` on DATASET, and compares them as
tests/spark_sql.rs does: the ranks reports field by field but for the notes (numbers to 1e-9
relative), the stats exactly for names, calls, totals, minima and maxima and within 1/512 for
percentiles, with the same notes. Prints one line per comparison; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SPARK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "spark")
# What rocprof-rs's `--format json` documents say of themselves, beside the command's fields.
ENVELOPE = ("schema", "schema_version", "tool_version", "command", "dataset")


def run_json(cmd: list[str], cwd: str | None = None) -> tuple[object, float]:
    start = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return json.loads(out.stdout), time.monotonic() - start


def differences(a: object, b: object, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{path}.{key}: only in {'ours' if key in a else 'Spark'}")
            else:
                out.extend(differences(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return [] if abs(a - b) <= 1e-9 * max(1.0, abs(a)) else [f"{path}: {a} against {b}"]
    return [] if a == b else [f"{path}: {a!r} against {b!r}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("--rocprof-rs", required=True)
    ap.add_argument("--step-marker", default="^step ")
    args = ap.parse_args()
    dataset = os.path.abspath(args.dataset)
    spark = [sys.executable, "-m", "rocprof_rs_spark"]
    problems = []

    ours, ours_s = run_json([args.rocprof_rs, "ranks", dataset, "--step-marker", args.step_marker, "--format", "json"])
    theirs, spark_s = run_json(spark + ["ranks", dataset, "--step-marker", args.step_marker, "--format", "json"], SPARK_DIR)
    for report in (ours, theirs):
        for key in ("notes", *ENVELOPE):
            report.pop(key, None)
    found = differences(ours, theirs)
    print(f"ranks: {len(found)} differences (rocprof-rs {ours_s:.1f} s, Spark local {spark_s:.1f} s)")
    problems += found

    ours, ours_s = run_json([args.rocprof_rs, "stats", dataset, "--format", "json"])
    ours = ours["sections"]
    theirs, spark_s = run_json(spark + ["stats", dataset, "--format", "json"], SPARK_DIR)
    found, rows = [], 0
    if [s["section"] for s in ours] != [s["section"] for s in theirs]:
        found.append("sections differ")
    for a, b in zip(ours, theirs):
        if a["notes"] != b["notes"] or a["omitted"] != b["omitted"] or len(a["rows"]) != len(b["rows"]):
            found.append(f"{a['section']}: notes, omitted or row count differ")
        for x, y in zip(a["rows"], b["rows"]):
            rows += 1
            found += [f"{a['section']} {x['name']}: {k}" for k in ("name", "calls", "total_ns", "min_ns", "max_ns")
                      if x[k] != y[k]]
            found += [f"{a['section']} {x['name']}: {k} {x[k]} against {y[k]}" for k in ("p50_ns", "p95_ns", "p99_ns")
                      if abs(x[k] - y[k]) > max(1, y[k]) / 512]
    print(f"stats: {rows} rows, {len(found)} differences (rocprof-rs {ours_s:.1f} s, Spark local {spark_s:.1f} s)")
    problems += found
    for p in problems[:20]:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
