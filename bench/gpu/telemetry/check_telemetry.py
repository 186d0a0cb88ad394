#!/usr/bin/env python3
"""Checks rocprof-rs's device samples (`run --device-sample`, the `device_sample` table, issue 24)
against what the workload says it did, against NVML's own energy counter and against nvidia-smi.

    check_telemetry.py --idle DIR --idle-report F --gemm DIR --gemm-report F --smi SMI.csv \
        --madengine DIR --overhead DIR [--idle-log F] [--gemm-log F] [--interval-ms 10] \
        [--rounds 3] [--out verdict.json] [--md telemetry.md] [--label telemetry]

DIR are datasets of `rocprof-rs run --backend cupti --device-sample 10` around workload.py (idle,
and gemm with --marker-trace --kernel-trace); F are workload.py --report files (the last JSON line
of --*-log, the run's stdout, is the fallback; LOG.err, its stderr, holds the tool's summary
line). SMI.csv is `nvidia-smi --query-gpu=timestamp,uuid,clocks.sm,power.draw,memory.used
--format=csv,noheader,nounits -lms 100` taken during the gemm run. --madengine is the folder
`rocprof-rs export GEMM_DIR --format madengine -o` wrote. --overhead holds the overhead runs:
CFG-R.json (the workload's report) and CFG-R/ (the dataset, where traced) for CFG in none
(no tool), tool (`run --backend cupti`, no sampling), sample10 (--device-sample 10), sample1
(--device-sample 1) and R in 1..--rounds.

The used GPU is the one whose agent_id is the workload's CUDA ordinal (the workload's `device`,
0); its rows must carry the UUID torch reports for it. Windows are the workload's CLOCK_BOOTTIME
readings (the tables' clock). Checks and thresholds (every figure is also reported):

- {idle,gemm}.samples_for_used_gpu: rows with that agent_id, from the workload's pid.
- {idle,gemm}.agent_is_the_workloads_gpu: their device_uuid is the workload's GPU's.
- {idle,gemm}.sample_spacing: the median time between the GPU's samples within
  --spacing-tol (20%) of --interval-ms.
- power.idle_below_load: the idle run's mean power_w over its sleep (its first second left out)
  at least --power-delta-w (50 W) below the gemm run's over the loop (its first second left out:
  the driver's power reading is a ~1 s average on recent drivers and lags the load).
- energy.counter_vs_power_integral: over all of the gemm run's samples of the GPU, the energy
  counter's increase (last − first energy_j) against the trapezoid integral of power_w over the
  same samples; |integral / increase − 1| ≤ --energy-tol (5%). The run ends with an idle settle
  so a lagging average power costs nothing at either end; the loop window alone is reported.
- memory.peak_vs_torch_plus_context: the GPU's largest memory_used_bytes in the gemm run against
  memory_before_init (the GPU's used memory before the workload initialised CUDA: the driver's
  reservation and other processes) + max_memory_reserved + context_bytes (workload.py's
  docstring); |difference| ≤ context_bytes.
- sm_clock.vs_nvidia_smi: the median sm_clock_mhz over the loop (0.5 s left out at each end)
  against the median clocks.sm of nvidia-smi's lines for the GPU in the same window (its local
  wall-clock timestamps placed on CLOCK_BOOTTIME by the workload's realtime/boottime pair read
  together at the loop's start); within --clock-tol (5%).
- gemm.marker_window: the NVTX range `gemm loop` is in the marker table once, and its start and
  end are within --marker-tol-ms (50 ms) of the workload's boottime readings (one clock).
- overhead.runs_complete: every configuration's report for every round, the same iterations.
- overhead.sampling_10ms / overhead.sampling_1ms: the median loop_seconds with --device-sample 10
  at most --oh10-tol (2%) above `run --backend cupti` without sampling, and with 1 ms at most
  --oh1-tol (5%) above it. Measurements of a GPU-bound loop under a power cap: loose on purpose.
  Ratios to no tool, per-round ratios and min–max are reported, and each sampled run's spacing.
- madengine.files: both files (anywhere under --madengine) with the header `time,Power(Watt)
  GPU<i>...` / `time,vram(%) GPU<i>...` and at least one row of as many fields. Whether their
  rows and the power column's mean match the Parquet is reported.

Writes a verdict JSON (benchlib.Verdict) and a markdown report; prints both; exits 1 if any
check failed. Missing or broken inputs are failed checks with a message, never a traceback's
exit. Only the standard library and pyarrow.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import re
import statistics
import sys
import traceback
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/gpu

import benchlib  # noqa: E402
from benchlib import Verdict  # noqa: E402

CONFIGS = [("none", "no tool"), ("tool", "run --backend cupti"), ("sample10", "+ --device-sample 10"),
           ("sample1", "+ --device-sample 1")]
SAMPLE_COLUMNS = ["time_ns", "agent_id", "device_index", "device_uuid", "library", "power_w", "power_average_w", "energy_j",
                  "sm_clock_mhz", "memory_clock_mhz", "memory_used_bytes", "memory_total_bytes", "gpu_busy_pct",
                  "memory_busy_pct", "temperature_c", "throttle_reasons", "throttle", "pid"]
SUMMARY_RE = re.compile(r"rocprof-rs: (\d+) records \((.*)\)")


def norm_uuid(u: Any) -> str:
    s = str(u or "").strip().lower()
    if s.startswith("gpu-"):
        s = s[4:]
    return "".join(c for c in s if c in "0123456789abcdef")


def fnum(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if v == v else None  # NaN -> None


def fmt(x: Any, spec: str = ".1f", none: str = "–") -> str:
    return none if x is None else format(x, spec)


def pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:+.2f}%"


# --------------------------------------------------------------------------------------------
# Inputs.


def load_report(path: str | None, log: str | None) -> tuple[dict | None, str]:
    """The workload's report: its --report file, else the last JSON line of its stdout."""
    if path and os.path.exists(path):
        try:
            with open(path) as fh:
                return json.load(fh), path
        except (OSError, ValueError) as e:
            why = f"{path}: {type(e).__name__}: {e}"
    else:
        why = f"{path}: missing"
    if log and os.path.exists(log):
        for line in reversed(open(log, errors="replace").read().splitlines()):
            line = line.strip()
            if line.startswith("{") and '"mode"' in line:
                try:
                    return json.loads(line), f"{log} (stdout)"
                except ValueError:
                    continue
    return None, why


