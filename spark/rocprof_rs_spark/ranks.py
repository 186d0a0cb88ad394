"""``rocprof-rs ranks`` in Spark SQL: the cross-rank analysis of a run many processes wrote.

The definitions are issue 23's, shared with the Rust command (crates/analysis/src/ranks), and
its JSON is the Rust command's, field for field:

- **Ranks.** A row's rank is its ``rank`` column; where that is null, its process (``host``,
  ``pid``; files of formats 1 and 2 have no ``host`` column, and their processes are known by
  pid alone here, where the Rust command also reads the host from each process's metadata
  file). A run's ranks are those with rows in ``kernel_dispatch`` or ``rccl_api``, or marker
  rows that match the step marker. Ranks are ordered by rank, then host (none first), then
  pid; a rank's host is the least its rows name and its pid the least. Wherever two ranks tie
  (first, slowest, last), the first in that order is taken.
- **Per rank**, over its ``kernel_dispatch`` rows (all agents, queues and streams merged),
  each kernel the interval [start_ns, end_ns) (an end before its start counts as the start):
  ``span_ns`` = max(end_ns) - min(start_ns); ``busy_ns`` = the length of the union of its
  kernel intervals; ``idle_ns`` = span - busy; ``communication_ns`` = the length of the union
  of its collective kernels' intervals; ``compute_ns`` = that of the other kernels;
  ``overlap_ns`` = the length of their intersection (communication + compute - busy);
  ``overlap_share`` = overlap / communication (null without communication). Unions are window
  functions: intervals sorted by start, the running maximum of the ends before each, a new
  group where a start lies beyond it.
- **Collective kernels**: names matching ``nccl|rccl`` in any case. The operation is the first
  of ReduceScatter, AllReduce, AllGather, Broadcast, AllToAll, SendRecv, Reduce, Send, Recv
  found in the name in any case (the longest first; Send and Recv are SendRecv), else
  ``Other``. ``rccl_api`` calls are classified by their ``operation`` alike.
- **Steps**: marker rows whose message matches the step marker (a Java regular expression,
  searched anywhere in the message); the k-th on a rank by (start_ns, end_ns) is step k, from
  1; its time is end_ns - start_ns, and its marker text the message of the first rank in
  order that has it. Per step, over the ranks that have it: the median (even
  count: the mean of the two middle values), the slowest rank and its excess over the median of
  the other ranks' times.
  The stragglers are the ranks slowest in some step, the largest total excess first.
- **Collectives**: per rank, collective kernels ordered by (start_ns, end_ns) and numbered per
  operation from 1 (the n-th AllReduce of every rank is one collective); arrival = start_ns.
  Per collective: ``spread_ns`` = max - min arrival, ``first`` and ``last`` the ranks that
  arrived first and last, each rank's wait = the last arrival - its own, ``others_wait_ns`` =
  the waits together. A collective some rank lacks is ``complete: false``. Per rank, over the
  complete kernel collectives: ``last_arrivals``, ``collective_wait_ns`` (its waits) and
  ``kept_waiting_ns`` (the others' wait where it came last). ``rccl_api`` calls give
  ``api_collectives`` the same way.
- **Clocks**: where the ranks ran on more than one host, arrivals are shifted by the rank's
  host's median over the ``process`` table of start_unix_ns - start_ns (an even count's mean
  of the two middle values rounded down), relative to the least; where a host has no
  ``process`` row nothing is shifted, and a note says so. One host: no shift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from .dataset import Dataset, column

#: Collective kernels and RCCL calls, by name.
COLLECTIVE = "(?i)nccl|rccl"

#: The operations in the order the Rust command lists them (its sort codes).
OPERATIONS = ("AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "SendRecv", "Other")

#: What each operation is found by, searched in this order (longest first).
PATTERNS: Tuple[Tuple[str, str], ...] = (
    ("reducescatter", "ReduceScatter"),
    ("allreduce", "AllReduce"),
    ("allgather", "AllGather"),
    ("broadcast", "Broadcast"),
    ("alltoall", "AllToAll"),
    ("sendrecv", "SendRecv"),
    ("reduce", "Reduce"),
    ("send", "SendRecv"),
    ("recv", "SendRecv"),
)

#: Where collectives are seen: their kernels and their RCCL API calls.
SOURCES = (("kernel", "kernel_dispatch", "kernel_name"), ("api", "rccl_api", "operation"))


def operation(name: Column) -> Column:
    """A collective's operation, from its kernel's or call's name."""
    lower = F.lower(name)
    chosen = F.lit("Other")
    for text, label in reversed(PATTERNS):
        chosen = F.when(lower.contains(text), F.lit(label)).otherwise(chosen)
    return chosen


