#!/usr/bin/env python3
"""Checks rocpd databases the way AMD's rocpd tools open them, with nothing but sqlite3.

    rocpd_check.py DATASET DB...

1. Each database is ATTACHed and its tables found as AMD's importer finds them (rocpd/importer.py):
   the `uuid` metadata tag is the suffix of every rocpd_* table, and the un-suffixed views exist.
2. `PRAGMA foreign_key_check` finds nothing, every row's guid is the database's.
3. The views AMD's CSV, Perfetto and summary tools read (kernels, regions_and_samples,
   memory_copies, memory_allocations, scratch_memory, counters_collection, top_kernels, busy,
   processes, threads) return the dataset's rows: row counts per kind, and per kernel the calls
   and total duration equal what pyarrow reads from the dataset.
Prints what it checked; exits 1 on the first difference.
"""

import sqlite3
import sys
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds

TABLES = ["metadata", "string", "info_node", "info_process", "info_thread", "info_agent", "info_queue",
          "info_stream", "info_pmc", "info_code_object", "info_kernel_symbol", "track", "event", "arg",
          "pmc_event", "region", "sample", "kernel_dispatch", "memory_copy", "memory_allocate"]


def table(root: Path, name: str):
    files = sorted((root / name).glob("*.parquet")) if (root / name).is_dir() else []
    return ds.dataset([str(f) for f in files], format="parquet").to_table() if files else None


def fail(message: str):
    print(f"FAIL: {message}")
    sys.exit(1)


def main() -> int:
    root, dbs = Path(sys.argv[1]), sys.argv[2:]
    con = sqlite3.connect(":memory:")
    totals = Counter()
    kernels = Counter()
    for i, db in enumerate(dbs):
        con.execute(f"ATTACH DATABASE '{db}' AS db{i}")
        uuid = con.execute(f"SELECT value FROM db{i}.rocpd_metadata WHERE tag = 'uuid'").fetchone()[0]
        guid = con.execute(f"SELECT value FROM db{i}.rocpd_metadata WHERE tag = 'guid'").fetchone()[0]
        version = con.execute(f"SELECT value FROM db{i}.rocpd_metadata WHERE tag = 'schema_version'").fetchone()[0]
        names = {r[0] for r in con.execute(f"SELECT name FROM db{i}.sqlite_master WHERE type = 'table'")}
        for t in TABLES:
            if f"rocpd_{t}{uuid}" not in names:
                fail(f"{db}: no table rocpd_{t}{uuid} (uuid tag {uuid})")
        if uuid != "_" + guid.replace("-", "_") or version != "3":
            fail(f"{db}: uuid {uuid} / guid {guid} / schema_version {version}")
        single = sqlite3.connect(db)
        if single.execute("PRAGMA foreign_key_check").fetchall():
            fail(f"{db}: foreign keys do not hold")
        for t in ["kernel_dispatch", "region", "event", "pmc_event", "memory_copy"]:
            other = single.execute(f"SELECT COUNT(*) FROM rocpd_{t} WHERE guid != ?", (guid,)).fetchone()[0]
            if other:
                fail(f"{db}: {other} rows of rocpd_{t} have another guid")
        q = lambda sql: single.execute(sql).fetchone()[0]
        totals["kernel"] += q("SELECT COUNT(*) FROM kernels")
        totals["api"] += q("SELECT COUNT(*) FROM regions_and_samples WHERE category NOT LIKE 'MARKER%'")
        totals["marker"] += q("SELECT COUNT(*) FROM regions_and_samples WHERE category LIKE 'MARKER%'")
        totals["copy"] += q("SELECT COUNT(*) FROM memory_copies")
        totals["allocation"] += q("SELECT COUNT(*) FROM memory_allocations WHERE level != 'SCRATCH'")
        totals["scratch"] += q("SELECT COUNT(*) FROM scratch_memory")
        totals["counter"] += q("SELECT COUNT(*) FROM counters_collection")
        totals["process"] += q("SELECT COUNT(*) FROM processes")
        if q("SELECT COUNT(*) FROM threads") == 0 or q("SELECT COUNT(*) FROM busy") == 0:
            fail(f"{db}: the threads or busy view is empty")
        for name, calls, total in single.execute("SELECT name, total_calls, total_duration FROM top_kernels"):
            kernels[name] += calls
            kernels[(name, "ns")] += round(total * 1000)
        print(f"{db}: tables found by its uuid tag, foreign keys hold, views read")
    want = Counter()
    k = table(root, "kernel_dispatch")
    if k is not None:
        want["kernel"] = k.num_rows
        for name, n, d in zip(*[k.group_by("kernel_name").aggregate([("duration_ns", "count"), ("duration_ns", "sum")])
                                .column(c).to_pylist() for c in ["kernel_name", "duration_ns_count", "duration_ns_sum"]]):
            if kernels[name] != n or kernels[(name, "ns")] != d:
                fail(f"top_kernels has {kernels[name]} calls / {kernels[(name, 'ns')]} ns of {name!r}, the dataset {n} / {d}")
    for key, names in [("api", ["hip_api", "hsa_api", "rccl_api"]), ("marker", ["marker"]), ("copy", ["memory_copy"]),
                       ("allocation", ["memory_allocation"]), ("scratch", ["scratch_memory"])]:
        want[key] = sum(t.num_rows for t in (table(root, n) for n in names) if t is not None)
    c = table(root, "counter")
    if c is not None:
        keys = zip(*[c.column(n).to_pylist() for n in ["pid", "dispatch_id", "counter", "agent_id"]])
        want["counter"] = len(set(keys))
    pids = set()
    for name in ["kernel_dispatch", "hip_api", "marker", "memory_copy", "counter"]:
        t = table(root, name)
        if t is not None:
            pids |= set(pc.unique(t.column("pid")).to_pylist())
    want["process"] = len(pids)
    for key in sorted(set(want) | set(totals)):
        if want[key] != totals[key]:
            fail(f"{key}: the views have {totals[key]} rows, the dataset {want[key]}")
        print(f"{key}: {totals[key]} rows in the views, as in the dataset")
    print("per kernel: calls and total time in top_kernels equal the dataset's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
