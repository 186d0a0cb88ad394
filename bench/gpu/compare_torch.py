#!/usr/bin/env python3
"""Compares rocprof-rs's kernel rows with torch.profiler's for the same deterministic workload.

    compare_torch.py OURS_DIR TORCH_JSON --label NAME [--out result.json] [--md table.md]
                     [--marker measure] [--rel-tol 0.05] [--abs-tol-us 1.0]

OURS_DIR is a rocprof-rs dataset of a run with --marker-trace; TORCH_JSON is what
torch_workload.py or launch_bench.py wrote with --torch-profiler (torch_events.py's format).
The two come from separate runs: torch.profiler gets no GPU events while rocprof-rs holds
CUPTI's single subscriber slot.

- Our side: the kernel rows inside our marker row with message "measure" (start_ns >= its
  start and end_ns <= its end; markers and kernels share CLOCK_BOOTTIME).
- Join key: c++filt of our mangled_name (one c++filt process for all names) against torch's
  name, which Kineto demangles with abi::__cxa_demangle (c++filt is libiberty, the same
  family). Also reported: how many of our kernel_name values (our own demangler) equal a torch
  name exactly.
- Checks: the same set of names; the same count per name; per-name median duration within
  max(rel-tol, abs-tol) of torch's; per name, the same multiset of (blocks, block) where torch's
  args have grid and block (ours: grid // block, since our grid is in work-items), and of
  (registers, shared memory) where torch has them. Reported, not checked: the total GPU time
  ratio. Only durations are compared: Kineto's timestamps are on another clock.

Prints a markdown table and a JSON verdict; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict

import benchlib
from benchlib import Verdict


def triple(value) -> tuple[int, int, int] | None:
    if isinstance(value, (list, tuple)) and len(value) == 3:
        return tuple(int(x) for x in value)
    return None


def our_blocks(r: dict) -> tuple[tuple[int, int, int] | None, tuple[int, int, int]]:
    block = tuple(int(r[f"block_{a}"]) for a in "xyz")
    grid = tuple(int(r[f"grid_{a}"]) for a in "xyz")
    if any(b <= 0 or g % b for g, b in zip(grid, block)):
        return None, block
    return tuple(g // b for g, b in zip(grid, block)), block


def short(name: str, n: int = 60) -> str:
    name = name.replace("|", "\\|")
    return name if len(name) <= n else name[: n - 1] + "…"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ours")
    ap.add_argument("torch_json")
    ap.add_argument("--label", required=True)
    ap.add_argument("--out")
    ap.add_argument("--md", help="also write the markdown table here")
    ap.add_argument("--marker", default="measure")
    ap.add_argument("--rel-tol", type=float, default=0.05)
    ap.add_argument("--abs-tol-us", type=float, default=1.0)
    ap.add_argument("--ours-log", help="our run's stdout: its WORKLOAD line's loss fingerprint is compared with "
                                       "torch's (reported, not checked)")
    args = ap.parse_args()

    v = Verdict(args.label)
    with open(args.torch_json) as fh:
        torch_data = json.load(fh)
    theirs = torch_data.get("kernels", [])
    v.info["torch"] = {k: torch_data.get(k) for k in ("torch", "workload", "cuda_events", "other_cuda_events",
                                                       "chrome_trace_error", "events_without_chrome_match", "summary")}

    if args.ours_log:
        ours_summary = None
        with open(args.ours_log, errors="replace") as fh:
            for line in fh:
                if line.startswith("WORKLOAD "):
                    ours_summary = json.loads(line[len("WORKLOAD "):])
        theirs_summary = torch_data.get("summary") or {}
        v.info["workload_fingerprint"] = {
            "ours_loss_sum": (ours_summary or {}).get("loss_sum"), "torch_loss_sum": theirs_summary.get("loss_sum"),
            "equal": ours_summary is not None and ours_summary.get("loss_sum") == theirs_summary.get("loss_sum")}

    window = benchlib.marker_window(args.ours, args.marker)
    n_markers = sum(1 for r in benchlib.read_rows(args.ours, "marker") if r.get("message") == args.marker)
    if not v.check("marker_window", window is not None, f"{n_markers} marker rows named {args.marker!r} (need 1)"):
        return v.emit(args.out)
    ours = benchlib.kernels_in_window(args.ours, window)
    v.info["window_ns"] = list(window)
    v.info["ours_total_kernel_rows"] = benchlib.count_rows(args.ours, "kernel_dispatch")
    v.check("kernels_present", bool(ours) and bool(theirs), f"ours {len(ours)} in window, torch {len(theirs)}")

    # Join keys.
    names = [r.get("mangled_name") or r.get("kernel_name") or "" for r in ours]
    filt = benchlib.demangle_cppfilt(names)
    for r, n in zip(ours, names):
        r["_key"] = filt.get(n, n)
    torch_names = {t["name"] for t in theirs}
    our_display = {r.get("kernel_name") or "" for r in ours}
    exact = our_display & torch_names
    differ = sorted({(r.get("kernel_name"), r["_key"]) for r in ours if r.get("kernel_name") != r["_key"]})
    v.info["kernel_name_equals_torch_name"] = {
        "distinct_ours": len(our_display), "equal_to_a_torch_name": len(exact),
        "examples_where_kernel_name_differs_from_cppfilt": [{"kernel_name": a, "c++filt": b} for a, b in differ[:10]],
    }

    ours_by = defaultdict(list)
    for r in ours:
        ours_by[r["_key"]].append(r)
    theirs_by = defaultdict(list)
    for t in theirs:
        theirs_by[t["name"]].append(t)

    only_ours = sorted(set(ours_by) - set(theirs_by))
    only_theirs = sorted(set(theirs_by) - set(ours_by))
    v.check("same_kernel_names", not only_ours and not only_theirs,
            {"only_ours": only_ours[:10], "only_torch": only_theirs[:10], "names": len(ours_by)})

    count_diff, slow, shape_diff, res_diff, rows = [], [], [], [], []
    for name in sorted(set(ours_by) | set(theirs_by)):
        o, t = ours_by.get(name, []), theirs_by.get(name, [])
        mo = statistics.median(r["duration_ns"] for r in o) if o else None
        mt = statistics.median(x["duration_ns"] for x in t) if t else None
        if len(o) != len(t):
            count_diff.append({"name": name, "ours": len(o), "torch": len(t)})
        ok_dur = None
        if mo is not None and mt is not None:
            tol = max(args.rel_tol * mt, args.abs_tol_us * 1000)
            ok_dur = abs(mo - mt) <= tol
            if not ok_dur:
                slow.append({"name": name, "ours_us": mo / 1e3, "torch_us": mt / 1e3, "tol_us": tol / 1e3})
        # Shapes: multisets per name, only where torch's args carry them.
        tg = [(triple(x.get("grid")), triple(x.get("block"))) for x in t]
        if o and t and all(g and b for g, b in tg):
            mine = Counter(our_blocks(r) for r in o)
            if mine != Counter(tg):
                shape_diff.append({"name": name, "ours": [list(map(list, k)) + [n] for k, n in mine.items() if k[0]],
                                   "torch": [list(map(list, k)) + [n] for k, n in Counter(tg).items()]})
        tr = [(x.get("registers per thread"), x.get("shared memory")) for x in t]
        if o and t and all(a is not None and b is not None for a, b in tr):
            mine = Counter((int(r["regs"]), int(r["shared_mem"])) for r in o)
            if mine != Counter((int(a), int(b)) for a, b in tr):
                res_diff.append({"name": name, "ours": [list(k) + [n] for k, n in mine.items()],
                                 "torch": [list(k) + [n] for k, n in Counter(tr).items()]})
        rows.append((sum(x["duration_ns"] for x in t), name, len(o), len(t), mo, mt, ok_dur))

    v.check("equal_counts_per_name", not count_diff, count_diff[:10] or f"{len(ours)} kernels, {len(ours_by)} names")
    v.check("median_duration_per_name", not slow,
            slow[:10] or f"every name within max({args.rel_tol:.0%}, {args.abs_tol_us} µs)")
    v.check("grid_block_per_name", not shape_diff, shape_diff[:5] or "equal where torch reports grid and block")
    v.check("registers_shared_memory_per_name", not res_diff,
            res_diff[:5] or "equal where torch reports registers and shared memory")

    total_o = sum(r["duration_ns"] for r in ours)
    total_t = sum(x["duration_ns"] for x in theirs)
    v.info["total_gpu_time_ns"] = {"ours": total_o, "torch": total_t,
                                   "ratio_ours_over_torch": (total_o / total_t) if total_t else None}
    v.info["kernels"] = {"ours": len(ours), "torch": len(theirs), "names": len(ours_by)}

    # The table, largest torch time first.
    lines = [f"### {args.label}: rocprof-rs vs torch.profiler (per kernel name)", "",
             "| kernel | count ours/torch | median ours µs | median torch µs | diff | ok |",
             "|---|---:|---:|---:|---:|:-:|"]
    for _, name, no, nt, mo, mt, ok in sorted(rows, key=lambda x: (-x[0], x[1])):
        diff = f"{(mo - mt) / mt:+.1%}" if mo is not None and mt else "—"
        fmt = (lambda x: f"{x / 1e3:.2f}" if x is not None else "—")
        okm = "✓" if ok and no == nt else "✗"
        lines.append(f"| `{short(name)}` | {no}/{nt} | {fmt(mo)} | {fmt(mt)} | {diff} | {okm} |")
    ratio = v.info["total_gpu_time_ns"]["ratio_ours_over_torch"]
    lines += ["", f"Total GPU time: ours {total_o / 1e6:.3f} ms, torch {total_t / 1e6:.3f} ms"
                  + (f" (ratio {ratio:.4f})" if ratio else ""),
              f"Kernels: ours {len(ours)}, torch {len(theirs)}; names {len(ours_by)}; our kernel_name equal to a "
              f"torch name for {len(exact)} of {len(our_display)} distinct names.", ""]
    table = "\n".join(lines)
    print(table)
    if args.md:
        with open(args.md, "w") as fh:
            fh.write(table + "\n")
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
