#!/usr/bin/env python3
"""Checks `rocprof-rs ranks` on a real NCCL data-parallel job (issue 27) against what each rank
says it did (ddp_train.py's RANKTRUTH), against our own Parquet read here with pyarrow, and
against torch.profiler's NCCL kernel time for the same workload.

    check_ranks.py --world-size N --straggler-rank 1 --straggler-step K --straggler-ms 50 \
        --plain DIR --plain-truth PREFIX --plain-ranks JSON \
        --straggler DIR --straggler-truth PREFIX --straggler-ranks JSON \
        --torch-prefix PREFIX --torch-truth PREFIX [--plain-stdout F] [--straggler-stdout F] \
        [--out verdict.json] [--md ranks.md] [--label ranks]

DIR is a dataset every rank wrote into (`rocprof-rs run --backend cupti --kernel-trace
--marker-trace -d DIR -- torchrun ...`); PREFIX.<rank>.json are the ranks' RANKTRUTH files (the
RANKTRUTH lines of --*-stdout are the fallback); JSON is `rocprof-rs ranks DIR --step-marker
'^step ' --format json`, or the Spark package's output for the same (the same JSON), so this
checks either. The torch files are ddp_train.py --torch-profiler's, from a separate run of the
straggler workload (torch.profiler gets no GPU events while rocprof-rs holds CUPTI).

Windows: step i of a rank is its i-th `step <i>` marker (what `ranks` times); its GPU work is
every kernel that starts inside its `iter <i>` marker, which ends after the step's
torch.cuda.synchronize(). On torch's side, the `iter <i>` record_function range on Kineto's
clock. Collectives are numbered as `ranks` numbers them (crates/analysis/src/ranks/mod.rs): per
rank, kernels whose name contains nccl or rccl, by (start, end), per operation.

Checks (each prefixed by its run):
- both runs: every rank's truth, world size N, ranks 0..N-1; a metadata file for each rank's
  pid; every kernel_dispatch row of a rank's pid has the rank, local_rank and world_size of its
  truth, and no row comes from another process; S `step` and S `iter` markers per rank; nothing
  dropped; `ranks` lists the N ranks with their pids and S complete steps.
- straggler: the sleep's CLOCK_BOOTTIME interval lies inside the straggler's `step K` marker;
  `ranks` names it the slowest of step K, with a delay within --delay-tol of the time it slept
  (delay = the step's excess, which `ranks` takes over the median of the other ranks' times, so
  it is the whole delay whatever N); step K's slowest_ns equals our marker's duration; step K has
  the largest excess; the first straggler listed is rank R, step K among its steps.
- straggler, collectives: the collectives of step K (those whose kernels start in `iter K`) are
  numbered alike on every rank; the one with the longest others' wait has rank R last, every
  other rank waited at least --wait-frac of the sleep, and its spread and others' wait equal
  those computed here from the Parquet; rank R's row counts it (last arrivals, kept waiting).
- nccl_vs_torch: per rank, the NCCL kernel time of the measured steps other than 1 and K (the
  steady steps) after each collective's last arrival (the collective's own work) agrees with
  torch.profiler's within --nccl-tol; the time before it, the rank's wait for the last one, is
  each run's own skew (0.2 to 6.5 ms over 28 steps on rank 1 in two runs, alike in both tools)
  and is reported with the totals, not checked. Step 1 is left out because its NCCL kernels hold a start-up wait (the ranks meeting
  after the warm-up: 5 to 7 ms on rank 1 on 2 x H200, in torch.profiler's run as in ours) whose
  length varies from run to run whatever the tracer. Step K alone, step 1 and all steps are
  reported: step K's NCCL time is mostly the wait, which is the sleep's and not the tracer's.
- plain: no step's excess reaches --noise-frac of --straggler-ms (no straggler beyond noise);
  what `ranks` lists as stragglers there is reported.

Writes a verdict JSON (benchlib.Verdict) and a markdown table of the per-rank figures; exits 1
if any check failed. Only the standard library and pyarrow: it runs here as on the GPU machine.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import sys
import traceback
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/gpu

import benchlib  # noqa: E402
from benchlib import Verdict  # noqa: E402

STEP_RE = re.compile(r"^step ")
ITER_RE = re.compile(r"^iter (\d+)$")

# crates/analysis/src/ranks/operation.rs: longest names first.
PATTERNS = [("reducescatter", "ReduceScatter"), ("allreduce", "AllReduce"), ("allgather", "AllGather"),
            ("broadcast", "Broadcast"), ("alltoall", "AllToAll"), ("sendrecv", "SendRecv"),
            ("reduce", "Reduce"), ("send", "SendRecv"), ("recv", "SendRecv")]


def operation(name: str | None) -> str | None:
    lower = (name or "").lower()
    if "nccl" not in lower and "rccl" not in lower:
        return None
    return next((op for p, op in PATTERNS if p in lower), "Other")


def is_nccl(name: str | None) -> bool:
    return "nccl" in (name or "").lower()


def ms(ns: float | None) -> str:
    return "–" if ns is None else f"{ns / 1e6:.3f}"


# --------------------------------------------------------------------------------------------
# Inputs.


def load_truths(prefix: str | None, stdout: str | None) -> tuple[dict[int, dict], dict[str, Any]]:
    """rank -> RANKTRUTH, from PREFIX.<rank>.json, else from the RANKTRUTH lines of stdout."""
    truths: dict[int, dict] = {}
    info: dict[str, Any] = {"source": None, "app_ok_lines": None}
    if prefix:
        for f in sorted(glob.glob(f"{glob.escape(prefix)}.*.json")):
            try:
                with open(f) as fh:
                    t = json.load(fh)
                truths[int(t["rank"])] = t
            except (OSError, ValueError, KeyError) as e:
                info.setdefault("unreadable", []).append(f"{f}: {e}")
        if truths:
            info["source"] = "files"
    if stdout and os.path.exists(stdout):
        lines = open(stdout, errors="replace").read().splitlines()
        info["app_ok_lines"] = sum(1 for line in lines if "APP ok" in line)
        if not truths:
            for line in lines:
                at = line.find("RANKTRUTH ")
                if at >= 0:
                    try:
                        t = json.loads(line[at + len("RANKTRUTH "):])
                        truths[int(t["rank"])] = t
                    except (ValueError, KeyError):
                        pass
            if truths:
                info["source"] = "stdout"
    return truths, info


class Run:
    """One traced run: every rank's kernels, markers and collectives, by its `rank` column."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.metadata = benchlib.read_metadata(dataset)
        self.kernels = benchlib.read_columns(dataset, "kernel_dispatch", ["kernel_name", "start_ns", "end_ns", "duration_ns",
                                                                 "pid", "host", "rank", "local_rank", "world_size"])
        self.markers = benchlib.read_columns(dataset, "marker", ["message", "start_ns", "end_ns", "pid", "rank", "domain"])
        self.by_rank: dict[Any, list[dict]] = defaultdict(list)
        for k in self.kernels:
            self.by_rank[k.get("rank")].append(k)
        for ks in self.by_rank.values():
            ks.sort(key=lambda k: (k["start_ns"], k["end_ns"]))
        self.steps: dict[Any, list[dict]] = defaultdict(list)
        self.iters: dict[Any, dict[int, dict]] = defaultdict(dict)
        self.warmups: dict[Any, int] = defaultdict(int)
        for m in self.markers:
            msg = m.get("message") or ""
            if STEP_RE.search(msg):
                self.steps[m.get("rank")].append(m)
            it = ITER_RE.match(msg)
            if it:
                self.iters[m.get("rank")][int(it.group(1))] = m
            if msg.startswith("warmup "):
                self.warmups[m.get("rank")] += 1
        for s in self.steps.values():
            s.sort(key=lambda m: (m["start_ns"], m["end_ns"]))
        # Collectives as `ranks` numbers them: per rank and operation, by (start, end).
        self.arrivals: dict[tuple[str, int], dict[Any, dict]] = defaultdict(dict)
        for rank, ks in self.by_rank.items():
            count: dict[str, int] = defaultdict(int)
            for k in ks:
                op = operation(k.get("kernel_name"))
                if op is None:
                    continue
                count[op] += 1
                self.arrivals[(op, count[op])][rank] = k

    def nccl_in_iter(self, rank: int, i: int) -> list[dict]:
        it = self.iters.get(rank, {}).get(i)
        if it is None:
            return []
        return [k for k in self.by_rank.get(rank, []) if is_nccl(k.get("kernel_name"))
                and it["start_ns"] <= k["start_ns"] <= it["end_ns"]]

    def collectives_in_iter(self, rank: int, i: int) -> set[tuple[str, int]]:
        it = self.iters.get(rank, {}).get(i)
        if it is None:
            return set()
        return {key for key, per in self.arrivals.items()
                if rank in per and it["start_ns"] <= per[rank]["start_ns"] <= it["end_ns"]}


