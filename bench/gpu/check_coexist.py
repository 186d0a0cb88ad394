#!/usr/bin/env python3
"""torch.profiler inside a process rocprof-rs traces: neither tool may corrupt the other.

    check_coexist.py REF_DIR BOTH_DIR BOTH_TORCH_JSON [--label NAME] [--out verdict.json]

REF_DIR: rocprof-rs's dataset of torch_workload.py alone (mode A). BOTH_DIR and BOTH_TORCH_JSON:
the same workload with --torch-profiler, run under rocprof-rs. rocprof-rs subscribes to CUPTI
first (inside cuInit), so Kineto's cuptiSubscribe fails with
CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and torch.profiler records no GPU event; our
data must be unaffected.

Checks: our kernels inside "measure" have the same count per name as in REF_DIR; nothing
dropped. Reported (expected 0, but torch's behaviour, not ours): torch's kernel events.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

import benchlib
from benchlib import Verdict


def per_name(dataset: str, v: Verdict, which: str) -> Counter | None:
    window = benchlib.marker_window(dataset, "measure")
    if not v.check(f"{which}_marker_window", window is not None, "one 'measure' marker row"):
        return None
    return Counter(r.get("mangled_name") or r.get("kernel_name") for r in benchlib.kernels_in_window(dataset, window))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ref")
    ap.add_argument("both")
    ap.add_argument("both_torch_json")
    ap.add_argument("--label", default="coexistence")
    ap.add_argument("--out")
    args = ap.parse_args()

    v = Verdict(args.label)
    ref = per_name(args.ref, v, "reference")
    both = per_name(args.both, v, "with_torch_profiler")
    if ref is not None and both is not None:
        diff = {n: [ref.get(n, 0), both.get(n, 0)] for n in set(ref) | set(both) if ref.get(n, 0) != both.get(n, 0)}
        v.check("same_kernels_with_torch_profiler_running", not diff and sum(both.values()) > 0,
                diff or f"{sum(both.values())} kernels, {len(both)} names, equal per name")
    dropped = benchlib.dropped_total(benchlib.read_metadata(args.both))
    v.check("nothing_dropped", dropped == 0, dropped)
    try:
        with open(args.both_torch_json) as fh:
            data = json.load(fh)
        v.info["torch_kernel_events"] = len(data.get("kernels", []))
        v.info["torch_cuda_events"] = data.get("cuda_events")
        v.info["torch_sees_no_gpu_events_as_expected"] = data.get("cuda_events") == 0
    except (OSError, json.JSONDecodeError) as e:
        v.info["torch_json_error"] = str(e)
    return v.emit(args.out)


if __name__ == "__main__":
    sys.exit(main())
