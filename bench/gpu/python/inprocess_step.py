#!/usr/bin/env python3
"""One PyTorch training step profiled in-process with the rocprof_rs package (issue 25), or with
torch.profiler, for check_inprocess.py to compare.

    inprocess_step.py --mode rocprof|torch --out DIR --report FILE [--warmup 5] [--after 3]

The job: a 3-layer MLP (4096 wide, bf16 autocast off: fp32) with SGD on a 512 x 4096 batch.
`--warmup` steps run before the profiled step and `--after` steps after it, none of them
recorded; the profiled step is fenced by torch.cuda.synchronize() on both sides.

- rocprof: `rocprof_rs.start(backend="cupti", domains=["kernel"])` before CUDA starts (paused),
  `with p.region():` around the step, `p.finish()`; the report lists the dataset's kernels.
- torch: `torch.profiler.profile(activities=[CUDA])` around the same step; the report lists its
  kernel events (bench/gpu/torch_events.py: copies and memsets left out).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["rocprof", "torch"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--after", type=int, default=3)
    args = ap.parse_args()

    profile = None
    if args.mode == "rocprof":
        import rocprof_rs

        profile = rocprof_rs.start(output=args.out, domains=["kernel"], backend="cupti")

    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 4096),
    ).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, 4096, device="cuda")
    y = torch.randn(512, 4096, device="cuda")

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    if profile is not None:
        with profile.region():
            step()
            torch.cuda.synchronize()
    else:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
    region_s = time.perf_counter() - t0
    for _ in range(args.after):
        step()
    torch.cuda.synchronize()

    report = {"mode": args.mode, "warmup": args.warmup, "after": args.after, "region_s": region_s}
    if profile is not None:
        dataset = profile.finish()
        table = dataset.table("kernel_dispatch")
        report["kernels"] = [
            {"name": n, "mangled": m}
            for n, m in zip(table.column("kernel_name").to_pylist(), table.column("mangled_name").to_pylist())
        ]
        report["stats"] = dataset.stats(["kernel"])
        report["tables"] = dataset.tables()
    else:
        import torch_events

        report["kernels"] = [{"name": k["name"]} for k in torch_events.kernel_events(prof)["kernels"]]
    with open(args.report, "w") as fh:
        json.dump(report, fh, indent=1)
    print(f"{args.mode}: {len(report['kernels'])} kernels in the profiled step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
