#!/usr/bin/env python3
"""Compares two rocprof-rs datasets table by table, every column, rows in any order.

    compare_datasets.py A B [--tables t1,t2,...] [--without-origin]

`--without-origin`: leaves out the columns that say which process wrote a row (`host`, `rank`,
`local_rank`, `world_size`) and the `process` table, which a round trip through a format that
carries none of them (rocpd, rocprofv3's outputs) cannot keep.

Exit 0 when every table named (default: every table either dataset has) holds the same rows,
as multisets; otherwise prints what differs and exits 1. Row order is not compared: importers
read other formats' orders (rocpd keeps marker ranges and marks apart, for one).
"""

import sys
from collections import Counter
from pathlib import Path

import pyarrow.dataset as ds


ORIGIN = ("host", "rank", "local_rank", "world_size")


def rows(root: Path, table: str, without_origin: bool = False):
    folder = root / table
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if not files:
        return None, Counter()
    t = ds.dataset([str(f) for f in files], format="parquet").to_table()
    columns = sorted(c for c in t.column_names if not (without_origin and c in ORIGIN))
    data = {c: t.column(c).to_pylist() for c in columns}
    return columns, Counter(tuple(data[c][i] for c in columns) for i in range(t.num_rows))


def main() -> int:
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    tables = None
    if "--tables" in sys.argv:
        tables = sys.argv[sys.argv.index("--tables") + 1].split(",")
    if tables is None:
        tables = sorted({p.name for root in (a, b) for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")})
    without_origin = "--without-origin" in sys.argv
    if without_origin:
        tables = [t for t in tables if t != "process"]
    failed = False
    for table in tables:
        (ca, ra), (cb, rb) = rows(a, table, without_origin), rows(b, table, without_origin)
        if ca is not None and cb is not None and ca != cb:
            print(f"{table}: columns differ: {ca} vs {cb}")
            failed = True
            continue
        if ra == rb:
            print(f"{table}: {sum(ra.values())} rows, identical")
            continue
        failed = True
        only_a, only_b = ra - rb, rb - ra
        print(f"{table}: {sum(ra.values())} vs {sum(rb.values())} rows; {sum(only_a.values())} only in A, "
              f"{sum(only_b.values())} only in B")
        columns = ca or cb
        for label, only in (("A", only_a), ("B", only_b)):
            for row in list(only)[:3]:
                print(f"  only in {label}: {dict(zip(columns, row))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