def load_json(path: str | None) -> Any:
    if not path or not os.path.exists(path):
        return None
    with open(path) as fh:
        return json.load(fh)


def rank_of(ref: dict | None) -> Any:
    return None if not isinstance(ref, dict) else ref.get("rank")


# --------------------------------------------------------------------------------------------
# Checks.


def check_run(v: Verdict, name: str, run: Run | None, truths: dict[int, dict], tinfo: dict, report: Any,
              n: int, steps: int) -> bool:
    """The checks both traced runs share. False when the run is too broken to go on."""
    v.info[f"{name}_truth"] = {"source": tinfo.get("source"), "ranks": sorted(truths),
                               "app_ok_lines": tinfo.get("app_ok_lines"), "unreadable": tinfo.get("unreadable")}
    ok_truth = sorted(truths) == list(range(n)) and all(t.get("world_size") == n for t in truths.values())
    v.check(f"{name}.truth_every_rank", ok_truth,
            {"expected_ranks": list(range(n)), "got": sorted(truths),
             "world_sizes": sorted({t.get("world_size") for t in truths.values()}),
             "app_ok_lines": tinfo.get("app_ok_lines")})
    if run is None:
        v.check(f"{name}.dataset", False, "no dataset")
        return False
    if not run.kernels:
        v.check(f"{name}.dataset", False, f"no kernel_dispatch rows in {run.dataset}")
        return False

    meta_pids = {str(m.get("rocprof_rs.pid")) for m in run.metadata}
    missing_meta = [r for r, t in truths.items() if str(t.get("pid")) not in meta_pids]
    v.check(f"{name}.metadata_file_per_rank", bool(truths) and not missing_meta,
            {"metadata_files": len(run.metadata), "ranks_without_one": missing_meta})

    origin_bad, counts = [], {}
    truth_pids = {t.get("pid") for t in truths.values()}
    for r, t in sorted(truths.items()):
        rows = [k for k in run.kernels if k.get("pid") == t.get("pid")]
        combos = sorted({(k.get("rank"), k.get("local_rank"), k.get("world_size")) for k in rows}, key=str)
        hosts = sorted({k.get("host") for k in rows}, key=str)
        counts[r] = {"pid": t.get("pid"), "kernels": len(rows), "origin": combos, "hosts": hosts,
                     "host_equals_truth": hosts == [t.get("hostname")]}
        if not rows or combos != [(t.get("rank"), t.get("local_rank"), t.get("world_size"))]:
            origin_bad.append(r)
    v.info[f"{name}_per_rank_rows"] = counts
    v.check(f"{name}.origin_columns_equal_truth", bool(truths) and not origin_bad,
            {"ranks_wrong_or_without_rows": origin_bad, "per_rank": counts})
    stray = sorted({k.get("pid") for k in run.kernels if k.get("pid") not in truth_pids}, key=str)
    v.check(f"{name}.no_rows_from_other_processes", not stray, {"stray_pids": stray})

    marker_bad = {}
    for r in sorted(truths):
        got = (len(run.steps.get(r, [])), len(run.iters.get(r, {})), run.warmups.get(r, 0))
        if got[0] != steps or got[1] != steps:
            marker_bad[r] = {"step": got[0], "iter": got[1], "warmup": got[2]}
    v.check(f"{name}.markers_per_rank", bool(truths) and not marker_bad,
            {"expected_step_and_iter": steps, "wrong": marker_bad,
             "warmup_markers": {r: run.warmups.get(r, 0) for r in sorted(truths)}})
    dropped = benchlib.dropped_total(run.metadata)
    v.check(f"{name}.nothing_dropped", dropped == 0, {"dropped": dropped})

    if not isinstance(report, dict):
        v.check(f"{name}.ranks_json", False, "no `rocprof-rs ranks --format json` output")
        return False
    listed = [(row.get("rank"), row.get("pid")) for row in report.get("ranks", [])]
    want = [(r, truths[r].get("pid")) for r in sorted(truths)]
    v.check(f"{name}.ranks_json_lists_the_ranks", listed == want, {"ranks_json": listed, "truth": want})
    srows = report.get("steps", [])
    v.check(f"{name}.ranks_json_steps_complete",
            len(srows) == steps and all(s.get("complete") for s in srows) and report.get("steps_incomplete") == 0,
            {"steps": len(srows), "expected": steps, "steps_incomplete": report.get("steps_incomplete"),
             "notes": report.get("notes")})
    v.info[f"{name}_ranks_notes"] = report.get("notes")
    return True


