#!/usr/bin/env python3
"""NVML's power fields through nvmlDeviceGetFieldValues, against nvmlDeviceGetPowerUsage, idle
and under a bf16 GEMM load: their values, value types and cost (a probe for the sampler's
declarations: nvmlFieldValue_t is 40 bytes, the value a union at offset 32)."""

import ctypes
import statistics
import subprocess
import sys
import time


class FieldValue(ctypes.Structure):
    _fields_ = [
        ("fieldId", ctypes.c_uint),
        ("scopeId", ctypes.c_uint),
        ("timestamp", ctypes.c_longlong),
        ("latencyUsec", ctypes.c_longlong),
        ("valueType", ctypes.c_uint),
        ("nvmlReturn", ctypes.c_uint),
        ("value", ctypes.c_ulonglong),
    ]


def main() -> int:
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    h = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
    print("sizeof FieldValue", ctypes.sizeof(FieldValue))

    def probe(label):
        for fid in (185, 186):
            v = (FieldValue * 1)()
            v[0].fieldId = fid
            times = []
            for _ in range(100):
                t0 = time.perf_counter_ns()
                rc = nvml.nvmlDeviceGetFieldValues(h, 1, v)
                times.append((time.perf_counter_ns() - t0) / 1e3)
            print(f"{label} field {fid}: rc {rc} ret {v[0].nvmlReturn} type {v[0].valueType} value {v[0].value & 0xffffffff} "
                  f"ts {v[0].timestamp} cost median {statistics.median(times):.1f} us")
        mw = ctypes.c_uint()
        nvml.nvmlDeviceGetPowerUsage(h, ctypes.byref(mw))
        print(f"{label} nvmlDeviceGetPowerUsage {mw.value} mW")

    probe("idle")
    load = subprocess.Popen([sys.executable, "-c",
        "import torch,time\na=torch.randn(8192,8192,device='cuda',dtype=torch.bfloat16)\nt=time.time()\n"
        "while time.time()-t<12:\n  c=a@a\n  if int((time.time()-t)*2)%2: torch.cuda.synchronize(); time.sleep(0.2)\ntorch.cuda.synchronize()"])
    time.sleep(5)
    for i in range(8):
        probe(f"load{i}")
        time.sleep(0.15)
    load.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
