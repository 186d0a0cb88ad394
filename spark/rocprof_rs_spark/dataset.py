"""A rocprof-rs run directory as Spark DataFrames, one per table.

A run directory holds one folder per table (``kernel_dispatch/``, ``marker/``, ...), each a
set of Parquet files: flat (``<table>/<host>-<pid>-<seq>.parquet``) or in hive partition
folders (``<table>/host=<h>/rank=<r>/...``). Every folder is read as one table, whatever the
layout: files are found recursively, and ``host`` and ``rank`` come from the files' own
columns (format 3 writes them into every file), never from folder names, so the two layouts
give the same rows. Hidden files (``.<name>.parquet.partial``, still being written) are
skipped by Spark, as by every reader.

Paths are handed to Spark unchanged, so any URI Spark reads works: a local path,
``file://``, ``hdfs://``, ``s3a://``, ``gs://``, ``abfss://`` (with the connector on the
classpath and its credentials in the Spark configuration).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, Optional

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DataType

#: Every table of the format (crates/format/src/lib.rs), in its order.
TABLES = (
    "kernel_dispatch",
    "hip_api",
    "hsa_api",
    "rccl_api",
    "cuda_api",
    "memory_copy",
    "scratch_memory",
    "memory_allocation",
    "marker",
    "kernel_symbol",
    "agent",
    "counter",
    "kernel_counter",
    "process",
)

#: Spark's messages for a folder that is missing or holds no Parquet file.
_ABSENT = ("PATH_NOT_FOUND", "UNABLE_TO_INFER_SCHEMA", "Path does not exist", "Unable to infer schema")


def table_path(root: str, table: str) -> str:
    """The folder of ``table`` under the run directory ``root`` (a path or any Spark URI)."""
    return root.rstrip("/") + "/" + table


def read_table(spark: SparkSession, root: str, table: str) -> Optional[DataFrame]:
    """One table of the run directory ``root`` as a DataFrame, or None where it has no files.

    Files are found recursively (the flat and the hive layout alike) and their schemas
    merged, so files of older formats, which lack the ``host`` and ``rank`` columns, read as
    nulls there.
    """
    reader = (
        spark.read.option("recursiveFileLookup", "true")
        .option("pathGlobFilter", "*.parquet")
        .option("mergeSchema", "true")
    )
    try:
        return reader.parquet(table_path(root, table))
    except AnalysisException as e:
        if any(marker in str(e) for marker in _ABSENT):
            return None
        raise


@dataclass
class Dataset:
    """A run directory's tables, read once each and kept (lazily: nothing is scanned here)."""

    spark: SparkSession
    root: str
    _tables: Dict[str, Optional[DataFrame]] = field(default_factory=dict)

    def table(self, name: str) -> Optional[DataFrame]:
        """The table ``name``, or None where the run wrote none."""
        if name not in TABLES:
            raise ValueError(f"no table {name!r} in the format; tables: {', '.join(TABLES)}")
        if name not in self._tables:
            self._tables[name] = read_table(self.spark, self.root, name)
        return self._tables[name]

    def require(self, name: str) -> DataFrame:
        """The table ``name``; an error naming the folder where it has no files."""
        df = self.table(name)
        if df is None:
            raise FileNotFoundError(f"{table_path(self.root, name)}: no Parquet files (is this a rocprof-rs run directory?)")
        return df

    def present(self, names: Iterable[str] = TABLES) -> Dict[str, DataFrame]:
        """Every table of ``names`` that has files, by name."""
        found = {name: self.table(name) for name in names}
        return {name: df for name, df in found.items() if df is not None}


def column(df: DataFrame, name: str, kind: DataType) -> Column:
    """Column ``name`` of ``df``, or a null of ``kind`` where the files have no such column
    (``host`` and ``rank`` are missing from files of formats 1 and 2)."""
    if name in df.columns:
        return F.col(name).cast(kind)
    return F.lit(None).cast(kind)