def check_straggler(v: Verdict, run: Run, truths: dict[int, dict], report: dict, args) -> dict[str, Any]:
    """(ii) and (iii): the straggler named in its step, and the others' wait at its collective."""
    n, R, K = args.world_size, args.straggler_rank, args.straggler_step
    out: dict[str, Any] = {}
    t = truths.get(R, {})
    slept_ns = (t.get("slept_s") or 0) * 1e9
    v.check("straggler.slept", slept_ns > 0, {"rank": R, "slept_s": t.get("slept_s")})
    out["slept_ns"] = slept_ns

    steps_r = run.steps.get(R, [])
    marker = steps_r[K - 1] if len(steps_r) >= K else None
    b = t.get("sleep_boottime_ns")
    inside = bool(marker and b and marker["start_ns"] <= b[0] and b[1] <= marker["end_ns"])
    v.check("straggler.sleep_inside_step_marker", inside,
            {"step_marker": None if marker is None else [marker["start_ns"], marker["end_ns"], marker.get("message")],
             "sleep_boottime_ns": b})

    rows = report.get("steps", [])
    row = next((s for s in rows if s.get("step") == K), None)
    out["step_row"] = row
    if row is None:
        v.check("straggler.step_K_in_ranks_json", False, f"no step {K} among {len(rows)}")
        return out
    v.check("straggler.step_K_slowest_is_straggler", rank_of(row.get("slowest")) == R,
            {"step": K, "slowest": row.get("slowest"), "expected_rank": R})
    excess = float(row.get("excess_ns") or 0)
    delay = excess
    out["delay_ns"] = delay
    v.check("straggler.step_K_delay_within_tol", slept_ns > 0 and abs(delay - slept_ns) <= args.delay_tol * slept_ns,
            {"delay_ms": delay / 1e6, "slept_ms": slept_ns / 1e6, "excess_ms": excess / 1e6,
             "median_ms": (row.get("median_ns") or 0) / 1e6, "slowest_ms": (row.get("slowest_ns") or 0) / 1e6,
             "ratio": delay / slept_ns if slept_ns else None, "tolerance": args.delay_tol})
    dur = None if marker is None else marker["end_ns"] - marker["start_ns"]
    v.check("straggler.step_K_slowest_ns_equals_marker", dur is not None and row.get("slowest_ns") == dur,
            {"ranks_json": row.get("slowest_ns"), "parquet_marker": dur})
    worst = max(rows, key=lambda s: float(s.get("excess_ns") or 0))
    others = sorted((float(s.get("excess_ns") or 0) for s in rows if s.get("step") != K), reverse=True)
    v.check("straggler.step_K_has_largest_excess", worst.get("step") == K,
            {"largest_excess_step": worst.get("step"), "its_excess_ms": float(worst.get("excess_ns") or 0) / 1e6,
             "other_steps_largest_excess_ms": [x / 1e6 for x in others[:3]]})
    strag = report.get("stragglers", [])
    first = strag[0] if strag else {}
    v.check("straggler.first_straggler_listed", rank_of(first.get("rank")) == R and K in (first.get("steps") or []),
            {"first": {k: first.get(k) for k in ("rank", "slowest_steps", "excess_total_ns", "excess_max_ns", "steps")},
             "stragglers": len(strag)})

    # (iii) The collectives of step K: those whose kernels start inside `iter K` on every rank.
    per_rank = {r: run.collectives_in_iter(r, K) for r in sorted(truths)}
    sets = list(per_rank.values())
    same = bool(sets) and all(s == sets[0] for s in sets) and bool(sets[0])
    v.check("straggler.step_K_collectives_numbered_alike", same,
            {r: sorted(s) for r, s in per_rank.items()})
    keys = set().union(*sets) if sets else set()
    crow = [c for c in report.get("collectives", [])
            if c.get("source") == "kernel" and (c.get("operation"), c.get("index")) in keys]
    if not crow:
        v.check("straggler.step_K_collective_in_ranks_json", False, {"keys": sorted(keys)})
        return out
    top = max(crow, key=lambda c: c.get("others_wait_ns") or 0)
    out["collective"] = top
    v.info["straggler_step_K_collectives"] = crow
    v.check("straggler.step_K_wait_attributed_to_straggler", rank_of(top.get("last")) == R,
            {"collective": [top.get("operation"), top.get("index")], "last": top.get("last"),
             "first": top.get("first")})
    # Our own arrivals at it, from the Parquet.
    arr = run.arrivals.get((top.get("operation"), top.get("index")), {})
    starts = {r: k["start_ns"] for r, k in arr.items()}
    waits = {}
    if R in starts:
        waits = {r: starts[R] - s for r, s in starts.items() if r != R}
    out["waits_ns"] = waits
    out["wait_kernel_ns"] = {r: k["duration_ns"] for r, k in arr.items()}
    mean_wait = (top.get("others_wait_ns") or 0) / max(1, n - 1)
    v.check("straggler.others_wait_at_least_frac_of_sleep",
            slept_ns > 0 and len(waits) == n - 1 and min(waits.values()) >= args.wait_frac * slept_ns
            and mean_wait >= args.wait_frac * slept_ns,
            {"others_wait_ms_mean_ranks_json": mean_wait / 1e6,
             "waits_ms_parquet": {r: w / 1e6 for r, w in waits.items()}, "slept_ms": slept_ns / 1e6,
             "frac": args.wait_frac, "ratio_min": (min(waits.values()) / slept_ns) if waits and slept_ns else None,
             "waiting_ranks_kernel_ms": {r: d / 1e6 for r, d in out["wait_kernel_ns"].items()}})
    spread = (max(starts.values()) - min(starts.values())) if starts else None
    others_sum = (sum(max(starts.values()) - s for s in starts.values())) if starts else None
    v.check("straggler.collective_equals_parquet",
            len(starts) == n and top.get("spread_ns") == spread and top.get("others_wait_ns") == others_sum,
            {"ranks_json": {"spread_ns": top.get("spread_ns"), "others_wait_ns": top.get("others_wait_ns"),
                            "ranks": top.get("ranks")},
             "parquet": {"spread_ns": spread, "others_wait_ns": others_sum, "ranks": len(starts)}})
    rrow = next((x for x in report.get("ranks", []) if x.get("rank") == R), {})
    v.check("straggler.rank_row_counts_it",
            (rrow.get("last_arrivals") or 0) >= 1 and (rrow.get("kept_waiting_ns") or 0) >= (top.get("others_wait_ns") or 0),
            {k: rrow.get(k) for k in ("last_arrivals", "kept_waiting_ns", "slowest_steps", "step_excess_ns")})
    return out


