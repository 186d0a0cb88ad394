#!/usr/bin/env python3
"""A small data-parallel training job for the `ranks` stage (issue 27): one process per GPU, DDP
over NCCL, NVTX step ranges, and optionally one rank made late in one step.

    python3 -m torch.distributed.run --standalone --nproc-per-node N ddp_train.py \
        [--warmup 5] [--steps 30] [--straggler-rank 1 --straggler-step 12 --straggler-ms 50] \
        [--torch-profiler OUT_PREFIX] [--truth-out PREFIX] [--deadline-s S]

The model is `--layers` Linear(`--width`, `--width`) layers with ReLU between them, in fp32
(default 3 x 4096^2: 50M parameters, a 201 MB gradient all-reduced every step in three DDP
buckets), trained with SGD (momentum, foreach) on a fixed batch of synthetic data made on the GPU
once (seeded per rank). TF32 is off, so the work is the same from run to run.

Each iteration, warm-ups included, ends with torch.cuda.synchronize(), so every step starts with
every rank's GPU idle and the ranks aligned by the previous step's all-reduce. NVTX ranges:

    warmup <i>   (i = 1..W) around a whole warm-up iteration: NCCL's communicator set-up, DDP's
                 bucket rebuild after the first iteration, cuBLAS handles. Not matched by
                 `--step-marker '^step '`, so `ranks` never sees them as steps.
    iter <i>     (i = 1..S) around a whole measured iteration, its final synchronize included:
                 every kernel of step i starts and ends inside it (the checker's window).
    step <i>     nested in `iter <i>`: the step's host code, from before the straggler's sleep
                 to after optimizer.step(); the synchronize is after it. This is what `ranks
                 --step-marker '^step '` times, and the k-th `step` range of a rank is step k.

Why the synchronize is outside `step <i>`: inside it, every rank's step i would last as long as the
straggler's, since the others wait for it in the all-reduce before their synchronize returns,
and no rank would stand out. Outside it, a rank's `step` range is its own host time (the GPU
runs behind), so the straggler's range is longer by its sleep and the others' are not.

`--straggler-rank R --straggler-step K --straggler-ms MS`: rank R sleeps MS ms (time.sleep)
inside `step K`, before its forward pass, so its gradients, and its arrival at the step's first
all-reduce, come MS ms late; the other ranks' first all-reduce kernel starts on time and waits.

`--torch-profiler OUT_PREFIX`: the measured iterations run inside torch.profiler.profile
(activities CPU and CUDA), each inside record_function("iter <i>") as well; every rank writes
OUT_PREFIX.<rank>.json: torch_events.py's format (kernels with name, duration_ns, start_ns;
copies, memsets and GPU-side annotations left out), plus `iters` (each `iter <i>` range on
Kineto's clock, the one its kernel events are on) and `summary` (this rank's RANKTRUTH).

Every rank prints its own account as one line, `RANKTRUTH {...}` (rank, world size, local rank,
pid, host, the straggler settings, each measured step's wall times by time.perf_counter, the
time it actually slept and the CLOCK_BOOTTIME interval of the sleep), and `APP ok`; with
--truth-out PREFIX it also writes PREFIX.<rank>.json (the same JSON) and, at start,
PREFIX.<rank>.pid, so the stage can find a rank that outlived its run.

The measured steps run with Python's garbage collector off (collected and frozen before them):
a collection inside a step would stall one rank and look like a straggler.

It never hangs: the process group has a timeout (--pg-timeout-s), and a watchdog thread ends
the rank (exit 124) when its parent (torchrun) is gone or --deadline-s has passed.
"""

from __future__ import annotations

import os

# NVLink multicast must stay off on the lent machines (device notes, issue 27), before torch or
# NCCL read them; set here whatever the environment says.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
# cuBLAS reads this when its handle is created.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/gpu: torch_events


