#!/usr/bin/env python3
"""Checks rocprof-rs's Parquet output for capp against capp's own account (its EXPECT line).

    check_capp.py DIR --stdout CAPP_STDOUT [--cuda-api required|absent|auto] [--label NAME]
                      [--out verdict.json]

DIR is the dataset (`rocprof-rs run -d DIR ... -- capp`); CAPP_STDOUT is capp's standard output,
which holds the `EXPECT {...}` line and `APP ok`. Every count is taken from EXPECT, so nothing is
written down twice. What is checked (each a named check in the verdict):

- kernels: the exact count, per kernel, and per launch configuration (blocks, block, shared
  memory, in a graph or not); grid is in work-items (gridDim*blockDim) so blocks = grid // block;
  ks has blocks 3x2x1 (grid 768x2x1), block 256, shared_mem 1024+128; kc has cluster 2,1,1;
  registers equal cudaFuncGetAttributes' numRegs; names are demangled;
- graphs: graph kernels have graph_id != 0 (direct ones 0), one correlation id per replay with
  one row per node, the same node ids in each replay;
- memory_copy: the exact count per operation (memsets are MEMORY_SET), bytes, and the two
  memsets on two different streams;
- marker: ranges outer, dr (domain dom), se and the mark mark, each exactly once; every kernel
  and copy lies inside "outer" (the markers' host times and the GPU times share one clock);
- cuda_api (when present or required): every kernel's correlation id has an API row of the
  expected operation (cudaLaunchKernel, cudaLaunchKernelExC, cudaLaunchCooperativeKernel,
  cudaGraphLaunch) that started before the kernel did; with --cuda-api absent, no rows;
- every table: timestamps > 0, end >= start, duration = end - start, inside capp's lifetime
  (CLOCK_BOOTTIME readings in EXPECT), vendor "nvidia", pid = capp's;
- metadata: nothing dropped.

Prints one line per check and a JSON verdict; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict

import benchlib
from benchlib import Verdict

# An API row's start may trail the kernel's by CUPTI's GPU-to-host time conversion error; more
# than this would mean the clocks disagree.
CLOCK_SLACK_NS = 5_000


def parse_stdout(path: str) -> tuple[dict | None, bool]:
    expect, app_ok = None, False
    with open(path, errors="replace") as fh:
        for line in fh:
            if line.startswith("EXPECT "):
                expect = json.loads(line[len("EXPECT "):])
            elif line.strip() == "APP ok":
                app_ok = True
    return expect, app_ok


def source_name(row: dict) -> str:
    """capp's kernels are free functions: _Z<len><name>... gives the source name exactly."""
    mangled = row.get("mangled_name") or ""
    m = re.match(r"_Z(\d+)", mangled)
    if m:
        n = int(m.group(1))
        return mangled[m.end(): m.end() + n]
    name = row.get("kernel_name") or ""
    m = re.match(r"(?:void\s+)?([A-Za-z_]\w*)", name)
    return m.group(1) if m else name