def with_rank(df: DataFrame, *keep: Column) -> DataFrame:
    """``df``'s rows with the columns that identify their rank (``_rk``, a key; ``rank``,
    ``host`` and ``pid``) and ``keep``."""
    rank = column(df, "rank", IntegerType())
    host = column(df, "host", StringType())
    pid = F.col("pid").cast(LongType())
    key = F.when(rank.isNotNull(), F.concat(F.lit("r"), rank.cast("string"))).otherwise(
        F.concat(F.lit("p"), F.coalesce(F.concat(F.lit("h"), host), F.lit("")), F.lit("/"), pid.cast("string"))
    )
    return df.select(key.alias("_rk"), rank.alias("rank"), host.alias("host"), pid.alias("pid"), *keep)


def intervals(rows: DataFrame, name: str) -> DataFrame:
    """Rows as rank, interval (an end before its start counts as the start), collective flag
    and operation."""
    start = F.col("start_ns").cast(LongType())
    text = F.col(name).cast("string")
    return with_rank(
        rows,
        start.alias("start_ns"),
        F.greatest(F.col("end_ns").cast(LongType()), start).alias("end_ns"),
        text.rlike(COLLECTIVE).alias("collective"),
        operation(text).alias("operation"),
    )


def union_length(rows: DataFrame, keys: Sequence[str]) -> DataFrame:
    """Per ``keys``: ``union_ns``, the length of the union of the rows' [start_ns, end_ns).
    Sorted by start, a row opens a new merged interval where its start lies beyond every end
    before it; each merged interval spans its rows' least start and greatest end."""
    order = Window.partitionBy(*keys).orderBy("start_ns", "end_ns")
    reach = F.max("end_ns").over(order.rowsBetween(Window.unboundedPreceding, -1))
    opens = F.when(reach.isNull() | (F.col("start_ns") > reach), 1).otherwise(0)
    upto = order.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    grouped = rows.withColumn("_opens", opens).withColumn("_group", F.sum("_opens").over(upto))
    merged = grouped.groupBy(*keys, "_group").agg((F.max("end_ns") - F.min("start_ns")).alias("_length"))
    return merged.groupBy(*keys).agg(F.sum("_length").cast(LongType()).alias("union_ns"))


def busy(kernels: DataFrame) -> DataFrame:
    """Per rank (``_rk``): kernels, collectives, span, busy, idle, compute, communication,
    overlap and overlap share."""
    tagged = kernels.select("_rk", "start_ns", "end_ns", F.lit("busy").alias("_class")).unionByName(
        kernels.select(
            "_rk",
            "start_ns",
            "end_ns",
            F.when(F.col("collective"), "communication").otherwise("compute").alias("_class"),
        )
    )
    unions = (
        union_length(tagged, ["_rk", "_class"])
        .groupBy("_rk")
        .pivot("_class", ["busy", "communication", "compute"])
        .agg(F.first("union_ns"))
    )
    spans = kernels.groupBy("_rk").agg(
        F.count(F.lit(1)).alias("kernels"),
        F.count(F.when(F.col("collective"), 1)).alias("collectives"),
        (F.max("end_ns") - F.min("start_ns")).alias("span_ns"),
    )
    communication = F.coalesce(F.col("communication"), F.lit(0))
    compute = F.coalesce(F.col("compute"), F.lit(0))
    overlap = communication + compute - F.col("busy")
    return spans.join(unions, "_rk").select(
        "_rk",
        "kernels",
        "collectives",
        "span_ns",
        F.col("busy").alias("busy_ns"),
        (F.col("span_ns") - F.col("busy")).alias("idle_ns"),
        compute.alias("compute_ns"),
        communication.alias("communication_ns"),
        overlap.alias("overlap_ns"),
        F.when(communication > 0, overlap / communication).alias("overlap_share"),
    )