def emit(line: str) -> None:
    """One line to stdout in one write: the ranks share torchrun's stdout."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def start_watchdog(rank: int, deadline_s: float) -> None:
    """Ends this rank when torchrun is gone (we were re-parented) or the deadline has passed:
    a stage must never leave a rank behind, whatever hangs (NCCL, a flush, the profiler)."""
    parent = os.getppid()
    t_end = time.monotonic() + deadline_s if deadline_s > 0 else None

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                why = f"its parent {parent} is gone"
                break
            if t_end is not None and time.monotonic() > t_end:
                why = f"the deadline of {deadline_s:.0f} s has passed"
                break
        sys.stderr.write(f"RANKERROR rank {rank}: {why}; exiting with 124\n")
        sys.stderr.flush()
        os._exit(124)

    threading.Thread(target=watch, name="ddp_train-watchdog", daemon=True).start()


def torch_kernel_events(prof) -> dict:
    """torch_events.kernel_events, less the events that are no kernels: Kineto also reports a
    record_function's GPU-side span ("gpu_user_annotation", e.g. `iter 3` or ProcessGroupNCCL's
    `nccl:all_reduce`) as a CUDA event, which has no chrome-trace kernel to match and which
    torch_events would then take for a kernel by its name. A kernel matched in the chrome trace
    carries its launch arguments (grid, block); one that is not is kept only when its name is
    no annotation's and the chrome trace could not be read at all."""
    import torch_events

    data = torch_events.kernel_events(prof)
    kept, dropped = [], []
    chrome_ok = data.get("chrome_trace_error") is None
    for k in data["kernels"]:
        matched = "grid" in k or "block" in k
        annotation = k["name"].startswith(("iter ", "step ", "warmup ", "nccl:"))
        if matched or (not chrome_ok and not annotation):
            k["dur"] = k["duration_ns"] / 1e3  # µs, as Kineto's trace has it
            kept.append(k)
        else:
            dropped.append(k["name"])
    data["kernels"] = kept
    data["dropped_non_kernel_events"] = {n: dropped.count(n) for n in sorted(set(dropped))}
    return data


def cpu_ranges(prof, prefix: str) -> list[dict]:
    """The record_function ranges whose name starts with `prefix`, on Kineto's clock."""
    import torch

    cpu = torch.autograd.DeviceType.CPU
    out = []
    for e in prof.profiler.kineto_results.events():
        if e.device_type() == cpu and e.name().startswith(prefix):
            start = int(e.start_ns())
            out.append({"name": e.name(), "start_ns": start, "end_ns": start + int(e.duration_ns())})
    out.sort(key=lambda r: r["start_ns"])
    return out


