"""A serving-class decode loop (issue 42's yardstick): a 12-layer GPT-like model in bf16 (hidden
768, 12 heads, GELU MLP, vocabulary 50,304), batch 16, a static KV cache of 1,024 positions
written in place at a position the step itself advances, greedy next token. No downloaded
weights: random ones, seeded. Each step is one token for the whole batch.

    python3 decode.py [--variant graph|eager] [--steps 3000] [--warmup 200] [--torch-profiler]

`graph` captures one step as a CUDA graph and replays it, as serving engines replay their decode
graphs; `eager` launches the step's kernels one by one. Timing: CUDA events around the timed
steps only, after warm-up, so start-up, torch's import and a tool's set-up and tear-down are
outside the figure. Prints one line `SERVE {json}`: tokens/s, ms per step, the steps timed, the
graph's replays (warm-up and timed) and its kernel nodes (counted through the driver where
torch keeps the graph), and the tokens' checksum.
"""

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F

HIDDEN, HEADS, VOCAB = 768, 12, 50304


def model(layers, batch, context, dev, dt):
    g = torch.Generator(device=dev).manual_seed(0)

    def w(*shape):
        return torch.randn(*shape, device=dev, dtype=dt, generator=g) * 0.02

    head = HIDDEN // HEADS
    blocks = [
        dict(
            ln1=torch.ones(HIDDEN, device=dev, dtype=dt), qkv=w(HIDDEN, 3 * HIDDEN), qkv_b=w(3 * HIDDEN),
            o=w(HIDDEN, HIDDEN), o_b=w(HIDDEN), ln2=torch.ones(HIDDEN, device=dev, dtype=dt),
            fc=w(HIDDEN, 4 * HIDDEN), fc_b=w(4 * HIDDEN), proj=w(4 * HIDDEN, HIDDEN), proj_b=w(HIDDEN),
            k=torch.zeros(batch, HEADS, context, head, device=dev, dtype=dt),
            v=torch.zeros(batch, HEADS, context, head, device=dev, dtype=dt),
        )
        for _ in range(layers)
    ]
    return dict(embed=w(VOCAB, HIDDEN), pos_embed=w(context, HIDDEN), blocks=blocks, lnf=torch.ones(HIDDEN, device=dev, dtype=dt))


def make_step(m, batch, context):
    head = HIDDEN // HEADS
    tokens = torch.zeros(batch, dtype=torch.long, device="cuda")
    pos = torch.zeros(1, dtype=torch.long, device="cuda")

    def step():
        x = (m["embed"][tokens] + m["pos_embed"][pos]).unsqueeze(1)
        for b in m["blocks"]:
            h = F.layer_norm(x, (HIDDEN,), b["ln1"])
            qkv = torch.addmm(b["qkv_b"], h.view(batch, HIDDEN), b["qkv"]).view(batch, 3, HEADS, 1, head)
            q, k, v = qkv.unbind(1)
            b["k"].index_copy_(2, pos, k)
            b["v"].index_copy_(2, pos, v)
            a = F.scaled_dot_product_attention(q, b["k"], b["v"])
            x = x + torch.addmm(b["o_b"], a.reshape(batch, HIDDEN), b["o"]).view(batch, 1, HIDDEN)
            h = F.layer_norm(x, (HIDDEN,), b["ln2"])
            h = F.gelu(torch.addmm(b["fc_b"], h.view(batch, HIDDEN), b["fc"]), approximate="tanh")
            x = x + torch.addmm(b["proj_b"], h, b["proj"]).view(batch, 1, HIDDEN)
        logits = F.layer_norm(x, (HIDDEN,), m["lnf"]).view(batch, HIDDEN) @ m["embed"].t()
        tokens.copy_(logits.argmax(-1))
        pos.add_(1).remainder_(context)

    return step, tokens