def transfer_and_wait(steps: dict[int, dict[int, list[dict]]], steady: list[int]) -> dict[int, dict]:
    """Per rank, its NCCL kernel time split at each collective's last arrival: the wait before
    it (the run's skew between ranks, which differs from run to run) and the time after it (the
    collective's own work, which a tracer must measure alike). The n-th NCCL kernel of a step on
    every rank is one collective; a step whose ranks have different counts is skipped."""
    ranks = sorted(steps)
    out = {r: {"transfer_ns": 0, "wait_ns": 0, "steps": 0, "skipped_steps": []} for r in ranks}
    for i in steady:
        per = {r: sorted(steps[r].get(i, []), key=lambda k: k["start_ns"]) for r in ranks}
        if len({len(ks) for ks in per.values()}) != 1:
            for r in ranks:
                out[r]["skipped_steps"].append(i)
            continue
        for n in range(len(per[ranks[0]])):
            last = max(per[r][n]["start_ns"] for r in ranks)
            for r in ranks:
                k = per[r][n]
                end = k["start_ns"] + k["duration_ns"]
                out[r]["wait_ns"] += max(0, min(last, end) - k["start_ns"])
                out[r]["transfer_ns"] += max(0, end - max(last, k["start_ns"]))
        for r in ranks:
            out[r]["steps"] += 1
    return out


