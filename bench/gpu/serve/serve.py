#!/usr/bin/env python3
"""The `serve` stage (issue 42): what each tool costs a serving decode loop, in tokens/s.

    serve.py [--out-dir DIR] [--rounds 3] [--steps 3000] [--eager-steps 1000] [--variants graph,eager]
             [--configs A,B,C,T] [--budget-s 420]

Configurations, each running `python3 serve/decode.py --variant V --steps N`:
  A  no tool
  B  the CUPTI floor: CUDA_INJECTION64_PATH=bench/gpu/build/cupti_floor.so (CUPTI's concurrent
     kernel records, counted and dropped: what CUPTI itself costs per kernel)
  Q  the CUPTI floor at graph level: B with CUPTI_FLOOR_KIND=graph (GRAPH_TRACE records only)
  C  rocprof-rs run --backend cupti --kernel-trace
  T  torch.profiler (CPU and CUDA activities) around the timed steps
  W  rocprof-rs run --backend cupti --kernel-trace --window WINDOW (default 50ms/5s: 1% duty)
  G  rocprof-rs run --backend cupti --kernel-trace --graph-trace graph
  H  rocprof-rs run --backend cupti --kernel-trace --graph-trace graph --window WINDOW
  F  rocprof-rs run --backend cupti --kernel-trace --graph-trace graph --flight-recorder 30
     --dump-on-exit (the flight recorder: nothing written until the exit's dump, which must
     hold one graph_launch row per replay of the last 30 s)
Every run logs its graph replays' launch times (decode.py --replay-log, the same small cost for
all); W, G and H are checked against that account (check_windows.py): every replay launched
inside a window has all its kernel rows, none outside has any, one graph_launch row per replay
traced at graph level.

Method (METHOD.md): configurations interleaved within a round so drift hits all alike; one pilot
round first, discarded; then up to --rounds rounds while the budget allows. Per variant and
configuration: the median tokens/s, its min and max, and the cost against A (1 − X/A). Each run
times itself (CUDA events around the timed steps), so start-up and tear-down are outside.

Writes DIR/serve-runs.json (every run) and DIR/serve.md. Checks: every run succeeded; C recorded at least every kernel of the timed replays (replays ×
the graph's kernel nodes, graph variant) and dropped nothing; the floor's kernel records and
torch.profiler's kernel events are reported beside, after every round. Exits 1 if a check failed or no round was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

DECODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode.py")
FLOOR = os.path.join(benchlib.BUILD, "cupti_floor.so")
NAMES = {"A": "no tool", "B": "CUPTI floor", "Q": "CUPTI floor, graph level", "C": "rocprof-rs --kernel-trace", "T": "torch.profiler",
         "W": "rocprof-rs --window", "G": "rocprof-rs --graph-trace graph",
         "K": "rocprof-rs --graph-trace graph, no kernel kind",
         "H": "rocprof-rs --graph-trace graph --window",
         "F": "rocprof-rs --graph-trace graph --flight-recorder 30"}
CHECK_WINDOWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_windows.py")
# What each rocprof-rs configuration adds to `run --backend cupti --kernel-trace`.
ROCPROF_FLAGS = {"C": ["--kernel-trace"], "W": ["--kernel-trace", "--window", "{window}"],
                 "G": ["--kernel-trace", "--graph-trace", "graph"],
                 "K": ["--marker-trace", "--graph-trace", "graph"],
                 "H": ["--kernel-trace", "--graph-trace", "graph", "--window", "{window}"],
                 "F": ["--kernel-trace", "--graph-trace", "graph", "--flight-recorder", "30", "--dump-on-exit"]}


def run_one(config: str, variant: str, args, work: str) -> dict:
    steps = args.steps if variant == "graph" else args.eager_steps
    replay_log = os.path.join(work, f"replays-{variant}-{config}.json")
    cmd = [sys.executable, DECODE, "--variant", variant, "--steps", str(steps), "--replay-log", replay_log]
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")}
    out_dir = None
    if config in "BQ":
        env["CUDA_INJECTION64_PATH"] = FLOOR
        if config == "Q":
            env["CUPTI_FLOOR_KIND"] = "graph"
    elif config in ROCPROF_FLAGS:
        out_dir = tempfile.mkdtemp(prefix=f"{variant}-{config}-", dir=work)
        flags = [f.format(window=args.window) for f in ROCPROF_FLAGS[config]]
        cmd = [benchlib.rocprof_cli(), "run", "--backend", "cupti", *flags, "-d", out_dir, "--quiet", "--"] + cmd
    elif config == "T":
        cmd = cmd + ["--torch-profiler"]
    proc = subprocess.run(["timeout", "-k", "10", str(args.timeout)] + cmd, env=env, capture_output=True, text=True)
    rec: dict = {"config": config, "variant": variant, "rc": proc.returncode}
    bench = next((json.loads(line[6:]) for line in proc.stdout.splitlines() if line.startswith("SERVE ")), None)
    rec["bench"] = bench
    rec["tokens_per_s"] = bench["tokens_per_s"] if bench and proc.returncode == 0 else None
    if rec["tokens_per_s"] is None:
        rec["stderr_tail"] = proc.stderr[-1500:]
    timed_kernels = None
    if bench and bench.get("graph_kernel_nodes"):
        timed_kernels = bench["graph_kernel_nodes"] * bench["replays"]
    rec["expected_at_least"] = timed_kernels
    if config in "BQ":
        m = re.search(r"cupti_floor: (\d+) records \(kernels (\d+), dropped (\d+)\)", proc.stderr)
        rec["floor"] = {"records": int(m.group(1)), "kernels": int(m.group(2)), "dropped": int(m.group(3))} if m else None
    elif config == "F" and bench:
        rec.update(flight_check(out_dir, replay_log))
    elif config in ROCPROF_FLAGS and bench:
        rows = benchlib.count_rows(out_dir, "kernel_dispatch") if benchlib.has_table(out_dir, "kernel_dispatch") else 0
        dropped = benchlib.dropped_total(benchlib.read_metadata(out_dir))
        rec.update(kernel_rows=rows, dropped=dropped)
        if config == "C":
            rec["rows_ok"] = dropped == 0 and (timed_kernels is None or rows >= timed_kernels)
        elif variant == "graph":
            check = [sys.executable, CHECK_WINDOWS, out_dir, replay_log,
                     "--mode", "graph" if config in "GHK" else "node"] + (["--windowed"] if config in "WH" else [])
            done = subprocess.run(check, capture_output=True, text=True)
            rec["window_check"] = json.loads(done.stdout) if done.stdout.strip() else {"error": done.stderr[-800:]}
            rec["rows_ok"] = dropped == 0 and done.returncode == 0
        kept = os.path.join(work, f"kept-{variant}-{config}")
        shutil.rmtree(kept, ignore_errors=True)
        os.replace(out_dir, kept)
        rec["dataset"] = kept
    if out_dir and os.path.isdir(out_dir):
        shutil.rmtree(out_dir, ignore_errors=True)
    return rec


def flight_check(out_dir: str, replay_log: str) -> dict:
    """F: the run wrote no table of its own (nothing while nothing happens), and its exit dump
    holds one graph_launch row per replay launched in the 30 s before it, as the program
    counted."""
    own = [t for t in ("graph_launch", "kernel_dispatch") if benchlib.has_table(out_dir, t)]
    dumps = [os.path.join(out_dir, d) for d in os.listdir(out_dir) if d.startswith("dump-")]
    if len(dumps) != 1:
        return {"rows_ok": False, "flight": {"dumps": len(dumps), "own_tables": own}}
    dump = dumps[0]
    rows = benchlib.count_rows(dump, "graph_launch") if benchlib.has_table(dump, "graph_launch") else 0
    meta = benchlib.read_metadata(dump)
    fired = next((m["trigger"] for m in meta if m.get("trigger")), {})
    trigger = fired.get("reason")
    launches = json.load(open(replay_log))["launches"]
    # The ring keeps at least the 30 s before the dump.
    expected = sum(1 for begin, _ in launches if begin >= fired.get("at_ns", 0) - 30e9)
    dropped = benchlib.dropped_total(meta)
    flight = {"own_tables": own, "dump_rows": rows, "replays_in_last_30s": expected, "trigger": trigger,
              "dropped": dropped}
    return {"rows_ok": not own and trigger == "exit" and dropped == 0 and rows >= expected, "flight": flight,
            "kernel_rows": rows}


def estimates_check(runs: list[dict]) -> dict | None:
    """The last round's W (windows) against its C (the full trace), through `rocprof-rs stats`:
    each kernel's mean duration within 5%, and its calls in the run within W's 95% interval, for
    the kernels with 100+ calls in the windows."""
    last = {r["config"]: r for r in runs if r["variant"] == "graph" and r.get("dataset")}
    if "W" not in last or "C" not in last:
        return None

    def stats(dataset: str) -> dict:
        done = subprocess.run([benchlib.rocprof_cli(), "stats", "--format", "json", dataset], capture_output=True, text=True)
        return next(s for s in json.loads(done.stdout)["sections"] if s["section"] == "kernel")

    windowed, full = stats(last["W"]["dataset"]), stats(last["C"]["dataset"])
    whole = {r["name"]: r for r in full["rows"]}
    estimates = windowed.get("scaled", {}).get("estimates", {})
    judged, mean_ok, calls_ok, worst = 0, 0, 0, 0.0
    kernels = []
    for row in windowed["rows"]:
        if row["calls"] < 100 or row["name"] not in whole:
            continue
        judged += 1
        ref = whole[row["name"]]
        kernels.append({"name": row["name"][:120], "window_calls": row["calls"], "window_mean_ns": row["mean_ns"],
                        "full_calls": ref["calls"], "full_mean_ns": ref["mean_ns"],
                        "estimate": estimates.get(row["name"])})
        off = abs(row["mean_ns"] / ref["mean_ns"] - 1)
        worst = max(worst, off)
        mean_ok += off <= 0.05
        e = estimates.get(row["name"])
        calls_ok += bool(e) and e["calls_low"] <= ref["calls"] <= e["calls_high"]
    return {"kernels_judged": judged, "mean_within_5pct": mean_ok, "worst_mean_offset": worst,
            "calls_within_interval": calls_ok, "notes": windowed.get("notes"), "kernels": kernels,
            "ok": judged > 0 and mean_ok == judged and calls_ok >= 0.9 * judged}


def summarize(runs: list[dict], variants: list[str]) -> dict:
    out = {}
    for variant in variants:
        per = defaultdict(list)
        for r in runs:
            if r["variant"] == variant and r["tokens_per_s"] is not None and not r.get("pilot"):
                per[r["config"]].append(r["tokens_per_s"])
        stats = {c: {"median": statistics.median(x), "min": min(x), "max": max(x), "n": len(x)} for c, x in per.items()}
        base = stats.get("A", {}).get("median")
        cost = {c: (1 - s["median"] / base) if base else None for c, s in stats.items() if c != "A"}
        measured = [r for r in runs if r["variant"] == variant and not r.get("pilot")]
        checks = {"every run succeeded": all(r["tokens_per_s"] is not None for r in measured) and bool(measured)}
        c_runs = [r for r in measured if r["config"] == "C"]
        if c_runs:
            checks["C: every timed kernel recorded, nothing dropped"] = all(r.get("rows_ok") for r in c_runs)
        for c in "WGHKF":
            mine = [r for r in measured if r["config"] == c]
            if mine and variant == "graph":
                checks[f"{c}: rows as the program's replays say, nothing dropped"] = all(r.get("rows_ok") for r in mine)
        nodes = next((r["bench"].get("graph_kernel_nodes") for r in measured if r.get("bench")), None)
        out[variant] = {"stats": stats, "cost": cost, "checks": checks, "graph_kernel_nodes": nodes}
    return out


def markdown(summary: dict, meta: dict) -> str:
    shown = [c for c in "ABQCTWGKHF" if c in meta["configs"]]
    lines = ["### Serving decode (tokens/s, median [min–max]; cost = 1 − X/A)", "",
             "| variant | " + " | ".join(f"{c}: {NAMES[c]}" for c in shown) + " | " +
             " | ".join(f"{c} cost" for c in shown if c != "A") + " |",
             "|---|" + "---:|" * (2 * len(shown) - 1)]
    for variant, s in summary.items():
        cells = [f"{s['stats'][c]['median']:,.0f} [{s['stats'][c]['min']:,.0f}–{s['stats'][c]['max']:,.0f}]"
                 if c in s["stats"] else "—" for c in shown]
        costs = [f"{100 * s['cost'][c]:+.2f}%" if s["cost"].get(c) is not None else "—" for c in shown if c != "A"]
        lines.append(f"| {variant} ({s['graph_kernel_nodes'] or '?'} kernels a step) | " + " | ".join(cells + costs) + " |")
    lines += ["", "Checks:"]
    for variant, s in summary.items():
        lines += [f"- {variant}: {name}: {'PASS' if ok else 'FAIL'}" for name, ok in s["checks"].items()]
    lines += ["", f"Rounds measured: {meta['rounds_measured']} (after 1 pilot round, discarded); {meta['steps']} timed steps a graph run, {meta['eager_steps']} an eager one."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.environ.get("OUT", "."))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3000, help="timed steps of the graph variant")
    ap.add_argument("--eager-steps", type=int, default=1000, help="timed steps of the eager variant")
    ap.add_argument("--variants", default="graph,eager")
    ap.add_argument("--configs", default="A,B,C,T")
    ap.add_argument("--budget-s", type=float, default=420.0)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--window", default="50ms/5s", help="W's and H's windows (ON/EVERY)")
    args = ap.parse_args()
    start = time.monotonic()
    variants = [v for v in args.variants.split(",") if v]
    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in NAMES]
    if unknown:
        ap.error(f"unknown configurations {unknown}; known: {', '.join(NAMES)}")
    if not os.path.exists(FLOOR) and {"B", "Q"} & set(configs):
        print(f"serve: {FLOOR} missing: no floor", file=sys.stderr)
        configs = [c for c in configs if c not in "BQ"]
    os.makedirs(args.out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rocprof-serve-")
    runs: list[dict] = []
    meta = {"configs": configs, "variants": variants, "steps": args.steps, "eager_steps": args.eager_steps,
            "rounds_measured": 0}

    def save():
        summary = summarize(runs, variants)
        if meta.get("window_estimates") is not None and "graph" in summary:
            summary["graph"]["checks"]["W: means within 5% of C's, calls within W's intervals"] = meta["window_estimates"]["ok"]
        meta["elapsed_s"] = round(time.monotonic() - start, 1)
        # serve.json is run.sh's stage summary.
        with open(os.path.join(args.out_dir, "serve-runs.json"), "w") as fh:
            json.dump({"meta": meta, "summary": summary, "runs": runs}, fh, indent=1)
        with open(os.path.join(args.out_dir, "serve.md"), "w") as fh:
            fh.write(markdown(summary, meta))
        return summary

    def one_round(pilot: bool) -> float:
        t0 = time.monotonic()
        for variant in variants:
            for c in configs:
                rec = run_one(c, variant, args, work)
                rec["pilot"] = pilot
                runs.append(rec)
                got = f"{rec['tokens_per_s']:,.0f} tokens/s" if rec["tokens_per_s"] else f"FAILED rc={rec['rc']}"
                bench = rec.get("bench") or {}
                got += f"  nodes {bench.get('graph_kernel_nodes')} rows {rec.get('kernel_rows')} phases {bench.get('phases')}"
                if rec.get("window_check"):
                    got += "\n    check " + json.dumps(rec["window_check"])
                if rec.get("flight"):
                    got += "\n    flight " + json.dumps(rec["flight"])
                got += f"  rss {bench.get('max_rss_kib')} KiB"
                print(f"[{'pilot' if pilot else 'round ' + str(meta['rounds_measured'])}] {variant} {c} ({NAMES[c]}): {got}", flush=True)
                if rec.get("stderr_tail"):
                    print("    " + rec["stderr_tail"][-800:].replace("\n", "\n    "), flush=True)
        return time.monotonic() - t0

    per_round = one_round(pilot=True)
    save()
    while meta["rounds_measured"] < args.rounds and time.monotonic() - start + per_round <= args.budget_s:
        per_round = one_round(pilot=False)
        meta["rounds_measured"] += 1
        save()
    estimates = estimates_check(runs)
    if estimates is not None:
        meta["window_estimates"] = estimates
        print("window estimates against the full trace: " + json.dumps(estimates), flush=True)
    summary = save()
    shutil.rmtree(work, ignore_errors=True)
    print(open(os.path.join(args.out_dir, "serve.md")).read())
    ok = meta["rounds_measured"] > 0 and all(all(s["checks"].values()) for s in summary.values())
    with open(os.path.join(args.out_dir, "verdict-serve.json"), "w") as fh:
        json.dump({"label": "serve", "ok": ok}, fh)
    print(f"VERDICT serve: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
