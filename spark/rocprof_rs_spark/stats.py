"""``rocprof-rs stats`` in Spark SQL: per-name duration statistics of kernels, HIP API calls,
memory copies and markers.

The definitions are the Rust command's (crates/analysis/src/stats):

- a row's duration is its ``duration_ns`` (negative ones count as 0; null ones are left out);
- ``calls``, ``total_ns``, ``min_ns`` and ``max_ns`` are exact, and so is ``mean_ns``
  (the exact total over the count, as one floating-point division);
- ``stddev_ns`` is the sample standard deviation (n - 1); Spark's ``stddev_samp`` works in
  floating point, so it agrees with the Rust command's exact figure to within 1e-9, relative;
- ``pNN_ns`` is the nearest-rank percentile: the ``ceil(q * calls)``-th smallest duration
  (at least the first). Here it is exact (a window over each name's sorted durations), or with
  ``accuracy`` set, Spark's ``percentile_approx``, whose rank is off by at most
  ``calls / accuracy`` (exact where ``calls <= accuracy``). The Rust command answers from a
  log-linear histogram: the midpoint of the bucket holding that same duration, so its figure
  is within ``duration / 512`` of the exact one here;
- ``percent`` is the name's share of the section's total, rows sorted by total, largest
  first, then by name (as bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .dataset import Dataset


@dataclass(frozen=True)
class Section:
    """What ``stats`` summarises: a section name, the table it reads and the column naming rows."""

    name: str
    table: str
    name_column: str


#: The sections, in the Rust command's order.
SECTIONS = (
    Section("kernel", "kernel_dispatch", "kernel_name"),
    Section("hip_api", "hip_api", "operation"),
    Section("memory_copy", "memory_copy", "operation"),
    Section("marker", "marker", "message"),
)

#: The percentiles reported, as (field, quantile).
PERCENTILES = (("p50_ns", 0.50), ("p95_ns", 0.95), ("p99_ns", 0.99))


def section_by_name(name: str) -> Section:
    """The section called ``name``."""
    for section in SECTIONS:
        if section.name == name:
            return section
    raise ValueError(f"--section {name!r}: expected kernel, hip_api, memory_copy or marker")


def durations(table: DataFrame, section: Section, pid: Optional[int] = None) -> DataFrame:
    """``name`` and ``ns``: each row's name and duration as ``stats`` counts it."""
    rows = table.where(F.col("duration_ns").isNotNull())
    if pid is not None:
        rows = rows.where(F.col("pid") == pid)
    return rows.select(
        F.col(section.name_column).cast("string").alias("name"),
        F.greatest(F.col("duration_ns").cast("long"), F.lit(0)).alias("ns"),
    )


def _nearest_rank(q: float) -> F.Column:
    """The nearest rank of quantile ``q`` among ``n`` values, as the Rust command computes it
    (``ceil(q * n)`` in double precision, clamped to 1..n)."""
    rank = F.ceil(F.lit(q).cast("double") * F.col("n").cast("double"))
    return F.least(F.greatest(rank, F.lit(1)), F.col("n"))


def summary(rows: DataFrame, accuracy: Optional[int] = None) -> DataFrame:
    """Per name: ``calls``, ``total_ns`` (decimal, exact), ``min_ns``, ``max_ns``,
    ``stddev_ns`` and the percentiles, from ``durations``' rows."""
    moments = [
        F.count(F.lit(1)).alias("calls"),
        F.sum(F.col("ns").cast("decimal(38,0)")).alias("total_ns"),
        F.min("ns").alias("min_ns"),
        F.max("ns").alias("max_ns"),
        F.coalesce(F.stddev_samp("ns"), F.lit(0.0)).alias("stddev_ns"),
    ]
    if accuracy is not None:
        quantiles = F.percentile_approx("ns", [q for _, q in PERCENTILES], accuracy)
        stats = rows.groupBy("name").agg(*moments, quantiles.alias("_q"))
        return stats.select(
            "name", "calls", "total_ns", "min_ns", "max_ns", "stddev_ns",
            *[F.col("_q")[i].alias(label) for i, (label, _) in enumerate(PERCENTILES)],
        )
    by_name = Window.partitionBy("name")
    ranked = rows.select(
        "name",
        "ns",
        F.row_number().over(by_name.orderBy("ns")).alias("r"),
        F.count(F.lit(1)).over(by_name).alias("n"),
    )
    picks = [F.max(F.when(F.col("r") == _nearest_rank(q), F.col("ns"))).alias(label) for label, q in PERCENTILES]
    return ranked.groupBy("name").agg(*moments, *picks)


