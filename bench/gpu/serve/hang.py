#!/usr/bin/env python3
"""A kernel that never finishes (issue 42's hang trigger): some ordinary kernels, then
torch.cuda._sleep with an endless cycle count on the current stream, then the host waits
HOLD seconds (printing when it launched the spinning kernel, CLOCK_BOOTTIME ns) and exits
without synchronising (os._exit), so the run ends though the kernel never did. The spin is
launched inside two NVTX ranges, "step 7" and "all_reduce", left open, as a rank stuck in a
collective is: the hang report must name them.

    hang.py [--hold 12]
"""
import argparse
import json
import os
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--hold", type=float, default=12.0)
args = ap.parse_args()
x = torch.randn(1024, 1024, device="cuda")
for _ in range(50):
    x = x @ x
    x = x / x.norm()
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("step 7")
torch.cuda.nvtx.range_push("all_reduce")
launched = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
torch.cuda._sleep(1 << 62)
print("HANG " + json.dumps({"spin_launched_ns": launched}), flush=True)
time.sleep(args.hold)
os._exit(0)
