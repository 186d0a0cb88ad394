#!/usr/bin/env python3
"""Added peak RSS of the tool library against the SIMULATED rocprofiler-sdk (issue 20).

    cargo build --release -p rocprof-rs-recorder -p rocprof-sim -p rocprofiler-sdk-sim \\
        -p rocprof-sim-null-tool
    python3 tests/sdk-sim/memory.py [--sizes 5000000,20000000,50000000] [--runs 3]
                                    [--release target/release] [--baseline PATH.so] [--out FILE.json]

SIMULATED: the simulator plays the application and the SDK; no GPU is involved. The method is
figure 5 of `cargo bench --bench tool` (which runs one 5M and one 50M run): `rocprof-sim
--dispatches N --threads 4 --agents 2 --no-truth --stats`, kernel dispatches only, once with
librocprof_rs.so and once with the null tool (which configures the same SDK services and
discards every record), and the peak RSS of each process from wait4's ru_maxrss. Here every
size runs --runs times, null and tool interleaved (and --baseline, another build of the library,
after them), so drift hits them alike; "added" is the median over rounds of the tool's peak minus
the null tool's peak in the same round. The tool's output goes to --work-dir (a disk).

Also printed per tool run: what its metadata says it held at most (queue batches), and the VmRSS
at a few points of the run, to tell a jump from a creep.
"""

from __future__ import annotations

import argparse
import glob
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

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(release: str, tool: str, records: int, work: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ROCPROF_RS_", "ROCP_", "ROCPROF_SIM_", "MALLOC_")) and k != "LD_PRELOAD"}
    out = tempfile.mkdtemp(prefix="simmem-", dir=work)
    if tool == "null":
        env.update(ROCP_TOOL_LIBRARIES=os.path.join(release, "librocprof_sim_null_tool.so"),
                   ROCPROF_SIM_NULL_DOMAINS="kernel", ROCPROF_SIM_NULL_READ="0")
    else:
        env.update(ROCP_TOOL_LIBRARIES=tool, ROCPROF_RS_DOMAINS="kernel", ROCPROF_RS_OUTPUT_DIR=out,
                   ROCPROF_RS_OUTPUT_NAME="bench")
    cmd = [os.path.join(release, "rocprof-sim"), "--dispatches", str(records), "--threads", "4", "--agents", "2",
           "--no-truth", "--stats"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples: list = []

    def sample() -> None:
        while True:
            try:
                with open(f"/proc/{proc.pid}/status") as fh:
                    m = re.search(r"^VmRSS:\s+(\d+)", fh.read(), re.M)
            except OSError:
                return
            if m:
                samples.append((round(time.monotonic() - t0, 1), int(m.group(1))))
            time.sleep(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.join(1)
    held = None
    for path in glob.glob(os.path.join(out, "*.metadata.json")):
        with open(path) as fh:
            held = json.load(fh).get("memory")
    shutil.rmtree(out, ignore_errors=True)
    summary = next((line for line in stderr.splitlines() if line.startswith("rocprof-rs:")), None)
    ok = proc.returncode == 0 and (tool == "null" or (summary is not None and "nothing dropped" in summary
                                                     and f"kernel_dispatch {records}," in summary))
    n = len(samples)
    timeline = [(samples[i * (n - 1) // 6][0], round(samples[i * (n - 1) // 6][1] / 1024, 1)) for i in range(7)] if n else []
    return {"tool": tool, "records": records, "ok": ok, "peak_mib": usage.ru_maxrss / 1024,
            "wall_s": round(time.monotonic() - t0, 1), "held": held, "rss_timeline_mib": timeline,
            "summary": summary, "stderr_tail": None if ok else stderr[-1500:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="5000000,20000000,50000000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--release", default=os.path.join(REPO, "target", "release"),
                    help="where rocprof-sim, the simulated SDK, the null tool and librocprof_rs.so are")
    ap.add_argument("--baseline", default=None, help="another librocprof_rs.so to run after the two")
    ap.add_argument("--work-dir", default="/var/tmp")
    ap.add_argument("--out", default=None, help="write every run as JSON here")
    args = ap.parse_args()

    release = os.path.abspath(args.release)
    tool = os.path.join(release, "librocprof_rs.so")
    for name in ("rocprof-sim", "librocprofiler_sdk_sim.so", "librocprof_sim_null_tool.so", "librocprof_rs.so"):
        if not os.path.exists(os.path.join(release, name)):
            print(f"memory.py: {name} is not in {release}: build it first (see --help)", file=sys.stderr)
            return 2
    tools = {"null": "null", "rocprof-rs": tool}
    if args.baseline:
        tools["baseline"] = os.path.abspath(args.baseline)
    print("SIMULATED rocprofiler-sdk: these are the simulator's numbers, not a GPU's.")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {os.cpu_count()} cores, {cpu}")
    os.makedirs(args.work_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rocprof-simmem-", dir=args.work_dir)
    runs = []
    sizes = [int(s) for s in args.sizes.split(",") if s]
    for rnd in range(args.runs):
        for size in sizes:
            for name, path in tools.items():
                r = run(release, path, size, work)
                r.update(name=name, round=rnd)
                runs.append(r)
                held = r["held"] or {}
                print(f"[{rnd}] {size / 1e6:g}M {name}: peak {r['peak_mib']:.1f} MiB, wall {r['wall_s']} s"
                      + (f", batches {held.get('batches')} (waiting at most {held.get('batches_waiting_peak')})" if held else "")
                      + f", RSS over the run {[m for _, m in r['rss_timeline_mib']]}" + ("" if r["ok"] else "  FAILED"),
                      flush=True)
                if not r["ok"]:
                    print(r["stderr_tail"], flush=True)
                if args.out:
                    with open(args.out, "w") as fh:
                        json.dump(runs, fh, indent=1)
    shutil.rmtree(work, ignore_errors=True)

    print("\n| records | null tool, MiB [runs] | " + " | ".join(f"{n}, MiB [runs] | {n} − null (median of rounds) [rounds]"
                                                        for n in tools if n != "null") + " |")
    print("|---|---:|" + "---:|---:|" * (len(tools) - 1))
    for size in sizes:
        def peaks(name):
            return [r["peak_mib"] for r in runs if r["records"] == size and r["name"] == name and r["ok"]]
        cells = [f"{statistics.median(peaks('null')):.1f} [{', '.join(f'{p:.1f}' for p in peaks('null'))}]"]
        for name in tools:
            if name == "null":
                continue
            diffs = []
            for rnd in range(args.runs):
                pair = [[r["peak_mib"] for r in runs if r["records"] == size and r["round"] == rnd and r["name"] == n and r["ok"]]
                        for n in ("null", name)]
                if all(pair):
                    diffs.append(pair[1][0] - pair[0][0])
            cells.append(f"{statistics.median(peaks(name)):.1f} [{', '.join(f'{p:.1f}' for p in peaks(name))}]")
            cells.append(f"**{statistics.median(diffs):+.1f}** [{', '.join(f'{d:+.1f}' for d in diffs)}]" if diffs else "—")
        print(f"| {size / 1e6:g}M | " + " | ".join(cells) + " |")
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