def nccl_vs_torch(v: Verdict, run: Run, truths: dict[int, dict], args) -> dict[int, dict]:
    """(iv): per rank, NCCL kernel time over the steady measured steps, ours against torch's."""
    n, K, S = args.world_size, args.straggler_step, args.steps
    per: dict[int, dict] = {}
    bad, missing = [], []
    ours_all: dict[int, dict[int, list[dict]]] = {}
    torch_all: dict[int, dict[int, list[dict]]] = {}
    for r in range(n):
        tj = load_json(f"{args.torch_prefix}.{r}.json") if args.torch_prefix else None
        ours_steps = {i: run.nccl_in_iter(r, i) for i in range(1, S + 1)}
        ours_ns = {i: sum(k["duration_ns"] for k in ks) for i, ks in ours_steps.items()}
        ours_n = {i: len(ks) for i, ks in ours_steps.items()}
        ours_all[r] = ours_steps
        # Steady: the measured steps but the straggler's and the first, whose start-up wait (the
        # ranks meeting after the warm-up) varies from run to run in both tools alike.
        steady = [i for i in range(2, S + 1) if i != K]
        entry: dict[str, Any] = {"ours_steady_ns": sum(ours_ns[i] for i in steady),
                                 "ours_step_1_ns": ours_ns.get(1),
                                 "ours_steady_median_ns": statistics.median(ours_ns[i] for i in steady),
                                 "ours_step_K_ns": ours_ns.get(K), "ours_all_ns": sum(ours_ns.values()),
                                 "ours_kernels_per_step": sorted(set(ours_n.values()))}
        per[r] = entry
        if tj is None:
            missing.append(r)
            continue
        tk = [k for k in tj.get("kernels", []) if is_nccl(k.get("name"))]
        iters = {}
        for it in tj.get("iters", []):
            m = ITER_RE.match(it.get("name", ""))
            if m:
                iters[int(m.group(1))] = it
        th_steps = {i: [k for k in tk if i in iters and iters[i]["start_ns"] <= k["start_ns"] <= iters[i]["end_ns"]]
                    for i in range(1, S + 1)}
        method = "iter windows"
        if any(len(th_steps[i]) != ours_n[i] for i in th_steps):
            # Kineto's CPU ranges and GPU events should share a clock; where the counts say they
            # do not, the kernels are assigned to steps in order, by our per-step counts.
            ordered = sorted(tk, key=lambda k: k["start_ns"])
            if len(ordered) == sum(ours_n.values()):
                at, th_steps = 0, {}
                for i in range(1, S + 1):
                    th_steps[i] = ordered[at:at + ours_n[i]]
                    at += ours_n[i]
                method = "in order, by our per-step counts (the iter windows did not hold our counts)"
            else:
                method = f"none: torch has {len(ordered)} NCCL kernels, ours {sum(ours_n.values())}"
        th_ns = {i: sum(k["duration_ns"] for k in ks) for i, ks in th_steps.items()}
        torch_all[r] = th_steps
        entry.update({"torch_steady_ns": sum(th_ns[i] for i in steady), "torch_step_K_ns": th_ns.get(K),
                      "torch_step_1_ns": th_ns.get(1),
                      "torch_steady_median_ns": statistics.median(th_ns[i] for i in steady),
                      "torch_all_ns": sum(th_ns.values()), "torch_iters": len(iters), "assignment": method,
                      "torch_nccl_kernels": len(tk), "torch_error": tj.get("error"),
                      "torch_chrome_error": tj.get("chrome_trace_error"),
                      "torch_dropped_non_kernel_events": tj.get("dropped_non_kernel_events"),
                      "torch_slept_s": (tj.get("summary") or {}).get("slept_s")})
        o, t = entry["ours_steady_ns"], entry["torch_steady_ns"]
        entry["steady_diff"] = (o - t) / t if t else None
        entry["steady_per_step_us"] = {"ours": o / len(steady) / 1e3, "torch": t / len(steady) / 1e3}
        om, tm = entry["ours_steady_median_ns"], entry["torch_steady_median_ns"]
        entry["steady_median_diff"] = (om - tm) / tm if tm else None
        if not method.startswith(("iter", "in order")) or not t:
            bad.append(r)
    # The waits are the run's own (each rank's arrival skew, which differs between the two
    # runs), so the check is on each rank's NCCL time after the last arrival; the totals with
    # the waits are reported beside it.
    steady = [i for i in range(2, S + 1) if i != K]
    split_ours = transfer_and_wait(ours_all, steady) if len(ours_all) == n else {}
    split_torch = transfer_and_wait(torch_all, steady) if len(torch_all) == n else {}
    for r in range(n):
        o_split, t_split = split_ours.get(r), split_torch.get(r)
        entry = per[r]
        entry["ours_split"], entry["torch_split"] = o_split, t_split
        if not o_split or not t_split or not t_split["transfer_ns"]:
            bad.append(r)
            continue
        o, t = o_split["transfer_ns"], t_split["transfer_ns"]
        entry["transfer_diff"] = (o - t) / t
        if abs(o - t) > args.nccl_tol * t or o_split["skipped_steps"] or t_split["skipped_steps"]:
            bad.append(r)
    v.check("nccl_vs_torch.torch_files", not missing, {"missing_ranks": missing, "prefix": args.torch_prefix})
    v.check("nccl_vs_torch.steady_steps_within_tol", not missing and not bad,
            {"tolerance": args.nccl_tol, "outside": sorted(set(bad)), "checked": "NCCL time after the last arrival",
             "steady_steps": f"2..{S} but {K}",
             "split": {r: {"transfer_diff": e.get("transfer_diff"), "ours": e.get("ours_split"),
                           "torch": e.get("torch_split")} for r, e in per.items()},
             "per_rank": {r: {k: e.get(k) for k in ("ours_steady_ns", "torch_steady_ns", "steady_diff",
                                                   "ours_steady_median_ns", "torch_steady_median_ns",
                                                   "steady_median_diff", "ours_step_1_ns", "torch_step_1_ns",
                                                   "assignment", "torch_error")}
                          for r, e in per.items()}})
    v.info["nccl_vs_torch"] = per
    return per


