#!/usr/bin/env python3
"""A deterministic PyTorch training workload, for comparing rocprof-rs with torch.profiler.

    torch_workload.py                        mode A: for rocprof-rs (run it under `rocprof-rs run
                                             --marker-trace`); the measured steps sit inside an
                                             NVTX range "measure"
    torch_workload.py --torch-profiler OUT.json
                                             mode B: the measured steps also run inside
                                             torch.profiler.profile(activities=[CUDA]); their
                                             kernel events are written to OUT.json

Each step: an MLP (fp32) and a small conv net (conv, batch norm, ReLU) forward and backward, one
AdamW step (foreach: multi-tensor kernels), a replay of a CUDA graph captured once at set-up (an
inference MLP), and two bf16 matmuls. 20 warm-up steps (cuBLAS/cuDNN handles, AdamW state, the
graph's upload), then K=30 measured steps.

Determinism, so both runs launch the same kernels the same number of times: seeded weights and
data, data made once on the GPU, cudnn.benchmark off, deterministic algorithms (warn only),
CUBLAS_WORKSPACE_CONFIG fixed before cuBLAS starts, no host synchronisation inside a step. Both
modes run the same code, NVTX range included; mode B only adds the profiler around it. The
measured window starts and ends with torch.cuda.synchronize(), before range_push and before
range_pop, so no kernel straddles it.

Prints one line: WORKLOAD {"mode": ..., "steps": ..., "ms_per_step": ..., "loss_sum": ...};
loss_sum is a fingerprint that should be equal in both modes.
"""

from __future__ import annotations

import os

# cuBLAS reads this when its handle is created; it must be set before torch touches the GPU.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Workload:
    def __init__(self, device: torch.device):
        torch.manual_seed(0)
        self.mlp = nn.Sequential(nn.Linear(1024, 2048), nn.GELU(), nn.Linear(2048, 1024)).to(device)
        self.conv = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
        ).to(device)
        self.head = nn.Linear(64, 10).to(device)
        params = [*self.mlp.parameters(), *self.conv.parameters(), *self.head.parameters()]
        self.opt = torch.optim.AdamW(params, lr=1e-3, foreach=True)

        g = torch.Generator(device=device)
        g.manual_seed(1)
        self.x_mlp = torch.randn(256, 1024, device=device, generator=g)
        self.y_mlp = torch.randn(256, 1024, device=device, generator=g)
        self.x_img = torch.randn(32, 3, 64, 64, device=device, generator=g)
        self.y_img = torch.randint(0, 10, (32,), device=device, generator=g)
        self.a = torch.randn(2048, 2048, device=device, generator=g).to(torch.bfloat16)
        self.b = torch.randn(2048, 2048, device=device, generator=g).to(torch.bfloat16)
        self.loss_sum = torch.zeros((), device=device)

        # A CUDA graph of an inference MLP, captured once (after a warm-up on a side stream, as
        # torch's documentation asks) and replayed every step.
        self.infer = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024)).to(device).eval()
        self.static_in = torch.randn(128, 1024, device=device, generator=g)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(3):
                self.infer(self.static_in)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.static_out = self.infer(self.static_in)
        torch.cuda.synchronize()

    def step(self) -> None:
        self.opt.zero_grad(set_to_none=True)
        loss_mlp = F.mse_loss(self.mlp(self.x_mlp), self.y_mlp)
        features = self.conv(self.x_img).mean(dim=(2, 3))
        loss_conv = F.cross_entropy(self.head(features), self.y_img)
        loss = loss_mlp + loss_conv
        loss.backward()
        self.opt.step()
        self.graph.replay()
        c = self.a @ self.b
        self.d = c @ self.a
        # A device-side fingerprint; reading it here would synchronise every step.
        self.loss_sum += loss.detach()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torch-profiler", metavar="OUT.json", help="mode B: profile the measured steps")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()

    if not torch.cuda.is_available():
        print("torch_workload: no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = torch.device("cuda", 0)
    w = Workload(device)

    for _ in range(args.warmup):
        w.step()
    torch.cuda.synchronize()

    prof = None
    if args.torch_profiler:
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
    with prof if prof is not None else contextlib.nullcontext():
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("measure")
        t0 = time.perf_counter()
        for _ in range(args.steps):
            w.step()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        torch.cuda.nvtx.range_pop()

    result = {
        "mode": "torch.profiler" if prof is not None else "plain",
        "warmup": args.warmup,
        "steps": args.steps,
        "ms_per_step": (t1 - t0) * 1e3 / args.steps,
        "loss_sum": float(w.loss_sum.item()),
        "pid": os.getpid(),
    }
    if prof is not None:
        import torch_events

        data = torch_events.write(prof, args.torch_profiler, extra={"workload": "torch_workload", "summary": result})
        result["torch_kernel_events"] = len(data["kernels"])
        result["torch_other_events"] = data["other_cuda_events"]
    print("WORKLOAD " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
