#!/usr/bin/env python3
"""Launch-overhead and equivalence workloads, driven from Python through libbench.so (kernels.cu).

    launch_bench.py --mode launches --n 100000
    launch_bench.py --mode graph --nodes 1000 --reps 200
    launch_bench.py --mode micro --reps 20
    ... [--torch-profiler [OUT.json]] [--lib PATH]

Every configuration imports torch first, profiled or not, so each pays the same start-up and
has torch's libcudart and libcupti loaded the same way (a tool that dlopens libcupti then finds
torch's copy, as it would in a real torch job).

The time is measured inside libbench (launches and graph modes: a host monotonic clock around
the launches and the final synchronize, after a warm-up; the work is split into --chunks calls
and their median is reported) or around one call that ends in a synchronize (micro mode), so
Python start-up and the profilers' set-up and tear-down are not in it. With --torch-profiler, the timed call runs inside
`torch.profiler.profile(activities=[ProfilerActivity.CUDA])`; given a path, the kernel events
are written there (torch_events.py); without one, they are only counted.

Micro mode runs one warm-up rep outside the measured window, then the measured reps between
torch.cuda.nvtx.range_push("measure") and range_pop(), with torch.cuda.synchronize() before
each, so rocprof-rs's marker table delimits exactly the measured kernels.

Prints one line: BENCH {"mode": ..., "us_per_op": ..., "kernels_launched": ..., ...}.
kernels_launched counts every kernel libbench launched (warm-ups too): what a tracer must have
recorded for this process.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import statistics
import sys
import time

import torch  # noqa: F401  (imported in every configuration, for fairness)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LIB = os.path.join(HERE, "build", "libbench.so")


def load(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    lib.empty_launches.argtypes = [ctypes.c_int]
    lib.empty_launches.restype = ctypes.c_double
    lib.graph_replays.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.graph_replays.restype = ctypes.c_double
    lib.micro.argtypes = [ctypes.c_int]
    lib.micro.restype = ctypes.c_int
    lib.bench_kernels_launched.argtypes = []
    lib.bench_kernels_launched.restype = ctypes.c_longlong
    return lib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["launches", "graph", "micro"], required=True)
    ap.add_argument("--n", type=int, default=100_000, help="launches mode: back-to-back launches")
    ap.add_argument("--nodes", type=int, default=1000, help="graph mode: kernels in the graph")
    ap.add_argument("--reps", type=int, default=200, help="graph mode: replays; micro mode: reps")
    ap.add_argument("--chunks", type=int, default=5,
                    help="launches and graph modes: split the work into this many timed calls and report "
                         "their median (one preempted stretch then moves the number little)")
    ap.add_argument("--torch-profiler", nargs="?", const="", default=None, metavar="OUT.json",
                    help="run the timed call under torch.profiler; write its kernel events to OUT.json")
    ap.add_argument("--lib", default=DEFAULT_LIB)
    args = ap.parse_args()

    lib = load(args.lib)
    profiling = args.torch_profiler is not None
    prof = None

    def profiler():
        nonlocal prof
        if not profiling:
            return contextlib.nullcontext()
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
        return prof

    result: dict = {"mode": args.mode, "torch_profiler": profiling, "pid": os.getpid()}
    chunks = max(1, args.chunks)

    def chunked(call) -> float:
        """The median of `chunks` timed calls; negative if any failed."""
        values = []
        for _ in range(chunks):
            values.append(call())
            if values[-1] < 0:
                return -1.0
        result["chunks_us"] = values
        return statistics.median(values)

    if args.mode == "launches":
        per = max(1, args.n // chunks)
        with profiler():
            us = chunked(lambda: lib.empty_launches(per))
        result.update(n=per * chunks, chunks=chunks, us_per_op=us, op="launch", kernels_timed=per * chunks)
    elif args.mode == "graph":
        per = max(1, args.reps // chunks)
        with profiler():
            us = chunked(lambda: lib.graph_replays(args.nodes, per))
        result.update(nodes=args.nodes, reps=per * chunks, chunks=chunks, us_per_op=us, op="graph kernel",
                      kernels_timed=args.nodes * per * chunks)
    else:
        if lib.micro(1) < 0:  # warm-up: allocations, fills, module load; outside the window
            print("launch_bench: micro warm-up failed", file=sys.stderr)
            return 1
        torch.cuda.synchronize()
        with profiler():
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("measure")
            t0 = time.perf_counter()
            k = lib.micro(args.reps)
            t1 = time.perf_counter()  # micro() ends in cudaDeviceSynchronize
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        us = (t1 - t0) * 1e6 / args.reps if k >= 0 else -1.0
        result.update(reps=args.reps, us_per_op=us, op="micro rep", kernels_timed=k)

    result["kernels_launched"] = lib.bench_kernels_launched()
    if us < 0:
        print(f"launch_bench: a CUDA call failed in mode {args.mode}", file=sys.stderr)
        print("BENCH " + json.dumps(result), flush=True)
        return 1
    if prof is not None:
        import torch_events

        if args.torch_profiler:
            data = torch_events.write(prof, args.torch_profiler, extra={"workload": f"launch_bench {args.mode}"})
            result["torch_kernel_events"] = len(data["kernels"])
        else:
            result["torch_kernel_events"] = torch_events.count_kernel_events(prof)
    print("BENCH " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
