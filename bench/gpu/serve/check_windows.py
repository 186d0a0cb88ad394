#!/usr/bin/env python3
"""Checks a rocprof-rs dataset of the decode loop against the program's own account of its
graph replays (decode.py --replay-log): are the windows complete, and the graph launches all there?

    check_windows.py DATASET REPLAY_LOG [--mode node|graph] [--windowed]

The program logs each replay's launch interval (CLOCK_BOOTTIME, the tables' clock) and the
graph's kernel-node count N. A replay's kernels share its launch's correlation id, so the
kernel rows of graph replays fall into groups of N, one per replay recorded.
- windowed: every replay launched inside a window's sure bounds (opened_ns..closing_ns) must have
  its N rows; none launched outside every window's outer bounds may have any; no group may be
  partial (with graph-level tracing between windows, a replay launched during a switch may).
- graph mode: one graph_launch row per replay launched while graph tracing was on (every replay
  without windows; outside the windows with them), none extra.
Prints one JSON object and exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402


def per_window(w: dict, launches: list[tuple[int, int]]) -> dict:
    begins = [a0 for a0, _ in launches]
    count = lambda lo, hi: bisect.bisect_left(begins, hi) - bisect.bisect_left(begins, lo)  # noqa: E731
    ms = lambda ns: round(ns / 1e6, 3)  # noqa: E731
    span = w["closing_ns"] - w["opened_ns"]

    def calls_us(lo: int, hi: int) -> dict:
        # How long the launch call itself took: a switch that stalls cudaGraphLaunch shows here.
        took = sorted(a1 - a0 for a0, a1 in launches[bisect.bisect_left(begins, lo):bisect.bisect_left(begins, hi)])
        if not took:
            return {}
        return {"median": round(took[len(took) // 2] / 1e3, 1), "max": round(took[-1] / 1e3, 1), "sum_ms": ms(sum(took))}

    return {"switch_on_ms": ms(w["opened_ns"] - w["start_ns"]), "sure_ms": ms(span),
            "switch_off_ms": ms(w["end_ns"] - w["closing_ns"]),
            "launched_outer": count(w["start_ns"], w["end_ns"]), "launched_sure": count(w["opened_ns"], w["closing_ns"]),
            "launched_same_span_before": count(w["start_ns"] - span, w["start_ns"]),
            "launch_call_us_sure": calls_us(w["opened_ns"], w["closing_ns"]),
            "launch_call_us_before": calls_us(w["start_ns"] - span, w["start_ns"]),
            "launch_call_us_switch_on": calls_us(w["start_ns"], w["opened_ns"])}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("replay_log")
    ap.add_argument("--mode", choices=["node", "graph"], default="node")
    ap.add_argument("--windowed", action="store_true")
    args = ap.parse_args()
    log = json.load(open(args.replay_log))
    nodes, launches = log["graph_kernel_nodes"], [tuple(x) for x in log["launches"]]
    out: dict = {"replays": len(launches), "graph_kernel_nodes": nodes}
    checks: dict[str, bool] = {}

    windows = benchlib.read_columns(args.dataset, "window", ["start_ns", "end_ns", "opened_ns", "closing_ns"]) \
        if benchlib.has_table(args.dataset, "window") else []
    windows.sort(key=lambda w: w["start_ns"])
    starts = [w["start_ns"] for w in windows]

    def where(a0: int, a1: int) -> str:
        i = bisect.bisect_right(starts, a1) - 1
        near = [windows[j] for j in (i, i + 1) if 0 <= j < len(windows)]
        if any(w["opened_ns"] <= a0 and a1 <= w["closing_ns"] for w in near):
            return "inside"
        if all(a1 < w["start_ns"] or a0 > w["end_ns"] for w in near):
            return "outside"
        return "edge"

    places = Counter(where(*l) for l in launches) if windows else Counter(outside=len(launches))
    out["windows"] = len(windows)
    # Per window, the switch times and the replays launched in it, beside the launch rate just
    # before it: a switch that stalls the launching thread shows as fewer launches inside than
    # its span would hold, which biases the windows' scaling to the run.
    out["per_window"] = [per_window(w, launches) for w in windows]
    out["replays_by_place"] = dict(places)

    kernels = benchlib.read_columns(args.dataset, "kernel_dispatch", ["correlation_id", "graph_id"]) \
        if benchlib.has_table(args.dataset, "kernel_dispatch") else []
    groups = Counter(k["correlation_id"] for k in kernels if k["graph_id"])
    sizes = Counter(groups.values())
    complete = sizes.get(nodes, 0)
    partial = sum(n for size, n in sizes.items() if size != nodes)
    out.update(graph_kernel_rows=sum(groups.values()), replays_with_rows=len(groups), complete=complete,
               partial=partial, group_sizes={str(k): v for k, v in sorted(sizes.items())})
    if args.windowed:
        checks["every replay inside a window has all its kernels"] = complete >= places.get("inside", 0)
        checks["no replay outside every window has any"] = len(groups) <= places.get("inside", 0) + places.get("edge", 0)
        # Graph-level tracing between windows: a replay launched while CUPTI switches levels
        # may lose a kernel (H200: 1 of 12); only such edge replays may be partial.
        allowed = places.get("edge", 0) if args.mode == "graph" else 0
        checks["no partial replay (graph mode: edge replays only)"] = partial <= allowed
        checks["windows both hold and miss replays"] = places.get("inside", 0) > 0 and places.get("outside", 0) > 0
    elif args.mode == "node":
        checks["every replay has all its kernels"] = complete >= len(launches) and partial == 0

    if args.mode == "graph":
        graphs = benchlib.read_columns(args.dataset, "graph_launch", ["correlation_id", "start_ns", "end_ns"]) \
            if benchlib.has_table(args.dataset, "graph_launch") else []
        out["graph_launch_rows"] = len(graphs)
        out["graph_launch_correlations"] = len({g["correlation_id"] for g in graphs})
        expected = places.get("outside", 0) if args.windowed else len(launches)
        slack = places.get("edge", 0)
        checks["a graph_launch row per replay traced at graph level"] = expected <= len(graphs) <= expected + slack
        checks["graph rows and kernel rows never cover one replay"] = not ({g["correlation_id"] for g in graphs} & set(groups))
    out["checks"] = checks
    out["ok"] = all(checks.values())
    print(json.dumps(out))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