def tool_summary(log: str | None) -> dict[str, Any] | None:
    """The tool's `rocprof-rs: N records (...)` line from LOG.err (or LOG): counts by table."""
    for f in ([f"{log}.err", log] if log else []):
        if not os.path.exists(f):
            continue
        for line in open(f, errors="replace").read().splitlines():
            m = SUMMARY_RE.search(line)
            if m:
                out: dict[str, Any] = {"records": int(m.group(1)), "line": line.strip()}
                for name, n in re.findall(r"([a-z_]+) (\d+)", m.group(2)):
                    out.setdefault(name, int(n))
                return out
    return None


def skipped_ticks(log: str | None) -> list[str]:
    lines = []
    for f in ([f"{log}.err", log] if log else []):
        if os.path.exists(f):
            lines += [x.strip() for x in open(f, errors="replace") if "device sampler" in x]
    return lines


class Samples:
    """A dataset's device samples: every row, and the used GPU's rows in time order."""

    def __init__(self, dataset: str, report: dict | None):
        self.dataset = dataset
        self.all = benchlib.read_columns(dataset, "device_sample", SAMPLE_COLUMNS) if os.path.isdir(dataset) else []
        self.device = (report or {}).get("device", 0)
        self.pid = (report or {}).get("pid")
        rows = [r for r in self.all if r.get("agent_id") == self.device]
        if self.pid is not None and any(r.get("pid") == self.pid for r in rows):
            rows = [r for r in rows if r.get("pid") == self.pid]
        self.rows = sorted((r for r in rows if r.get("time_ns") is not None), key=lambda r: r["time_ns"])
        self.others = Counter((r.get("device_index"), r.get("agent_id")) for r in self.all
                              if r.get("agent_id") != self.device)

    def between(self, lo: float, hi: float) -> list[dict]:
        return [r for r in self.rows if lo <= r["time_ns"] <= hi]

    def spacing_ms(self, rows: list[dict] | None = None) -> dict[str, Any]:
        rows = self.rows if rows is None else rows
        d = [(b["time_ns"] - a["time_ns"]) / 1e6 for a, b in zip(rows, rows[1:])]
        if not d:
            return {"samples": len(rows), "median_ms": None}
        q = statistics.quantiles(d, n=10) if len(d) >= 2 else [d[0]] * 9
        return {"samples": len(rows), "median_ms": statistics.median(d), "p10_ms": q[0], "p90_ms": q[-1],
                "max_gap_ms": max(d), "span_s": (rows[-1]["time_ns"] - rows[0]["time_ns"]) / 1e9}


def mean_of(rows: list[dict], col: str) -> float | None:
    v = [fnum(r.get(col)) for r in rows]
    v = [x for x in v if x is not None]
    return statistics.fmean(v) if v else None


def median_of(rows: list[dict], col: str) -> float | None:
    v = [fnum(r.get(col)) for r in rows]
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def integrate(points: list[tuple[float, float]], a: float, b: float) -> float:
    """The trapezoid integral over [a, b] (ns) of the power points (ns, W), linearly interpolated."""
    total = 0.0
    for (t0, p0), (t1, p1) in zip(points, points[1:]):
        lo, hi = max(a, t0), min(b, t1)
        if hi <= lo or t1 <= t0:
            continue
        at = lambda t: p0 + (p1 - p0) * (t - t0) / (t1 - t0)  # noqa: E731
        total += (at(lo) + at(hi)) / 2 * (hi - lo) / 1e9
    return total


