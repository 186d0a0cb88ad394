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
    "tiny": ("LAUNCH", "idle"),
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


def kernel_counter(dir_):
    """`kernel_counter`'s per-kernel means: (kernel base name, metric) -> [mean of each row].
    One base name can be several kernels (template instantiations): then there are several
    means, and the name is not compared (its rows are not one kernel's)."""
    t = pq.read_table(f"{dir_}/kernel_counter", columns=["kernel_name", "counter", "mean"]).to_pydict()
    means = collections.defaultdict(list)
    for k, c, v in zip(t["kernel_name"], t["counter"], t["mean"]):
        means[(base(k), c)].append(v)
    return means


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


def short(name):
    """A kernel's own name without namespaces or templates: ncu and we spell namespaces apart
    (`cudnn::engines_precompiled::`, `(anonymous namespace)` or `<unnamed>`)."""
    n = re.sub(r"^void ", "", name).replace("(anonymous namespace)", "").replace("<unnamed>", "")
    n = n.split("(")[0].split("<")[0]
    return n.split("::")[-1].strip() or n


def launches(dir_):
    """Every launch of our run in order, as (correlation id, kernel name), and each
    launch's metrics. A launch has a kernel_dispatch row, counter rows (a SASS pass runs with
    kernel activity off), or both."""
    names, values = {}, collections.defaultdict(dict)
    d = pq.read_table(f"{dir_}/kernel_dispatch", columns=["correlation_id", "kernel_name"]).to_pydict()
    names.update(zip(d["correlation_id"], d["kernel_name"]))
    t = pq.read_table(f"{dir_}/counter", columns=["correlation_id", "kernel_name", "counter", "value"]).to_pydict()
    for corr, k, c, v in zip(t["correlation_id"], t["kernel_name"], t["counter"], t["value"]):
        names[corr] = k
        values[corr][c] = v
    return [(corr, names[corr]) for corr in sorted(names)], values


def ncu_launches(path):
    """ncu's profiled launches in order: (kernel name, {metric: value})."""
    by_id = {}
    with open(path) as f:
        rows = [r for r in csv.reader(f) if len(r) > 5]
    start = next((i for i, r in enumerate(rows) if r[0] == "ID"), None)
    if start is None:
        return []
    head = rows[start]
    for r in rows[start + 1:]:
        row = dict(zip(head, r))
        try:
            v = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        entry = by_id.setdefault(int(row["ID"]), (row["Kernel Name"], {}))
        entry[1][row["Metric Name"]] = v
    return [by_id[i] for i in sorted(by_id)]