def check_plain(v: Verdict, run: Run, report: dict, args) -> dict[str, Any]:
    """(v): no straggler beyond noise in the run without one."""
    rows = report.get("steps", [])
    worst = max(rows, key=lambda s: float(s.get("excess_ns") or 0)) if rows else {}
    limit = args.noise_frac * args.straggler_ms * 1e6
    excess = float(worst.get("excess_ns") or 0)
    # The largest arrival spread over the measured steps' collectives, from the Parquet.
    spreads = []
    for key, per in run.arrivals.items():
        if len(per) < 2:
            continue
        r0 = min(per)
        it = run.iters.get(r0, {})
        s = per[r0]["start_ns"]
        if any(m["start_ns"] <= s <= m["end_ns"] for m in it.values()):
            starts = [k["start_ns"] for k in per.values()]
            spreads.append((max(starts) - min(starts), key))
    spreads.sort(reverse=True)
    v.check("plain.no_straggler_beyond_noise", bool(rows) and excess < limit,
            {"largest_step_excess_ms": excess / 1e6, "in_step": worst.get("step"), "slowest": worst.get("slowest"),
             "limit_ms": limit / 1e6,
             "stragglers_listed": [{"rank": rank_of(s.get("rank")), "steps": s.get("slowest_steps"),
                                    "excess_total_ms": float(s.get("excess_total_ns") or 0) / 1e6,
                                    "excess_max_ms": float(s.get("excess_max_ns") or 0) / 1e6}
                                   for s in report.get("stragglers", [])],
             "largest_collective_spreads_ms": [[sp / 1e6, list(k)] for sp, k in spreads[:3]]})
    return {"worst": worst, "spreads": spreads[:3]}


# --------------------------------------------------------------------------------------------
# The table.


