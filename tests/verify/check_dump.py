#!/usr/bin/env python3
"""Checks a flight recorder's dump against rocprof-sim's ground truth (SIMULATED).

    check_dump.py DUMP_DIR TRUTH_CSV [--trigger NAME] [--min-rows N]

With TRUTH_CSV `-` (an application killed before it wrote its truth), every table of the dump
is read whole and the kernel rows checked for duplicates only.

A dump is a dataset of its own: its metadata names its trigger, every kernel row equals the
truth's row of its dispatch, no dispatch is there twice, and no dispatch the truth ended
between the dump's first end and its newest edge (the last percent, or 100 ms) is missing (the recorder keeps a contiguous span).
Reads with pyarrow only; exits 0 when all holds, 1 with a report otherwise.
"""

import argparse
import csv
import glob
import json
import os
import sys

import pyarrow.dataset as ds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("truth")
    ap.add_argument("--trigger")
    ap.add_argument("--min-rows", type=int, default=1)
    args = ap.parse_args()
    problems = []
    metadata = [json.load(open(p)) for p in glob.glob(os.path.join(args.dump, "*.metadata.json"))]
    if len(metadata) != 1:
        problems.append(f"{len(metadata)} metadata files in the dump")
    trigger = metadata[0].get("trigger", {}) if metadata else {}
    if args.trigger and trigger.get("reason") != args.trigger:
        problems.append(f"trigger {trigger} is not {args.trigger}")
    paths = glob.glob(os.path.join(args.dump, "kernel_dispatch", "**", "*.parquet"), recursive=True)
    columns = ["dispatch_id", "correlation_id", "agent_id", "start_ns", "end_ns"]
    rows = ds.dataset(paths, format="parquet").to_table(columns=columns).to_pylist() if paths else []
    for table in sorted(os.listdir(args.dump)):
        folder = os.path.join(args.dump, table)
        if os.path.isdir(folder):
            ds.dataset(folder, format="parquet").to_table()
    truth = {}
    if args.truth == "-":
        dispatches = [r["dispatch_id"] for r in rows]
        if len(set(dispatches)) != len(dispatches):
            problems.append("a dispatch is there twice")
        if len(rows) < args.min_rows:
            problems.append(f"{len(rows)} kernel rows, fewer than {args.min_rows}")
        print(json.dumps({"rows": len(rows), "trigger": trigger.get("reason"), "problems": problems}))
        return 1 if problems else 0
    with open(args.truth, newline="") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["record"] == "kernel_dispatch":
                truth[int(r["dispatch_id"])] = (int(r["correlation_id"]), int(r["agent_id"]), int(r["start_ns"]), int(r["end_ns"]))
    seen = set()
    for r in rows:
        d = r["dispatch_id"]
        if d in seen:
            problems.append(f"dispatch {d} twice")
        seen.add(d)
        want = truth.get(d)
        got = (r["correlation_id"], r["agent_id"], r["start_ns"], r["end_ns"])
        if want != got:
            problems.append(f"dispatch {d}: {got} against the truth's {want}")
    if len(rows) < args.min_rows:
        problems.append(f"{len(rows)} kernel rows, fewer than {args.min_rows}")
    if rows:
        ends = sorted(r["end_ns"] for r in rows)
        # The newest edge is ragged: a dispatch that ended a moment before another may reach
        # the SDK's buffer after it (another thread's), and so miss a dump the other made.
        lo, hi = ends[0], min(ends[-1] - 100_000_000, ends[-(len(ends) // 100 + 1)])
        holes = [d for d, t in truth.items() if lo <= t[3] <= hi and d not in seen]
        if holes:
            problems.append(f"{len(holes)} dispatches ended inside the dump's span but are missing, e.g. {sorted(holes)[:5]}")
    print(json.dumps({"rows": len(rows), "trigger": trigger.get("reason"), "problems": problems[:8]}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
