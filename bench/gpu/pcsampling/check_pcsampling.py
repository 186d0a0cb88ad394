"""Checks rocprof-rs's PC samples of pcs_app against Nsight Compute's of the same binary.

For each kernel of pcs_app (matched by name up to its parameter list):
  1. every stall reason holding over 10% of the kernel's samples, in either tool, is within
     5 percentage points of ncu's share (ncu: smsp__pcsamp_warps_issue_stalled_<reason>,
     without the _not_issued twins, over smsp__pcsamp_sample_count);
  2. the hottest instruction (most samples) is the same as ncu's (the SASS offset from the
     function's start; ncu's source page gives addresses, the first of each function is 0),
     or one ncu's own counts cannot tell from its hottest (two standard errors);
  3. the kernel's share of all samples is within 5 percentage points of its share of kernel
     time, as pcs_app itself timed it (launches x mean ms).

Writes a verdict JSON (merge_verdicts.py's format) and a Markdown report.
"""

import argparse
import csv
import io
import json
import math
import re
import sys

REASON_PREFIX = "smsp__pcsamp_warps_issue_stalled_"
KERNELS = ("stream_copy", "bank_conflict", "fma_chain", "gemm")


def base_name(name):
    """`void pcs::fma_chain(float *, ...)` -> `pcs::fma_chain`; template arguments dropped."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    name = name.split("(", 1)[0]
    return re.sub(r"<.*>", "", name).strip()


def known(name):
    """The pcs_app kernel a name is, or None (cuBLAS's GEMM kernel: any name with 'gemm')."""
    base = base_name(name)
    for k in KERNELS:
        if k in base:
            return k
    return None


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def ncu_reasons(path):
    """kernel -> {reason: samples} and kernel -> total samples, summed over its launches."""
    rows = list(csv.reader(open(path, newline="")))
    header = next(r for r in rows if "Kernel Name" in r)
    col = {c: i for i, c in enumerate(header)}
    reasons, totals = {}, {}
    for r in rows[rows.index(header) + 1 :]:
        if len(r) != len(header) or not r[col["ID"]].strip().isdigit():
            continue  # the units row
        k = known(r[col["Kernel Name"]])
        if not k:
            continue
        totals[k] = totals.get(k, 0) + number(r[col["smsp__pcsamp_sample_count"]])
        mix = reasons.setdefault(k, {})
        for c, i in col.items():
            if c.startswith(REASON_PREFIX) and not c.endswith("_not_issued"):
                mix[c[len(REASON_PREFIX) :]] = mix.get(c[len(REASON_PREFIX) :], 0) + number(r[i])
    return reasons, totals


def ncu_instructions(path):
    """kernel -> {offset: (text, samples)} of its SASS instructions, over its launches."""
    text = open(path, newline="").read()
    per_kernel = {}
    block, kernel, first, col = None, None, None, None
    for r in csv.reader(io.StringIO(text)):
        if not r:
            continue
        if r[0] == "Kernel Name":
            kernel, first, col = known(r[1]), None, None
            continue
        if r[0] == "Address":
            col = {c: i for i, c in enumerate(r)}
            continue
        if kernel is None or col is None or not r[0].startswith("0x"):
            continue
        addr = int(r[0], 16)
        if first is None:
            first = addr
        samples = number(r[col["Warp Stall Sampling (All Samples)"]])
        sums = per_kernel.setdefault(kernel, {})
        off = addr - first
        prev = sums.get(off, (r[col["Source"]].strip(), 0))
        sums[off] = (prev[0], prev[1] + samples)
    return per_kernel


def hottest(instructions):
    return max(((o, t, s) for o, (t, s) in instructions.items()), key=lambda x: x[2])


def ours(path):
    """kernel -> {samples, reasons {reason: samples}, hottest (offset, text, samples)}."""
    out = {}
    for k in json.load(open(path))["kernels"]:
        name = known(k["kernel_name"])
        if not name:
            continue
        entry = out.setdefault(name, {"samples": 0, "reasons": {}, "hottest": None, "name": k["kernel_name"]})
        entry["samples"] += k["samples"]
        for ins in k["instructions"]:
            for r in ins["reasons"]:
                reason = (r.get("reason") or r["category"]).removeprefix(REASON_PREFIX)
                entry["reasons"][reason] = entry["reasons"].get(reason, 0) + r["samples"]
            if entry["hottest"] is None or ins["samples"] > entry["hottest"][2]:
                entry["hottest"] = (ins["pc_offset"], ins.get("instruction") or "", ins["samples"])
    return out


def times(path):
    """kernel -> ms, from pcs_app's own lines (`name launches mean_ms`)."""
    out = {}
    for line in open(path, errors="replace"):
        m = re.fullmatch(r"(\w+) (\d+) ([\d.]+)\s*", line)
        if m:
            k = known(m.group(1)) or ("gemm" if m.group(1) == "sgemm" else None)
            if k:
                out[k] = int(m.group(2)) * float(m.group(3))
    return out


def main():
    ap = argparse.ArgumentParser()
    for a in ("hotspots", "ncu-raw", "ncu-source", "times", "out", "md"):
        ap.add_argument("--" + a, required=True)
    a = ap.parse_args()
    checks, md = [], ["# PC sampling against Nsight Compute (pcs_app)", ""]

    def check(name, ok, detail):
        checks.append({"name": name, "pass": bool(ok), "detail": detail})
        md.append(f"- {'PASS' if ok else 'FAIL'} {name}: {detail}")

    try:
        mine, (ncu_mix, ncu_total), ncu_hot, ms = ours(a.hotspots), ncu_reasons(a.ncu_raw), ncu_instructions(a.ncu_source), times(a.times)
    except Exception as e:  # a missing or unreadable input is one failed check
        check("inputs", False, f"{type(e).__name__}: {e}")
        mine, ncu_mix, ncu_total, ncu_hot, ms = {}, {}, {}, {}, {}
    all_samples = sum(v["samples"] for v in mine.values())
    all_ms = sum(ms.values())
    for k in KERNELS:
        md += ["", f"## {k}", ""]
        if k not in mine or k not in ncu_mix or not ncu_total.get(k):
            check(f"{k}: sampled by both", False, f"rocprof-rs {'has' if k in mine else 'lacks'} it, ncu {'has' if k in ncu_mix else 'lacks'} it")
            continue
        m, n = mine[k], ncu_mix[k]
        md.append(f"rocprof-rs: {m['samples']} samples of `{m['name']}`; ncu: {int(ncu_total[k])}")
        md += ["", "| reason | rocprof-rs % | ncu % | difference (pp) |", "|---|---|---|---|"]
        worst = 0.0
        for reason in sorted(set(m["reasons"]) | set(n), key=lambda r: -(n.get(r, 0))):
            mp = 100 * m["reasons"].get(reason, 0) / m["samples"]
            np_ = 100 * n.get(reason, 0) / ncu_total[k]
            if max(mp, np_) < 0.5:
                continue
            md.append(f"| {reason} | {mp:.1f} | {np_:.1f} | {mp - np_:+.1f} |")
            if max(mp, np_) > 10:
                worst = max(worst, abs(mp - np_))
        md.append("")
        check(f"{k}: reasons over 10% within 5 pp of ncu", worst <= 5, f"largest difference {worst:.1f} pp")
        mo, mt, ms_ = m["hottest"]
        listing = ncu_hot.get(k, {})
        no, nt, ns = hottest(listing) if listing else (None, "", 0)
        ncu_all = sum(s for _, s in listing.values()) or 1
        ncu_of_mine = 100 * listing.get(mo, ("", 0))[1] / ncu_all
        # Where ncu's own counts cannot tell two instructions apart (within two standard errors
        # of the difference of two Poisson counts), either is its hottest: a flat profile, such
        # as an unrolled chain of identical FMAs, has no single hottest instruction to agree on.
        n_top, n_mine = ns, listing.get(mo, ("", 0))[1]
        tied = mo != no and n_top - n_mine <= 2 * math.sqrt(n_top + n_mine)
        check(f"{k}: hottest instruction", mo == no or tied,
              f"rocprof-rs {mo:#x} `{mt}` ({100 * ms_ / m['samples']:.1f}% here, {ncu_of_mine:.1f}% in ncu), "
              f"ncu {no if no is None else hex(no)} `{nt}` ({100 * ns / ncu_all:.1f}%)"
              + (f"; tied in ncu's counts ({int(n_mine)} against {int(n_top)})" if tied else ""))
        if all_samples and all_ms and k in ms:
            share, tshare = 100 * m["samples"] / all_samples, 100 * ms[k] / all_ms
            check(f"{k}: share of samples vs share of kernel time", abs(share - tshare) <= 5,
                  f"{share:.1f}% of samples, {tshare:.1f}% of kernel time ({share - tshare:+.1f} pp)")
    ok = bool(checks) and all(c["pass"] for c in checks)
    failed = [c["name"] for c in checks if not c["pass"]]
    verdict = {"label": "pcsampling", "ok": ok, "failed": failed, "checks": checks}
    json.dump(verdict, open(a.out, "w"), indent=1)
    open(a.md, "w").write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