@dataclass
class Rank:
    """One rank: its key, what identifies it, and its place in the order."""

    key: str
    rank: Optional[int]
    host: Optional[str]
    pid: int
    order: int = 0

    def ref(self) -> Dict[str, Any]:
        """The rank as the JSON names it."""
        if self.rank is not None:
            name = str(self.rank)
        else:
            name = f"{self.host}:{self.pid}" if self.host is not None else f"pid:{self.pid}"
        return {"name": name, "rank": self.rank, "host": self.host, "pid": self.pid}


def rank_order(found: List[Any]) -> List[Rank]:
    """The ranks in order: numbered ranks by number, then processes by host (none first), pid."""
    ranks = [Rank(r["_rk"], r["rank"], r["host"], int(r["pid"])) for r in found]

    def place(r: Rank) -> Tuple[int, int, int, str, int]:
        if r.rank is not None:
            return (0, r.rank, 0, "", 0)
        return (1, 0, r.host is not None, r.host or "", r.pid)

    ranks.sort(key=place)
    for i, r in enumerate(ranks):
        r.order = i
    return ranks


def host_shifts(dataset: Dataset, ranks: Sequence[Rank]) -> Tuple[Dict[str, int], List[str]]:
    """Each host's shift (relative to the least) where the ranks ran on several hosts, and a
    note where they cannot be aligned."""
    hosts = sorted({r.host for r in ranks}, key=lambda h: (h is not None, h or ""))
    if len(hosts) <= 1:
        return {}, []
    offsets: Dict[str, List[int]] = {}
    process = dataset.table("process")
    if process is not None and "host" in process.columns:
        rows = process.where(F.col("host").isNotNull() & F.col("start_unix_ns").isNotNull()).select(
            F.col("host").cast("string").alias("host"),
            F.col("start_unix_ns").cast(LongType()).alias("unix"),
            F.col("start_ns").cast(LongType()).alias("boot"),
        )
        for row in rows.collect():
            offsets.setdefault(row["host"], []).append(int(row["unix"]) - int(row["boot"]))
    missing = [h if h is not None else "(unknown)" for h in hosts if h is None or h not in offsets]
    if missing:
        return {}, [
            f"the ranks ran on {len(hosts)} hosts, but the process table gives no start_unix_ns for "
            f"{', '.join(missing)}: collective arrivals are compared on the hosts' own clocks, unaligned"
        ]
    medians = {}
    for host in hosts:
        values = sorted(offsets[host])
        n = len(values)
        medians[host] = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) // 2
    least = min(medians.values())
    return {host: m - least for host, m in medians.items()}, []


def numbered(rows: DataFrame, order: DataFrame, shifts: DataFrame) -> DataFrame:
    """Collective rows numbered per rank and operation from 1, with their shifted arrival."""
    by_rank = Window.partitionBy("_rk", "operation").orderBy("start_ns", "end_ns")
    return (
        rows.where(F.col("collective"))
        .select("_rk", "operation", "start_ns", "end_ns")
        .join(order, "_rk")
        .join(shifts, "_host", "left")
        .select(
            "_rk",
            "_order",
            "operation",
            F.row_number().over(by_rank).alias("index"),
            (F.col("start_ns") + F.coalesce(F.col("_shift"), F.lit(0))).alias("arrival"),
        )
    )