def nccl_version(torch) -> str | None:
    try:
        v = torch.cuda.nccl.version()
        return ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    except Exception as e:  # a report field: never a reason to fail the rank
        return f"unknown ({type(e).__name__})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warmup", type=int, default=5, help="warm-up iterations (NVTX `warmup <i>`)")
    ap.add_argument("--steps", type=int, default=30, help="measured steps (NVTX `step <i>`, i = 1..S)")
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--straggler-rank", type=int, default=-1)
    ap.add_argument("--straggler-step", type=int, default=0, help="1-based measured step")
    ap.add_argument("--straggler-ms", type=float, default=0.0)
    ap.add_argument("--torch-profiler", metavar="OUT_PREFIX")
    ap.add_argument("--truth-out", metavar="PREFIX")
    ap.add_argument("--deadline-s", type=float, default=0.0, help="end the rank after this long (0: never)")
    ap.add_argument("--pg-timeout-s", type=float, default=120.0, help="the process group's timeout")
    args = ap.parse_args()

    try:
        rank = int(os.environ["RANK"])
        local_rank = int(os.environ["LOCAL_RANK"])
        world_size = int(os.environ["WORLD_SIZE"])
    except (KeyError, ValueError):
        print("ddp_train: RANK, LOCAL_RANK and WORLD_SIZE are not set: run me under torchrun", file=sys.stderr)
        return 2
    if args.truth_out:
        with open(f"{args.truth_out}.{rank}.pid", "w") as fh:
            fh.write(f"{os.getpid()}\n")
    start_watchdog(rank, args.deadline_s)
    straggling = args.straggler_rank >= 0 and args.straggler_ms > 0
    if straggling and not (1 <= args.straggler_step <= args.steps and args.straggler_rank < world_size):
        print(f"ddp_train: --straggler-step {args.straggler_step} not in 1..{args.steps}, or --straggler-rank "
              f"{args.straggler_rank} not below the world size {world_size}", file=sys.stderr)
        return 2

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    if not torch.cuda.is_available() or torch.cuda.device_count() <= local_rank:
        print(f"ddp_train: rank {rank}: no CUDA device for local rank {local_rank}", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout_s), device_id=device)

    torch.manual_seed(args.seed)
    layers: list[nn.Module] = []
    for i in range(args.layers):
        layers.append(nn.Linear(args.width, args.width))
        if i + 1 < args.layers:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers).to(device)
    params = sum(p.numel() for p in model.parameters())
    ddp = DDP(model, device_ids=[local_rank], output_device=local_rank)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-4, momentum=0.9, foreach=True)
    g = torch.Generator(device=device)
    g.manual_seed(1000 + rank)
    x = torch.randn(args.batch, args.width, device=device, generator=g)
    y = torch.randn(args.batch, args.width, device=device, generator=g)
    loss_sum = torch.zeros((), device=device)
    nvtx = torch.cuda.nvtx

    def train_step() -> None:
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        loss_sum.add_(loss.detach())  # no host synchronisation inside a step

    for i in range(1, args.warmup + 1):
        nvtx.range_push(f"warmup {i}")
        train_step()
        torch.cuda.synchronize()
        nvtx.range_pop()
    torch.cuda.synchronize()
    loss_sum.zero_()
    # A full garbage collection inside a measured step would stall one rank by milliseconds and
    # look like a straggler: collect now, and not again until the measured steps are over.
    gc.collect()
    gc.freeze()
    gc.disable()

    prof = None
    if args.torch_profiler:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=acts)
    step_s, iter_s = [], []
    slept_s, sleep_boottime_ns = None, None
    with prof if prof is not None else contextlib.nullcontext():
        for i in range(1, args.steps + 1):
            annotation = torch.profiler.record_function(f"iter {i}") if prof is not None else contextlib.nullcontext()
            t0 = time.perf_counter()
            with annotation:
                nvtx.range_push(f"iter {i}")
                nvtx.range_push(f"step {i}")
                if straggling and rank == args.straggler_rank and i == args.straggler_step:
                    b0 = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
                    s0 = time.perf_counter()
                    time.sleep(args.straggler_ms / 1e3)
                    slept_s = time.perf_counter() - s0
                    sleep_boottime_ns = [b0, time.clock_gettime_ns(time.CLOCK_BOOTTIME)]
                train_step()
                nvtx.range_pop()
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                nvtx.range_pop()
            t2 = time.perf_counter()
            step_s.append(t1 - t0)
            iter_s.append(t2 - t0)

    gc.enable()
    truth = {
        "rank": rank,
        "world_size": world_size,
        "local_rank": local_rank,
        "pid": os.getpid(),
        "hostname": socket.gethostname(),
        "mode": "torch.profiler" if prof is not None else "plain",
        "warmup": args.warmup,
        "steps": args.steps,
        "straggler_rank": args.straggler_rank if straggling else None,
        "straggler_step": args.straggler_step if straggling else None,
        "straggler_ms": args.straggler_ms if straggling else None,
        "slept_s": slept_s,
        "sleep_boottime_ns": sleep_boottime_ns,
        # step_s: the `step <i>` range's host time; iter_s: the whole iteration (synchronize too).
        "step_s": step_s,
        "iter_s": iter_s,
        "loss_sum": float(loss_sum.item()),
        "model": {"layers": args.layers, "width": args.width, "batch": args.batch, "params": params,
                  "gradient_bytes": params * 4, "dtype": "float32"},
        "device": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "nccl": nccl_version(torch),
        "env": {k: os.environ.get(k) for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                               "NVSHMEM_DISABLE_NVLS", "CUDA_INJECTION64_PATH",
                                               "NVTX_INJECTION64_PATH", "CUDA_VISIBLE_DEVICES")},
    }
    if prof is not None:
        # Whatever fails here (a torch whose profiler API moved) is written down for the
        # checker to report, and the rank still ends cleanly.
        try:
            data = torch_kernel_events(prof)
            data["iters"] = cpu_ranges(prof, "iter ")
        except Exception as e:
            data = {"kernels": [], "iters": [], "dropped_non_kernel_events": {},
                    "error": f"{type(e).__name__}: {e}"}
            print(f"ddp_train: rank {rank}: reading torch.profiler's events failed: {data['error']}", file=sys.stderr)
        data["rank"] = rank
        data["summary"] = truth
        with open(f"{args.torch_profiler}.{rank}.json", "w") as fh:
            json.dump(data, fh)
        truth["torch_kernel_events"] = len(data["kernels"])
        truth["torch_iters"] = len(data["iters"])
        truth["torch_dropped_non_kernel_events"] = sum(data["dropped_non_kernel_events"].values())

    dist.destroy_process_group()
    if args.truth_out:
        with open(f"{args.truth_out}.{rank}.json", "w") as fh:
            json.dump(truth, fh)
    emit("RANKTRUTH " + json.dumps(truth))
    emit(f"APP ok rank {rank}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