def energy_vs_integral(rows: list[dict]) -> dict[str, Any]:
    """Energy counter increase between its first and last readings (the sampler reads it every
    100 ms and at both ends) and the trapezoid integral of every power sample over that span."""
    power = [(r["time_ns"], fnum(r.get("power_w"))) for r in rows]
    power = [p for p in power if p[1] is not None]
    energy = [(r["time_ns"], fnum(r.get("energy_j"))) for r in rows]
    energy = [e for e in energy if e[1] is not None]
    if len(energy) < 2 or len(power) < 2:
        return {"samples": len(power), "counter_readings": len(energy), "counter_j": None, "integral_j": None,
                "ratio": None}
    (t0, e0), (t1, e1) = energy[0], energy[-1]
    integral = integrate(power, t0, t1)
    counter = e1 - e0
    return {"samples": len(power), "counter_readings": len(energy), "seconds": (t1 - t0) / 1e9,
            "counter_j": counter, "integral_j": integral, "ratio": integral / counter if counter > 0 else None,
            "counter_steps": sum(1 for a, b in zip(energy, energy[1:]) if b[1] != a[1])}


def window(report: dict, trim_start_s: float = 0.0, trim_end_s: float = 0.0) -> tuple[float, float] | None:
    lo, hi = report.get("boottime_start_ns"), report.get("boottime_end_ns")
    if lo is None or hi is None:
        return None
    lo2, hi2 = lo + trim_start_s * 1e9, hi - trim_end_s * 1e9
    return (lo2, hi2) if hi2 > lo2 else (float(lo), float(hi))


def read_smi(path: str | None, report: dict | None) -> tuple[list[dict], dict[str, Any]]:
    """nvidia-smi's lines on CLOCK_BOOTTIME, only those of the workload's GPU (by UUID; every line
    when it gives none or the file names one GPU)."""
    info: dict[str, Any] = {"file": path}
    if not path or not os.path.exists(path):
        info["error"] = "missing"
        return [], info
    report = report or {}
    rt, bt = report.get("realtime_start_ns"), report.get("boottime_start_ns")
    if rt is None or bt is None:
        info["error"] = "the workload's report has no realtime/boottime pair"
        return [], info
    offset = rt - bt
    if report.get("realtime_end_ns") is not None and report.get("boottime_end_ns") is not None:
        info["clock_drift_ms"] = ((report["realtime_end_ns"] - report["boottime_end_ns"]) - offset) / 1e6
    want = report.get("device_uuid_norm") or norm_uuid(report.get("device_uuid"))
    rows, bad = [], 0
    for line in open(path, errors="replace"):
        parts = [p.strip() for p in line.strip().split(",")]
        if len(parts) < 5:
            bad += 1 if line.strip() else 0
            continue
        try:
            ts = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        except ValueError:
            bad += 1
            continue
        rows.append({"time_ns": ts * 1e9 - offset, "uuid": norm_uuid(parts[1]), "sm": fnum(parts[2]),
                     "power": fnum(parts[3]), "mem_mib": fnum(parts[4])})
    uuids = sorted({r["uuid"] for r in rows})
    info.update(lines=len(rows), unparsed=bad, uuids=len(uuids))
    if want and want in uuids:
        rows = [r for r in rows if r["uuid"] == want]
    elif len(uuids) > 1:
        info["error"] = f"{len(uuids)} GPUs in the file and none is the workload's ({want or 'no uuid'})"
        return [], info
    info["lines_for_gpu"] = len(rows)
    return rows, info


# --------------------------------------------------------------------------------------------
# Checks.


def check_samples(v: Verdict, name: str, s: Samples | None, report: dict | None, log: str | None,
                  interval_ms: float, tol: float) -> bool:
    if s is None:
        return False
    summary = tool_summary(log)
    spacing = s.spacing_ms()
    v.info[f"{name}_samples"] = {"dataset": s.dataset, "rows_all_gpus": len(s.all), "rows_used_gpu": len(s.rows),
                                 "used_agent_id": s.device, "pid": s.pid,
                                 "other_gpus": {f"index {k[0]} agent {k[1]}": n for k, n in s.others.items()},
                                 "tool_summary": summary, "spacing": spacing,
                                 "library": sorted({str(r.get("library")) for r in s.rows})}
    ok = v.check(f"{name}.samples_for_used_gpu", len(s.rows) >= 2,
                 {"rows_used_gpu": len(s.rows), "agent_id": s.device, "rows_all_gpus": len(s.all),
                  "tool_device_sample_count": (summary or {}).get("device_sample"),
                  "note": (f"no device_sample rows in {s.dataset}" if not s.all else None if s.rows else
                           f"rows, but none with agent_id {s.device} (from pid {s.pid}); agent_ids seen: "
                           f"{sorted({r.get('agent_id') for r in s.all}, key=str)}, pids: "
                           f"{sorted({r.get('pid') for r in s.all}, key=str)}")})
    if not ok:
        return False
    want = (report or {}).get("device_uuid_norm") or norm_uuid((report or {}).get("device_uuid"))
    got = sorted({norm_uuid(r.get("device_uuid")) for r in s.rows})
    if want:
        v.check(f"{name}.agent_is_the_workloads_gpu", got == [want],
                {"workload_uuid": (report or {}).get("device_uuid"), "rows_uuid": got})
    else:
        v.info[f"{name}_uuid_note"] = "the workload gave no UUID: agent_is_the_workloads_gpu not checked"
    med = spacing.get("median_ms")
    v.check(f"{name}.sample_spacing", med is not None and abs(med / interval_ms - 1) <= tol,
            {"median_ms": med, "interval_ms": interval_ms, "tolerance": tol, "p10_ms": spacing.get("p10_ms"),
             "p90_ms": spacing.get("p90_ms"), "max_gap_ms": spacing.get("max_gap_ms")})
    return True