def collectives(arrivals: DataFrame, ranks: int) -> DataFrame:
    """Per collective: ranks, complete, spread, first and last (``_first``, ``_last``: their
    order), others' wait; from ``numbered`` rows."""
    figures = arrivals.groupBy("operation", "index").agg(
        F.count(F.lit(1)).alias("ranks"),
        F.min(F.struct("arrival", "_order")).alias("_first"),
        F.max(F.struct("arrival", (-F.col("_order")).alias("_neg"))).alias("_last"),
        F.sum(F.col("arrival").cast("decimal(38,0)")).alias("_sum"),
    )
    last = F.col("_last.arrival")
    return figures.select(
        "operation",
        "index",
        "ranks",
        (F.col("ranks") == ranks).alias("complete"),
        (last - F.col("_first.arrival")).alias("spread_ns"),
        F.col("_first._order").alias("_first"),
        (-F.col("_last._neg")).alias("_last"),
        (F.col("ranks") * last.cast("decimal(38,0)") - F.col("_sum")).cast(LongType()).alias("others_wait_ns"),
    )


def waits(arrivals: DataFrame, figures: DataFrame) -> DataFrame:
    """Per rank (``_order``) over the complete collectives: last arrivals, its waits, and the
    others' wait where it came last."""
    together = Window.partitionBy("operation", "index")
    complete = figures.where(F.col("complete")).select("operation", "index", "_last", "others_wait_ns")
    joined = arrivals.withColumn("_latest", F.max("arrival").over(together)).join(complete, ["operation", "index"])
    came_last = F.col("_order") == F.col("_last")
    return joined.groupBy("_order").agg(
        F.count(F.when(came_last, 1)).alias("last_arrivals"),
        F.sum(F.col("_latest") - F.col("arrival")).alias("collective_wait_ns"),
        F.sum(F.when(came_last, F.col("others_wait_ns")).otherwise(0)).alias("kept_waiting_ns"),
    )


def steps(markers: DataFrame, step_marker: str) -> DataFrame:
    """Per rank and step: ``step`` (from 1), ``time_ns`` and the range's ``message``."""
    matching = with_rank(
        markers.where(F.col("message").rlike(step_marker)),
        F.col("start_ns").cast(LongType()).alias("start_ns"),
        F.col("end_ns").cast(LongType()).alias("end_ns"),
        F.col("message"),
    )
    by_rank = Window.partitionBy("_rk").orderBy("start_ns", "end_ns")
    return matching.select(
        "_rk",
        "rank",
        "host",
        "pid",
        F.row_number().over(by_rank).alias("step"),
        (F.col("end_ns") - F.col("start_ns")).alias("time_ns"),
        "message",
    )


def step_figures(per_rank: DataFrame, order: DataFrame) -> DataFrame:
    """Per step: ranks, median, the slowest rank (its order) and time, and the median of the
    other ranks' times (null for a step of one rank)."""
    joined = per_rank.join(order, "_rk")
    # The slowest as the aggregate below picks it: the largest time, the first rank in order.
    place = Window.partitionBy("step").orderBy(F.col("time_ns").desc(), F.col("_order").asc())
    others = (
        joined.withColumn("_place", F.row_number().over(place))
        .where(F.col("_place") > 1)
        .groupBy("step")
        .agg(F.expr("percentile(time_ns, 0.5)").alias("others_median_ns"))
    )
    return (
        joined.groupBy("step")
        .agg(
            F.count(F.lit(1)).alias("ranks"),
            F.expr("percentile(time_ns, 0.5)").alias("median_ns"),
            F.max(F.struct("time_ns", (-F.col("_order")).alias("_neg"))).alias("_slowest"),
            # The step's marker text: the first rank in order that has it names it.
            F.min(F.struct("_order", "message")).alias("_first"),
        )
        .select(
            "step",
            F.col("_first.message").alias("marker"),
            "ranks",
            "median_ns",
            (-F.col("_slowest._neg")).alias("_slowest"),
            F.col("_slowest.time_ns").alias("slowest_ns"),
        )
        .join(others, "step", "left")
    )


