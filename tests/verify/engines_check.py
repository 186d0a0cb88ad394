#!/usr/bin/env python3
"""Every engine reads a rocprof-rs run directory as pyarrow does: Spark (with its vectorized
reader, and with parquet-mr's own record reader), DuckDB and DataFusion.

For every table folder under the run directory:

- each engine reads the folder as one table, and its rows equal pyarrow's, value for value
  (compared as sorted lists of rows, so row order does not matter);
- filtered queries, with each engine's predicate pushdown on (row-group statistics, page
  indexes where there are any), count what a full scan filtered in Python counts: ranges of
  ``duration_ns``, a window of ``start_ns``, ``kernel_name`` equal to a common and a rare
  name, and ``kernel_name LIKE`` patterns. Thresholds and names come from the data.

    engines_check.py DIR [DIR ...] [--require TABLE,...] [--engines spark,duckdb,datafusion]

Prints one line per table and engine and exits 1 with what differs. Needs pyspark (with
Java), duckdb and datafusion: pip install -r tests/verify/requirements.txt.
"""

from __future__ import annotations

import argparse
import decimal
import os
import re
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.dataset as ds

Row = Tuple[Any, ...]
#: A filter: its SQL text, and the same predicate over one row (a dict) in Python.
Filter = Tuple[str, Callable[[Dict[str, Any]], bool]]


def tables_of(root: str) -> List[str]:
    """The table folders under ``root``."""
    return sorted(
        name for name in os.listdir(root) if os.path.isdir(os.path.join(root, name)) and not name.startswith((".", "_"))
    )


def reference(folder: str) -> pa.Table:
    """The table as pyarrow reads it: every visible file under ``folder``, without partitions."""
    return ds.dataset(folder, format="parquet").to_table()


def normal(value: Any) -> Any:
    """A value as every engine can give it: decimals (Spark's unsigned 64-bit) as integers."""
    if isinstance(value, decimal.Decimal):
        return int(value)
    return value


def sort_key(row: Row) -> Tuple[Any, ...]:
    """Rows sorted with nulls first in each column."""
    return tuple((value is not None, value if value is not None else 0) for value in row)


def rows_of(records: Sequence[Sequence[Any]]) -> List[Row]:
    """Rows as sorted tuples of normal values."""
    return sorted((tuple(normal(v) for v in record) for record in records), key=sort_key)


def sql_string(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def like(pattern: str) -> Callable[[Optional[str]], bool]:
    """SQL LIKE in Python: ``%`` any run, ``_`` any one character, the rest literal."""
    regex = re.compile("".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern), re.DOTALL)
    return lambda value: value is not None and regex.fullmatch(value) is not None