def check_power(v: Verdict, idle: Samples, irep: dict, gemm: Samples, grep: dict, delta_w: float) -> dict[str, Any]:
    iw, iw_all = window(irep, 1.0 if (irep["boottime_end_ns"] - irep["boottime_start_ns"]) > 2e9 else 0.0), window(irep)
    gw, gw_all = window(grep, 1.0 if (grep["boottime_end_ns"] - grep["boottime_start_ns"]) > 3e9 else 0.0), window(grep)
    i_rows, g_rows = idle.between(*iw), gemm.between(*gw)
    out = {"idle_w": mean_of(i_rows, "power_w"), "load_w": mean_of(g_rows, "power_w"),
           "idle_samples": len(i_rows), "load_samples": len(g_rows),
           "idle_w_whole_window": mean_of(idle.between(*iw_all), "power_w"),
           "load_w_whole_window": mean_of(gemm.between(*gw_all), "power_w"),
           "load_w_max": max((fnum(r.get("power_w")) or 0 for r in g_rows), default=None),
           "idle_temperature_c": mean_of(i_rows, "temperature_c"), "load_temperature_c": mean_of(g_rows, "temperature_c"),
           "load_gpu_busy_pct": mean_of(g_rows, "gpu_busy_pct"), "idle_gpu_busy_pct": mean_of(i_rows, "gpu_busy_pct"),
           "idle_throttle": Counter(str(r.get("throttle")) for r in i_rows).most_common(3),
           "load_throttle": Counter(str(r.get("throttle")) for r in g_rows).most_common(3)}
    ok = out["idle_w"] is not None and out["load_w"] is not None and out["load_w"] - out["idle_w"] >= delta_w
    v.check("power.idle_below_load", ok, {"idle_mean_w": out["idle_w"], "load_mean_w": out["load_w"],
                                          "min_difference_w": delta_w, "idle_samples": len(i_rows),
                                          "load_samples": len(g_rows)})
    return out


def check_energy(v: Verdict, gemm: Samples, grep: dict, idle: Samples | None, tol: float) -> dict[str, Any]:
    whole = energy_vs_integral(gemm.rows)
    loop = energy_vs_integral(gemm.between(*window(grep)))
    idle_e = energy_vs_integral(idle.rows) if idle is not None else None
    r = whole.get("ratio")
    v.check("energy.counter_vs_power_integral", r is not None and abs(r - 1) <= tol,
            {"counter_j": whole.get("counter_j"), "integral_j": whole.get("integral_j"), "ratio": r,
             "tolerance": tol, "seconds": whole.get("seconds"), "samples": whole.get("samples"),
             "loop_window_ratio": loop.get("ratio")})
    return {"whole": whole, "loop": loop, "idle": idle_e}


def check_memory(v: Verdict, gemm: Samples, grep: dict, smi_rows: list[dict]) -> dict[str, Any]:
    used = [r.get("memory_used_bytes") for r in gemm.rows if r.get("memory_used_bytes") is not None]
    peak = max(used) if used else None
    ctx, base, res = grep.get("context_bytes"), grep.get("memory_before_init"), grep.get("max_memory_reserved")
    out: dict[str, Any] = {"sampled_peak": peak, "max_memory_reserved": res, "context_bytes": ctx,
                           "memory_before_init": base, "method": grep.get("context_method"),
                           "memory_after_init": grep.get("memory_after_init"),
                           "cuda_mem_get_info_after_init": grep.get("cuda_mem_get_info_after_init"),
                           "max_memory_allocated": grep.get("max_memory_allocated"),
                           "smi_peak_mib": max((r["mem_mib"] for r in smi_rows if r["mem_mib"] is not None), default=None)}
    if peak is None or ctx is None or res is None or base is None:
        v.check("memory.peak_vs_torch_plus_context", False,
                {**out, "error": "a figure is missing: the samples' memory_used_bytes, or the workload's "
                                 "context_bytes / memory_before_init / max_memory_reserved (see method)"})
        return out
    expected = base + res + ctx
    out.update(expected=expected, difference=peak - expected)
    v.check("memory.peak_vs_torch_plus_context", ctx > 0 and abs(peak - expected) <= ctx,
            {"sampled_peak_bytes": peak, "expected_bytes": expected, "difference_bytes": peak - expected,
             "tolerance_bytes (context_bytes)": ctx, "max_memory_reserved": res, "memory_before_init": base,
             "method": grep.get("context_method")})
    return out


