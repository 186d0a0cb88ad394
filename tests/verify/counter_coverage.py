#!/usr/bin/env python3
"""Checks what a rocprof-rs dataset collected of the counters asked for, with pyarrow only.

    counter_coverage.py OUTPUT_DIR EXPECTED_JSON [--min-samples N]

EXPECTED_JSON maps an agent name (gfx942) to the counters that agent was to collect. For each:
- the `counter` table has exactly those counters for the agent's dispatches;
- every counted dispatch has one group, and all of that group's counters (groups partition
  the set, and no dispatch is left half-counted);
- the kernel counted most often has every counter, each with at least N samples in
  `kernel_counter` (default 1): one run covered the whole set.
Prints a JSON report; exits 0 when every agent passes, 1 otherwise.
"""

import argparse
import json
import os
import sys
from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds


def table(out, name):
    folder = os.path.join(out, name)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet"))
    return ds.dataset(files, format="parquet").to_table()


def check_agent(agent_ids, expected, counters, kernel_counters, min_samples):
    report = {}
    mine = counters.filter(pc.is_in(counters.column("agent_id"), value_set=agent_ids))
    rows = mine.select(["dispatch_id", "counter", "counter_group"]).to_pylist()
    got = {r["counter"] for r in rows}
    report["missing"] = sorted(set(expected) - got)
    report["unexpected"] = sorted(got - set(expected))
    per_dispatch = defaultdict(lambda: (set(), set()))
    for r in rows:
        names, groups = per_dispatch[r["dispatch_id"]]
        names.add(r["counter"])
        groups.add(r["counter_group"])
    group_sets = defaultdict(set)
    mixed = 0
    for names, groups in per_dispatch.values():
        if len(groups) != 1:
            mixed += 1
            continue
        group_sets[next(iter(groups))].add(frozenset(names))
    report["dispatches"] = len(per_dispatch)
    report["dispatches_with_mixed_groups"] = mixed
    report["groups"] = {g: sorted(next(iter(s))) for g, s in sorted(group_sets.items()) if len(s) == 1}
    report["groups_with_varying_sets"] = sorted(g for g, s in group_sets.items() if len(s) != 1)
    union = set().union(*[set(v) for v in report["groups"].values()]) if report["groups"] else set()
    overlap = sum(len(v) for v in report["groups"].values()) - len(union)
    report["groups_overlap"] = overlap
    kc = kernel_counters.filter(pc.is_in(kernel_counters.column("agent_id"), value_set=agent_ids)).to_pylist()
    samples = defaultdict(lambda: defaultdict(int))
    for r in kc:
        samples[r["kernel_name"]][r["counter"]] += r["samples"]
    if samples:
        busiest = max(samples, key=lambda k: sum(samples[k].values()))
        thin = sorted(c for c in expected if samples[busiest].get(c, 0) < min_samples)
        report["busiest_kernel"] = busiest
        report["busiest_kernel_lacks"] = thin
    else:
        report["busiest_kernel_lacks"] = sorted(expected)
    ok = (
        not report["missing"]
        and not report["unexpected"]
        and mixed == 0
        and not report["groups_with_varying_sets"]
        and overlap == 0
        and not report["busiest_kernel_lacks"]
    )
    report["ok"] = ok
    return ok, report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output_dir")
    parser.add_argument("expected_json")
    parser.add_argument("--min-samples", type=int, default=1)
    args = parser.parse_args()
    with open(args.expected_json, encoding="utf-8") as f:
        expected = json.load(f)
    agents = table(args.output_dir, "agent").to_pylist()
    counters = table(args.output_dir, "counter")
    kernel_counters = table(args.output_dir, "kernel_counter")
    report, ok = {}, True
    for name, wanted in expected.items():
        ids = [a["agent_id"] for a in agents if a["name"] == name]
        agent_ok, report[name] = check_agent(pa.array(ids, pa.uint64()), wanted, counters, kernel_counters,
                                             args.min_samples)
        ok = ok and agent_ok
    json.dump(report, sys.stdout, indent=1)
    print()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
