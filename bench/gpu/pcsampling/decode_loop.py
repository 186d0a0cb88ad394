"""A serving-class decode loop: one token step of a Llama-like model (bf16, batch 8, hidden
4096, grouped KV cache of 2048 positions) captured once as a CUDA graph and replayed, as
serving engines replay their decode graphs. Prints one JSON line with tokens per second.

    python3 decode_loop.py [--steps 1500] [--layers 12] [--warmup 100]

Timing: CUDA events around the replays only (after warm-up), so start-up, torch's import and
a profiler's set-up and tear-down are outside the figure.
"""

import argparse
import json
import time

import torch
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--context", type=int, default=2048)
    args = ap.parse_args()
    dev, dt = "cuda", torch.bfloat16
    hidden, heads, kv_heads, ffn = 4096, 32, 8, 14336
    head_dim = hidden // heads
    torch.manual_seed(0)
    layers = []
    for _ in range(args.layers):
        layers.append(
            dict(
                qkv=torch.randn(hidden, hidden + 2 * kv_heads * head_dim, device=dev, dtype=dt) * 0.02,
                o=torch.randn(hidden, hidden, device=dev, dtype=dt) * 0.02,
                up=torch.randn(hidden, 2 * ffn, device=dev, dtype=dt) * 0.02,
                down=torch.randn(ffn, hidden, device=dev, dtype=dt) * 0.02,
                k=torch.randn(args.batch, kv_heads, args.context, head_dim, device=dev, dtype=dt),
                v=torch.randn(args.batch, kv_heads, args.context, head_dim, device=dev, dtype=dt),
            )
        )
    x0 = torch.randn(args.batch, 1, hidden, device=dev, dtype=dt)
    out = torch.empty_like(x0)

    def step():
        x = x0
        for w in layers:
            h = F.rms_norm(x, (hidden,))
            qkv = h @ w["qkv"]
            q = qkv[..., :hidden].view(args.batch, 1, heads, head_dim).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, w["k"], w["v"], enable_gqa=True)
            x = x + a.transpose(1, 2).reshape(args.batch, 1, hidden) @ w["o"]
            h = F.rms_norm(x, (hidden,))
            gate, up = (h @ w["up"]).chunk(2, dim=-1)
            x = x + (F.silu(gate) * up) @ w["down"]
        out.copy_(x)

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for _ in range(args.warmup):
        graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    wall = time.perf_counter()
    start.record()
    for _ in range(args.steps):
        graph.replay()
    end.record()
    end.synchronize()
    wall = time.perf_counter() - wall
    seconds = start.elapsed_time(end) / 1e3
    print(
        json.dumps(
            dict(
                tokens_per_s=args.batch * args.steps / seconds,
                ms_per_step=seconds * 1e3 / args.steps,
                steps=args.steps,
                wall_s=wall,
                finite=bool(torch.isfinite(out).all()),
            )
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
