"""Checks the `counters` stage: rocprof-rs's per-kernel metric means against ncu's replays,
the analysis classes against the answers worked out by hand, and the one-run coverage of a
torch.compile'd model. Writes a Markdown report and a JSON verdict; exits 1 on a failure.

  compare.py --known DIR --known-timed DIR --ncu CSV --analyze JSON --expect FILE
             [--gemm DIR --gemm-ncu CSV --gemm-analyze JSON]
             [--model DIR --model-ncu CSV] --md OUT.md --json OUT.json
"""
import argparse
import collections
import csv
import json
import math
import re
import sys

import pyarrow.parquet as pq

# The answers worked out by hand (known.cu's header and gemm.py): kernel -> (class, what the
# evidence must show).
EXPECTED = {
    "copy": ("MEMORY", "dram"),
    "fma": ("COMPUTE", "fp32 vector"),
    "shared_conf": ("LDS", "lds"),
    "l2_reuse": ("MEMORY|CACHE", "l2"),
    "tiny": ("LATENCY", "idle"),
    "gemm_bf16": ("COMPUTE", "bf16 matrix"),
}
REL = 0.02  # counts: within 2% of ncu
MODEL_REL = 0.05  # per-kernel means over one model run: within 5% of ncu's replays
# Below these a difference is noise in both tools (a few KB of DRAM traffic on a compute
# kernel), compared absolutely.
FLOOR = {"byte": 4 << 20, "other": 10_000}


def base(name):
    name = re.sub(r"^void ", "", name)
    return name.split("(")[0].split("<")[0].strip()


def ours(dir_):
    """(kernel base name, metric) -> [values per dispatch], and per kernel the dispatches."""
    t = pq.read_table(f"{dir_}/counter").to_pydict()
    values = collections.defaultdict(list)
    for k, c, v in zip(t["kernel_name"], t["counter"], t["value"]):
        values[(base(k), c)].append(v)
    d = pq.read_table(f"{dir_}/kernel_dispatch", columns=["kernel_name"]).to_pydict()
    dispatches = collections.Counter(base(k) for k in d["kernel_name"])
    return values, dispatches


def ncu(path):
    values = collections.defaultdict(list)
    with open(path) as f:
        rows = [r for r in csv.reader(f) if len(r) > 5]
    # The profiled program's own output comes before ncu's table.
    start = next((i for i, r in enumerate(rows) if r[0] == "ID"), None)
    if start is None:
        return values
    head = rows[start]
    for r in rows[start + 1:]:
        row = dict(zip(head, r))
        try:
            v = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        values[(base(row["Kernel Name"]), row["Metric Name"])].append(v)
    return values


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def compare(our, ref, kernels, rel, expect=None):
    """Rows of (kernel, metric, ours, ncu, ratio, ok) for every metric both have."""
    rows = []
    for (k, m), vs in sorted(our.items()):
        if kernels is not None and k not in kernels:
            continue
        rv = ref.get((k, m))
        if not rv:
            continue
        o, r = mean(vs), mean(rv)
        floor = FLOOR["byte"] if "bytes" in m else FLOOR["other"]
        ratio = o / r if r else (1.0 if o == 0 else float("inf"))
        ok = abs(o - r) <= max(rel * abs(r), floor)
        why = ""
        # DRAM writes of a kernel that writes more than the L2 holds: ncu leaves out the lines
        # still dirty in L2 when the kernel ends (written back after its range); ours count the
        # previous dispatch's residue instead. The program's own account decides.
        truth = (expect or {}).get(k, {}).get(m)
        if not ok and truth:
            ok = abs(o - truth) <= rel * truth
            why = f"program's account {truth:,.0f}: ours {o / truth:.4f}"
        rows.append((k, m, o, r, ratio, ok, len(vs), len(rv), why))
    return rows


def classes(analysis, timed_names=None):
    got = {}
    for k in analysis["kernels"]:
        name = base(k["name"])
        if name.startswith("nvjet") or "gemm" in name:
            name = "gemm_bf16" if "gemm_bf16" not in got else name
        got.setdefault(name, k)
    return got


def check_class(name, k):
    want, shows = EXPECTED[name]
    d = k["diagnosis"]
    text = " ".join(d["evidence"]).lower()
    ok = d["class"] in want.split("|")
    if name == "copy":
        dram = [b for b in k.get("bandwidth", []) if b["level"] == "dram"]
        share = dram[0]["share"] if dram and dram[0]["share"] is not None else 0
        ok = ok and share >= 0.8
        shows = f"dram at {share:.0%} of its roof (>= 80%)"
    elif name == "l2_reuse":
        ok = ok and ("l2" in text)
    elif name == "tiny":
        ok = ok and ("idle" in text)
    elif name in ("fma", "gemm_bf16"):
        pts = k.get("points") or []
        top = pts[0] if pts else {}
        pipe = "vector" if name == "fma" else "matrix"
        prec = "fp32" if name == "fma" else "bf16"
        ok = ok and top.get("pipe", "").lower() == pipe and top.get("precision", "").lower() == prec
    return ok, d["class"], "; ".join(d["evidence"])[:300], shows


