#!/usr/bin/env python3
"""The `telemetry` stage's workload (issue 24): an idle CUDA context, or a bf16 GEMM loop, with its
own account of what it did and when, for check_telemetry.py to hold the device samples against.

    workload.py idle [--seconds 5] [--report FILE]
    workload.py gemm [--seconds 15 | --iters N] [--size 8192] [--settle-seconds 0] [--report FILE]

Both modes first measure the CUDA context (below), then:

- idle: sleep --seconds with the context alive and the GPU idle. The window is the sleep.
- gemm: `torch.matmul(a, b, out=c)` on --size square bf16 matrices (tensor cores, cuBLAS), after
  a warm-up of --warmup products and a synchronize, for --seconds, or for exactly --iters products
  when given. The loop runs in chunks of --chunk products, each followed by a synchronize (so the
  host never queues more than a chunk ahead, and the time check in --seconds mode ends the loop
  within a chunk, ~35 ms on an H100); the last synchronize is inside the timed loop. The loop is
  the NVTX range `gemm loop` (torch.cuda.nvtx). --settle-seconds: sleep that long after the loop
  with the GPU idle before exiting, so the sampled power (a ~1 s average on recent drivers) falls
  back to idle before the sampler stops and the run's two ends are alike (check_telemetry.py's
  energy check integrates the whole run).

The window: CLOCK_BOOTTIME (the tables' clock) at its start and end (`boottime_start_ns`,
`boottime_end_ns`), each read together with CLOCK_REALTIME (`realtime_*_ns`, the mean of the
realtime reads on either side of the boottime read) so a checker can place wall-clock
timestamps (nvidia-smi's) on the tables' clock. `loop_seconds` is time.perf_counter around the
loop (after the warm-up's synchronize, up to the last synchronize).

The context (`context_bytes`): device memory this process holds that torch's caching allocator
does not account for (the CUDA context, loaded modules, CUPTI's and cuBLAS's own allocations
made at that point). Measured with NVML's nvmlDeviceGetMemoryInfo, the call the rocprof-rs sampler
makes for `memory_used_bytes`, so both sides count alike (v1 `used` includes the driver's
reserved memory; the difference cancels it): `used` of this GPU before CUDA is initialised, and
again right after `torch.cuda.init(); torch.zeros(1, device='cuda'); torch.cuda.synchronize()`;
context_bytes = used_after − used_before − torch.cuda.memory_reserved() (the zeros' 2 MiB
segment is torch's). `memory_before_init` is the GPU's used memory before CUDA init (other
processes and the driver's reservation): the baseline the sampled memory sits on. When NVML
cannot be loaded through ctypes, `nvidia-smi --query-gpu=uuid,memory.used` (MiB) stands in and
`context_method` says so; torch.cuda.mem_get_info after init is reported in both cases.

Prints one JSON line (the report) on stdout and writes it to --report FILE when given. Only
torch and the standard library.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time


def clocks() -> tuple[int, int]:
    """(CLOCK_BOOTTIME ns, CLOCK_REALTIME ns) read together."""
    r0 = time.time_ns()
    b = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    r1 = time.time_ns()
    return b, (r0 + r1) // 2


def norm_uuid(u: object) -> str:
    """A GPU UUID as 32 lowercase hex digits, whatever the spelling (NVML's `GPU-...`, torch's)."""
    s = str(u or "").strip().lower()
    if s.startswith("gpu-"):
        s = s[4:]
    return "".join(c for c in s if c in "0123456789abcdef")


class NvmlMemory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


def nvml_memory() -> dict[str, dict]:
    """uuid (normalised) -> {index, uuid, used, total} of every GPU by NVML's
    nvmlDeviceGetMemoryInfo (v1, as the sampler reads it). Raises on any failure."""
    lib = ctypes.CDLL("libnvidia-ml.so.1")
    lib.nvmlInit_v2.restype = ctypes.c_int
    lib.nvmlDeviceGetCount_v2.argtypes = [ctypes.POINTER(ctypes.c_uint)]
    lib.nvmlDeviceGetHandleByIndex_v2.argtypes = [ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]
    lib.nvmlDeviceGetUUID.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint]
    lib.nvmlDeviceGetMemoryInfo.argtypes = [ctypes.c_void_p, ctypes.POINTER(NvmlMemory)]
    rc = lib.nvmlInit_v2()
    if rc != 0:
        raise RuntimeError(f"nvmlInit_v2 returned {rc}")
    out: dict[str, dict] = {}
    try:
        count = ctypes.c_uint(0)
        rc = lib.nvmlDeviceGetCount_v2(ctypes.byref(count))
        if rc != 0:
            raise RuntimeError(f"nvmlDeviceGetCount_v2 returned {rc}")
        for i in range(count.value):
            h = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)) != 0:
                continue
            buf = ctypes.create_string_buffer(96)
            named = lib.nvmlDeviceGetUUID(h, buf, 96) == 0
            uuid = buf.value.decode(errors="replace") if named else ""
            mem = NvmlMemory()
            if lib.nvmlDeviceGetMemoryInfo(h, ctypes.byref(mem)) != 0:
                continue
            out[norm_uuid(uuid) or f"index{i}"] = {"index": i, "uuid": uuid, "used": int(mem.used),
                                                   "total": int(mem.total)}
    finally:
        lib.nvmlShutdown()
    if not out:
        raise RuntimeError("NVML listed no GPU with memory info")
    return out


def smi_memory() -> dict[str, dict]:
    """The same from nvidia-smi (MiB; its `used` leaves the driver's reservation out)."""
    text = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,memory.used,memory.total",
                           "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30,
                          check=True).stdout
    out: dict[str, dict] = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 4:
            try:
                out[norm_uuid(parts[1])] = {"index": int(parts[0]), "uuid": parts[1], "used": int(float(parts[2])) << 20,
                                            "total": int(float(parts[3])) << 20}
            except ValueError:
                pass
    if not out:
        raise RuntimeError("nvidia-smi listed no GPU")
    return out


