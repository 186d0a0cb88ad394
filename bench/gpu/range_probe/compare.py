#!/usr/bin/env python3
"""Puts range_probe's per-range values next to ncu's for the same kernels, as markdown.

range_probe prints `RANGE exp=X ... kernel=copy|fma metric=value ...`; ncu's --csv details page
has one row per (launch ID, metric). In --plain mode the program launches init, a warm-up copy
and fma, then copy, fma, copy, fma: ncu's first launch of each kernel is the warm-up and is left
out. Values are means over the ranges (ours) or launches (ncu) of each kernel.
"""
import argparse
import collections
import csv
import os


def parse_probe(path):
    """exp -> kernel -> metric -> [values]"""
    out = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    if not path or not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        if not line.startswith("RANGE "):
            continue
        kv = dict(t.split("=", 1) for t in line.split()[1:] if "=" in t)
        exp, kernel = kv.pop("exp"), kv.pop("kernel")
        for k in ("idx", "name", "group", "rep"):
            kv.pop(k, None)
        for m, v in kv.items():
            try:
                out[exp][kernel][m].append(float(v))
            except ValueError:
                pass
    return out


def parse_ncu(path):
    """kernel -> metric -> [values over the measured launches]"""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    if not path or not os.path.exists(path):
        return out
    rows = [l for l in open(path, errors="replace") if l.startswith('"')]
    if not rows:
        return out
    launches = collections.defaultdict(dict)  # ID -> {"kernel":..., metric: value}
    for r in csv.DictReader(rows):
        try:
            lid = int(r.get("ID", "-1"))
        except ValueError:
            continue
        name = r.get("Kernel Name", "")
        kernel = "copy" if name.startswith("copy_kernel") else "fma" if name.startswith("fma_kernel") else None
        if kernel is None:
            continue
        raw = (r.get("Metric Value") or "").replace(",", "")
        try:
            val = float(raw)
        except ValueError:
            continue
        launches[lid]["kernel"] = kernel
        launches[lid][r.get("Metric Name")] = val
    seen = collections.Counter()
    for lid in sorted(launches):
        d = launches[lid]
        k = d.pop("kernel")
        seen[k] += 1
        if seen[k] == 1:  # the warm-up launch
            continue
        for m, v in d.items():
            out[k][m].append(v)
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 1e4:
        return f"{x:,.0f}"
    return f"{x:.4g}"


def ratio(a, b):
    if a is None or b is None:
        return "-"
    if b == 0:
        return "= (both 0)" if a == 0 else "inf"
    return f"{a / b:.4f}"


def table(title, metrics, ours, ours_cols, ncus, ncu_cols, ratio_to):
    """Values of every column, then each of ours over the ncu column `ratio_to`."""
    ref = ncus[ncu_cols.index(ratio_to)]
    print(f"\n### {title}\n")
    head = ["kernel", "metric"] + ours_cols + ncu_cols
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in ("copy", "fma"):
        for m in metrics:
            row = [k, m] + [fmt(mean(ours.get(c, {}).get(k, {}).get(m, []))) for c in ours_cols]
            row += [fmt(mean(n.get(k, {}).get(m, []))) for n in ncus]
            print("| " + " | ".join(row) + " |")
    print(f"\nRatio to {ratio_to}:\n")
    head = ["kernel", "metric"] + [f"{c}/{ratio_to}" for c in ours_cols]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in ("copy", "fma"):
        for m in metrics:
            b = mean(ref.get(k, {}).get(m, []))
            row = [k, m] + [ratio(mean(ours.get(c, {}).get(k, {}).get(m, [])), b) for c in ours_cols]
            print("| " + " | ".join(row) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", action="append", default=[], help="a range_probe log (repeatable)")
    ap.add_argument("--cb", action="append", default=[], help="same as --probe (kept for run.sh)")
    ap.add_argument("--cols4", default="", help="experiments for the 4-metric table (default: A A2 A3 C F E K1 K2 D9 D10)")
    ap.add_argument("--colsr", default="", help="experiments for the roofline table (default: D*, H*, G)")
    ap.add_argument("--ncu4")
    ap.add_argument("--ncu4-nocache")
    ap.add_argument("--ncu-roof")
    ap.add_argument("--metrics", default="dram__bytes_read.sum,dram__bytes_write.sum,"
                    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum")
    ap.add_argument("--roof", default="")
    a = ap.parse_args()
    ours = {}
    for path in a.probe + a.cb:
        for exp, d in parse_probe(path).items():
            if exp in ours:  # the same experiment name in two logs: keep both sets of ranges
                for k, md in d.items():
                    for m, vs in md.items():
                        ours[exp].setdefault(k, {}).setdefault(m, []).extend(vs)
            else:
                ours[exp] = d
    n4, n4n, nr = parse_ncu(a.ncu4), parse_ncu(a.ncu4_nocache), parse_ncu(a.ncu_roof)
    m4 = a.metrics.split(",")
    print("# range_probe against ncu (--clock-control none)\n")
    print("Ours: means over each kernel's ranges in that experiment. ncu: means over the two measured "
          "launches of each kernel (the warm-up launch left out). `ncu` = default cache control "
          "(flush before each kernel), `ncu-nc` = `--cache-control none`.")
    cols4 = [c for c in (a.cols4.split() or ("A", "A2", "A3", "C", "F", "E", "K1", "K2", "D9", "D10")) if c in ours]
    table("The 4-metric set (each experiment ran once per one-pass group)", m4, ours, cols4, [n4, n4n],
          ["ncu", "ncu-nc"], "ncu-nc")
    roof = [m for m in a.roof.split(",") if m]
    if roof:
        colsr = ([c for c in a.colsr.split() if c in ours] or
                 sorted(c for c in ours if c[0] in "DH" and c not in ("D9", "D10")) + [c for c in ("G",) if c in ours])
        table("The roofline set (D*: groups taking turns, one session per launch; H*: the same driven from "
              "the launch callback; G: one multi-pass config replayed by us)", roof, ours, colsr, [nr], ["ncu"], "ncu")


if __name__ == "__main__":
    main()
