#!/usr/bin/env python3
"""Checks a windowed rocprof-rs dataset against rocprof-sim's ground truth (SIMULATED).

    check_windows.py OUTPUT_DIR TRUTH_CSV [--tolerance-us 200] [--ambiguous-max 0.02]

A dispatch is launched inside its HIP launch call, whose host interval the truth holds. It
must be in the dataset if that interval lies inside a window's sure part (`opened_ns` to
`closing_ns`), must not be if it lies outside every window (`start_ns` to `end_ns`), and may be
either in between or within the tolerance of an edge. Every API row must overlap a window. Every row must belong, by the format's rule
(the last window opened at or before its start), to a window that contains its launch. The
metadata's share must equal the windows' time over the run's. Reads with pyarrow only.
Exits 0 when all holds, 1 with a report otherwise.
"""

import argparse
import bisect
import csv
import glob
import json
import os
import sys

import pyarrow.dataset as ds


def table(out, name, columns):
    paths = glob.glob(os.path.join(out, name, "**", "*.parquet"), recursive=True)
    if not paths:
        return {c: [] for c in columns}
    return ds.dataset(paths, format="parquet").to_table(columns=columns).to_pydict()


def truth_rows(path):
    with open(path, newline="") as f:
        lines = (line for line in f if not line.startswith("#"))
        yield from csv.DictReader(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("truth")
    parser.add_argument("--tolerance-us", type=float, default=20.0)
    parser.add_argument("--ambiguous-max", type=float, default=0.05)
    parser.add_argument("--stats-json", help="`rocprof-rs stats --format json` of the dataset: its run estimates are checked against the truth's counts")
    parser.add_argument("--covered-min", type=float, default=0.6,
                        help="share of kernels (with 20+ calls in windows) whose 95%% interval must hold the truth's count")
    args = parser.parse_args()
    tolerance = int(args.tolerance_us * 1000)

    windows = table(args.output, "window", ["window", "start_ns", "end_ns", "opened_ns", "closing_ns"])
    bounds = sorted(zip(windows["start_ns"], windows["end_ns"], windows["window"]))
    sure = sorted(zip(windows["opened_ns"], windows["closing_ns"]))
    problems = []
    if not bounds:
        print("no windows in the dataset")
        return 1
    if [w for _, _, w in bounds] != list(range(len(bounds))):
        problems.append(f"windows are not numbered 0..{len(bounds) - 1} in time order: {[w for _, _, w in bounds]}")
    starts = [s for s, _, _ in bounds]

    def place(a0, a1):
        """inside, outside or edge, for a launch in [a0, a1]."""
        i = bisect.bisect_right(starts, a1) - 1
        near = [bounds[j] for j in (i, i + 1) if 0 <= j < len(bounds)]
        near_sure = [sure[j] for j in (i, i + 1) if 0 <= j < len(sure)]
        if any(s + tolerance <= a0 and a1 + tolerance <= e for s, e in near_sure):
            return "inside"
        if all(a1 + tolerance < s or a0 > e + tolerance for s, e, _ in near):
            return "outside"
        return "edge"

    launches = {}
    dispatches = []
    for row in truth_rows(args.truth):
        if row["record"] == "hip_api" and row["correlation_id"]:
            launches[int(row["correlation_id"])] = (int(row["start_ns"]), int(row["end_ns"]))
        elif row["record"] == "kernel_dispatch":
            dispatches.append((int(row["dispatch_id"]), int(row["correlation_id"])))

    got = table(args.output, "kernel_dispatch", ["dispatch_id", "start_ns"])
    recorded = dict(zip(got["dispatch_id"], got["start_ns"]))
    if len(recorded) != len(got["dispatch_id"]):
        problems.append("a dispatch is in the dataset twice")
    counts = {"inside": 0, "outside": 0, "edge": 0}
    missing, extra = [], []
    known = set()
    for dispatch_id, correlation_id in dispatches:
        known.add(dispatch_id)
        launch = launches.get(correlation_id)
        if launch is None:
            problems.append(f"dispatch {dispatch_id}: no launch call in the truth")
            continue
        where = place(*launch)
        counts[where] += 1
        if where == "inside" and dispatch_id not in recorded:
            missing.append(dispatch_id)
        if where == "outside" and dispatch_id in recorded:
            extra.append(dispatch_id)
        if dispatch_id in recorded:
            start = recorded[dispatch_id]
            i = bisect.bisect_right(starts, start) - 1
            s, e, _ = bounds[i] if i >= 0 else (None, None, None)
            if s is None or not (s <= launch[1] and launch[0] <= e + tolerance):
                problems.append(f"dispatch {dispatch_id} (launched {launch}) starts at {start}, in no window that holds its launch")
    unknown = set(recorded) - known
    if unknown:
        problems.append(f"{len(unknown)} dispatches not in the truth")
    if missing:
        problems.append(f"{len(missing)} dispatches launched inside a window are missing, e.g. {missing[:5]}")
    if extra:
        problems.append(f"{len(extra)} dispatches launched outside every window are present, e.g. {extra[:5]}")
    if counts["inside"] == 0 or counts["outside"] == 0:
        problems.append(f"the test needs launches both inside and outside windows: {counts}")
    if counts["edge"] > args.ambiguous_max * max(1, len(dispatches)):
        problems.append(f"{counts['edge']} of {len(dispatches)} launches lie within {args.tolerance_us} us of a window's edge")

    api = table(args.output, "hip_api", ["start_ns", "end_ns"])
    stray = sum(1 for a0, a1 in zip(api["start_ns"], api["end_ns"]) if place(a0, a1) == "outside")
    if stray:
        problems.append(f"{stray} API rows lie outside every window")

    metadata = [json.load(open(p)) for p in glob.glob(os.path.join(args.output, "*.metadata.json"))]
    if len(metadata) != 1 or "windows" not in metadata[0]:
        problems.append("the metadata has no windows object")
    else:
        w = metadata[0]["windows"]
        recorded_ns = sum(e - s for s, e, _ in bounds)
        if w["windows"] != len(bounds) or w["recorded_ns"] != recorded_ns:
            problems.append(f"metadata {w} against {len(bounds)} windows of {recorded_ns} ns")
        elif abs(w["recorded_share"] - recorded_ns / w["run_ns"]) > 1e-5:
            problems.append(f"metadata share {w['recorded_share']} is not {recorded_ns} / {w['run_ns']}")

    if args.stats_json:
        symbols = {}
        for row in truth_rows(args.truth):
            if row["record"] == "kernel_symbol":
                symbols[row["kernel_id"]] = row["name"]
        truth_calls = {}
        for row in truth_rows(args.truth):
            if row["record"] == "kernel_dispatch":
                name = symbols[row["kernel_id"]]
                truth_calls[name] = truth_calls.get(name, 0) + 1
        named = table(args.output, "kernel_dispatch", ["kernel_name", "mangled_name"])
        display = dict(zip(named["mangled_name"], named["kernel_name"]))
        display.update({k: k for k in named["kernel_name"]})
        sections = json.load(open(args.stats_json))["sections"]
        kernels = next(s for s in sections if s["section"] == "kernel")
        seen = {r["name"]: r["calls"] for r in kernels["rows"]}
        judged = held = 0
        for mangled, calls in truth_calls.items():
            name = display.get(mangled)
            estimate = kernels.get("scaled", {}).get("estimates", {}).get(name)
            if estimate is None or seen.get(name, 0) < 20:
                continue
            judged += 1
            held += estimate["calls_low"] <= calls <= estimate["calls_high"]
        print(f"run estimates: {held} of {judged} kernels' 95% intervals hold the truth's calls")
        if judged == 0 or held < args.covered_min * judged:
            problems.append(f"only {held} of {judged} kernels' 95% intervals hold the truth's calls")

    print(f"windows {len(bounds)}; launches inside {counts['inside']}, outside {counts['outside']}, "
          f"at an edge {counts['edge']}; recorded {len(recorded)}; API rows {len(api['start_ns'])}")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
