"""``python -m rocprof_rs_spark stats|ranks|counters DIR``: the analyses on Spark, printed as a
table or as the Rust commands' JSON (``--format json``).

Spark is started as configured by ``spark-submit`` or the environment; ``--master`` and
``--conf KEY=VALUE`` set it here (an object store's connector and credentials, for example).
Without a master, Spark runs in local mode on every core.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence

from pyspark.sql import SparkSession

from rocprof_rs_spark import counters, ranks, stats
from rocprof_rs_spark.dataset import Dataset


def parse(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m rocprof_rs_spark", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help)
        sub.add_argument("dir", help="the run directory: a path or any URI Spark reads (s3a://, gs://, abfss://, ...)")
        sub.add_argument("--format", choices=("table", "json"), default="table")
        sub.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
        sub.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting")
        sub.add_argument("--output", "-o", metavar="FILE", help="write to FILE rather than standard output")
        return sub

    s = command("stats", "per-name duration statistics, as rocprof-rs stats")
    s.add_argument("--section", action="append", default=[], help="kernel, hip_api, memory_copy or marker")
    s.add_argument("--top", type=int, metavar="N", help="only the N names with the largest total per section")
    s.add_argument("--pid", type=int, help="only this process")
    s.add_argument(
        "--accuracy",
        type=int,
        metavar="A",
        help="percentiles by percentile_approx (rank within calls/A) rather than exactly",
    )
    r = command("ranks", "cross-rank analysis, as rocprof-rs ranks")
    r.add_argument("--step-marker", metavar="REGEX", help="markers whose message matches are the steps")
    c = command("counters", "per-kernel counter aggregation, as the kernel_counter table")
    c.add_argument(
        "--by",
        default="",
        metavar="KEYS",
        help="split further by these comma-separated keys: pid, host, rank, agent_id, counter_group",
    )
    return parser.parse_args(argv)


def session(args: argparse.Namespace) -> SparkSession:
    """A Spark session as asked, quiet but for errors."""
    builder = SparkSession.builder.appName(f"rocprof-rs {args.command}").config("spark.ui.showConsoleProgress", "false")
    if args.master:
        builder = builder.master(args.master)
    for setting in args.conf:
        key, _, value = setting.partition("=")
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _cell(value: Any) -> str:
    """A JSON value as a table cell: a rank by its name, nanoseconds whole."""
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 1e4 else f"{value:.6g}"
    if isinstance(value, dict):
        return str(value["name"]) if "name" in value else " ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list):
        return ",".join(_cell(v) for v in value)
    return "" if value is None else str(value)


def table(title: str, rows: List[Dict[str, Any]]) -> str:
    """Rows as an aligned text table under ``title``."""
    if not rows:
        return f"{title}: none\n"
    columns = list(rows[0])
    cells = [columns] + [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in cells]
    return f"{title}\n" + "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command; its exit status."""
    args = parse(argv)
    spark = session(args)
    dataset = Dataset(spark, args.dir)
    result: Any
    if args.command == "stats":
        sections = [stats.section_by_name(name) for name in args.section] or list(stats.SECTIONS)
        computed = stats.compute(dataset, sections, pid=args.pid, top=args.top, accuracy=args.accuracy)
        if not computed:
            print(f"rocprof-rs-spark: {args.dir}: no kernel, API, copy or marker rows to summarise", file=sys.stderr)
            return 1
        result = [s.to_json() for s in computed]
        text = "".join(table(s.section, s.rows) for s in computed)
    elif args.command == "ranks":
        result = ranks.compute(dataset, args.step_marker)
        parts = ("ranks", "steps", "stragglers", "collectives", "api_collectives", "operations")
        text = "".join(table(part, result[part]) for part in parts)
        text += "".join(f"note: {note}\n" for note in result["notes"])
    else:
        by = [key for key in args.by.split(",") if key]
        result = counters.compute(dataset, by)
        text = table("counters", result)
    if args.format == "json":
        text = json.dumps(result, indent=2) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