def blocks_of(row: dict) -> tuple[int, int, int] | None:
    """Blocks per dimension from work-items; None if the grid is not a multiple of the block."""
    out = []
    for a in "xyz":
        g, b = int(row[f"grid_{a}"]), int(row[f"block_{a}"])
        if b <= 0 or g % b:
            return None
        out.append(g // b)
    return tuple(out)


def dims(row: dict, prefix: str) -> tuple[int, int, int]:
    return tuple(int(row.get(f"{prefix}_{a}") or 0) for a in "xyz")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("--stdout", required=True, help="capp's standard output (holds EXPECT)")
    ap.add_argument("--cuda-api", choices=["required", "absent", "auto"], default="auto")
    ap.add_argument("--label", default="capp")
    ap.add_argument("--out", help="write the JSON verdict here")
    args = ap.parse_args()

    v = Verdict(args.label)
    expect, app_ok = parse_stdout(args.stdout)
    v.check("app_ok", app_ok, "capp printed 'APP ok'" if app_ok else "no 'APP ok' line in capp's output")
    if expect is None:
        v.check("expect_line", False, "no EXPECT line in capp's output")
        return v.emit(args.out)
    v.info["expect"] = expect
    d = args.dataset

    kernels = benchlib.read_rows(d, "kernel_dispatch")
    copies = benchlib.read_rows(d, "memory_copy")
    markers = benchlib.read_rows(d, "marker")
    api = benchlib.read_rows(d, "cuda_api")
    agents = benchlib.read_rows(d, "agent")
    symbols = benchlib.read_rows(d, "kernel_symbol")
    v.info["rows"] = {"kernel_dispatch": len(kernels), "memory_copy": len(copies), "marker": len(markers),
                      "cuda_api": len(api), "agent": len(agents), "kernel_symbol": len(symbols)}

    # ---- kernels -------------------------------------------------------------------------------
    v.check("kernel_count", len(kernels) == expect["kernels"], f"{len(kernels)} rows, expected {expect['kernels']}")
    by_name = Counter(source_name(r) for r in kernels)
    v.check("kernels_by_name", dict(by_name) == expect["kernels_by_name"],
            {"ours": dict(by_name), "expected": expect["kernels_by_name"]})

    # Demangled names: capp's kernels take pointer arguments, so "k1(float*)" and so on.
    bad_names = sorted({(r.get("kernel_name"), r.get("mangled_name")) for r in kernels
                        if not str(r.get("kernel_name") or "").startswith(source_name(r) + "(")})
    v.check("kernel_name_demangled", not bad_names, bad_names[:5] or "every kernel_name is '<name>(<args>)'")

    attrs = expect["attrs"]
    ungridded = [r for r in kernels if blocks_of(r) is None]
    v.check("grid_is_workitems", not ungridded,
            [(source_name(r), dims(r, "grid"), dims(r, "block")) for r in ungridded[:5]] or
            "every grid_* is a multiple of block_*")

    # Launch configurations as a multiset: (name, blocks, block, shared_mem, in_graph) -> count.
    want = Counter()
    for launch in expect["launches"]:
        smem = attrs[launch["kernel"]]["static_smem"] + launch["dynamic_smem"]
        key = (launch["kernel"], tuple(launch["blocks"]), tuple(launch["block"]), smem, launch["in_graph"])
        want[key] += launch["count"]
    got = Counter((source_name(r), blocks_of(r), dims(r, "block"), int(r["shared_mem"]), int(r.get("graph_id") or 0) != 0)
                  for r in kernels)
    v.check("launch_configurations", got == want,
            {"missing": [list(k) + [n] for k, n in (want - got).items()],
             "unexpected": [list(k) + [n] for k, n in (got - want).items()]})

    ks = [r for r in kernels if source_name(r) == "ks"]
    ks_ok = len(ks) == 1 and blocks_of(ks[0]) == (3, 2, 1) and dims(ks[0], "grid") == (768, 2, 1) \
        and dims(ks[0], "block") == (256, 1, 1) and int(ks[0]["shared_mem"]) == 1024 + 128
    v.check("ks_shape", ks_ok, [{"grid": dims(r, "grid"), "block": dims(r, "block"), "blocks": blocks_of(r),
                                 "shared_mem": r["shared_mem"], "regs": r.get("regs")} for r in ks])

    kc = [r for r in kernels if source_name(r) == "kc"]
    v.check("kc_cluster", len(kc) == 1 and dims(kc[0], "cluster") == tuple(expect["cluster"]["kc"]),
            [dims(r, "cluster") for r in kc])
    v.info["cluster_of_other_kernels"] = sorted({str(dims(r, "cluster")) for r in kernels if source_name(r) != "kc"})

    # CUPTI's registersPerThread is the allocation (rounded up to the hardware's granularity:
    # 16 for a kernel cudaFuncGetAttributes says uses 8 on an H100, as the seed probe also saw),
    # and it is what torch.profiler reports too (the equivalence stage compares them). So the
    # function's own count is a lower bound, and one kernel's rows must all agree.
    wrong_regs = sorted({(source_name(r), r.get("regs"), attrs[source_name(r)]["regs"]) for r in kernels
                         if source_name(r) in attrs and int(r.get("regs") or 0) < attrs[source_name(r)]["regs"]})
    per_kernel = defaultdict(set)
    for r in kernels:
        per_kernel[source_name(r)].add(int(r.get("regs") or 0))
    v.check("regs_cover_func_attributes", not wrong_regs and all(len(s) == 1 for s in per_kernel.values()),
            wrong_regs or {k: {"cupti": sorted(per_kernel.get(k, ())), "func_attributes": a["regs"]}
                           for k, a in attrs.items()})

    # ---- graphs --------------------------------------------------------------------------------
    graph_rows = [r for r in kernels if int(r.get("graph_id") or 0) != 0]
    v.check("graph_kernels", len(graph_rows) == expect["graph_kernels"],
            f"{len(graph_rows)} rows with graph_id != 0, expected {expect['graph_kernels']}")
    replays = defaultdict(list)
    for r in graph_rows:
        replays[r["correlation_id"]].append(r)
    node_sets = [sorted(int(r.get("graph_node_id") or 0) for r in rows) for rows in replays.values()]
    replay_ok = (len(replays) == expect["graph_launches"]
                 and all(len(rows) == expect["graph_nodes"] for rows in replays.values())
                 and all(len(set(s)) == expect["graph_nodes"] and 0 not in s for s in node_sets)
                 and all(s == node_sets[0] for s in node_sets))
    v.check("graph_replays", replay_ok,
            {"correlation_ids": sorted(replays), "rows_per_replay": [len(x) for x in replays.values()],
             "node_ids": node_sets})
    graph_streams = {r.get("stream_id") for r in graph_rows}
    direct_streams = {r.get("stream_id") for r in kernels if int(r.get("graph_id") or 0) == 0}
    v.check("stream_ids", None not in graph_streams | direct_streams and len(graph_streams) == 1
            and not (graph_streams & direct_streams),
            {"graph": sorted(map(str, graph_streams)), "direct": sorted(map(str, direct_streams))})

    # ---- copies and memsets --------------------------------------------------------------------
    want_ops = dict(expect["copies_by_op"])
    want_ops["MEMORY_SET"] = expect["memsets"]
    got_ops = Counter(r["operation"] for r in copies)
    v.check("memory_copy_operations", dict(got_ops) == want_ops, {"ours": dict(got_ops), "expected": want_ops})
    wrong_bytes = [(r["operation"], r["bytes"]) for r in copies
                   if int(r["bytes"]) != (expect["memset_bytes"] if r["operation"] == "MEMORY_SET" else expect["copy_bytes"])]
    v.check("memory_copy_bytes", not wrong_bytes, wrong_bytes[:5] or "every row 1 MiB")
    memset_streams = {r.get("stream_id") for r in copies if r["operation"] == "MEMORY_SET"}
    v.check("memset_streams", len(memset_streams) == expect["memset_distinct_streams"] and None not in memset_streams,
            sorted(map(str, memset_streams)))

    # ---- markers -------------------------------------------------------------------------------
    optional = set(expect.get("optional_markers", []))
    v.info["optional_markers_seen"] = sorted({r["message"] for r in markers if r.get("message") in optional})
    core = [r for r in markers if r.get("message") not in optional]
    v.check("marker_count", len(core) == expect["markers"],
            f"{len(core)} rows (besides optional {sorted(optional)}), expected {expect['markers']}")
    v.info["markers"] = [{k: r.get(k) for k in ("message", "operation", "domain", "depth", "duration_ns")} for r in markers]
    for want_marker, op in [(m, "nvtx_range") for m in expect["ranges"]] + [(m, "nvtx_mark") for m in expect["marks"]]:
        rows = [r for r in markers if r.get("message") == want_marker["message"]]
        ok = (len(rows) == 1 and rows[0].get("operation") == op and rows[0].get("domain") == want_marker["domain"]
              and (op != "nvtx_mark" or rows[0]["start_ns"] == rows[0]["end_ns"]))
        v.check(f"marker_{want_marker['message']}", ok,
                [{k: r.get(k) for k in ("operation", "domain", "start_ns", "end_ns", "depth")} for r in rows]
                or f"no marker row '{want_marker['message']}'")

    outer = [r for r in markers if r.get("message") == expect["enclosing_range"]]
    if len(outer) == 1:
        lo, hi = outer[0]["start_ns"], outer[0]["end_ns"]
        outside = [(source_name(r) if "grid_x" in r else r.get("operation"), r["start_ns"] - lo, hi - r["end_ns"])
                   for r in kernels + copies if r["start_ns"] < lo or r["end_ns"] > hi]
        v.check("gpu_work_inside_outer_range", not outside,
                outside[:5] or "every kernel and copy lies inside 'outer' (one clock for host and GPU)")

    # ---- cuda_api ------------------------------------------------------------------------------
    present = benchlib.has_table(d, "cuda_api")
    v.info["cuda_api_operations"] = dict(Counter(r["operation"] for r in api))
    if args.cuda_api == "absent":
        v.check("cuda_api_absent", not api, f"{len(api)} cuda_api rows without --cuda-api-trace")
    elif args.cuda_api == "required" or present:
        v.check("cuda_api_present", bool(api), f"{len(api)} rows")
        api_by_corr = defaultdict(list)
        for r in api:
            api_by_corr[r["correlation_id"]].append(r)
        # The API each kernel row should come from: from its launch configuration.
        api_of = {}
        for launch in expect["launches"]:
            smem = attrs[launch["kernel"]]["static_smem"] + launch["dynamic_smem"]
            api_of[(launch["kernel"], tuple(launch["blocks"]), tuple(launch["block"]), smem, launch["in_graph"])] = launch["api"]
        unmatched, wrong_op, late = [], [], []
        for r in kernels:
            rows = api_by_corr.get(r["correlation_id"], [])
            key = (source_name(r), blocks_of(r), dims(r, "block"), int(r["shared_mem"]), int(r.get("graph_id") or 0) != 0)
            if not rows:
                unmatched.append((key[0], r["correlation_id"]))
                continue
            expected_op = api_of.get(key)
            if expected_op and all(a["operation"] != expected_op for a in rows):
                wrong_op.append((key[0], expected_op, sorted({a["operation"] for a in rows})))
            if min(a["start_ns"] for a in rows) > r["start_ns"] + CLOCK_SLACK_NS:
                late.append((key[0], min(a["start_ns"] for a in rows) - r["start_ns"]))
        v.check("cuda_api_correlation", not unmatched,
                unmatched[:5] or "every kernel's correlation_id has a cuda_api row")
        v.check("cuda_api_operation", not wrong_op, wrong_op[:5] or "each kernel's API row has the expected operation")
        v.check("cuda_api_before_kernel", not late,
                late[:5] or f"every API call started before its kernel (slack {CLOCK_SLACK_NS} ns)")
        n_graph = sum(1 for r in api if r["operation"] == "cudaGraphLaunch")
        v.check("cuda_api_graph_launches", n_graph == expect["graph_launches"],
                f"{n_graph} cudaGraphLaunch rows, expected {expect['graph_launches']}")

    # ---- every table: timestamps, vendor, pid --------------------------------------------------
    t0, t1 = expect["boottime_start_ns"], expect["boottime_end_ns"]
    for table, rows in [("kernel_dispatch", kernels), ("memory_copy", copies), ("marker", markers), ("cuda_api", api)]:
        bad = [r for r in rows if not (r["start_ns"] > 0 and r["end_ns"] >= r["start_ns"]
                                       and ("duration_ns" not in r or r["duration_ns"] == r["end_ns"] - r["start_ns"]))]
        v.check(f"{table}_timestamps_valid", not bad,
                [{k: r.get(k) for k in ("start_ns", "end_ns", "duration_ns")} for r in bad[:3]] or f"{len(rows)} rows")
        outside = [r for r in rows if r["start_ns"] < t0 or r["end_ns"] > t1]
        v.check(f"{table}_inside_process_lifetime", not outside,
                [(r["start_ns"] - t0, t1 - r["end_ns"]) for r in outside[:3]] or "CLOCK_BOOTTIME, inside capp's run")
    for table, rows in [("kernel_dispatch", kernels), ("memory_copy", copies), ("marker", markers),
                        ("cuda_api", api), ("kernel_symbol", symbols), ("agent", agents)]:
        if rows and "vendor" in rows[0]:
            vendors = Counter(r["vendor"] for r in rows)
            v.check(f"{table}_vendor", set(vendors) == {"nvidia"}, dict(vendors))
        if rows and "pid" in rows[0]:
            pids = Counter(r["pid"] for r in rows)
            v.check(f"{table}_pid", set(pids) == {expect["pid"]}, {"pids": dict(pids), "capp": expect["pid"]})

    # ---- agent and metadata --------------------------------------------------------------------
    v.check("agent_rows", bool(agents), [{k: a.get(k) for k in ("agent_type", "name", "product_name", "cu_count")}
                                         for a in agents])
    metadata = benchlib.read_metadata(d)
    dropped = benchlib.dropped_total(metadata)
    v.check("metadata_nothing_dropped", bool(metadata) and dropped == 0,
            {"files": len(metadata), "dropped": [m.get("dropped") for m in metadata]})
    v.info["metadata_records"] = [m.get("records") for m in metadata]
    v.info["metadata_cupti"] = [{k: val for k, val in m.items() if "cupti" in k or k == "rocprof_rs.backend"}
                                for m in metadata]
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