def markdown(args, truths, report, run, strag, per_nccl, plain_report, plain_out) -> str:
    n, K = args.world_size, args.straggler_step
    lines = [f"# ranks: {n} ranks, DDP over NCCL, rank {args.straggler_rank} sleeps {args.straggler_ms:g} ms in step {K}",
             ""]
    t0 = next(iter(truths.values()), {}) if truths else {}
    if t0:
        m = t0.get("model", {})
        lines += [f"{t0.get('device')}, torch {t0.get('torch')}, NCCL {t0.get('nccl')}; model {m.get('layers')} x "
                  f"Linear({m.get('width')}) fp32, {m.get('params')} parameters ({m.get('gradient_bytes', 0) / 1e6:.0f} MB "
                  f"of gradients), batch {m.get('batch')}; {t0.get('warmup')} warm-up + {t0.get('steps')} measured steps.", ""]
    row = strag.get("step_row") or {}
    if row:
        lines.append(f"- `ranks`, step {K}: slowest rank {rank_of(row.get('slowest'))}, {ms(row.get('slowest_ns'))} ms "
                     f"against a median of {ms(row.get('median_ns'))} ms; excess {ms(row.get('excess_ns'))} ms, delay "
                     f"{ms(strag.get('delay_ns'))} ms; slept "
                     f"{ms(strag.get('slept_ns'))} ms.")
    c = strag.get("collective")
    if c:
        lines.append(f"- Collective {c.get('operation')} #{c.get('index')} (step {K}): spread {ms(c.get('spread_ns'))} ms, "
                     f"last rank {rank_of(c.get('last'))}, first rank {rank_of(c.get('first'))}, others' wait "
                     f"{ms(c.get('others_wait_ns'))} ms in all; each other rank's wait (Parquet): "
                     + ", ".join(f"rank {r} {ms(w)} ms" for r, w in sorted(strag.get("waits_ns", {}).items())) + ".")
    if plain_out.get("worst"):
        w = plain_out["worst"]
        lines.append(f"- Plain run: largest step excess {ms(w.get('excess_ns'))} ms (step {w.get('step')}, rank "
                     f"{rank_of(w.get('slowest'))}); largest collective spread over the measured steps "
                     + (f"{plain_out['spreads'][0][0] / 1e6:.3f} ms." if plain_out.get("spreads") else "–."))
    lines += ["", "Straggler run, per rank (`ranks` JSON; NCCL time: kernels whose name contains nccl, summed over "
              f"the measured steps other than 1 and {K} (steady: step 1 carries a start-up wait that varies from run to run in both tools) and in step {K}; ours and torch.profiler's, separate runs):", ""]
    lines.append("| rank | pid | kernels | NCCL kernels | communication ms | overlap share | slowest in steps | "
                 "step excess ms | last arrivals | its waits ms | kept waiting ms | step "
                 f"{K} ms | NCCL steady ours ms | torch ms | diff | NCCL step {K} ours ms | torch ms |")
    lines.append("|" + "---|" * 17)
    rrows = {x.get("rank"): x for x in (report or {}).get("ranks", [])}
    for r in range(n):
        x = rrows.get(r, {})
        e = per_nccl.get(r, {})
        sm = run.steps.get(r, []) if run else []
        stepk = (sm[K - 1]["end_ns"] - sm[K - 1]["start_ns"]) if len(sm) >= K else None
        share = x.get("overlap_share")
        diff = e.get("steady_diff")
        lines.append(
            f"| {r} | {x.get('pid', '–')} | {x.get('kernels', '–')} | {x.get('collectives', '–')} | "
            f"{ms(x.get('communication_ns'))} | {'–' if share is None else f'{share:.2f}'} | {x.get('slowest_steps', '–')} | "
            f"{ms(x.get('step_excess_ns'))} | {x.get('last_arrivals', '–')} | {ms(x.get('collective_wait_ns'))} | "
            f"{ms(x.get('kept_waiting_ns'))} | {ms(stepk)} | {ms(e.get('ours_steady_ns'))} | {ms(e.get('torch_steady_ns'))} | "
            f"{'–' if diff is None else f'{diff * 100:+.2f}%'} | {ms(e.get('ours_step_K_ns'))} | {ms(e.get('torch_step_K_ns'))} |")
    lines += ["", f"Each rank's steady NCCL time split at each collective's last arrival (checked: the part after it, "
              f"within {args.nccl_tol:.0%}; the waits before it are each run's own skew):", "",
              "| rank | after last arrival, ours ms | torch ms | diff | waits, ours ms | torch ms |", "|---|---|---|---|---|---|"]
    for r in range(n):
        e = per_nccl.get(r, {})
        o, t = e.get("ours_split") or {}, e.get("torch_split") or {}
        d = e.get("transfer_diff")
        lines.append(f"| {r} | {ms(o.get('transfer_ns'))} | {ms(t.get('transfer_ns'))} | "
                     f"{'–' if d is None else f'{d * 100:+.2f}%'} | {ms(o.get('wait_ns'))} | {ms(t.get('wait_ns'))} |")
    if plain_report:
        lines += ["", "Plain run, per rank:", "",
                  "| rank | kernels | NCCL kernels | communication ms | slowest in steps | step excess ms | "
                  "last arrivals | its waits ms |", "|" + "---|" * 8]
        for x in plain_report.get("ranks", []):
            lines.append(f"| {x.get('rank')} | {x.get('kernels')} | {x.get('collectives')} | {ms(x.get('communication_ns'))} | "
                         f"{x.get('slowest_steps')} | {ms(x.get('step_excess_ns'))} | {x.get('last_arrivals')} | "
                         f"{ms(x.get('collective_wait_ns'))} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--steps", type=int, default=30, help="measured steps per rank")
    ap.add_argument("--straggler-rank", type=int, default=1)
    ap.add_argument("--straggler-step", type=int, required=True)
    ap.add_argument("--straggler-ms", type=float, required=True)
    for run in ("plain", "straggler"):
        ap.add_argument(f"--{run}", help=f"the {run} run's dataset")
        ap.add_argument(f"--{run}-truth", help="PREFIX of the ranks' PREFIX.<rank>.json")
        ap.add_argument(f"--{run}-stdout", help="the run's stdout (RANKTRUTH lines: the fallback)")
        ap.add_argument(f"--{run}-ranks", help="rocprof-rs ranks --format json (or the Spark package's)")
    ap.add_argument("--torch-prefix", help="PREFIX of ddp_train.py --torch-profiler's PREFIX.<rank>.json")
    ap.add_argument("--torch-truth", help="PREFIX of the torch run's truth files")
    ap.add_argument("--torch-stdout")
    ap.add_argument("--delay-tol", type=float, default=0.10)
    ap.add_argument("--wait-frac", type=float, default=0.90)
    ap.add_argument("--nccl-tol", type=float, default=0.05)
    ap.add_argument("--noise-frac", type=float, default=0.10)
    ap.add_argument("--label", default="ranks")
    ap.add_argument("--out")
    ap.add_argument("--md")
    args = ap.parse_args()

    v = Verdict(args.label)
    v.info["settings"] = {k: getattr(args, k) for k in ("world_size", "steps", "straggler_rank", "straggler_step",
                                                         "straggler_ms", "delay_tol", "wait_frac", "nccl_tol",
                                                         "noise_frac")}
    v.check("world_size_at_least_2", args.world_size >= 2, {"world_size": args.world_size})
    runs: dict[str, Run | None] = {}
    usable: dict[str, bool] = {}
    reports: dict[str, Any] = {}
    truths: dict[str, dict] = {}
    for name in ("plain", "straggler"):
        path = getattr(args, name)
        try:
            runs[name] = Run(path) if path and os.path.isdir(path) else None
        except Exception as e:  # a broken dataset is a failed check, not a crash
            runs[name] = None
            v.check(f"{name}.dataset_readable", False, f"{type(e).__name__}: {e}")
        try:
            reports[name] = load_json(getattr(args, f"{name}_ranks"))
        except (OSError, ValueError) as e:
            reports[name] = None
            v.check(f"{name}.ranks_json_readable", False, f"{type(e).__name__}: {e}")
        truths[name], tinfo = load_truths(getattr(args, f"{name}_truth"), getattr(args, f"{name}_stdout"))
        try:
            usable[name] = check_run(v, name, runs[name], truths[name], tinfo, reports[name], args.world_size,
                                     args.steps)
        except Exception:
            usable[name] = False
            v.check(f"{name}.checker_error", False, traceback.format_exc(limit=3))

    strag: dict[str, Any] = {}
    per_nccl: dict[int, dict] = {}
    plain_out: dict[str, Any] = {}
    if usable.get("straggler"):
        try:
            strag = check_straggler(v, runs["straggler"], truths["straggler"], reports["straggler"], args)
        except Exception:
            v.check("straggler.checker_error", False, traceback.format_exc(limit=3))
        try:
            per_nccl = nccl_vs_torch(v, runs["straggler"], truths["straggler"], args)
        except Exception:
            v.check("nccl_vs_torch.checker_error", False, traceback.format_exc(limit=3))
    else:
        v.check("straggler.usable", False, "the straggler run's data or ranks JSON is missing (see above)")
    tt, ti = load_truths(args.torch_truth, args.torch_stdout)
    v.info["torch_run_truth"] = {r: {"pid": t.get("pid"), "slept_s": t.get("slept_s"), "iter_s_median": (
        statistics.median(t["iter_s"]) if t.get("iter_s") else None), "torch_kernel_events": t.get("torch_kernel_events"),
        "dropped_non_kernel_events": t.get("torch_dropped_non_kernel_events")} for r, t in tt.items()}
    v.check("torch_run.truth_every_rank", sorted(tt) == list(range(args.world_size)),
            {"ranks": sorted(tt), "source": ti.get("source")})
    if usable.get("plain"):
        try:
            plain_out = check_plain(v, runs["plain"], reports["plain"], args)
        except Exception:
            v.check("plain.checker_error", False, traceback.format_exc(limit=3))
    else:
        v.check("plain.usable", False, "the plain run's data or ranks JSON is missing (see above)")
    for name in ("plain", "straggler"):
        t = truths.get(name, {})
        v.info[f"{name}_step_host_ms_median"] = {r: statistics.median(x["step_s"]) * 1e3 for r, x in t.items()
                                                 if x.get("step_s")}
        v.info[f"{name}_iter_ms_median"] = {r: statistics.median(x["iter_s"]) * 1e3 for r, x in t.items()
                                            if x.get("iter_s")}

    if args.md:
        try:
            text = markdown(args, truths.get("straggler", {}), reports.get("straggler"), runs.get("straggler"), strag,
                            per_nccl, reports.get("plain"), plain_out)
        except Exception:
            text = "markdown failed:\n\n```\n" + traceback.format_exc() + "```\n"
        failed = [c["name"] for c in v.checks if not c["ok"]]
        text += "\n" + ("All checks passed." if not failed else "Failed checks: " + ", ".join(failed)) + "\n"
        with open(args.md, "w") as fh:
            fh.write(text)
        print(text)
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
