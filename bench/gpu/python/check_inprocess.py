#!/usr/bin/env python3
"""Compares the in-process profile of one training step (rocprof_rs, CUPTI) with torch.profiler's
of the same step: the same kernels, by name and count, and nothing else.

    check_inprocess.py ROCPROF.json TORCH.json [--out verdict.json]

Names are joined as compare_torch.py joins them: c++filt of our mangled name (libiberty, the
family of the __cxa_demangle Kineto uses) against torch's; our own demangler's kernel_name
differs from it in nested templates (`void` before a function template's name), which the
report counts. The check passes when the multisets are equal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("rocprof")
    ap.add_argument("torch")
    ap.add_argument("--out")
    args = ap.parse_args()
    ours = json.load(open(args.rocprof))
    theirs = json.load(open(args.torch))
    raw = [k.get("mangled") or k["name"] for k in ours["kernels"]]
    demangled = benchlib.demangle_cppfilt(raw)
    a = Counter(demangled.get(n, n) for n in raw)
    b = Counter(k["name"] for k in theirs["kernels"])
    display_equal = sum(1 for k in ours["kernels"] if k["name"] in b)
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
                "our_kernel_name_equal_to_torchs": f"{display_equal} of {sum(a.values())}",
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
