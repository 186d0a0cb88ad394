#!/usr/bin/env python3
"""Summarises a CUPTI dump directory (ROCPROF_RS_CUPTI_DUMP) and adds the demangling reference.

    fixture_names.py DUMP_DIR [--out summary.json]

For every `<pid>-<seq>.json` sidecar under DUMP_DIR (any depth): its records' kinds and its
name table. Writes DUMP_DIR/demangled.tsv: each distinct name that looks mangled (_Z...), then
c++filt's output (libiberty) and abi::__cxa_demangle's (what Kineto uses), tab-separated: the
reference the Rust demangler is unit-tested against (cupti-plan.md section 4.2).
Tolerant of sidecars in another shape: what it cannot read it lists.
"""

import argparse
import glob
import json
import os
import sys
from collections import Counter

import benchlib


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--out")
    args = ap.parse_args()

    sidecars = sorted(glob.glob(os.path.join(args.dump, "**", "*.json"), recursive=True))
    bins = sorted(glob.glob(os.path.join(args.dump, "**", "*.bin"), recursive=True))
    kinds, names, unreadable = Counter(), set(), []
    for path in sidecars:
        try:
            with open(path) as fh:
                data = json.load(fh)
        except (OSError, json.JSONDecodeError) as e:
            unreadable.append(f"{path}: {e}")
            continue
        for rec in data.get("records", []) if isinstance(data, dict) else []:
            if isinstance(rec, dict) and "kind" in rec:
                kinds[str(rec["kind"])] += 1
        table = data.get("names", {}) if isinstance(data, dict) else {}
        if isinstance(table, dict):
            names.update(str(n) for n in table.values() if n)
    mangled = sorted(n for n in names if n.startswith("_Z"))
    filt = benchlib.demangle_cppfilt(mangled)
    with open(os.path.join(args.dump, "demangled.tsv"), "w") as fh:
        fh.write("mangled\tcxxfilt\tcxa_demangle\n")
        for n in mangled:
            fh.write(f"{n}\t{filt.get(n, n)}\t{benchlib.demangle_cxa(n)}\n")
    summary = {
        "sidecars": len(sidecars),
        "buffers": len(bins),
        "bytes": sum(os.path.getsize(b) for b in bins),
        "records_by_kind": dict(kinds),
        "names": len(names),
        "mangled_names": len(mangled),
        "cxxfilt_differs_from_cxa": sum(1 for n in mangled if filt.get(n, n) != benchlib.demangle_cxa(n)),
        "unreadable": unreadable,
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 0 if sidecars and bins and not unreadable else 1


if __name__ == "__main__":
    sys.exit(main())
