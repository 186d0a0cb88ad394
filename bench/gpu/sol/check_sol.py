"""The `sol` stage's verdict: `rocprof-rs analyze` of counters/model.py against `ncu --set full`.

    python3 check_sol.py --analyze analyze.json --ncu ncu.json --out verdict-sol.json --md sol.md

- Occupancy and waves: every kernel ncu profiled has our theoretical occupancy and waves as
  `analyze` reports them for its name (first launch), equal to ncu's where that launch is ncu's
  (the same grid); the exact per-launch check is tests/analysis_sol_h200.rs on the fixture.
- Classes: for every kernel over 1% of the time, our class by its work alone (`kernel_class`)
  agrees with ncu's Speed of Light finding as README.md maps it, for at least 90% of them;
  every disagreement is listed with both sides' evidence.
- Recommendations: each rests on the measurement it names (EVIDENCE below), for every kernel.
"""
import argparse
import json
import re

ALLOWED = {
    "memory": {"MEMORY", "CACHE", "LDS"},
    "compute": {"COMPUTE", "ISSUE"},
    "balanced": {"MEMORY", "CACHE", "LDS", "COMPUTE", "ISSUE"},
    "small grid": {"TAIL"},
    "latency": {"LATENCY", "OCCUPANCY", "ISSUE", "SYNC"},
}


def texts(k):
    """Every evidence line of `k`: its class's and its other findings'."""
    d = k["diagnosis"]
    return d["evidence"] + [e for f in d.get("also", []) for e in f["evidence"]]


def dram_bytes(k):
    return ((k.get("work") or {}).get("bytes") or {}).get("dram", 0) > 0


def idle_measured(k):
    return any("idles a median" in t for t in texts(k))


def waves_under_one(k):
    waves = (k.get("occupancy") or {}).get("waves")
    return waves is not None and waves < 1


def samples_taken(k):
    return any(t.startswith("PC samples") for t in texts(k))


def limited_by(k, *limiters):
    return (k.get("occupancy") or {}).get("limiter") in limiters


# Each recommendation and the measurement it must rest on (issue 41: "no advice without its
# evidence"). An action not listed here fails the check until it is.
EVIDENCE = [
    ("Pad LDS arrays", "measured LDS bank conflicts >= 10%", lambda k: (k.get("lds_conflicts") or 0) >= 0.1),
    ("Change the LDS layout", "measured LDS bank conflicts >= 10%", lambda k: (k.get("lds_conflicts") or 0) >= 0.1),
    ("Fuse it with its producer", "measured DRAM bytes", dram_bytes),
    ("Fuse it with the kernels around it", "measured idle before its dispatches", idle_measured),
    ("Make it a persistent kernel", "measured idle before its dispatches", idle_measured),
    ("Capture the launches", "measured idle before its dispatches", idle_measured),
    ("Split the work into more", "a grid under one wave, from its launch", waves_under_one),
    ("Keep more independent loads", "PC samples", samples_taken),
    ("Cut instructions per result", "counted warp instructions or PC samples",
     lambda k: any("warp instructions counted" in t or t.startswith("PC samples") for t in texts(k))),
    ("Use fewer registers", "occupancy limited by registers", lambda k: limited_by(k, "registers")),
    ("Use fewer VGPRs", "occupancy limited by VGPRs", lambda k: limited_by(k, "vgpr")),
    ("Use fewer SGPRs", "occupancy limited by SGPRs", lambda k: limited_by(k, "sgpr")),
    ("Use less LDS per workgroup", "occupancy limited by LDS", lambda k: limited_by(k, "lds")),
    ("Use less shared memory per block", "occupancy limited by shared memory", lambda k: limited_by(k, "sharedmemory")),
    ("Use larger workgroups", "occupancy limited by the workgroup size", lambda k: limited_by(k, "workgroup")),
    ("Use larger blocks", "occupancy limited by the SM's block slots", lambda k: limited_by(k, "blocks")),
    ("Launch more", "an occupancy no resource limits", lambda k: limited_by(k, "none")),
    ("Issue FLOPs closer to the peak", "counted FLOPs", lambda k: bool(k.get("points"))),
    ("Use matrix cores", "counted FLOPs", lambda k: bool(k.get("points"))),
]


