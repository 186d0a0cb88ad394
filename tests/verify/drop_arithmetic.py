#!/usr/bin/env python3
"""Checks a run under the drop policy against rocprof-sim's ground truth, with pyarrow only.

    drop_arithmetic.py OUTPUT_DIR TRUTH_CSV SDK_DROPS

- The rows written plus the tool's own drops (its queue's, after an I/O error) plus the SDK's
  drops (SDK_DROPS: every record the simulated SDK's buffers dropped, as its `--stats` says)
  equal the activity records the simulated SDK emitted, exactly.
- The SDK drops the tool reported are at most SDK_DROPS: the SDK reports its cumulative count
  only with a callback, so drops after its last callback with records never reach a tool.
- Every kernel symbol in the truth is in the kernel_symbol table, and no dispatch is named
  `<unregistered kernel N>`: the records that name things are never dropped.

Prints `dropped=N activity=M` and exits 0 when all holds, 1 with the reason otherwise.
"""

import glob
import json
import os
import sys

import pyarrow.dataset as ds

# truth record kind -> table
ACTIVITY = {
    "kernel_dispatch": "kernel_dispatch",
    "hip_api": "hip_api",
    "memory_copy": "memory_copy",
    "memory_allocation": "memory_allocation",
    "scratch_memory": "scratch_memory",
    "marker_range": "marker",
}


def truth_counts(path):
    counts, symbols = {}, set()
    with open(path, encoding="utf-8") as f:
        header = None
        for line in f:
            if line.startswith("#"):
                continue
            if header is None:
                header = line.rstrip("\n").split(",")
                continue
            kind = line.split(",", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "kernel_symbol":
                symbols.add(line.split(",")[header.index("kernel_id")])
    return counts, symbols


def rows(out, table):
    folder = os.path.join(out, table)
    if not os.path.isdir(folder):
        return None
    return ds.dataset(folder, format="parquet")


def main():
    out, truth, sdk_drops = sys.argv[1], sys.argv[2], int(sys.argv[3])
    counts, symbols = truth_counts(truth)
    activity = sum(counts.get(kind, 0) for kind in ACTIVITY)
    written = 0
    for table in ACTIVITY.values():
        dataset = rows(out, table)
        written += dataset.count_rows() if dataset is not None else 0
    ours, reported = 0, 0
    for path in glob.glob(os.path.join(out, "*.metadata.json")):
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        d = meta["dropped"]
        ours += d["queue"] + d["after_io_error"]
        reported += d["sdk"]
    dropped = ours + sdk_drops
    problems = []
    if written + dropped != activity:
        problems.append(
            f"rows {written} + the tool's drops {ours} + the SDK's {sdk_drops} = {written + dropped}, "
            f"but the SDK emitted {activity}"
        )
    if reported > sdk_drops:
        problems.append(f"the tool reported {reported} SDK drops, but the SDK dropped {sdk_drops}")
    symbol_table = rows(out, "kernel_symbol")
    have = set()
    if symbol_table is not None:
        have = {str(k) for k in symbol_table.to_table(columns=["kernel_id"]).column("kernel_id").to_pylist()}
    missing = symbols - have
    if missing:
        problems.append(f"{len(missing)} of {len(symbols)} kernel symbols are missing")
    dispatches = rows(out, "kernel_dispatch")
    if dispatches is not None:
        names = dispatches.to_table(columns=["kernel_name"]).column("kernel_name").to_pylist()
        unnamed = sum(1 for n in names if n.startswith("<unregistered"))
        if unnamed:
            problems.append(f"{unnamed} of {len(names)} dispatches have no kernel name")
    print(f"dropped={dropped} (tool {ours}, SDK {sdk_drops}, of which reported {reported}) activity={activity}")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
