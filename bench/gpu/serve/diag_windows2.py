#!/usr/bin/env python3
"""A window's timeline against the program's replay launches (diagnosis, issue 42).

    diag_windows2.py DATASET REPLAY_LOG
"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

dataset, log = sys.argv[1], json.load(open(sys.argv[2]))
launches = sorted(tuple(x) for x in log["launches"])
windows = sorted(benchlib.read_columns(dataset, "window", ["start_ns", "end_ns", "opened_ns", "closing_ns"]), key=lambda w: w["start_ns"])
rows = benchlib.read_columns(dataset, "kernel_dispatch", ["start_ns", "end_ns", "correlation_id", "graph_id"])
for i, w in enumerate(windows[1:3], 1):
    t0 = w["start_ns"]
    ms = lambda t: round((t - t0) / 1e6, 3)
    nxt = windows[i + 1]["start_ns"] if i + 1 < len(windows) else 1 << 62
    mine = [r for r in rows if t0 <= r["start_ns"] < nxt]
    groups = defaultdict(list)
    for r in mine:
        groups[r["correlation_id"]].append(r)
    ordered = sorted(groups.values(), key=lambda g: min(r["start_ns"] for r in g))
    long = [r for r in mine if r["end_ns"] - r["start_ns"] > 1_000_000]
    inside = [l for l in launches if w["start_ns"] - 300_000_000 <= l[0] <= w["end_ns"] + 50_000_000]
    print(json.dumps({
        "window": i, "opened": ms(w["opened_ns"]), "closing": ms(w["closing_ns"]), "end": ms(w["end_ns"]),
        "launches_near": [(ms(a), ms(b)) for a, b in inside[:3]] + ["..."] + [(ms(a), ms(b)) for a, b in inside[-3:]],
        "launches_in_window": sum(1 for a, b in launches if w["start_ns"] <= a and b <= w["end_ns"]),
        "replays_recorded": len(ordered),
        "replay_spans": [(ms(min(r["start_ns"] for r in g)), ms(max(r["end_ns"] for r in g)), len(g)) for g in ordered[:3] + ordered[-3:]],
        "rows_over_1ms": len(long),
        "long_examples": [(ms(r["start_ns"]), ms(r["end_ns"])) for r in long[:5]],
    }))
