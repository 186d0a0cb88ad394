"""The CUDA kernel events of a finished torch.profiler run, as compare_torch.py reads them.

Two sources, joined:
- `prof.profiler.kineto_results.events()`, filtered to `device_type() == CUDA`: name (Kineto
  demangles with abi::__cxa_demangle), duration_ns, correlation_id, device_resource_id (the
  stream) and start_ns (Kineto's clock, epoch-based: only durations compare with ours);
- the chrome trace (`prof.export_chrome_trace`), for each event's category ("kernel",
  "gpu_memcpy", "gpu_memset") and a kernel's args: grid and block in blocks, registers per
  thread, shared memory (static + dynamic).

Kineto's CUDA events include copies and memsets; only category "kernel" is kept (by name prefix
"Memcpy"/"Memset" when the chrome trace could not be read). Events are matched between the two
sources by (correlation id, name) and then by start time, since a graph replay's kernels all
carry the correlation id of their cudaGraphLaunch.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter, defaultdict
from typing import Any

KERNEL_ARGS = ("grid", "block", "registers per thread", "shared memory", "stream", "device", "context")


def _chrome_events(prof) -> tuple[dict, str | None]:
    """(correlation, name) -> [(ts, cat, args)] for GPU events of the chrome trace."""
    groups: dict = defaultdict(list)
    fd, path = tempfile.mkstemp(suffix=".json", prefix="kineto-")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as fh:
            trace = json.load(fh)
    except Exception as e:  # a failed export leaves the name-prefix fallback
        return {}, f"{type(e).__name__}: {e}"
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    for ev in trace.get("traceEvents", []) if isinstance(trace, dict) else trace:
        cat = ev.get("cat")
        if cat not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        args = ev.get("args", {}) or {}
        groups[(args.get("correlation"), ev.get("name"))].append((float(ev.get("ts", 0)), cat, args))
    for key in groups:
        groups[key].sort(key=lambda x: x[0])
    return groups, None


def kernel_events(prof, with_chrome: bool = True) -> dict[str, Any]:
    """The kernel events of `prof` (a torch.profiler.profile that has exited)."""
    import torch

    cuda = torch.autograd.DeviceType.CUDA
    raw = []
    for e in prof.profiler.kineto_results.events():
        if e.device_type() != cuda:
            continue
        raw.append({"name": e.name(), "duration_ns": int(e.duration_ns()), "correlation_id": int(e.correlation_id()),
                    "stream": int(e.device_resource_id()), "start_ns": int(e.start_ns())})

    chrome, chrome_error = _chrome_events(prof) if with_chrome else ({}, "not requested")
    by_key: dict = defaultdict(list)
    for ev in raw:
        by_key[(ev["correlation_id"], ev["name"])].append(ev)

    kernels, other = [], Counter()
    unmatched = 0
    for key, evs in by_key.items():
        evs.sort(key=lambda x: x["start_ns"])
        cands = chrome.get(key, [])
        if len(cands) != len(evs):
            unmatched += len(evs)
            cands = []
        for i, ev in enumerate(evs):
            if cands:
                _, cat, args = cands[i]
            else:
                name = ev["name"]
                cat = "gpu_memcpy" if name.startswith("Memcpy") else "gpu_memset" if name.startswith("Memset") else "kernel"
                args = {}
            if cat != "kernel":
                other[cat] += 1
                continue
            out = dict(ev)
            for k in KERNEL_ARGS:
                if k in args:
                    out[k] = args[k]
            kernels.append(out)
    kernels.sort(key=lambda x: x["start_ns"])
    return {
        "source": "torch.profiler",
        "torch": torch.__version__,
        "cuda_events": len(raw),
        "kernels": kernels,
        "other_cuda_events": dict(other),
        "chrome_trace_error": chrome_error,
        "events_without_chrome_match": unmatched,
    }


def count_kernel_events(prof) -> int:
    """Cheap count of Kineto's CUDA kernel events (copies and memsets excluded by name)."""
    import torch

    cuda = torch.autograd.DeviceType.CUDA
    return sum(1 for e in prof.profiler.kineto_results.events()
               if e.device_type() == cuda and not e.name().startswith(("Memcpy", "Memset")))


def write(prof, path: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    data = kernel_events(prof)
    if extra:
        data.update(extra)
    with open(path, "w") as fh:
        json.dump(data, fh)
    return data