def _order_frame(spark: SparkSession, ranks: Sequence[Rank]) -> DataFrame:
    schema = StructType(
        [StructField("_rk", StringType()), StructField("_order", IntegerType()), StructField("_host", StringType())]
    )
    return spark.createDataFrame([(r.key, r.order, r.host) for r in ranks], schema)


def compute(dataset: Dataset, step_marker: Optional[str] = None) -> Dict[str, Any]:
    """The analysis as ``rocprof-rs ranks --format json`` prints it."""
    spark = dataset.spark
    notes: List[str] = []
    sources = {}
    for source, table, name in SOURCES:
        rows = dataset.table(table)
        if rows is not None:
            sources[source] = intervals(rows, name).cache()
    if "kernel" not in sources:
        notes.append("no kernel_dispatch table: no busy, compute or communication time (trace with --kernel-trace)")
    per_step = None
    if step_marker is not None:
        markers = dataset.table("marker")
        if markers is None:
            notes.append("no marker table: no step times (trace with --marker-trace)")
        else:
            per_step = steps(markers, step_marker).cache()
    identities = [df.select("_rk", "rank", "host", "pid") for df in sources.values()]
    if per_step is not None:
        identities.append(per_step.select("_rk", "rank", "host", "pid"))
    if not identities:
        raise FileNotFoundError(f"{dataset.root}: no kernel_dispatch, rccl_api or matching marker rows: no ranks to compare")
    found = identities[0]
    for more in identities[1:]:
        found = found.unionByName(more)
    ranks = rank_order(
        found.groupBy("_rk").agg(F.first("rank").alias("rank"), F.min("host").alias("host"), F.min("pid").alias("pid")).collect()
    )
    if not ranks:
        raise FileNotFoundError(f"{dataset.root}: no kernel_dispatch, rccl_api or matching marker rows: no ranks to compare")
    by_key = {r.key: r for r in ranks}
    order = _order_frame(spark, ranks)
    shifts_by_host, shift_notes = host_shifts(dataset, ranks)
    notes += shift_notes
    shifts = spark.createDataFrame(
        [(h, s) for h, s in shifts_by_host.items()],
        StructType([StructField("_host", StringType()), StructField("_shift", LongType())]),
    )

    zero = {
        "kernels": 0,
        "collectives": 0,
        "span_ns": 0,
        "busy_ns": 0,
        "idle_ns": 0,
        "compute_ns": 0,
        "communication_ns": 0,
        "overlap_ns": 0,
        "overlap_share": None,
        "steps": 0,
        "slowest_steps": 0,
        "step_excess_ns": 0.0,
        "last_arrivals": 0,
        "collective_wait_ns": 0,
        "kept_waiting_ns": 0,
    }
    rows = {r.order: {**r.ref(), **zero} for r in ranks}
    if "kernel" in sources:
        for row in busy(sources["kernel"]).collect():
            entry = rows[by_key[row["_rk"]].order]
            for name in ("kernels", "collectives", "span_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns", "overlap_ns"):
                entry[name] = int(row[name])
            entry["overlap_share"] = None if row["overlap_share"] is None else float(row["overlap_share"])

    step_rows: List[Dict[str, Any]] = []
    stragglers: List[Tuple[float, int, Dict[str, Any]]] = []
    if per_step is not None:
        for row in per_step.groupBy("_rk").count().collect():
            rows[by_key[row["_rk"]].order]["steps"] = int(row["count"])
        slowest_in: Dict[int, List[Tuple[int, float]]] = {}
        for row in step_figures(per_step, order.select("_rk", "_order")).orderBy("step").collect():
            median, slowest_ns = float(row["median_ns"]), int(row["slowest_ns"])
            others_median = row["others_median_ns"]
            excess = 0.0 if others_median is None else float(slowest_ns) - float(others_median)
            marker = row["marker"] or ""
            slowest_in.setdefault(int(row["_slowest"]), []).append((int(row["step"]), excess, marker))
            step_rows.append(
                {
                    "step": int(row["step"]),
                    "marker": marker,
                    "ranks": int(row["ranks"]),
                    "complete": int(row["ranks"]) == len(ranks),
                    "median_ns": median,
                    "slowest": ranks[int(row["_slowest"])].ref(),
                    "slowest_ns": slowest_ns,
                    "excess_ns": excess,
                }
            )
        for position, taken in slowest_in.items():
            total = 0.0
            for _, excess, _ in taken:
                total += excess
            rows[position]["slowest_steps"] = len(taken)
            rows[position]["step_excess_ns"] = total
            stragglers.append(
                (-total, position, {
                    "rank": ranks[position].ref(),
                    "slowest_steps": len(taken),
                    "excess_total_ns": total,
                    "excess_mean_ns": total / len(taken),
                    "excess_max_ns": max(e for _, e, _ in taken),
                    "steps": [s for s, _, _ in taken],
                    "step_markers": [m for _, _, m in taken],
                })
            )
        stragglers.sort(key=lambda s: s[:2])
        if not step_rows:
            notes.append(f"no marker message matches --step-marker {step_marker!r}: no step times")

    listed: Dict[str, List[Dict[str, Any]]] = {"kernel": [], "api": []}
    operations: List[Dict[str, Any]] = []
    for source, frame in sources.items():
        arrivals = numbered(frame, order, shifts).cache()
        figures = collectives(arrivals, len(ranks)).cache()
        found_rows = figures.collect()
        found_rows.sort(key=lambda r: (OPERATIONS.index(r["operation"]), r["index"]))
        for row in found_rows:
            listed[source].append(
                {
                    "source": source,
                    "operation": row["operation"],
                    "index": int(row["index"]),
                    "ranks": int(row["ranks"]),
                    "complete": bool(row["complete"]),
                    "spread_ns": int(row["spread_ns"]),
                    "first": ranks[int(row["_first"])].ref(),
                    "last": ranks[int(row["_last"])].ref(),
                    "others_wait_ns": int(row["others_wait_ns"]),
                }
            )
        for op in OPERATIONS:
            mine = [c for c in listed[source] if c["operation"] == op]
            if mine:
                operations.append(
                    {
                        "source": source,
                        "operation": op,
                        "collectives": len(mine),
                        "incomplete": sum(1 for c in mine if not c["complete"]),
                        "mean_spread_ns": float(sum(c["spread_ns"] for c in mine)) / float(len(mine)),
                        "max_spread_ns": max(c["spread_ns"] for c in mine),
                        "others_wait_ns": sum(c["others_wait_ns"] for c in mine),
                    }
                )
        if source == "kernel":
            for row in waits(arrivals, figures).collect():
                entry = rows[int(row["_order"])]
                entry["last_arrivals"] = int(row["last_arrivals"])
                entry["collective_wait_ns"] = int(row["collective_wait_ns"] or 0)
                entry["kept_waiting_ns"] = int(row["kept_waiting_ns"] or 0)
        figures.unpersist()
        arrivals.unpersist()
    for frame in sources.values():
        frame.unpersist()
    if per_step is not None:
        per_step.unpersist()
    incomplete = sum(1 for c in listed["kernel"] if not c["complete"])
    if incomplete:
        notes.append(f"{incomplete} kernel collectives are not seen on every rank (incomplete; the per-rank waits leave them out)")
    return {
        "ranks": [rows[r.order] for r in ranks],
        "step_marker": step_marker,
        # Every step and collective is listed: the Spark report has no --top cut.
        "top": None,
        "steps": step_rows,
        "steps_omitted": 0,
        "steps_incomplete": sum(1 for s in step_rows if not s["complete"]),
        "stragglers": [s[2] for s in stragglers],
        "collectives": listed["kernel"],
        "collectives_omitted": 0,
        "collectives_incomplete": incomplete,
        "api_collectives": listed["api"],
        "api_collectives_omitted": 0,
        "operations": operations,
        "host_shifts_ns": dict(sorted(shifts_by_host.items())),
        "notes": notes,
    }

