#!/usr/bin/env python3
"""Checks per-instance counter rows and the kernel filter, with pyarrow only.

    counter_rows.py OUTPUT_DIR --kernels REGEX [--max-per-kernel N]

- every `counter` row has an instance index, and a dispatch's instances of one counter are
  numbered 0..n-1 with `instances` = 1 on each;
- every counted and every traced kernel's name matches REGEX (the include filter), and at least
  one dispatch was counted;
- with --max-per-kernel, no kernel name has more counted dispatches than N (an iteration range).
Exits 0 when all hold, 1 with a report otherwise.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

import pyarrow.dataset as ds


def table(out, name):
    folder = os.path.join(out, name)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet"))
    return ds.dataset(files, format="parquet").to_table()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output_dir")
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--max-per-kernel", type=int, default=None)
    args = parser.parse_args()
    pattern = re.compile(args.kernels)
    problems = []
    rows = table(args.output_dir, "counter").to_pylist()
    if not rows:
        problems.append("no counter rows")
    indexes = defaultdict(list)
    for r in rows:
        if r["instance"] is None or r["instances"] != 1:
            problems.append(f"row without its instance: {r}")
            break
        indexes[(r["dispatch_id"], r["counter"])].append(r["instance"])
    for key, seen in indexes.items():
        if sorted(seen) != list(range(len(seen))):
            problems.append(f"instances of {key} are not 0..{len(seen) - 1}")
            break
    for name in {r["kernel_name"] for r in rows}:
        if not pattern.search(name):
            problems.append(f"counted kernel {name!r} does not match {args.kernels!r}")
    if args.max_per_kernel is not None:
        counted = defaultdict(set)
        for r in rows:
            counted[r["kernel_name"]].add(r["dispatch_id"])
        for name, dispatches in counted.items():
            if len(dispatches) > args.max_per_kernel:
                problems.append(f"{name!r}: {len(dispatches)} dispatches counted, more than {args.max_per_kernel}")
    for name in set(table(args.output_dir, "kernel_dispatch").column("kernel_name").to_pylist()):
        if not pattern.search(name):
            problems.append(f"traced kernel {name!r} does not match {args.kernels!r}")
    for p in problems[:10]:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