def main():
    p = argparse.ArgumentParser()
    for a in ("known", "known-timed", "ncu", "analyze", "expect", "gemm", "gemm-ncu", "gemm-analyze", "model",
              "model-ncu", "md", "json"):
        p.add_argument("--" + a)
    a = p.parse_args()
    expect = {}
    for line in open(a.expect):
        if line.startswith("EXPECT "):
            expect.update(json.loads(line[7:]))
    truths = {"copy": {"dram__bytes_write.sum": expect.get("copy", {}).get("dram__bytes_write.sum")}}
    md, verdict = [], {"metrics": [], "classes": [], "coverage": {}, "failures": []}

    our, dispatches = ours(a.known)
    ref = ncu(a.ncu)
    # The known kernels only: l2_flush is there to clean L2 between them.
    rows = compare(our, ref, set(EXPECTED), REL, truths)
    if a.gemm:
        g_our, g_disp = ours(a.gemm)
        g_ref = ncu(a.gemm_ncu)
        big = [k for k, n in g_disp.items() if k.startswith("nvjet") or "gemm" in k]
        rows += compare(g_our, g_ref, set(big), REL)
    md.append("## Metrics against ncu (`--clock-control none`), means per kernel\n")
    md.append("| kernel | metric | rocprof-rs | ncu | ratio | n ours | n ncu | ok |")
    md.append("|---|---|---:|---:|---:|---:|---:|---|")
    for k, m, o, r, ratio, ok, n_o, n_r, why in rows:
        md.append(f"| {k} | {m} | {o:,.0f} | {r:,.0f} | {ratio:.4f} | {n_o} | {n_r} | {'yes' if ok else 'NO'}{' (' + why + ')' if why else ''} |")
        verdict["metrics"].append({"kernel": k, "metric": m, "ours": o, "ncu": r, "ok": ok, "note": why})
        if not ok:
            verdict["failures"].append(f"{k} {m}: ours {o:,.0f} vs ncu {r:,.0f}")
    if not rows:
        verdict["failures"].append("no metric in common with ncu")

    md.append("\n## Classes\n")
    md.append("| kernel | expected | got | ok | evidence |")
    md.append("|---|---|---|---|---|")
    analyses = [json.load(open(a.analyze))]
    if a.gemm_analyze:
        analyses.append(json.load(open(a.gemm_analyze)))
    got = {}
    for an in analyses:
        for name, k in classes(an).items():
            got.setdefault(name, k)
    for name in EXPECTED:
        if name not in got:
            verdict["failures"].append(f"{name}: not analysed")
            md.append(f"| {name} | {EXPECTED[name][0]} | (missing) | NO | |")
            continue
        ok, cls, evidence, shows = check_class(name, got[name])
        md.append(f"| {name} | {EXPECTED[name][0]} ({shows}) | {cls} | {'yes' if ok else 'NO'} | {evidence} |")
        verdict["classes"].append({"kernel": name, "class": cls, "ok": ok, "evidence": evidence})
        if not ok:
            verdict["failures"].append(f"{name}: class {cls}, expected {EXPECTED[name][0]}")

    if a.model:
        m_our, m_disp = ours(a.model)
        meta = pq.read_table(f"{a.model}/counter").to_pydict()
        metrics = sorted(set(meta["counter"]))
        groups = sorted(set(meta["counter_group"]))
        per_kernel = collections.defaultdict(set)
        for k, c in zip(meta["kernel_name"], meta["counter"]):
            per_kernel[base(k)].add(c)
        eligible = [k for k, n in m_disp.items() if n >= len(groups)]
        full = [k for k in eligible if per_kernel[k] >= set(metrics)]
        verdict["coverage"] = {"groups": len(groups), "metrics": len(metrics), "kernels": len(m_disp),
                               "eligible": len(eligible), "full": len(full)}
        md.append(f"\n## One run of the torch.compile'd model\n\n{len(metrics)} metrics in {len(groups)} groups; "
                  f"{len(m_disp)} kernels, {len(eligible)} dispatched at least {len(groups)} times, "
                  f"{len(full)} of them with every metric.\n")
        if len(full) != len(eligible):
            verdict["failures"].append(f"model: {len(eligible) - len(full)} eligible kernels without full coverage: "
                                       + ", ".join(sorted(set(eligible) - set(full))[:5]))
        if a.model_ncu:
            m_ref = ncu(a.model_ncu)
            mrows = compare(m_our, m_ref, set(full), MODEL_REL)
            bad = [r for r in mrows if not r[5]]
            md.append(f"Per-kernel means against ncu's replays (within {MODEL_REL:.0%}): {len(mrows) - len(bad)} of {len(mrows)} agree.\n")
            for k, m, o, r, ratio, ok, n_o, n_r, why in bad[:40]:
                md.append(f"- {k} {m}: ours {o:,.0f}, ncu {r:,.0f} ({ratio:.3f})")
            verdict["model_metrics"] = {"compared": len(mrows), "agree": len(mrows) - len(bad)}
            if not mrows:
                verdict["failures"].append("model: nothing compared with ncu")

    verdict["pass"] = not verdict["failures"]
    verdict.update(label="counters", ok=verdict["pass"], failed=verdict["failures"])
    md.append("\n## Verdict\n\n" + ("PASS" if verdict["pass"] else "FAIL:\n- " + "\n- ".join(verdict["failures"])))
    open(a.md, "w").write("\n".join(md) + "\n")
    json.dump(verdict, open(a.json, "w"), indent=1)
    print("\n".join(md))
    return 0 if verdict["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