def kernel_nodes(graph):
    """The graph's kernel nodes: through the driver (cuGraphGetNodes, cuGraphNodeGetType) where
    torch keeps the graph, else from the graph's DOT dump (debug mode), else None."""
    try:
        raw = graph.raw_cuda_graph()
    except Exception:  # an older torch, or a graph not kept
        raw = None
    if not raw:
        return dot_kernel_nodes(graph)
    cuda = ctypes.CDLL("libcuda.so.1")
    count = ctypes.c_size_t(0)
    if cuda.cuGraphGetNodes(ctypes.c_void_p(raw), None, ctypes.byref(count)) != 0:
        return None
    nodes = (ctypes.c_void_p * count.value)()
    if cuda.cuGraphGetNodes(ctypes.c_void_p(raw), nodes, ctypes.byref(count)) != 0:
        return None
    kinds = ctypes.c_int(0)
    kernels = 0
    for node in nodes:
        if cuda.cuGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(kinds)) != 0:
            return None
        kernels += kinds.value == 0  # CU_GRAPH_NODE_TYPE_KERNEL
    return kernels


def dot_kernel_nodes(graph):
    """Kernel nodes in cudaGraphDebugDotPrint's dump of a graph captured in debug mode."""
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(prefix="decode-graph-"), "graph.dot")
    try:
        graph.debug_dump(path)
        with open(path) as fh:
            return fh.read().count('label="{KERNEL')
    except Exception:
        return None


def resident_kib():
    """The process's resident memory now (VmRSS), KiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", choices=["graph", "eager"], default="graph")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--replay-log", help="write each graph replay's launch interval (CLOCK_BOOTTIME ns) here, as JSON")
    ap.add_argument("--torch-profiler", action="store_true", help="the timed steps under torch.profiler (CUDA activities)")
    ap.add_argument("--seconds", type=float, help="time steps for this long instead of --steps, sampling the "
                    "process's resident memory (VmRSS) every 5 s: the flight recorder's memory over a long run")
    args = ap.parse_args()
    phases = {"import_s": time.perf_counter() - STARTED}
    t = time.perf_counter()
    m = model(args.layers, args.batch, args.context, "cuda", torch.bfloat16)
    torch.cuda.synchronize()
    phases["model_s"] = time.perf_counter() - t
    t = time.perf_counter()
    step, tokens = make_step(m, args.batch, args.context)

    graph, nodes = None, None
    if args.variant == "graph":
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        try:
            graph = torch.cuda.CUDAGraph(keep_graph=True)
        except TypeError:
            graph = torch.cuda.CUDAGraph()
        try:
            graph.enable_debug_mode()  # keeps the graph for its DOT dump where raw access is missing
        except Exception:
            pass
        with torch.cuda.graph(graph):
            step()
        nodes = kernel_nodes(graph)
        run = graph.replay
    else:
        run = step
    launches = []
    if args.replay_log and graph is not None:
        def logged(replay=graph.replay, clock=time.clock_gettime_ns, boot=time.CLOCK_BOOTTIME):
            before = clock(boot)
            replay()
            launches.append((before, clock(boot)))
        run = logged
    for _ in range(args.warmup):
        run()
    torch.cuda.synchronize()
    phases["capture_and_warmup_s"] = time.perf_counter() - t

    profiler = None
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile

        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        profiler.__enter__()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    wall = time.perf_counter()
    start.record()
    rss = []
    if args.seconds:
        steps, next_sample = 0, wall
        while time.perf_counter() - wall < args.seconds:
            for _ in range(100):
                run()
            steps += 100
            if time.perf_counter() >= next_sample:
                rss.append((round(time.perf_counter() - wall, 1), resident_kib()))
                next_sample += 5.0
        args.steps = steps
    else:
        for _ in range(args.steps):
            run()
    end.record()
    end.synchronize()
    wall = time.perf_counter() - wall
    seconds = start.elapsed_time(end) / 1e3
    torch_kernels = None
    if profiler is not None:
        profiler.__exit__(None, None, None)
        torch_kernels = sum(1 for e in profiler.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    if args.replay_log:
        with open(args.replay_log, "w") as f:
            json.dump({"graph_kernel_nodes": nodes, "launches": launches}, f)
    print("SERVE " + json.dumps(dict(
        variant=args.variant,
        tokens_per_s=args.batch * args.steps / seconds,
        ms_per_step=seconds * 1e3 / args.steps,
        steps=args.steps,
        replays=(args.warmup + args.steps) if graph is not None else 0,
        graph_kernel_nodes=nodes,
        wall_s=wall,
        checksum=int(tokens.sum()),
        torch_kernel_events=torch_kernels,
        phases={k: round(v, 2) for k, v in phases.items()},
        max_rss_kib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        rss_kib=rss or None,
    )), flush=True)


if __name__ == "__main__":
    main()
