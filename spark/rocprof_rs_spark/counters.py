"""The per-kernel counter aggregation in Spark SQL: ``kernel_counter`` computed from the
``counter`` table, over every process of the run directory at once.

The definitions are the tool's own ``kernel_counter`` table's
(crates/recorder/src/pipeline/counter_rows.rs):

- a dispatch's value of a counter is the sum of its ``counter`` rows (one row, or one per
  hardware instance with ``ROCPROF_RS_COUNTER_INSTANCES``);
- per kernel (``kernel_name``) and counter: ``samples`` is the number of dispatches that
  collected it, ``sum``, ``min`` and ``max`` are over those dispatch values, ``mean`` is
  ``sum / samples``; ``dispatches`` is the kernel's rows in ``kernel_dispatch`` (the
  coverage: with counter groups taking turns, each counter sees a share of them).

Grouped by kernel and counter alone, the figures cover every process, GPU and pass; ``by``
splits them further (``pid``, ``host``, ``rank``, ``agent_id``, ``counter_group``): by
``pid``, ``agent_id`` and ``counter_group`` they are the tool's ``kernel_counter`` rows.
Counts, minima and maxima are exact; sums are exact where the values are integers below 2**53
(every counter the hardware counts), and otherwise may differ in the last bits with the order
in which Spark adds them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType, IntegerType, LongType, StringType

from .dataset import Dataset, column

#: The keys ``by`` may name, with their types (``host`` and ``rank`` are null in files of
#: formats 1 and 2).
KEYS = {
    "pid": LongType(),
    "host": StringType(),
    "rank": IntegerType(),
    "agent_id": DecimalType(20, 0),
    "counter_group": LongType(),
}


def _keys(df: DataFrame, names: Sequence[str]) -> List[F.Column]:
    return [column(df, name, KEYS[name]).alias(name) for name in names]


def aggregate(dataset: Dataset, by: Sequence[str] = ()) -> DataFrame:
    """Per kernel, counter and the ``by`` keys: samples, dispatches, sum, mean, min and max."""
    unknown = [name for name in by if name not in KEYS]
    if unknown:
        raise ValueError(f"cannot group by {', '.join(unknown)}: choose among {', '.join(KEYS)}")
    counter = dataset.require("counter")
    # One value per dispatch and counter: instance rows summed.
    per_dispatch = (
        counter.select(
            *_keys(counter, by),
            column(counter, "host", StringType()).alias("_host"),
            F.col("pid").cast("long").alias("_pid"),
            F.col("dispatch_id").cast("decimal(20,0)").alias("_dispatch"),
            F.col("kernel_name").cast("string").alias("kernel_name"),
            F.col("counter").cast("string").alias("counter"),
            F.col("value").cast("double").alias("value"),
        )
        .groupBy("_host", "_pid", "_dispatch", "kernel_name", "counter", *by)
        .agg(F.sum("value").alias("value"))
    )
    figures = per_dispatch.groupBy("kernel_name", "counter", *by).agg(
        F.count(F.lit(1)).alias("samples"),
        F.sum("value").alias("sum"),
        F.min("value").alias("min"),
        F.max("value").alias("max"),
    )
    figures = figures.withColumn("mean", F.col("sum") / F.col("samples"))
    dispatch_keys = [name for name in by if name != "counter_group"]
    kernels = dataset.table("kernel_dispatch")
    if kernels is None:
        return figures.withColumn("dispatches", F.col("samples"))
    coverage = (
        kernels.select(F.col("kernel_name").cast("string").alias("kernel_name"), *_keys(kernels, dispatch_keys))
        .groupBy("kernel_name", *dispatch_keys)
        .agg(F.count(F.lit(1)).alias("_rows"))
    )
    on = [figures["kernel_name"] == coverage["kernel_name"]]
    on += [figures[name].eqNullSafe(coverage[name]) for name in dispatch_keys]
    joined = figures.join(coverage, on, "left")
    return joined.select(
        figures["kernel_name"],
        figures["counter"],
        *[figures[name] for name in by],
        "samples",
        F.coalesce(F.col("_rows"), F.col("samples")).alias("dispatches"),
        "sum",
        "mean",
        "min",
        "max",
    )


def compute(dataset: Dataset, by: Sequence[str] = ()) -> List[Dict[str, Any]]:
    """:func:`aggregate`'s rows as JSON objects, by kernel, counter and keys."""
    rows = aggregate(dataset, by).orderBy("kernel_name", "counter", *by).collect()
    out = []
    for row in rows:
        record: Dict[str, Any] = {"kernel_name": row["kernel_name"], "counter": row["counter"]}
        for name in by:
            value = row[name]
            record[name] = int(value) if name == "agent_id" and value is not None else value
        record.update(
            samples=int(row["samples"]),
            dispatches=int(row["dispatches"]),
            sum=float(row["sum"]),
            mean=float(row["mean"]),
            min=float(row["min"]),
            max=float(row["max"]),
        )
        out.append(record)
    return out
