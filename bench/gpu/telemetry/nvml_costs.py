#!/usr/bin/env python3
"""What each NVML reading the device sampler makes costs, idle and under a bf16 GEMM load.

    nvml_costs.py [--calls 200] [--out FILE.json]

Calls libnvidia-ml.so.1 through ctypes (no pynvml), the functions the sampler calls, each
--calls times on GPU 0, and prints the median and p90 microseconds per call. It informs which
readings the sampler takes every tick; it checks nothing.
"""

import argparse
import ctypes
import json
import statistics
import subprocess
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--out")
    args = ap.parse_args()
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    handle = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0
    u32, u64 = ctypes.c_uint(), ctypes.c_ulonglong()
    mem = (ctypes.c_ulonglong * 3)()
    util = (ctypes.c_uint * 2)()
    reasons = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or nvml.nvmlDeviceGetCurrentClocksThrottleReasons
    calls = {
        "power_usage": lambda: nvml.nvmlDeviceGetPowerUsage(handle, ctypes.byref(u32)),
        "total_energy": lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(u64)),
        "clock_sm": lambda: nvml.nvmlDeviceGetClockInfo(handle, 1, ctypes.byref(u32)),
        "clock_mem": lambda: nvml.nvmlDeviceGetClockInfo(handle, 2, ctypes.byref(u32)),
        "memory_info": lambda: nvml.nvmlDeviceGetMemoryInfo(handle, mem),
        "utilization": lambda: nvml.nvmlDeviceGetUtilizationRates(handle, util),
        "temperature": lambda: nvml.nvmlDeviceGetTemperature(handle, 0, ctypes.byref(u32)),
        "clocks_event_reasons": lambda: reasons(handle, ctypes.byref(u64)),
    }

    def measure(label):
        result = {}
        for name, call in calls.items():
            times, rc = [], 0
            for _ in range(args.calls):
                t0 = time.perf_counter_ns()
                rc = call()
                times.append((time.perf_counter_ns() - t0) / 1e3)
            times.sort()
            result[name] = {"rc": rc, "median_us": statistics.median(times), "p90_us": times[int(0.9 * len(times))]}
            print(f"{label:5} {name:22} rc {rc}  median {result[name]['median_us']:8.1f} us  p90 {result[name]['p90_us']:8.1f} us")
        return result

    report = {"idle": measure("idle")}
    load = subprocess.Popen(
        [sys.executable, "-c",
         "import torch,time\na=torch.randn(8192,8192,device='cuda',dtype=torch.bfloat16)\nt=time.time()\n"
         "while time.time()-t<25:\n  c=a@a\ntorch.cuda.synchronize()"])
    time.sleep(6)
    report["load"] = measure("load")
    load.kill()
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