def check_clock(v: Verdict, gemm: Samples, grep: dict, smi_rows: list[dict], smi_info: dict, tol: float) -> dict:
    lo, hi = window(grep, 0.5, 0.5)
    ours = [r for r in gemm.between(lo, hi) if r.get("sm_clock_mhz") is not None]
    theirs = [r for r in smi_rows if lo <= r["time_ns"] <= hi and r["sm"] is not None]
    out = {"ours_mhz": median_of(ours, "sm_clock_mhz"), "smi_mhz": statistics.median([r["sm"] for r in theirs]) if theirs else None,
           "ours_samples": len(ours), "smi_lines": len(theirs), "smi": smi_info,
           "ours_power_w": mean_of(ours, "power_w"),
           "smi_power_w": statistics.fmean([r["power"] for r in theirs if r["power"] is not None])
           if any(r["power"] is not None for r in theirs) else None,
           "ours_mhz_min_max": (f"{min(r['sm_clock_mhz'] for r in ours)}–{max(r['sm_clock_mhz'] for r in ours)}"
                                if ours else "–")}
    ratio = out["ours_mhz"] / out["smi_mhz"] if out["ours_mhz"] and out["smi_mhz"] else None
    out["ratio"] = ratio
    v.check("sm_clock.vs_nvidia_smi", ratio is not None and len(ours) >= 3 and len(theirs) >= 3 and abs(ratio - 1) <= tol,
            {"ours_median_mhz": out["ours_mhz"], "smi_median_mhz": out["smi_mhz"], "ratio": ratio, "tolerance": tol,
             "ours_samples": len(ours), "smi_lines": len(theirs), "smi_error": smi_info.get("error")})
    return out


def check_marker(v: Verdict, dataset: str, grep: dict, tol_ms: float) -> dict[str, Any]:
    rows = [r for r in benchlib.read_columns(dataset, "marker", ["message", "start_ns", "end_ns"]) if r.get("message") == "gemm loop"]
    out: dict[str, Any] = {"markers": len(rows)}
    if len(rows) != 1:
        v.check("gemm.marker_window", False, {"gemm_loop_markers": len(rows), "expected": 1})
        return out
    m = rows[0]
    ds, de = (m["start_ns"] - grep["boottime_start_ns"]) / 1e6, (m["end_ns"] - grep["boottime_end_ns"]) / 1e6
    kernels = benchlib.read_columns(dataset, "kernel_dispatch", ["kernel_name", "start_ns", "end_ns"])
    inside = [k for k in kernels if m["start_ns"] <= k["start_ns"] and k["end_ns"] <= m["end_ns"]]
    busy = sum(k["end_ns"] - k["start_ns"] for k in inside)
    out.update(start_diff_ms=ds, end_diff_ms=de, kernels_inside=len(inside),
               kernel_names=Counter(k["kernel_name"] for k in inside).most_common(3),
               kernel_busy_share=busy / (m["end_ns"] - m["start_ns"]) if m["end_ns"] > m["start_ns"] else None,
               iterations=grep.get("iterations"))
    v.check("gemm.marker_window", abs(ds) <= tol_ms and abs(de) <= tol_ms,
            {"start_diff_ms": ds, "end_diff_ms": de, "tolerance_ms": tol_ms, "kernels_inside": len(inside),
             "iterations": grep.get("iterations")})
    return out


def check_overhead(v: Verdict, folder: str | None, rounds: int, interval_ms: float, tol10: float, tol1: float) -> dict:
    per: dict[str, list[float]] = {c: [] for c, _ in CONFIGS}
    by_round: dict[int, dict[str, float]] = {}
    missing, iters, tflops, sampled = [], set(), {c: [] for c, _ in CONFIGS}, {}
    for r in range(1, rounds + 1):
        for c, _ in CONFIGS:
            base = os.path.join(folder or "", f"{c}-{r}")
            rep, why = load_report(base + ".json", base + ".out")
            if rep is None or fnum(rep.get("loop_seconds")) is None:
                missing.append(f"{c}-{r}: {why}")
                continue
            per[c].append(rep["loop_seconds"])
            by_round.setdefault(r, {})[c] = rep["loop_seconds"]
            iters.add(rep.get("iterations"))
            if rep.get("tflops") is not None:
                tflops[c].append(rep["tflops"])
            if c.startswith("sample") and os.path.isdir(base):
                try:
                    s = Samples(base, rep)
                    sampled[f"{c}-{r}"] = {**s.spacing_ms(), "tool_summary": (tool_summary(base + ".out") or {}).get("line"),
                                           "sampler_lines": skipped_ticks(base + ".out")}
                except Exception as e:  # a broken dataset here is reported, the timing still counts
                    sampled[f"{c}-{r}"] = {"error": f"{type(e).__name__}: {e}"}
    v.check("overhead.runs_complete", not missing and len(iters) == 1,
            {"missing": missing, "iterations_seen": sorted(iters, key=str), "rounds": rounds})
    med = {c: statistics.median(x) if x else None for c, x in per.items()}

    def ratio(a: str, b: str) -> float | None:
        return med[a] / med[b] if med[a] and med[b] else None

    out: dict[str, Any] = {"median_s": med, "runs_s": per, "by_round": by_round, "sampled_runs": sampled,
                           "tflops_median": {c: statistics.median(x) if x else None for c, x in tflops.items()},
                           "ratio_to_tool": {c: ratio(c, "tool") for c, _ in CONFIGS},
                           "ratio_to_none": {c: ratio(c, "none") for c, _ in CONFIGS},
                           "paired_ratio_to_tool": {c: [by_round[r][c] / by_round[r]["tool"] for r in sorted(by_round)
                                                        if c in by_round[r] and "tool" in by_round[r]]
                                                    for c, _ in CONFIGS}}
    r10, r1 = ratio("sample10", "tool"), ratio("sample1", "tool")
    v.check("overhead.sampling_10ms", r10 is not None and r10 - 1 <= tol10,
            {"median_ratio_to_tool": r10, "max_added": tol10, "medians_s": med})
    v.check("overhead.sampling_1ms", r1 is not None and r1 - 1 <= tol1,
            {"median_ratio_to_tool": r1, "max_added": tol1, "medians_s": med})
    return out