def ncu_steps(launches):
    """ncu's launches cut into its profiled steps (the shortest period that repeats): per
    position in a step, the kernel name and {metric: [value per step]}."""
    names = [short(k) for k, _ in launches]
    period = next((p for p in range(1, len(names) + 1)
                   if len(names) % p == 0 and names == names[:p] * (len(names) // p)), len(names))
    step = []
    for pos in range(period):
        merged = collections.defaultdict(list)
        for s in range(pos, len(launches), period):
            for m, v in launches[s][1].items():
                merged[m].append(v)
        step.append((launches[pos][0], dict(merged)))
    return step, len(names) // max(period, 1)


def compare_instances(seq, values, step, kernels, rel):
    """Each launch of ncu's step against the same launch of every step of our run.

    A kernel launched several times per step (layers of one shape) does different work each
    time, and the groups take turns per kernel and grid, not per layer: a per-name mean would
    weigh the layers by the luck of the turns. So our steps are found in our launch sequence
    (ncu's step, name for name) and each launch is compared with its own counterpart: ours the
    mean over the steps whose dispatch there collected the metric, ncu's its mean over its steps.
    Where ncu's own steps differ by more than `rel`, that spread is the tolerance."""
    names = [short(k) for k, _ in step]
    ours_names = [short(k) for _, k in seq]
    starts, i = [], 0
    while i + len(names) <= len(ours_names):
        if ours_names[i:i + len(names)] == names:
            starts.append(i)
            i += len(names)
        else:
            i += 1
    rows = []
    for pos, (_, ref) in enumerate(step):
        k = base(seq[starts[0] + pos][1]) if starts else ""
        if k not in kernels:
            continue
        for m, rs in sorted(ref.items()):
            vs = [values[seq[s + pos][0]][m] for s in starts if m in values.get(seq[s + pos][0], {})]
            if not vs:
                continue
            o, r = mean(vs), mean(rs)
            floor = FLOOR["byte"] if "bytes" in m else FLOOR["other"]
            spread = (max(rs) - min(rs)) / abs(r) if r else 0.0
            ratio = o / r if r else (1.0 if o == 0 else float("inf"))
            ok = abs(o - r) <= max(max(rel, spread) * abs(r), floor)
            why = f"ncu's steps differ by {spread:.1%}" if spread > rel else ""
            rows.append((f"{k} #{pos}", m, o, r, ratio, ok, len(vs), len(rs), why))
    return rows, starts


def compare_names(seq, values, step, starts, kernels, rel, table=None):
    """Each kernel's mean against ncu's over its steps, every launch of the name (the issue's
    per-kernel means). Ours is `kernel_counter`'s mean (`table`: the tool's own, over the whole
    run, each launch site weighted by its launches), or else computed here over our matched
    steps, place by place: with groups taking turns, a metric samples each place a few times,
    not in proportion, and each place of a step is one layer. Where the per-step means of ncu's
    own steps differ by more than `rel`, that spread is the tolerance."""
    positions = collections.defaultdict(list)
    for pos, (_, _) in enumerate(step):
        k = base(seq[starts[0] + pos][1]) if starts else ""
        if k in kernels:
            positions[k].append(pos)
    rows = []
    for k, poss in sorted(positions.items()):
        metrics = sorted(set().union(*(step[p][1].keys() for p in poss)))
        for m in metrics:
            by_place = [[values[seq[s + p][0]][m] for s in starts if m in values.get(seq[s + p][0], {})] for p in poss]
            vs = [v for place in by_place for v in place]
            if table is not None:
                vs = table.get((k, m), [])
                if len(vs) != 1:
                    continue
            per_step = [step[p][1].get(m, []) for p in poss]
            rs = [v for run in per_step for v in run]
            if not vs or not rs:
                continue
            steps_n = min(len(r) for r in per_step)
            step_means = [mean([r[i] for r in per_step]) for i in range(steps_n)]
            o = vs[0] if table is not None else mean([mean(place) for place in by_place if place])
            r = mean(rs)
            floor = FLOOR["byte"] if "bytes" in m else FLOOR["other"]
            spread = (max(step_means) - min(step_means)) / abs(r) if r and step_means else 0.0
            ratio = o / r if r else (1.0 if o == 0 else float("inf"))
            ok = abs(o - r) <= max(max(rel, spread) * abs(r), floor)
            why = f"ncu's steps differ by {spread:.1%}" if spread > rel else ""
            rows.append((k, m, o, r, ratio, ok, len(vs), len(rs), why))
    return rows


def compare(our, refs, kernels, rel):
    """Rows of (kernel, metric, ours, ncu, ratio, ok, n ours, n ncu, note) for every metric
    both have. `refs`: one ncu run or several (separate processes). Where the means of ncu's
    own runs differ by more than `rel` (L2 traffic moves with where the buffers land in memory),
    that spread is the tolerance."""
    rows = []
    for (k, m), vs in sorted(our.items()):
        if kernels is not None and k not in kernels:
            continue
        runs = [ref[(k, m)] for ref in refs if ref.get((k, m))]
        if not runs:
            continue
        rv = [v for run in runs for v in run]
        o, r = mean(vs), mean(rv)
        floor = FLOOR["byte"] if "bytes" in m else FLOOR["other"]
        means = [mean(run) for run in runs]
        spread = (max(means) - min(means)) / abs(r) if r else 0.0
        ratio = o / r if r else (1.0 if o == 0 else float("inf"))
        ok = abs(o - r) <= max(max(rel, spread) * abs(r), floor)
        why = f"ncu's {len(runs)} runs differ by {spread:.1%}" if spread > rel else ""
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
    md, verdict = [], {"metrics": [], "classes": [], "coverage": {}, "failures": []}

    our, dispatches = ours(a.known)
    ref = ncu(a.ncu)
    # The program's own account, where the hardware has no reason to differ from it (DRAM
    # writes do: lines still dirty in L2 when a kernel ends are written back after it).
    for k, m in (("copy", "dram__bytes_read.sum"), ("copy", "l1tex__t_bytes.sum"),
                 ("fma", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")):
        truth, got = expect.get(k, {}).get(m), mean(our.get((k, m), []))
        ok = truth is not None and abs(got - truth) <= REL * truth
        md.append(f"- program's account, {k} {m}: {truth}, ours {got:,.0f}: {'yes' if ok else 'NO'}")
        if not ok:
            verdict["failures"].append(f"{k} {m}: ours {got:,.0f}, the program's account {truth}")
    # The known kernels only: l2_flush is there to clean L2 between them.
    rows = compare(our, [ref], set(EXPECTED), REL)
    if a.gemm:
        g_our, g_disp = ours(a.gemm)
        g_refs = [ncu(path) for path in a.gemm_ncu.split(",")]
        big = [k for k, n in g_disp.items() if k.startswith("nvjet") or "gemm" in k]
        rows += compare(g_our, g_refs, set(big), REL)
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
            seq, values = launches(a.model)
            # Several ncu runs (processes): their steps pooled, position by position.
            cut = [ncu_steps(ncu_launches(path)) for path in a.model_ncu.split(",")]
            step, ncu_steps_n = cut[0]
            for other, n in cut[1:]:
                if [short(k) for k, _ in other] != [short(k) for k, _ in step]:
                    continue
                ncu_steps_n += n
                for (_, mine), (_, theirs) in zip(step, other):
                    for m, vs in theirs.items():
                        mine.setdefault(m, []).extend(vs)
            mrows, starts = compare_instances(seq, values, step, set(full), MODEL_REL)
            steps = len(starts)
            bad = [r for r in mrows if not r[5]]
            md.append(f"ncu profiled {ncu_steps_n} steps in {len(cut)} runs ({len(step)} launches each, `--replay-mode application --cache-control "
                      f"none`: the run as it is, replayed whole per pass); {steps} steps of ours matched it launch "
                      f"for launch.\n")
            # kernel_counter's means are over the whole run: names also launched outside the
            # model's iterations (setup: random inputs, casts) did other work there. Up to two
            # steps' worth outside are model.py's two warm-up iterations, the same work.
            inside = {i for s in starts for i in range(s, s + len(step))}
            outside = collections.Counter(base(seq[i][1]) for i in range(len(seq)) if i not in inside)
            per_step = collections.Counter(base(seq[starts[0] + p][1]) for p in range(len(step))) if starts else {}
            setup = {k for k in full if outside[k] > 2 * per_step.get(k, 0)}
            table = kernel_counter(a.model)
            several = {k for (k, _), vs in table.items() if len(vs) > 1} & set(full)
            nrows = compare_names(seq, values, step, starts, set(full) - setup - several, MODEL_REL, table)
            nbad = [r for r in nrows if not r[5]]
            prows = compare_names(seq, values, step, starts, set(full), MODEL_REL)
            pbad = [r for r in prows if not r[5]]
            md.append(f"**Per-kernel means**, `kernel_counter`'s (the whole run, 2 warm-up iterations and 12 steps, each launch site weighted by its "
                      f"launches) against ncu's over its steps, within {MODEL_REL:.0%}: {len(nrows) - len(nbad)} of "
                      f"{len(nrows)} agree; computed here over our matched steps, place by place: "
                      f"{len(prows) - len(pbad)} of {len(prows)}. Not in the first: {len(setup)} kernels also launched "
                      f"outside the model's iterations ({', '.join(sorted(short(k)[:40] for k in setup))}); {len(several)} "
                      f"names that are several kernels (template instantiations: {', '.join(sorted(short(k)[:40] for k in several)) or 'none'}).\n")
            for k, m, o, r, ratio, ok, n_o, n_r, why in pbad[:20]:
                md.append(f"- over the matched steps: {short(k)[:60]} {m}: ours {o:,.0f}, ncu {r:,.0f} ({ratio:.3f})")
            md.append("| kernel | metric | rocprof-rs | ncu | ratio | n ours | n ncu | ok |")
            md.append("|---|---|---:|---:|---:|---:|---:|---|")
            for k, m, o, r, ratio, ok, n_o, n_r, why in nrows:
                if o == 0 and r == 0:
                    continue
                md.append(f"| {short(k)[:60]} | {m} | {o:,.0f} | {r:,.0f} | {ratio:.4f} | {n_o} | {n_r} | {'yes' if ok else 'NO'}{' (' + why + ')' if why else ''} |")
            md.append(f"\n**Per launch** (each place of the step, our mean over the steps against ncu's, within "
                      f"{MODEL_REL:.0%}): {len(mrows) - len(bad)} of {len(mrows)} agree.\n")
            for k, m, o, r, ratio, ok, n_o, n_r, why in bad[:40]:
                md.append(f"- {k} {m}: ours {o:,.0f} (n={n_o}), ncu {r:,.0f} (n={n_r}) ({ratio:.3f})")
            wide = [r for r in mrows if r[8] and r[5]]
            if wide:
                md.append(f"\n{len(wide)} launch metrics agree only within ncu's own step-to-step spread:\n")
                for k, m, o, r, ratio, ok, n_o, n_r, why in wide[:20]:
                    md.append(f"- {k} {m}: ours {o:,.0f}, ncu {r:,.0f} ({ratio:.3f}; {why})")
            verdict["model_metrics"] = {"compared": len(mrows), "agree": len(mrows) - len(bad), "steps": steps,
                                        "names_compared": len(nrows), "names_agree": len(nrows) - len(nbad),
                                        "places_compared": len(prows), "places_agree": len(prows) - len(pbad)}
            if not mrows or not nrows:
                verdict["failures"].append("model: nothing compared with ncu")
            if bad:
                verdict["failures"].append(f"model: {len(bad)} of {len(mrows)} launch metrics beyond {MODEL_REL:.0%} of ncu")
            if pbad:
                verdict["failures"].append(f"model: {len(pbad)} of {len(prows)} per-kernel means over the matched steps beyond {MODEL_REL:.0%} of ncu")
            if nbad:
                verdict["failures"].append(f"model: {len(nbad)} of {len(nrows)} per-kernel means beyond {MODEL_REL:.0%} of ncu: "
                                           + "; ".join(f"{short(k)[:40]} {m} {ratio:.3f}" for k, m, o, r, ratio, *_ in nbad[:5]))

    verdict["pass"] = not verdict["failures"]
    verdict.update(label="counters", ok=verdict["pass"], failed=verdict["failures"])
    md.append("\n## Verdict\n\n" + ("PASS" if verdict["pass"] else "FAIL:\n- " + "\n- ".join(verdict["failures"])))
    open(a.md, "w").write("\n".join(md) + "\n")
    json.dump(verdict, open(a.json, "w"), indent=1)
    print("\n".join(md))
    return 0 if verdict["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