@dataclass
class SectionStats:
    """One section's rows, largest total first, shaped as the Rust command's JSON."""

    section: str
    rows: List[Dict[str, Any]]
    omitted: int = 0
    notes: List[str] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        """The section as ``rocprof-rs stats --format json`` prints it."""
        return {"section": self.section, "rows": self.rows, "omitted": self.omitted, "notes": self.notes}


def untimed(table: DataFrame) -> bool:
    """Whether the table has rows and every start and end is 0 (a counters-only import):
    durations are then unknown, not zero."""
    found = table.agg(
        F.count(F.lit(1)).alias("rows"),
        F.count(F.when((F.col("start_ns") != 0) | (F.col("end_ns") != 0), 1)).alias("timed"),
    ).first()
    return found is not None and found["rows"] > 0 and found["timed"] == 0


def summed_note(table: DataFrame) -> Optional[str]:
    """The note ``rocprof-rs stats`` gives where the rows span several ranks: the figures add
    them up (the same words, so that the two reports compare)."""
    if "rank" not in table.columns:
        return None
    ranks = sorted(r["rank"] for r in table.select("rank").where(F.col("rank").isNotNull()).distinct().collect())
    if len(ranks) < 2:
        return None
    if ranks[-1] - ranks[0] + 1 == len(ranks):
        span = f"ranks {ranks[0]}-{ranks[-1]}"
    else:
        span = "ranks " + ",".join(str(r) for r in ranks)
    return (
        f"these figures add up {len(ranks)} {span}; --by-rank gives each rank's, --rank R one rank's, "
        "and `rocprof-rs ranks` compares them"
    )


def compute(
    dataset: Dataset,
    sections: Sequence[Section] = SECTIONS,
    pid: Optional[int] = None,
    top: Optional[int] = None,
    accuracy: Optional[int] = None,
) -> List[SectionStats]:
    """The statistics of every section the run directory has a table for."""
    out: List[SectionStats] = []
    for section in sections:
        table = dataset.table(section.table)
        if table is None:
            continue
        stats = summary(durations(table, section, pid), accuracy).orderBy(F.desc("total_ns"), F.asc("name"))
        collected = stats.collect()
        grand_total = sum(int(row["total_ns"]) for row in collected)
        shown = collected if top is None else collected[:top]
        rows = [
            {
                "name": row["name"],
                "calls": int(row["calls"]),
                "total_ns": int(row["total_ns"]),
                "mean_ns": float(int(row["total_ns"])) / float(int(row["calls"])),
                "min_ns": int(row["min_ns"]),
                "max_ns": int(row["max_ns"]),
                "stddev_ns": float(row["stddev_ns"]),
                **{label: int(row[label]) for label, _ in PERCENTILES},
                "percent": float(int(row["total_ns"])) / float(grand_total) * 100.0 if grand_total else 0.0,
            }
            for row in shown
        ]
        notes = []
        if untimed(table):
            notes.append(
                f"{section.table}: no timestamps in these rows (every start and end is 0), "
                "so durations are unknown, not zero"
            )
        if pid is None:
            note = summed_note(table)
            if note is not None:
                notes.append(note)
        out.append(SectionStats(section.name, rows, len(collected) - len(shown), notes))
    return out
