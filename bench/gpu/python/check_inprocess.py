#!/usr/bin/env python3
"""Compares the in-process profile of one training step (rocprof_rs, CUPTI) with torch.profiler's
of the same step: the same kernels, by name and count, and nothing else.

    check_inprocess.py ROCPROF.json TORCH.json [--out verdict.json]

Names are compared as both tools give them (both demangle with the C++ ABI's demangler); the
check passes when the multisets are equal.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("rocprof")
    ap.add_argument("torch")
    ap.add_argument("--out")
    args = ap.parse_args()
    ours = json.load(open(args.rocprof))
    theirs = json.load(open(args.torch))
    a = Counter(k["name"] for k in ours["kernels"])
    b = Counter(k["name"] for k in theirs["kernels"])
    only_ours, only_theirs = a - b, b - a
    ok = sum(a.values()) > 0 and not only_ours and not only_theirs
    verdict = {
        "label": "python-inprocess",
        "ok": ok,
        "checks": {
            "same_kernels": {
                "ok": ok,
                "rocprof_rs": sum(a.values()),
                "torch_profiler": sum(b.values()),
                "distinct": len(a),
                "only_rocprof_rs": dict(only_ours),
                "only_torch_profiler": dict(only_theirs),
            }
        },
        "kernels": {name: a[name] for name in sorted(a)},
    }
    print(json.dumps(verdict, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(verdict, fh, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
