#!/usr/bin/env python3
"""A few seconds of PyTorch for CUPTI fixtures (the `fixtures` stage of run.sh).

What it covers, each a handful of times so the dump stays small: ATen elementwise and reduction
kernels (mangled names with templates, lambdas and anonymous namespaces), a cuBLAS matmul
(cuBLAS's own kernel names), a CUDA graph captured and replayed twice, NVTX ranges and a mark
through torch.cuda.nvtx (opened after CUDA is initialised, or CUPTI would not see them), a
pinned host-to-device copy and a device-to-host copy.

Prints `TINY ok` and exits 0 on success.
"""

import sys

import torch


def main() -> int:
    if not torch.cuda.is_available():
        print("torch_tiny: no CUDA device", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    torch.cuda.synchronize()

    torch.cuda.nvtx.range_push("tiny")
    torch.cuda.nvtx.mark("tiny-mark")
    host = torch.arange(4096, dtype=torch.float32).pin_memory()
    x = host.to(dev, non_blocking=True)                     # HtoD pinned
    y = torch.sin(x) * 2 + 1                                # elementwise
    s = y.sum()                                             # reduction
    a = torch.randn(256, 256, device=dev)
    b = a @ a.t()                                           # cuBLAS
    torch.cuda.nvtx.range_push("graph")
    static = torch.randn(1024, device=dev)
    g = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = static.relu() + 1                             # warm-up before capture
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(g):
        out = static.relu() + 1
    g.replay()
    g.replay()
    torch.cuda.nvtx.range_pop()
    total = (s + b.trace() + out.sum()).cpu()               # DtoH
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(f"TINY ok {float(total):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
