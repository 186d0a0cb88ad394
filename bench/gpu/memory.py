#!/usr/bin/env python3
"""Peak RSS of a launch-bound CUDA program: no tool, the CUPTI floor, rocprof-rs (issue 20).

    memory.py [--out-dir DIR] [--sizes 2000000,8000000,32000000] [--threads 8] [--rounds 3]
              [--rounds-by-size SIZE=N,...] [--budget-s 540] [--tool PATH] [--baseline-tool PATH]
              [--extra-rounds 1]
              [--variant NAME:VAR=VALUE+VAR=VALUE ...] [--work-dir DIR]

The program is bench/gpu/build/mem_launch (mem_launch.cu): N empty <<<1,32>>> kernels launched
back to back from 8 host threads, one non-blocking stream each. No torch and no Python in the
measured process, so its own memory is CUDA's alone and the floor is steady.

Configurations (each the program's own process; the peak is wait4's ru_maxrss, so a tracer's
at-exit flush is inside it):
  A  no tool
  B  the floor: CUDA_INJECTION64_PATH=build/cupti_floor.so (CONCURRENT_KERNEL, 8 MiB buffers
     whose records are only counted)
  C  rocprof-rs: CUDA_INJECTION64_PATH=librocprof_rs.so, ROCPROF_RS_DOMAINS=kernel (what
     `rocprof-rs run --backend cupti --kernel-trace` sets), output in a scratch folder
  O  (with --baseline-tool) another librocprof_rs.so, the same way: the build before a fix
  variants (--variant NAME:VAR=VALUE+...): a configuration named NAME, starting with B, C or O,
  run as that one with these variables added, e.g. `C1:ROCPROF_RS_BUFFER_SIZE=1M` or
  `B1:CUPTI_FLOOR_BUFFER_BYTES=1048576`

Method: rounds interleave the configurations (every size: B, C, then the others), so drift hits
them alike; --every-round (B and C) run in every round, the others in the first --extra-rounds.
"added" is, per size, the median over rounds of a configuration's peak minus B's peak in the
same round, and also the difference of the medians. Each process's VmRSS is sampled every
0.25 s, to show whether memory grows with time or jumps once. A tool's run also reports what
its metadata says it held at most (queue batches, CUPTI buffers).

Checks per run: the program exits 0; the floor counted every kernel; rocprof-rs wrote one
kernel_dispatch row per kernel (its exit summary line) and dropped nothing.

Writes DIR/memory-runs.json and DIR/memory.md after every run, so a killed stage still leaves what it
measured. Stops starting runs that would end past --budget-s (estimated from the last run of
the same configuration and size, scaled by kernels).
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
import threading
import time

import benchlib

PROGRAM = os.path.join(benchlib.BUILD, "mem_launch")
FLOOR = os.path.join(benchlib.BUILD, "cupti_floor.so")
NAMES = {"A": "no tool", "B": "CUPTI floor", "C": "rocprof-rs", "O": "rocprof-rs (baseline build)"}


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH") and not k.startswith("ROCPROF_RS_")
           and not k.startswith("MALLOC_")}
    return env


def sample_rss(pid: int, samples: list, stop: threading.Event) -> None:
    """(seconds since start, VmRSS KiB, threads) every 0.25 s until the process is gone."""
    t0 = time.monotonic()
    path = f"/proc/{pid}/status"
    while not stop.is_set():
        try:
            with open(path) as fh:
                text = fh.read()
        except OSError:
            return
        rss = re.search(r"^VmRSS:\s+(\d+)", text, re.M)
        threads = re.search(r"^Threads:\s+(\d+)", text, re.M)
        if rss:
            samples.append((round(time.monotonic() - t0, 2), int(rss.group(1)), int(threads.group(1)) if threads else 0))
        stop.wait(0.25)


def run_one(config: str, kernels: int, args, tools: dict, extra_env: dict, work: str) -> dict:
    env = clean_env()
    out_dir = None
    base = config[0]
    if base == "B":
        env["CUDA_INJECTION64_PATH"] = FLOOR
    elif base in ("C", "O"):
        out_dir = tempfile.mkdtemp(prefix=f"mem-{config}-", dir=work)
        env.update({"CUDA_INJECTION64_PATH": tools[base], "ROCPROF_RS_DOMAINS": "kernel",
                    "ROCPROF_RS_OUTPUT_DIR": out_dir, "ROCPROF_RS_OUTPUT_NAME": "mem"})
    env.update(extra_env.get(config, {}))
    cmd = ["timeout", "-k", "10", str(args.timeout), PROGRAM, str(kernels), str(args.threads)]
    stdout_path = os.path.join(work, "stdout.txt")
    stderr_path = os.path.join(work, "stderr.txt")
    t0 = time.monotonic()
    with open(stdout_path, "w") as so, open(stderr_path, "w") as se:
        proc = subprocess.Popen(cmd, env=env, stdout=so, stderr=se)
        samples: list = []
        stop = threading.Event()
        # timeout forks the program: sample the child once it exists.
        sampler = threading.Thread(target=lambda: sample_child(proc.pid, samples, stop), daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        stop.set()
        sampler.join()
    wall = time.monotonic() - t0
    stdout = open(stdout_path).read()
    stderr = open(stderr_path).read()
    rec: dict = {"config": config, "kernels": kernels, "rc": proc.returncode, "wall_s": round(wall, 2),
                 # timeout(1) waits for the program, so the rusage wait4 reports for timeout
                 # covers its reaped child too: ru_maxrss is the larger peak, the program's.
                 "peak_kib": usage.ru_maxrss}
    app = None
    for line in stdout.splitlines():
        if line.startswith("MEMLAUNCH "):
            app = json.loads(line[len("MEMLAUNCH "):])
    rec["app"] = app
    if samples:
        rec["rss_samples"] = samples[:: max(1, len(samples) // 40)]
        rec["sampled_peak_kib"] = max(s[1] for s in samples)
        rec["threads_max"] = max(s[2] for s in samples)
    ok = proc.returncode == 0 and app is not None and app.get("kernels") == kernels
    if base == "B":
        m = re.search(r"cupti_floor: (\d+) records \(kernels (\d+), dropped (\d+)\)", stderr)
        rec["floor"] = {"records": int(m.group(1)), "kernels": int(m.group(2)), "dropped": int(m.group(3))} if m else None
        ok = ok and bool(m) and int(m.group(2)) == kernels and int(m.group(3)) == 0
    elif base in ("C", "O"):
        m = re.search(r"rocprof-rs: (\d+) records \(([^)]*)\) in (\d+) files under \S+; (.*)", stderr)
        rows = None
        if m:
            for part in m.group(2).split(", "):
                name, _, n = part.rpartition(" ")
                if name == "kernel_dispatch":
                    rows = int(n)
        rec["tool"] = {"kernel_rows": rows, "files": int(m.group(3)) if m else None,
                       "dropped": m.group(4) if m else None}
        ok = ok and m is not None and rows == kernels and m.group(4) == "nothing dropped"
        # What the tool says it held at most (builds from issue 20 on write it).
        for meta in benchlib.read_metadata(out_dir):
            if isinstance(meta.get("memory"), dict):
                rec["tool"]["held"] = meta["memory"]
        shutil.rmtree(out_dir, ignore_errors=True)
    rec["ok"] = ok
    if not ok:
        rec["stderr_tail"] = stderr[-2000:]
        rec["stdout_tail"] = stdout[-1000:]
    return rec


def sample_child(timeout_pid: int, samples: list, stop: threading.Event) -> None:
    """Samples the program that timeout(1) started (its only child), else timeout itself."""
    deadline = time.monotonic() + 5
    child = None
    while child is None and not stop.is_set() and time.monotonic() < deadline:
        try:
            with open(f"/proc/{timeout_pid}/task/{timeout_pid}/children") as fh:
                kids = fh.read().split()
            child = int(kids[0]) if kids else None
        except OSError:
            return
        if child is None:
            stop.wait(0.02)
    sample_rss(child or timeout_pid, samples, stop)


def mib(kib: float) -> float:
    return kib / 1024.0


def summarize(runs: list[dict], sizes: list[int], configs: list[str]) -> dict:
    out: dict = {}
    for size in sizes:
        per: dict = {}
        for c in configs:
            peaks = [r["peak_kib"] for r in runs if r["kernels"] == size and r["config"] == c and r["ok"]]
            if peaks:
                per[c] = {"median_mib": mib(statistics.median(peaks)), "runs_mib": [round(mib(p), 1) for p in peaks],
                          "n": len(peaks)}
        added = {}
        for c in [c for c in configs if c not in ("A", "B")]:
            diffs = []
            for rnd in sorted({r["round"] for r in runs}):
                b = [r["peak_kib"] for r in runs if r["round"] == rnd and r["kernels"] == size and r["config"] == "B" and r["ok"]]
                t = [r["peak_kib"] for r in runs if r["round"] == rnd and r["kernels"] == size and r["config"] == c and r["ok"]]
                if b and t:
                    diffs.append(mib(t[0] - b[0]))
            if diffs:
                added[c] = {"median_of_round_diffs_mib": statistics.median(diffs), "round_diffs_mib": [round(d, 1) for d in diffs],
                            "diff_of_medians_mib": per[c]["median_mib"] - per["B"]["median_mib"] if c in per and "B" in per else None,
                            "ratio_of_medians": per[c]["median_mib"] / per["B"]["median_mib"] if c in per and "B" in per else None}
        rates = {c: statistics.median([r["app"]["per_s"] for r in runs if r["kernels"] == size and r["config"] == c and r["ok"]])
                 for c in per}
        held = {c: [r["tool"]["held"] for r in runs if r["kernels"] == size and r["config"] == c
                    and (r.get("tool") or {}).get("held")] for c in per}
        held = {c: h for c, h in held.items() if h}
        out[str(size)] = {"peak": per, "added": added, "kernels_per_s": rates, "held": held}
    return out


def name_of(config: str, meta: dict) -> str:
    if config in NAMES:
        return NAMES[config]
    extra = meta["variants"].get(config, {})
    return NAMES[config[0]] + ", " + " ".join(f"{k}={v}" for k, v in extra.items())


def markdown(summary: dict, meta: dict) -> str:
    shown = meta["configs"]
    others = [c for c in shown if c not in ("A", "B")]
    lines = ["### Peak RSS of mem_launch (8 threads, empty kernels): medians, MiB [every run]", "",
             "| kernels | " + " | ".join(f"{c}" for c in shown) +
             "".join(f" | {c} − B: median of rounds [rounds]; of medians; {c} / B" for c in others) + " |",
             "|---|" + "---:|" * (len(shown) + len(others))]
    for size, s in summary.items():
        cells = []
        for c in shown:
            p = s["peak"].get(c)
            cells.append(f"{p['median_mib']:.1f} [{', '.join(f'{x:.1f}' for x in p['runs_mib'])}]" if p else "—")
        for c in others:
            a = s["added"].get(c)
            cells.append(f"**{a['median_of_round_diffs_mib']:+.1f}** [{', '.join(f'{x:+.1f}' for x in a['round_diffs_mib'])}]; "
                         f"{a['diff_of_medians_mib']:+.1f}; {a['ratio_of_medians']:.3f}" if a else "—")
        lines.append(f"| {int(size) / 1e6:g}M | " + " | ".join(cells) + " |")
    lines += [""] + [f"- {c}: {name_of(c, meta)}" for c in shown]
    lines += ["", "What the tool held at most (per run: queue batches allocated / most waiting; CUPTI buffers held × MiB):"]
    for size, s in summary.items():
        for c, held in s.get("held", {}).items():
            lines.append(f"- {int(size) / 1e6:g}M {c}: " + "; ".join(
                f"{h.get('batches')}/{h.get('batches_waiting_peak')}, {h.get('library_buffers_peak')} × "
                f"{h.get('library_buffer_bytes', 0) / 2**20:g}" for h in held))
    lines += ["", "Kernels per second (medians): " + "; ".join(
        f"{int(size) / 1e6:g}M: " + ", ".join(f"{c} {r / 1e6:.2f}M" for c, r in s["kernels_per_s"].items())
        for size, s in summary.items())]
    lines += ["", f"Rounds: {meta['rounds_done']}; failed runs: {meta['failed_runs']}; "
                  f"skipped for time: {meta.get('skipped_for_time', 0)}; elapsed {meta.get('elapsed_s')} s."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=os.environ.get("OUT", "."))
    ap.add_argument("--sizes", default="2000000,8000000,32000000")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rounds-by-size", default="", help="SIZE=ROUNDS,... (others: --rounds)")
    ap.add_argument("--every-round", default="B,C", help="configurations run in every round (the others: --extra-rounds)")
    ap.add_argument("--extra-rounds", type=int, default=1, help="rounds that also run the other configurations")
    ap.add_argument("--variant", action="append", default=[], help="NAME:VAR=VALUE+VAR=VALUE (NAME starts with B, C or O)")
    ap.add_argument("--work-dir", default="/var/tmp", help="where the tool's output goes (a disk, not tmpfs)")
    ap.add_argument("--budget-s", type=float, default=540.0)
    ap.add_argument("--timeout", type=int, default=300, help="per process")
    ap.add_argument("--tool", default=os.path.join(os.path.dirname(benchlib.rocprof_cli()), "librocprof_rs.so"))
    ap.add_argument("--baseline-tool", default=None, help="another librocprof_rs.so to run as O")
    args = ap.parse_args()

    start = time.monotonic()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    tools = {"C": os.path.abspath(args.tool)}
    configs = ["A", "B", "C"]
    if args.baseline_tool:
        tools["O"] = os.path.abspath(args.baseline_tool)
        configs.append("O")
    variants: dict = {}
    for spec in args.variant:
        name, _, assignments = spec.partition(":")
        if not name or name[0] not in "BCO" or name in configs or (name[0] == "O" and "O" not in tools):
            ap.error(f"--variant {spec!r}: NAME must be new and start with B, C or O (O needs --baseline-tool)")
        variants[name] = dict(a.split("=", 1) for a in assignments.split("+") if "=" in a)
        configs.append(name)
    for path in [PROGRAM, FLOOR] + list(tools.values()):
        if not os.path.exists(path):
            print(f"memory: {path} is missing", file=sys.stderr)
            return 1
    os.makedirs(args.out_dir, exist_ok=True)
    os.makedirs(args.work_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rocprof-memory-", dir=args.work_dir)
    fs = subprocess.run(["df", "-hT", work], capture_output=True, text=True).stdout.strip().splitlines()[-1:]
    print(f"memory: output under {work}: {' '.join(fs)}", flush=True)
    runs: list[dict] = []
    meta = {"sizes": sizes, "threads": args.threads, "configs": configs, "variants": variants, "tools": tools,
            "floor": FLOOR, "work_fs": fs, "rounds_done": 0, "failed_runs": 0, "budget_s": args.budget_s}
    rate: dict = {}  # (config) -> seconds per kernel, from the last run

    def save() -> dict:
        summary = summarize(runs, sizes, configs)
        meta["elapsed_s"] = round(time.monotonic() - start, 1)
        meta["failed_runs"] = sum(1 for r in runs if not r["ok"])
        with open(os.path.join(args.out_dir, "memory-runs.json"), "w") as fh:
            json.dump({"meta": meta, "summary": summary, "runs": runs}, fh, indent=1)
        with open(os.path.join(args.out_dir, "memory.md"), "w") as fh:
            fh.write(markdown(summary, meta))
        return summary

    def estimate(c: str, size: int) -> float:
        return rate.get(c, rate.get("B", 0.0)) * size + 3.0

    every = [c for c in configs if c in args.every_round.split(",")]
    rounds_of = {size: args.rounds for size in sizes}
    for spec in filter(None, args.rounds_by_size.split(",")):
        size, _, n = spec.partition("=")
        rounds_of[int(size)] = int(n)
    plan = [(rnd, size, c) for rnd in range(max(rounds_of.values())) for size in sizes if rnd < rounds_of[size]
            for c in every + ([c for c in configs if c not in every] if rnd < args.extra_rounds else [])]
    for i, (rnd, size, c) in enumerate(plan):
        # The runs still to come of the configurations of every round are reserved: the others
        # run only where they leave room for them, so those medians are complete first.
        reserve = 0.0 if c in every else sum(estimate(c2, s2) for _, s2, c2 in plan[i + 1:] if c2 in every)
        if time.monotonic() - start + estimate(c, size) + reserve > args.budget_s:
            meta["skipped_for_time"] = meta.get("skipped_for_time", 0) + 1
            print(f"[round {rnd}] {size / 1e6:g}M {c}: skipped (about {estimate(c, size):.0f} s, over the budget)", flush=True)
            continue
        rec = run_one(c, size, args, tools, variants, work)
        rec["round"] = rnd
        runs.append(rec)
        rate[c] = rec["wall_s"] / size
        app = rec.get("app") or {}
        held = (rec.get("tool") or {}).get("held") or {}
        print(f"[round {rnd}] {size / 1e6:g}M {c} ({name_of(c, meta)}): peak {mib(rec['peak_kib']):.1f} MiB "
              f"(sampled {mib(rec.get('sampled_peak_kib', 0)):.1f}, threads {rec.get('threads_max')}), "
              f"{app.get('per_s', 0) / 1e6:.2f} M kernels/s, wall {rec['wall_s']} s"
              + (f", held {held.get('batches')} batches (waiting at most {held.get('batches_waiting_peak')}), "
                 f"{held.get('library_buffers_peak')} CUPTI buffers" if held else "")
              + f"{'' if rec['ok'] else '  FAILED rc=' + str(rec['rc'])}", flush=True)
        if not rec["ok"]:
            print("    " + rec.get("stderr_tail", "")[-800:].replace("\n", "\n    "), flush=True)
        save()
        meta["rounds_done"] = rnd + 1
    save()
    shutil.rmtree(work, ignore_errors=True)
    print(open(os.path.join(args.out_dir, "memory.md")).read())
    ok = meta["failed_runs"] == 0 and bool(runs)
    print(f"VERDICT memory: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