def unsupported(k):
    """The recommendations of `k` without the measurement they rest on, or not known here."""
    bad = []
    for r in k["diagnosis"].get("recommendations", []):
        rule = next((e for e in EVIDENCE if r["action"].startswith(e[0])), None)
        if rule is None:
            bad.append(f"{k['name'][:50]}: {r['action']!r}: no rule names its evidence")
        elif not rule[2](k):
            bad.append(f"{k['name'][:50]}: {r['action']!r} without {rule[1]}")
        elif not 0 <= r["expected_gain"] <= 1:
            bad.append(f"{k['name'][:50]}: {r['action']!r}: gain {r['expected_gain']}")
    return bad


def base(name):
    name = name[5:] if name.startswith("void ") else name
    name = name.split("(")[0].split("<")[0]
    return name.split("::")[-1].strip()


def verdict(k):
    text = next((r["text"] for r in k["rules"] if r["rule"] == "SOLBottleneck"), "")
    m = k["metrics"]
    if "greater than 80.0%" in text:
        return "memory" if m["sol_memory_pct"] >= m["sol_compute_pct"] else "compute"
    if "grid is too small" in text:
        return "small grid"
    if "well-balanced" in text:
        return "balanced"
    if text.startswith("Memory is more heavily utilized"):
        return "memory"
    if text.startswith("Compute is more heavily utilized"):
        return "compute"
    if "low compute throughput and memory bandwidth" in text:
        return "latency"
    return "unknown: " + text[:80]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--ncu", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--md", required=True)
    args = ap.parse_args()
    ours = json.load(open(args.analyze))["kernels"]
    ncu = json.load(open(args.ncu))["kernels"]
    lines, checks = ["# analyze against Nsight Compute (counters/model.py, step 2)", ""], []
    judged = agreed = 0
    lines += ["| kernel | share | ours (by its work) | ncu's Speed of Light | agree |", "|---|---|---|---|---|"]
    for k in sorted(ours, key=lambda k: -k["share"]):
        if k["share"] < 0.01:
            continue
        verdicts = [verdict(n) for n in ncu if base(n["name"]) == base(k["name"])]
        if not verdicts:
            continue
        cls = k["diagnosis"]["kernel_class"]
        ok = 2 * sum(cls in ALLOWED.get(v, set()) for v in verdicts) >= len(verdicts)
        judged += 1
        agreed += ok
        lines.append(f"| `{k['name'][:70]}` | {100 * k['share']:.1f}% | {cls} | {', '.join(sorted(set(verdicts)))} | {'yes' if ok else '**no**'} |")
        if not ok:
            lines.append(f"|  | | {'; '.join(k['diagnosis']['evidence'][:3])} | | |")
    rate = agreed / judged if judged else 0.0
    checks.append({"check": "classes agree with ncu for at least 90% of the kernels over 1% of time",
                   "pass": judged > 0 and rate >= 0.9, "detail": f"{agreed} of {judged}"})
    # Occupancy by name: where ncu's first launch of a name has our first launch's grid.
    occ_bad = []
    for k in ours:
        o = k.get("occupancy") or {}
        for n in ncu:
            if base(n["name"]) != base(k["name"]) or o.get("waves") is None:
                continue
            if abs(o["waves"] - n["metrics"]["waves_per_sm"]) < 0.006:
                if o["waves_per_simd"] != n["metrics"]["theoretical_warps"]:
                    occ_bad.append(f"{k['name'][:60]}: ours {o['waves_per_simd']} warps, ncu {n['metrics']['theoretical_warps']}")
                break
    checks.append({"check": "theoretical warps equal ncu's where the launch is the same", "pass": not occ_bad,
                   "detail": "; ".join(occ_bad[:5]) or "all equal"})
    bad = [b for k in ours for b in unsupported(k)]
    given = sum(len(k["diagnosis"].get("recommendations", [])) for k in ours)
    checks.append({"check": "every recommendation rests on the measurement it names", "pass": not bad,
                   "detail": "; ".join(bad[:5]) or f"all {given}"})
    lines += [""] + [f"- {'PASS' if c['pass'] else 'FAIL'} {c['check']}: {c['detail']}" for c in checks]
    open(args.md, "w").write("\n".join(lines) + "\n")
    ok = all(c["pass"] for c in checks)
    json.dump({"label": "sol", "ok": ok, "failed": [c["check"] for c in checks if not c["pass"]], "checks": checks},
              open(args.out, "w"), indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
