#!/usr/bin/env python3
"""Checks the page `rocprof-rs report` wrote for a run on this GPU against the run itself.

    check_report.py PAGE.html DATASET --gpu-uuid UUID [--out verdict.json] [--label report]

DATASET is the run the page is of (`rocprof-rs run --backend cupti --kernel-trace --marker-trace
--memory-copy-trace --device-sample 10` around torch_workload.py); UUID is nvidia-smi's UUID of the
GPU the workload used. The page is read with the standard library's HTML parser and the dataset
with pyarrow, never with rocprof-rs's own readers. Checks:

- page.self_contained: no src= or href= that leaves the page, no <link>, no external script.
- page.sections: summary, kernels, timeline, bottlenecks and device shown; roofline, coverage,
  ranks and diff empty with their reason (this run has no counters, one process, no baseline).
- kernels.dispatches / kernels.names: the kernel table's data-dispatches and data-names equal
  pyarrow's row count and distinct kernel_name count.
- kernels.rows: each row's calls and total (its data-v, ns) equal pyarrow's group-by.
- summary.gpu_busy: the summary's GPU busy figure equals the union of the kernels' intervals
  computed here, per GPU, summed.
- device.gpu: the device table names one GPU, and its row is nvidia-smi's UUID.
- timeline.bins: the timeline's JSON has a kernel lane per CUDA stream that ran kernels, and the
  kernel lanes' busy totals sum to the kernels' summed durations within 1% (they are the same
  time, cut into bins).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import Verdict, read_table  # noqa: E402


class Page(HTMLParser):
    """The facts of a report page: sections and their states, tables' rows, figures, links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: dict[str, str] = {}
        self.figures: dict[str, float] = {}
        self.tables: dict[str, dict] = {}
        self.external: list[str] = []
        self.timeline_json = ""
        self._table: str | None = None
        self._row: dict | None = None
        self._cell: list | None = None
        self._in_timeline = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            if key in a and not (a[key] or "").startswith("#"):
                self.external.append(a[key])
        if tag == "link":
            self.external.append("<link>")
        if tag == "section" and "id" in a:
            self.sections[a["id"]] = a.get("data-state", "")
        if tag == "div" and "figure" in (a.get("class") or "").split():
            self.figures[a.get("data-key", "")] = float(a.get("data-v", "nan"))
        if tag == "table" and "id" in a:
            self._table = a["id"]
            self.tables[self._table] = {"attrs": a, "rows": []}
        if tag == "tr" and self._table:
            self._row = {"name": a.get("data-name"), "cells": []}
        if tag == "td" and self._row is not None:
            self._cell = [a.get("data-v")]
        elif self._cell is not None and self._cell[0] is None and "data-v" in a:
            self._cell[0] = a["data-v"]
        if tag == "script" and a.get("id") == "timeline-data":
            self._in_timeline = True

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row["cells"].append(self._cell[0])
            self._cell = None
        if tag == "tr" and self._row is not None and self._table:
            if self._row["cells"]:
                self.tables[self._table]["rows"].append(self._row)
            self._row = None
        if tag == "table":
            self._table = None
        if tag == "script":
            self._in_timeline = False

    def handle_data(self, data):
        if self._in_timeline:
            self.timeline_json += data


def union_length(intervals: list[tuple[int, int]]) -> int:
    total, open_start, open_end = 0, None, None
    for start, end in sorted(intervals):
        end = max(end, start)
        if open_end is None or start > open_end:
            if open_end is not None:
                total += open_end - open_start
            open_start, open_end = start, end
        else:
            open_end = max(open_end, end)
    return total + (0 if open_end is None else open_end - open_start)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("dataset")
    ap.add_argument("--gpu-uuid", required=True)
    ap.add_argument("--out")
    ap.add_argument("--label", default="report")
    args = ap.parse_args()
    v = Verdict(args.label)
    page = Page()
    try:
        with open(args.page, encoding="utf-8") as fh:
            page.feed(fh.read())
        kernels = read_table(args.dataset, "kernel_dispatch").to_pylist()
    except Exception as e:  # a missing page or dataset is a failed check, not a traceback
        v.check("inputs", False, f"{type(e).__name__}: {e}")
        return v.emit(args.out)
    v.info["page_bytes"] = os.path.getsize(args.page)

    v.check("page.self_contained", not page.external, page.external[:5])
    shown = {"summary", "kernels", "timeline", "bottlenecks", "device"}
    empty = {"roofline", "coverage", "ranks", "diff"}
    states = page.sections
    v.check("page.sections", all(states.get(s) == "shown" for s in shown) and all(states.get(s) == "empty" for s in empty),
            states)

    calls: dict[str, int] = defaultdict(int)
    totals: dict[str, int] = defaultdict(int)
    by_gpu: dict[int, list[tuple[int, int]]] = defaultdict(list)
    streams = set()
    for k in kernels:
        calls[k["kernel_name"]] += 1
        totals[k["kernel_name"]] += k["end_ns"] - k["start_ns"]
        by_gpu[k["agent_id"]].append((k["start_ns"], k["end_ns"]))
        streams.add((k["agent_id"], k["stream_id"]))
    table = page.tables.get("kernel-table", {"attrs": {}, "rows": []})
    v.check("kernels.dispatches", int(table["attrs"].get("data-dispatches", -1)) == len(kernels),
            {"page": table["attrs"].get("data-dispatches"), "pyarrow": len(kernels)})
    v.check("kernels.names", int(table["attrs"].get("data-names", -1)) == len(calls),
            {"page": table["attrs"].get("data-names"), "pyarrow": len(calls)})
    wrong = []
    for row in table["rows"]:
        name, cells = row["name"], row["cells"]
        page_calls, page_total = int(float(cells[1])), int(float(cells[2]))
        if (page_calls, page_total) != (calls.get(name), totals.get(name)):
            wrong.append({"name": name, "page": [page_calls, page_total], "pyarrow": [calls.get(name), totals.get(name)]})
    v.check("kernels.rows", bool(table["rows"]) and not wrong, wrong[:5] or f"{len(table['rows'])} rows")

    busy = sum(union_length(spans) for spans in by_gpu.values())
    v.check("summary.gpu_busy", page.figures.get("gpu_busy") == busy, {"page": page.figures.get("gpu_busy"), "here": busy})

    devices = page.tables.get("device-table", {"rows": []})["rows"]
    v.check("device.gpu", len(devices) == 1 and devices[0]["name"] == args.gpu_uuid,
            {"page": [d["name"] for d in devices], "nvidia-smi": args.gpu_uuid})

    try:
        timeline = json.loads(page.timeline_json)
        lanes = [lane for lane in timeline["lanes"] if lane["kind"] == "kernel"]
        lane_busy = sum(lane["total"] for lane in lanes)
        kernel_time = sum(totals.values())
        v.info["timeline"] = {"bins": len(lanes[0]["values"]) if lanes else 0, "kernel_lanes": len(lanes),
                              "streams": len(streams), "lane_busy_ns": lane_busy, "kernel_ns": kernel_time}
        v.check("timeline.bins", len(lanes) == len(streams) and abs(lane_busy / kernel_time - 1) <= 0.01,
                v.info["timeline"])
    except (ValueError, KeyError, ZeroDivisionError) as e:
        v.check("timeline.bins", False, f"{type(e).__name__}: {e}")
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