def filters(table: pa.Table) -> List[Filter]:
    """The filtered queries for ``table``'s columns, thresholds taken from its data."""
    out: List[Filter] = []
    names = table.column_names
    if table.num_rows == 0:
        return out
    if "duration_ns" in names:
        values = sorted(v for v in table.column("duration_ns").to_pylist() if v is not None)
        if values:
            q = lambda f: values[min(len(values) - 1, int(f * len(values)))]  # noqa: E731
            lo, hi, top = q(0.25), q(0.75), q(0.9)
            out.append((f"duration_ns BETWEEN {lo} AND {hi}", lambda r, lo=lo, hi=hi: _between(r["duration_ns"], lo, hi)))
            out.append((f"duration_ns > {top}", lambda r, top=top: r["duration_ns"] is not None and r["duration_ns"] > top))
            out.append((f"duration_ns <= {values[0]}", lambda r, v=values[0]: r["duration_ns"] is not None and r["duration_ns"] <= v))
    if "start_ns" in names:
        starts = [v for v in table.column("start_ns").to_pylist() if v is not None]
        if starts:
            first, last = min(starts), max(starts)
            lo, hi = first + (last - first) // 3, first + 2 * (last - first) // 3
            out.append(
                (f"start_ns >= {lo} AND start_ns < {hi}", lambda r, lo=lo, hi=hi: r["start_ns"] is not None and lo <= r["start_ns"] < hi)
            )
    if "kernel_name" in names:
        counts: Dict[str, int] = {}
        for name in table.column("kernel_name").to_pylist():
            if name is not None:
                counts[name] = counts.get(name, 0) + 1
        if counts:
            common = max(sorted(counts), key=lambda n: counts[n])
            rare = min(sorted(counts), key=lambda n: counts[n])
            for name in dict.fromkeys([common, rare]):
                out.append((f"kernel_name = {sql_string(name)}", lambda r, n=name: r["kernel_name"] == n))
            words = sorted({w for n in counts for w in re.findall(r"[A-Za-z]{4,}", n)})
            patterns = [common[:5] + "%"]
            if words:
                patterns.append("%" + words[len(words) // 2] + "%")
            patterns.append("%_" + common[-3:])
            for pattern in dict.fromkeys(patterns):
                out.append((f"kernel_name LIKE {sql_string(pattern)}", lambda r, m=like(pattern): m(r["kernel_name"])))
    return out


def _between(value: Optional[int], lo: int, hi: int) -> bool:
    return value is not None and lo <= value <= hi


class Engine:
    """An engine that reads a table folder: its rows and its counts of filtered queries."""

    name = ""
    #: Whether its filtered counts are checked (parquet-mr's record reader prunes row groups
    #: with the same code as Spark's vectorized reader, so only its decoding is checked).
    filters = True

    def rows(self, folder: str, columns: Sequence[str]) -> List[Row]:
        """Every row of the folder, ``columns`` in this order."""
        raise NotImplementedError

    def counts(self, folder: str, wheres: Sequence[str]) -> List[int]:
        """``SELECT count(*) ... WHERE where`` over the folder for each of ``wheres``, as one
        statement (a UNION ALL of the counts, each with its own filter pushed down)."""
        raise NotImplementedError


def union_of_counts(table: str, wheres: Sequence[str]) -> str:
    """One statement counting the rows of ``table`` under each filter of ``wheres``."""
    return " UNION ALL ".join(f"SELECT {i} AS i, count(*) AS n FROM {table} WHERE {w}" for i, w in enumerate(wheres))


def in_order(rows: Sequence[Tuple[Any, Any]], size: int) -> List[int]:
    """Counts from (i, n) rows, by i."""
    found = {int(i): int(n) for i, n in rows}
    return [found.get(i, -1) for i in range(size)]


class Spark(Engine):
    """Spark in local mode, reading folders recursively as rocprof_rs_spark does."""

    def __init__(self, vectorized: bool) -> None:
        from pyspark.sql import SparkSession

        self.name = "spark" if vectorized else "spark-parquet-mr"
        self.filters = vectorized
        self.spark = (
            SparkSession.builder.master("local[2]")
            .appName("rocprof-rs engines check")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            # A short run on small data: the JIT's first tier and interpreted plans cost a
            # third of the CPU time that full compilation does; the readers are the same.
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .config("spark.sql.codegen.wholeStage", "false")
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("ERROR")
        self.vectorized = vectorized

    def _read(self, folder: str):  # type: ignore[no-untyped-def]
        self.spark.conf.set("spark.sql.parquet.enableVectorizedReader", str(self.vectorized).lower())
        return self.spark.read.option("recursiveFileLookup", "true").parquet(folder)

    def rows(self, folder: str, columns: Sequence[str]) -> List[Row]:
        return rows_of(self._read(folder).select(*columns).collect())

    def counts(self, folder: str, wheres: Sequence[str]) -> List[int]:
        self._read(folder).createOrReplaceTempView("t")
        rows = self.spark.sql(union_of_counts("t", wheres)).collect()
        return in_order([(r["i"], r["n"]) for r in rows], len(wheres))


class DuckDB(Engine):
    """DuckDB over every Parquet file under the folder, without hive partitions."""

    name = "duckdb"

    def __init__(self) -> None:
        import duckdb

        self.db = duckdb.connect()

    def _scan(self, folder: str) -> str:
        return f"read_parquet({sql_string(folder + '/**/*.parquet')}, hive_partitioning = false, union_by_name = true)"

    def rows(self, folder: str, columns: Sequence[str]) -> List[Row]:
        select = ", ".join(f'"{c}"' for c in columns)
        return rows_of(self.db.sql(f"SELECT {select} FROM {self._scan(folder)}").fetchall())

    def counts(self, folder: str, wheres: Sequence[str]) -> List[int]:
        return in_order(self.db.sql(union_of_counts(self._scan(folder), wheres)).fetchall(), len(wheres))


class DataFusion(Engine):
    """DataFusion with its Parquet pruning, page index and filter pushdown on."""

    name = "datafusion"

    def __init__(self) -> None:
        import datafusion

        config = datafusion.SessionConfig(
            {
                "datafusion.execution.parquet.pruning": "true",
                "datafusion.execution.parquet.enable_page_index": "true",
                "datafusion.execution.parquet.pushdown_filters": "true",
                "datafusion.execution.parquet.reorder_filters": "true",
            }
        )
        self.ctx = datafusion.SessionContext(config)
        self.registered: Dict[str, str] = {}

    def _table(self, folder: str) -> str:
        if folder not in self.registered:
            name = f"t{len(self.registered)}"
            self.ctx.register_parquet(name, folder, file_extension=".parquet")
            self.registered[folder] = name
        return self.registered[folder]

    def rows(self, folder: str, columns: Sequence[str]) -> List[Row]:
        select = ", ".join(f'"{c}"' for c in columns)
        table = self.ctx.sql(f"SELECT {select} FROM {self._table(folder)}").to_arrow_table()
        return rows_of(list(zip(*(table.column(c).to_pylist() for c in columns))) if table.num_rows else [])

    def counts(self, folder: str, wheres: Sequence[str]) -> List[int]:
        result = self.ctx.sql(union_of_counts(self._table(folder), wheres)).to_pydict()
        return in_order(list(zip(result["i"], result["n"])), len(wheres))


def engines(names: Sequence[str]) -> List[Engine]:
    """The engines asked for, by name."""
    made: List[Engine] = []
    for name in names:
        if name == "spark":
            made += [Spark(vectorized=True), Spark(vectorized=False)]
        elif name == "duckdb":
            made.append(DuckDB())
        elif name == "datafusion":
            made.append(DataFusion())
        else:
            raise SystemExit(f"unknown engine {name!r}: spark, duckdb or datafusion")
    return made


def difference(expected: List[Row], got: List[Row], columns: Sequence[str]) -> str:
    """What differs between two sorted row lists: the first column whose values differ."""
    if len(expected) != len(got):
        return f"{len(got)} rows, not {len(expected)}"
    for i, column in enumerate(columns):
        want = sorted((r[i] for r in expected), key=lambda v: (v is not None, v if v is not None else 0))
        have = sorted((r[i] for r in got), key=lambda v: (v is not None, v if v is not None else 0))
        if want != have:
            bad = next(j for j, (a, b) in enumerate(zip(want, have)) if a != b or type(a) is not type(b))
            return f"column {column}: value {have[bad]!r} where pyarrow reads {want[bad]!r} (sorted position {bad})"
    return "rows pair up differently"


def check(roots: Sequence[str], required: Sequence[str], names: Sequence[str]) -> int:
    """Checks every table folder under each of ``roots`` in every engine; the number of
    failures."""
    found = [(root, table) for root in roots for table in tables_of(root)]
    failures = 0
    missing = [t for t in required if t not in {table for _, table in found}]
    if missing:
        print(f"FAIL: no folder for {', '.join(missing)} under {', '.join(roots)}")
        failures += 1
    made = engines(names)
    for root, table in found:
        folder = os.path.join(root, table)
        data = reference(folder)
        columns = data.column_names
        expected = rows_of(list(zip(*(data.column(c).to_pylist() for c in columns))) if data.num_rows else [])
        queries = filters(data)
        plain = data.to_pylist()
        counts = {where: sum(1 for row in plain if keep(row)) for where, keep in queries}
        for engine in made:
            problems = []
            try:
                got = engine.rows(folder, columns)
                if got != expected:
                    problems.append(difference(expected, got, columns))
                if counts and engine.filters:
                    for (where, want), have in zip(counts.items(), engine.counts(folder, list(counts))):
                        if have != want:
                            problems.append(f"WHERE {where}: {have} rows, a full scan finds {want}")
            except Exception as e:  # noqa: BLE001 - an engine's refusal is a finding to report
                problems.append(f"{type(e).__name__}: {str(e).splitlines()[0][:500]}")
            status = "ok" if not problems else "FAIL"
            print(f"{status}: {folder} in {engine.name}: {data.num_rows} rows, {len(columns)} columns, {len(counts) if engine.filters else 0} filters")
            for problem in problems:
                print(f"    {problem}")
            failures += bool(problems)
    print(f"engines: {len(found)} tables read by {len(made)} engines, {failures} failing")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="run directories")
    parser.add_argument("--require", default="", help="tables that must be there, comma-separated")
    parser.add_argument("--engines", default="spark,duckdb,datafusion")
    args = parser.parse_args()
    required = [t for t in args.require.split(",") if t]
    return 1 if check(args.dirs, required, [e for e in args.engines.split(",") if e]) else 0


if __name__ == "__main__":
    sys.exit(main())
