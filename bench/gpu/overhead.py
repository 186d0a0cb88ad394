#!/usr/bin/env python3
"""Tracing overhead on the launch path: rocprof-rs against no tool, the CUPTI floor and torch.profiler.

    overhead.py [--out-dir DIR] [--rounds 5] [--n 100000] [--nodes 1000] [--reps 200]
                [--budget-s 400] [--configs A,B,C,D,T]

Configurations, all running `python3 launch_bench.py ...` (which imports torch in every one):
  A  no tool
  B  the floor: CUDA_INJECTION64_PATH=bench/gpu/build/cupti_floor.so (CUPTI, CONCURRENT_KERNEL,
     records counted and dropped: what CUPTI itself costs)
  C  rocprof-rs run --backend cupti --kernel-trace -d TMP --quiet -- python3 launch_bench.py ...
  D  C + --cuda-api-trace (launch callbacks)
  E  (not in the default list) D + --memory-copy-trace --marker-trace
  T  launch_bench.py --torch-profiler (torch.profiler with CUDA activities)
Workloads: `launches` (n back-to-back empty <<<1,32>>> launches, µs per launch) and `graph` (a
graph of `nodes` empty kernels replayed `reps` times, µs per graph kernel). Each process times
itself (launch_bench/libbench: the median of 5 timed chunks), so start-up and the tools' set-up
and tear-down are excluded.

Method (METHOD.md): configurations interleaved A B C D T within a round, so drift hits all
alike; one pilot round first, discarded (warms caches, sizes the run); then up to --rounds
rounds while the time budget allows; medians per configuration, with min and max to show the
spread. Each subprocess runs under `timeout`. If a pilot run takes over 60 s, n and reps are
halved.

Checks, per workload: C <= 1.05 x B (our cost above CUPTI's own is at most 5%), C < T; per run:
our kernel_dispatch rows == kernels launched and nothing dropped (C, D), the floor's kernel
records == kernels launched (B). Reported: medians, C/B, C/A, D/A, B/A, T/A, C-B and B-A in µs.

Writes DIR/overhead.json and DIR/overhead.md, rewritten after every round, so a killed run still
leaves what it measured. Exits 1 if a check failed or no round was measured.
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
from collections import Counter, defaultdict

import benchlib

HERE = benchlib.HERE
LAUNCH_BENCH = os.path.join(HERE, "launch_bench.py")
FLOOR = os.path.join(benchlib.BUILD, "cupti_floor.so")
CONFIG_NAMES = {
    "A": "no tool",
    "B": "CUPTI floor",
    "C": "rocprof-rs --kernel-trace",
    "D": "rocprof-rs + --cuda-api-trace",
    "E": "rocprof-rs, all four domains",
    "T": "torch.profiler",
}
ORDER = "ABCDET"


def clean_env() -> dict:
    env = dict(os.environ)
    for k in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def workload_args(workload: str, p: dict) -> list[str]:
    if workload == "launches":
        return ["--mode", "launches", "--n", str(p["n"])]
    return ["--mode", "graph", "--nodes", str(p["nodes"]), "--reps", str(p["reps"])]


def run_one(config: str, workload: str, p: dict, args, work: str) -> dict:
    py = [sys.executable, LAUNCH_BENCH] + workload_args(workload, p)
    env = clean_env()
    out_dir = None
    if config == "A":
        cmd = py
    elif config == "B":
        env["CUDA_INJECTION64_PATH"] = FLOOR
        cmd = py
    elif config in ("C", "D", "E"):
        out_dir = tempfile.mkdtemp(prefix=f"{workload}-{config}-", dir=work)
        flags = ["--kernel-trace"] + (["--cuda-api-trace"] if config in ("D", "E") else [])
        flags += ["--memory-copy-trace", "--marker-trace"] if config == "E" else []
        cmd = [benchlib.rocprof_cli(), "run", "--backend", "cupti", *flags, "-d", out_dir, "--quiet", "--"] + py
    elif config == "T":
        cmd = py + ["--torch-profiler"]
    else:
        raise ValueError(config)

    t0 = time.monotonic()
    proc = subprocess.run(["timeout", "-k", "10", str(args.timeout)] + cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    rec: dict = {"config": config, "workload": workload, "rc": proc.returncode, "wall_s": round(wall, 2),
                 "params": dict(p)}
    bench = None
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH "):
            bench = json.loads(line[len("BENCH "):])
    rec["bench"] = bench
    rec["us_per_op"] = bench.get("us_per_op") if bench and proc.returncode == 0 else None
    launched = bench.get("kernels_launched") if bench else None
    if proc.returncode != 0 or bench is None:
        rec["stderr_tail"] = proc.stderr[-2000:]
        rec["stdout_tail"] = proc.stdout[-1000:]

    if config == "B":
        m = re.search(r"cupti_floor: (\d+) records \(kernels (\d+), dropped (\d+)\)", proc.stderr)
        rec["floor"] = {"records": int(m.group(1)), "kernels": int(m.group(2)), "dropped": int(m.group(3))} if m else None
        rec["rows_ok"] = bool(m) and launched is not None and int(m.group(2)) == launched and int(m.group(3)) == 0
    elif config in ("C", "D", "E"):
        rows = benchlib.count_rows(out_dir, "kernel_dispatch")
        meta = benchlib.read_metadata(out_dir)
        dropped = benchlib.dropped_total(meta)
        rec.update(kernel_rows=rows, dropped=dropped, metadata_files=len(meta))
        rec["rows_ok"] = launched is not None and rows == launched and dropped == 0 and len(meta) > 0
        if config in ("D", "E"):
            ops = Counter()
            import pyarrow.parquet as pq

            for f in benchlib.table_files(out_dir, "cuda_api"):
                ops.update(pq.read_table(f, columns=["operation"]).column("operation").to_pylist())
            rec["cuda_api_operations"] = dict(ops)
            if workload == "launches" and launched is not None:
                # every empty-kernel launch is one cudaLaunchKernel call
                rec["rows_ok"] = rec["rows_ok"] and ops.get("cudaLaunchKernel", 0) == launched
        shutil.rmtree(out_dir, ignore_errors=True)
    elif config == "T":
        rec["torch_kernel_events"] = bench.get("torch_kernel_events") if bench else None
        rec["torch_complete"] = bench is not None and bench.get("torch_kernel_events") == launched
    return rec


def summarize(runs: list[dict], configs: list[str]) -> dict:
    out: dict = {}
    for workload in ("launches", "graph"):
        per = defaultdict(list)
        for r in runs:
            if r["workload"] == workload and r["us_per_op"] is not None and not r.get("pilot"):
                per[r["config"]].append(r["us_per_op"])
        stats = {c: {"median_us": statistics.median(x), "min_us": min(x), "max_us": max(x), "n": len(x)}
                 for c, x in per.items() if x}
        med = {c: s["median_us"] for c, s in stats.items()}

        def ratio(a, b):
            return med[a] / med[b] if a in med and b in med and med[b] > 0 else None

        def diff(a, b):
            return med[a] - med[b] if a in med and b in med else None

        checks = {}
        if "C" in med and "B" in med:
            checks["C <= 1.05*B"] = med["C"] <= 1.05 * med["B"]
        if "C" in med and "T" in med:
            checks["C < T"] = med["C"] < med["T"]
        for c in ("B", "C", "D", "E"):
            rel = [r for r in runs if r["workload"] == workload and r["config"] == c and not r.get("pilot")]
            if c in configs and rel:
                checks[f"{c}: rows == kernels launched, nothing dropped"] = all(r.get("rows_ok") for r in rel)
        failed_runs = [r for r in runs if r["workload"] == workload and r["us_per_op"] is None]
        if failed_runs:
            checks["every run succeeded"] = False
        out[workload] = {
            "stats": stats,
            "ratios": {"C/B": ratio("C", "B"), "C/A": ratio("C", "A"), "D/A": ratio("D", "A"),
                       "B/A": ratio("B", "A"), "T/A": ratio("T", "A"), "D/C": ratio("D", "C")},
            "diff_us": {"C-B": diff("C", "B"), "B-A": diff("B", "A"), "D-C": diff("D", "C"), "T-A": diff("T", "A")},
            "torch_complete": [r.get("torch_complete") for r in runs
                               if r["workload"] == workload and r["config"] == "T" and not r.get("pilot")],
            "checks": checks,
        }
    return out


def markdown(summary: dict, meta: dict) -> str:
    fmt = (lambda x, f="{:.3f}": f.format(x) if x is not None else "—")
    shown = [c for c in ORDER if c in meta["configs"]]
    lines = ["### Launch-path overhead (median µs per op; [min–max])", "",
             "| workload | " + " | ".join(f"{c}: {CONFIG_NAMES[c]}" for c in shown) +
             " | C/B | C/A | D/A | T/A | C−B µs | B−A µs |",
             "|---|" + "---:|" * (len(shown) + 6)]
    for w, s in summary.items():
        cells = []
        for c in shown:
            st = s["stats"].get(c)
            cells.append(f"{st['median_us']:.3f} [{st['min_us']:.3f}–{st['max_us']:.3f}]" if st else "—")
        r, d = s["ratios"], s["diff_us"]
        lines.append(f"| {w} | " + " | ".join(cells) + f" | {fmt(r['C/B'])} | {fmt(r['C/A'])} | {fmt(r['D/A'])} | "
                     f"{fmt(r['T/A'])} | {fmt(d['C-B'], '{:+.3f}')} | {fmt(d['B-A'], '{:+.3f}')} |")
    lines += ["", "Checks:"]
    for w, s in summary.items():
        for name, ok in s["checks"].items():
            lines.append(f"- {w}: {name}: {'PASS' if ok else 'FAIL'}")
    lines += ["", f"Rounds measured: {meta['rounds_measured']} (after 1 pilot round, discarded); launches "
                  f"n={meta['params']['n']}, graph nodes={meta['params']['nodes']} reps={meta['params']['reps']}."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.environ.get("OUT", "."))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--budget-s", type=float, default=390.0, help="stop starting rounds past this (incl. pilot)")
    ap.add_argument("--timeout", type=int, default=120, help="per subprocess")
    ap.add_argument("--configs", default="A,B,C,D,T")
    args = ap.parse_args()

    start = time.monotonic()
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    missing = []
    if "B" in configs and not os.path.exists(FLOOR):
        missing.append(f"B: {FLOOR} missing")
        configs.remove("B")
    if any(c in configs for c in "CDE") and not os.access(benchlib.rocprof_cli(), os.X_OK):
        missing.append(f"C/D/E: {benchlib.rocprof_cli()} missing")
        configs = [c for c in configs if c not in "CDE"]
    unknown = [c for c in configs if c not in CONFIG_NAMES]
    if unknown:
        ap.error(f"unknown configurations {unknown}; known: {', '.join(ORDER)}")
    for m in missing:
        print(f"overhead: skipping {m}", file=sys.stderr)

    os.makedirs(args.out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rocprof-overhead-")
    params = {"n": args.n, "nodes": args.nodes, "reps": args.reps}
    runs: list[dict] = []
    meta = {"params": params, "configs": configs, "skipped": missing, "rounds_measured": 0,
            "rounds_requested": args.rounds, "budget_s": args.budget_s, "rocprof": benchlib.rocprof_cli(),
            "floor": FLOOR, "python": sys.executable}

    def save():
        summary = summarize(runs, configs)
        meta["elapsed_s"] = round(time.monotonic() - start, 1)
        with open(os.path.join(args.out_dir, "overhead.json"), "w") as fh:
            json.dump({"meta": meta, "summary": summary, "runs": runs}, fh, indent=1)
        with open(os.path.join(args.out_dir, "overhead.md"), "w") as fh:
            fh.write(markdown(summary, meta))
        return summary

    def one_round(pilot: bool) -> float:
        t0 = time.monotonic()
        for workload in ("launches", "graph"):
            for c in configs:
                rec = run_one(c, workload, params, args, work)
                rec["pilot"] = pilot
                rec["round"] = meta["rounds_measured"] if not pilot else -1
                runs.append(rec)
                status = f"{rec['us_per_op']:.3f} µs/op" if rec["us_per_op"] is not None else f"FAILED rc={rec['rc']}"
                extra = "" if rec.get("rows_ok", True) else "  ROWS MISMATCH"
                print(f"[{'pilot' if pilot else 'round ' + str(meta['rounds_measured'])}] {workload:8s} {c} "
                      f"({CONFIG_NAMES[c]}): {status}  wall {rec['wall_s']} s{extra}", flush=True)
                if rec["us_per_op"] is None and rec.get("stderr_tail"):
                    print("    stderr: " + rec["stderr_tail"][-600:].replace("\n", "\n    "), flush=True)
        return time.monotonic() - t0

    pilot_s = one_round(pilot=True)
    meta["pilot_s"] = round(pilot_s, 1)
    slowest = max((r["wall_s"] for r in runs), default=0)
    if slowest > 60:
        params["n"] = max(1000, params["n"] // 2)
        params["reps"] = max(10, params["reps"] // 2)
        meta["scaled_down"] = f"a pilot run took {slowest} s: n and reps halved"
        print(f"overhead: {meta['scaled_down']}", flush=True)
    save()

    per_round = pilot_s if "scaled_down" not in meta else pilot_s * 0.6
    while meta["rounds_measured"] < args.rounds:
        if time.monotonic() - start + per_round > args.budget_s:
            meta["stopped_early"] = f"time budget: {meta['rounds_measured']} of {args.rounds} rounds"
            print(f"overhead: {meta['stopped_early']}", flush=True)
            break
        per_round = one_round(pilot=False)
        meta["rounds_measured"] += 1
        save()

    summary = save()
    shutil.rmtree(work, ignore_errors=True)
    print(open(os.path.join(args.out_dir, "overhead.md")).read())
    ok = meta["rounds_measured"] > 0 and all(all(s["checks"].values()) for s in summary.values()) and not missing
    print(f"VERDICT overhead: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