def memory_snapshot() -> tuple[dict[str, dict] | None, str]:
    try:
        return nvml_memory(), "nvml_v1"
    except Exception as e:  # noqa: BLE001 - any failure: the fallback
        first = f"{type(e).__name__}: {e}"
    try:
        return smi_memory(), f"nvidia-smi (NVML via ctypes failed: {first})"
    except Exception as e:  # noqa: BLE001
        return None, f"none (NVML: {first}; nvidia-smi: {type(e).__name__}: {e})"


def pick(snapshot: dict[str, dict] | None, uuid: str) -> dict | None:
    """This GPU's entry: by UUID, else the only GPU there is."""
    if not snapshot:
        return None
    if uuid and uuid in snapshot:
        return snapshot[uuid]
    return next(iter(snapshot.values())) if len(snapshot) == 1 else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["idle", "gemm"])
    ap.add_argument("--seconds", type=float, default=None, help="idle: the sleep (5); gemm: the loop's length (15)")
    ap.add_argument("--iters", type=int, default=None, help="gemm: exactly this many products instead of --seconds")
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--chunk", type=int, default=20, help="gemm: products between synchronizes")
    ap.add_argument("--settle-seconds", type=float, default=0.0, help="gemm: idle sleep after the loop")
    ap.add_argument("--device", type=int, default=0, help="the CUDA ordinal")
    ap.add_argument("--report")
    args = ap.parse_args()

    before, method = memory_snapshot()  # before anything touches CUDA
    import torch

    dev = args.device
    torch.cuda.init()
    torch.cuda.set_device(dev)
    torch.zeros(1, device=f"cuda:{dev}")
    torch.cuda.synchronize(dev)
    after, method_after = memory_snapshot()
    reserved_at_init = torch.cuda.memory_reserved(dev)
    free_init, total_init = torch.cuda.mem_get_info(dev)
    props = torch.cuda.get_device_properties(dev)
    raw = getattr(props, "uuid", None)
    uuid_raw = str(raw or "")
    uuid = norm_uuid(uuid_raw)
    if len(uuid) != 32 and raw is not None and hasattr(raw, "bytes"):  # not a UUID's text: its 16 bytes
        try:
            uuid = bytes(bytearray(raw.bytes))[:16].hex()
        except (TypeError, ValueError):
            pass
    b_ent, a_ent = pick(before, uuid), pick(after, uuid)
    report: dict = {
        "mode": args.mode,
        "pid": os.getpid(),
        "device": dev,
        "device_name": props.name,
        "device_uuid": uuid_raw,
        "device_uuid_norm": uuid,
        "nvml_index": (a_ent or b_ent or {}).get("index"),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "context_method": method if method == method_after else f"{method} / after: {method_after}",
        "memory_before_init": None if b_ent is None else b_ent["used"],
        "memory_after_init": None if a_ent is None else a_ent["used"],
        "memory_total": None if a_ent is None else a_ent["total"],
        "reserved_at_init": reserved_at_init,
        "context_bytes": None,
        "cuda_mem_get_info_after_init": {"free": free_init, "total": total_init, "used": total_init - free_init},
    }
    if b_ent is not None and a_ent is not None and method == method_after:
        report["context_bytes"] = a_ent["used"] - b_ent["used"] - reserved_at_init

    if args.mode == "idle":
        seconds = 5.0 if args.seconds is None else args.seconds
        torch.cuda.nvtx.range_push("idle")
        b0, r0 = clocks()
        t0 = time.perf_counter()
        time.sleep(seconds)
        t1 = time.perf_counter()
        b1, r1 = clocks()
        torch.cuda.nvtx.range_pop()
        report.update(iterations=0, loop_seconds=t1 - t0)
    else:
        n = args.size
        g = torch.Generator(device=f"cuda:{dev}")
        g.manual_seed(24)
        a = torch.randn(n, n, device=f"cuda:{dev}", dtype=torch.bfloat16, generator=g)
        b = torch.randn(n, n, device=f"cuda:{dev}", dtype=torch.bfloat16, generator=g)
        c = torch.empty(n, n, device=f"cuda:{dev}", dtype=torch.bfloat16)
        for _ in range(args.warmup):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize(dev)
        seconds = 15.0 if args.seconds is None else args.seconds
        it = 0
        torch.cuda.nvtx.range_push("gemm loop")
        b0, r0 = clocks()
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            k = args.chunk if args.iters is None else min(args.chunk, args.iters - it)
            for _ in range(k):
                torch.matmul(a, b, out=c)
            it += k
            torch.cuda.synchronize(dev)
            if args.iters is not None:
                if it >= args.iters:
                    break
            elif time.perf_counter() >= deadline:
                break
        t1 = time.perf_counter()
        b1, r1 = clocks()
        torch.cuda.nvtx.range_pop()
        flops = 2.0 * n * n * n * it
        report.update(iterations=it, loop_seconds=t1 - t0, size=n, dtype="bfloat16", chunk=args.chunk,
                      warmup=args.warmup, fixed_iters=args.iters is not None,
                      tflops=flops / (t1 - t0) / 1e12 if t1 > t0 else None,
                      checksum=float(c[0, :8].float().sum().item()))
    report.update(boottime_start_ns=b0, boottime_end_ns=b1, realtime_start_ns=r0, realtime_end_ns=r1,
                  max_memory_reserved=torch.cuda.max_memory_reserved(dev),
                  max_memory_allocated=torch.cuda.max_memory_allocated(dev))
    if args.mode == "gemm" and args.settle_seconds > 0:
        time.sleep(args.settle_seconds)
        report["settle_seconds"] = args.settle_seconds
    b2, r2 = clocks()
    report.update(boottime_exit_ns=b2, realtime_exit_ns=r2)
    text = json.dumps(report)
    if args.report:
        with open(args.report, "w") as fh:
            fh.write(text + "\n")
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
