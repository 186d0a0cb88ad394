#!/usr/bin/env python3
"""Where a window's graph-kernel rows lie against the window and the replays' launches
(diagnosis of issue 42's window durations): prints one JSON object.

    diag_windows.py DATASET REPLAY_LOG
"""
import bisect
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

dataset, log = sys.argv[1], json.load(open(sys.argv[2]))
launches = sorted(tuple(x) for x in log["launches"])
starts = [a for a, _ in launches]
windows = sorted(benchlib.read_columns(dataset, "window", ["start_ns", "end_ns"]), key=lambda w: w["start_ns"])
rows = benchlib.read_columns(dataset, "kernel_dispatch", ["start_ns", "end_ns", "correlation_id", "graph_id", "graph_node_id"])
out = {"metadata_tallies": {k: v for m in benchlib.read_metadata(dataset) for k, v in m.items() if "graph" in k}}
for i, w in enumerate(windows):
    mine = [r for r in rows if r["graph_id"] and w["start_ns"] <= r["start_ns"] < (windows[i + 1]["start_ns"] if i + 1 < len(windows) else 1 << 62)]
    if not mine:
        continue
    groups = {}
    for r in mine:
        groups.setdefault(r["correlation_id"], []).append(r)
    first = sorted(groups.values(), key=lambda g: min(r["start_ns"] for r in g))[0]
    first.sort(key=lambda r: r["start_ns"])
    g0 = first[0]["start_ns"]
    j = bisect.bisect_right(starts, first[-1]["end_ns"]) - 1
    out[f"window{i}"] = {
        "rows": len(mine),
        "duration_ms_median": statistics.median((r["end_ns"] - r["start_ns"]) / 1e6 for r in mine),
        "start_minus_window_start_ms": [round((min(r["start_ns"] for r in mine) - w["start_ns"]) / 1e6, 3),
                                        round((max(r["start_ns"] for r in mine) - w["start_ns"]) / 1e6, 3)],
        "end_minus_window_end_ms": [round((min(r["end_ns"] for r in mine) - w["end_ns"]) / 1e6, 3),
                                    round((max(r["end_ns"] for r in mine) - w["end_ns"]) / 1e6, 3)],
        "first_replay_nodes_us": [(round((r["start_ns"] - g0) / 1e3, 1), round((r["end_ns"] - g0) / 1e3, 1)) for r in first[:6]],
        "first_replay_distinct_starts": len({r["start_ns"] for r in first}),
        "launches_before_first_end_ms": [round((first[-1]["end_ns"] - a) / 1e6, 3) for a, _ in launches[max(0, j - 2): j + 1]],
    }
print(json.dumps(out))