def check_madengine(v: Verdict, folder: str | None, gemm: Samples | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    bad = []
    for fname, head in (("gpu_info_power_profiler_output.csv", "time,Power(Watt) GPU"),
                        ("gpu_info_vram_profiler_output.csv", "time,vram(%) GPU")):
        files = sorted(glob.glob(os.path.join(folder or "", "**", fname), recursive=True)) if folder else []
        if not files:
            bad.append(f"{fname}: missing under {folder}")
            continue
        f = files[0]
        lines = [x.rstrip("\r\n") for x in open(f, errors="replace")]
        lines = [x for x in lines if x]
        header = lines[0] if lines else ""
        width = header.count(",") + 1
        rows = lines[1:]
        uneven = sum(1 for x in rows if x.count(",") + 1 != width)
        entry = {"file": os.path.relpath(f, folder), "files": len(files), "header": header, "rows": len(rows),
                 "uneven_rows": uneven, "first_row": rows[0] if rows else None}
        if not header.startswith(head) or not rows or uneven:
            bad.append(f"{fname}: header {header[:60]!r}, {len(rows)} rows, {uneven} of another width")
        if gemm is not None and gemm.rows and rows and fname.startswith("gpu_info_power"):
            idx = gemm.rows[0].get("device_index")
            cols = header.split(",")
            col = f"Power(Watt) GPU{idx}"
            if col in cols:
                i = cols.index(col)
                vals = [fnum(x.split(",")[i]) for x in rows]
                vals = [x for x in vals if x is not None]
                ours = [fnum(r.get("power_w")) for r in gemm.rows[:len(rows)]]
                ours = [x for x in ours if x is not None]
                if vals and ours:
                    entry.update(csv_mean_w=statistics.fmean(vals), parquet_mean_w=statistics.fmean(ours),
                                 rows_vs_used_gpu_samples=[len(rows), len(gemm.rows)],
                                 matches=abs(statistics.fmean(vals) - statistics.fmean(ours)) <= 0.01)
        out[fname] = entry
    v.check("madengine.files", not bad, {"problems": bad, **{k: {kk: e.get(kk) for kk in ("header", "rows")}
                                                             for k, e in out.items()}})
    return out


# --------------------------------------------------------------------------------------------
# The report.


def markdown(args, reps: dict, figs: dict, v: Verdict) -> str:
    g = reps.get("gemm") or {}
    L = ["# telemetry: device samples (issue 24)", ""]
    if g:
        L += [f"{g.get('device_name')} (CUDA {g.get('device')}, NVML index {g.get('nvml_index')}), torch {g.get('torch')}; "
              f"gemm: bf16 {g.get('size')}^3, {g.get('iterations')} products in {fmt(g.get('loop_seconds'), '.2f')} s, "
              f"{fmt(g.get('tflops'), '.0f')} TFLOP/s. Sampling every {args.interval_ms:g} ms.", ""]
    L += ["| figure | ours | reference | result |", "|---|---|---|---|"]
    res = {c["name"]: ("PASS" if c["ok"] else "FAIL") for c in v.checks}
    for run in ("idle", "gemm"):
        s = (v.info.get(f"{run}_samples") or {}).get("spacing") or {}
        L.append(f"| {run}: samples of the GPU, median spacing | {s.get('samples', 0)}, {fmt(s.get('median_ms'), '.2f')} ms "
                 f"(p10 {fmt(s.get('p10_ms'), '.2f')}, p90 {fmt(s.get('p90_ms'), '.2f')}, max gap {fmt(s.get('max_gap_ms'), '.1f')}) "
                 f"| {args.interval_ms:g} ms ± {args.spacing_tol:.0%} | {res.get(f'{run}.sample_spacing', '–')} |")
    p = figs.get("power") or {}
    L.append(f"| power: idle / load mean W | {fmt(p.get('idle_w'))} / {fmt(p.get('load_w'))} (max {fmt(p.get('load_w_max'))}) "
             f"| load ≥ idle + {args.power_delta_w:g} W | {res.get('power.idle_below_load', '–')} |")
    e = (figs.get("energy") or {}).get("whole") or {}
    lp = (figs.get("energy") or {}).get("loop") or {}
    L.append(f"| energy: ∫power dt vs counter (whole run, {fmt(e.get('seconds'), '.1f')} s) | {fmt(e.get('integral_j'), '.0f')} J "
             f"| {fmt(e.get('counter_j'), '.0f')} J; ratio {fmt(e.get('ratio'), '.4f')} (loop only {fmt(lp.get('ratio'), '.4f')}) "
             f"| {res.get('energy.counter_vs_power_integral', '–')} |")
    m = figs.get("memory") or {}
    mib = (lambda x: None if x is None else x / 2**20)
    L.append(f"| memory: peak used MiB | {fmt(mib(m.get('sampled_peak')), '.0f')} | before init {fmt(mib(m.get('memory_before_init')), '.0f')} "
             f"+ max_memory_reserved {fmt(mib(m.get('max_memory_reserved')), '.0f')} + context {fmt(mib(m.get('context_bytes')), '.0f')} = "
             f"{fmt(mib(m.get('expected')), '.0f')} (± context; nvidia-smi peak {fmt(m.get('smi_peak_mib'), '.0f')}) "
             f"| {res.get('memory.peak_vs_torch_plus_context', '–')} |")
    c = figs.get("clock") or {}
    L.append(f"| SM clock median MHz (loop) | {fmt(c.get('ours_mhz'), '.0f')} (min–max {c.get('ours_mhz_min_max') or '–'}) | "
             f"nvidia-smi {fmt(c.get('smi_mhz'), '.0f')}; ratio {fmt(c.get('ratio'), '.4f')} ± {args.clock_tol:.0%} | "
             f"{res.get('sm_clock.vs_nvidia_smi', '–')} |")
    L.append(f"| power mean W (loop, 0.5 s trimmed) | {fmt(c.get('ours_power_w'))} | nvidia-smi power.draw {fmt(c.get('smi_power_w'))} | reported |")
    mk = figs.get("marker") or {}
    L.append(f"| `gemm loop` marker vs workload clock | start {fmt(mk.get('start_diff_ms'), '.3f')} ms, end "
             f"{fmt(mk.get('end_diff_ms'), '.3f')} ms; {mk.get('kernels_inside', '–')} kernels inside | ±{args.marker_tol_ms:g} ms "
             f"| {res.get('gemm.marker_window', '–')} |")
    o = figs.get("overhead") or {}
    if o:
        L += ["", f"Overhead: the gemm loop with a fixed count, {args.rounds} rounds interleaved; loop_seconds medians "
              f"(thresholds: 10 ms ≤ +{args.oh10_tol:.0%}, 1 ms ≤ +{args.oh1_tol:.0%} over the tool without sampling):", "",
              "| configuration | median s | min–max s | TFLOP/s | / tool | / no tool | per round / tool |", "|---|---|---|---|---|---|---|"]
        for cfg, label in CONFIGS:
            runs = o["runs_s"].get(cfg) or []
            L.append(f"| {cfg}: {label} | {fmt(o['median_s'].get(cfg), '.4f')} | "
                     f"{f'{min(runs):.4f}–{max(runs):.4f}' if runs else '–'} | "
                     f"{fmt(o['tflops_median'].get(cfg), '.1f')} | {pct(None if o['ratio_to_tool'].get(cfg) is None else o['ratio_to_tool'][cfg] - 1)} | "
                     f"{pct(None if o['ratio_to_none'].get(cfg) is None else o['ratio_to_none'][cfg] - 1)} | "
                     + ", ".join(pct(x - 1) for x in o["paired_ratio_to_tool"].get(cfg, [])) + " |")
        for k, s in sorted((o.get("sampled_runs") or {}).items()):
            L.append(f"- {k}: {s.get('samples', '–')} samples, median spacing {fmt(s.get('median_ms'), '.3f')} ms, "
                     f"p90 {fmt(s.get('p90_ms'), '.3f')} ms" + (f"; {'; '.join(s['sampler_lines'])}" if s.get("sampler_lines") else "")
                     + (f" ({s['error']})" if s.get("error") else ""))
    me = figs.get("madengine") or {}
    if me:
        L += ["", "madengine export: " + "; ".join(f"{k}: {e.get('rows')} rows, header `{(e.get('header') or '')[:60]}`"
                                                    + (f", power mean {fmt(e.get('csv_mean_w'), '.2f')} W vs Parquet "
                                                       f"{fmt(e.get('parquet_mean_w'), '.2f')} W" if 'csv_mean_w' in e else "")
                                                    for k, e in me.items())]
    if p:
        L += ["", f"Throttle reasons (most common): idle {p.get('idle_throttle')}, load {p.get('load_throttle')}; temperature "
              f"idle {fmt(p.get('idle_temperature_c'))} °C, load {fmt(p.get('load_temperature_c'))} °C; busy % idle "
              f"{fmt(p.get('idle_gpu_busy_pct'))}, load {fmt(p.get('load_gpu_busy_pct'))}."]
    failed = [c["name"] for c in v.checks if not c["ok"]]
    L += ["", "All checks passed." if not failed else "Failed checks: " + ", ".join(failed)]
    return "\n".join(L) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for run in ("idle", "gemm"):
        ap.add_argument(f"--{run}", help=f"the {run} run's dataset")
        ap.add_argument(f"--{run}-report", help="workload.py --report")
        ap.add_argument(f"--{run}-log", help="the run's stdout (LOG.err: its stderr)")
    ap.add_argument("--smi", help="nvidia-smi's CSV taken during the gemm run")
    ap.add_argument("--madengine", help="the folder of `rocprof-rs export --format madengine`")
    ap.add_argument("--overhead", help="the folder of the overhead runs (CFG-R.json, CFG-R/)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--interval-ms", type=float, default=10.0)
    ap.add_argument("--spacing-tol", type=float, default=0.20)
    ap.add_argument("--power-delta-w", type=float, default=50.0)
    ap.add_argument("--energy-tol", type=float, default=0.05)
    ap.add_argument("--clock-tol", type=float, default=0.05)
    ap.add_argument("--marker-tol-ms", type=float, default=50.0)
    ap.add_argument("--oh10-tol", type=float, default=0.02)
    ap.add_argument("--oh1-tol", type=float, default=0.05)
    ap.add_argument("--label", default="telemetry")
    ap.add_argument("--out")
    ap.add_argument("--md")
    args = ap.parse_args()

    v = Verdict(args.label)
    v.info["settings"] = {k: getattr(args, k) for k in ("interval_ms", "spacing_tol", "power_delta_w", "energy_tol",
                                                         "clock_tol", "marker_tol_ms", "oh10_tol", "oh1_tol", "rounds")}
    reps: dict[str, dict | None] = {}
    samples: dict[str, Samples | None] = {}
    usable: dict[str, bool] = {}
    for run in ("idle", "gemm"):
        rep, src = load_report(getattr(args, f"{run}_report"), getattr(args, f"{run}_log"))
        reps[run] = rep
        v.info[f"{run}_report"] = rep if rep is not None else {"error": src}
        v.check(f"{run}.workload_report", rep is not None and rep.get("boottime_start_ns") is not None,
                {"source": src} if rep is None or rep.get("boottime_start_ns") is not None else
                {"source": src, "error": "the report has no boottime_start_ns (not workload.py's report?)"})
        path = getattr(args, run)
        try:
            if not path or not os.path.isdir(path):
                raise FileNotFoundError(f"no dataset folder {path}")
            samples[run] = Samples(path, rep)
        except Exception as e:  # a broken dataset is a failed check, not a crash
            samples[run] = None
            v.check(f"{run}.dataset_readable", False, f"{type(e).__name__}: {e}")
        try:
            usable[run] = check_samples(v, run, samples[run], rep, getattr(args, f"{run}_log"), args.interval_ms,
                                        args.spacing_tol) and rep is not None and rep.get("boottime_start_ns") is not None
        except Exception:
            usable[run] = False
            v.check(f"{run}.checker_error", False, traceback.format_exc(limit=3))

    figs: dict[str, Any] = {}
    smi_rows, smi_info = read_smi(args.smi, reps.get("gemm"))
    v.info["nvidia_smi"] = smi_info

    def guarded(name: str, fn, *a) -> None:
        try:
            figs[name] = fn(*a)
        except Exception:
            v.check(f"{name}.checker_error", False, traceback.format_exc(limit=3))

    g, i = samples.get("gemm"), samples.get("idle")
    if usable["idle"] and usable["gemm"]:
        guarded("power", check_power, v, i, reps["idle"], g, reps["gemm"], args.power_delta_w)
    else:
        v.check("power.idle_below_load", False, "the idle or the gemm run has no usable samples or report (see above)")
    if usable["gemm"]:
        guarded("energy", check_energy, v, g, reps["gemm"], i if usable["idle"] else None, args.energy_tol)
        guarded("memory", check_memory, v, g, reps["gemm"], smi_rows)
        guarded("clock", check_clock, v, g, reps["gemm"], smi_rows, smi_info, args.clock_tol)
        guarded("marker", check_marker, v, args.gemm, reps["gemm"], args.marker_tol_ms)
    else:
        for name in ("energy.counter_vs_power_integral", "memory.peak_vs_torch_plus_context", "sm_clock.vs_nvidia_smi",
                     "gemm.marker_window"):
            v.check(name, False, "the gemm run has no usable samples or report (see above)")
    guarded("overhead", check_overhead, v, args.overhead, args.rounds, args.interval_ms, args.oh10_tol, args.oh1_tol)
    guarded("madengine", check_madengine, v, args.madengine, g)
    v.info["figures"] = figs

    try:
        text = markdown(args, reps, figs, v)
    except Exception:
        text = "markdown failed:\n\n```\n" + traceback.format_exc() + "```\n"
    if args.md:
        with open(args.md, "w") as fh:
            fh.write(text)
    print(text)
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
