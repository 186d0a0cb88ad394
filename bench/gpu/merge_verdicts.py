#!/usr/bin/env python3
"""Writes a stage's summary, $OUT/<stage>.json: run.sh's step statuses and the checkers' verdicts.

    merge_verdicts.py --stage NAME --steps steps.tsv --out OUT.json [VERDICT.json ...]

steps.tsv has one line per step run.sh ran: name, exit status, seconds (tab-separated). The
stage is ok when every step exited 0 and every verdict is ok. Missing verdict files (a step
that died before writing one) are listed, not fatal here: the failed step already says so.
"""

import argparse
import json
import os
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", required=True)
    ap.add_argument("--steps", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("verdicts", nargs="*")
    args = ap.parse_args()

    steps = []
    if os.path.exists(args.steps):
        with open(args.steps) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3:
                    steps.append({"name": parts[0], "rc": int(parts[1]), "seconds": int(parts[2])})
    verdicts, missing = {}, []
    for path in args.verdicts:
        try:
            with open(path) as fh:
                v = json.load(fh)
            verdicts[v.get("label", os.path.basename(path))] = v
        except (OSError, json.JSONDecodeError):
            missing.append(path)
    failed_steps = [s["name"] for s in steps if s["rc"] != 0]
    failed_verdicts = [k for k, v in verdicts.items() if not v.get("ok")]
    summary = {
        "stage": args.stage,
        "ok": bool(steps) and not failed_steps and not failed_verdicts,
        "failed_steps": failed_steps,
        "failed_verdicts": {k: verdicts[k].get("failed") for k in failed_verdicts},
        "missing_verdicts": missing,
        "steps": steps,
        "verdicts": verdicts,
    }
    with open(args.out, "w") as fh:
        json.dump(summary, fh, indent=1)
    print(f"STAGE {args.stage}: {'ok' if summary['ok'] else 'FAILED'}"
          f" ({len(steps) - len(failed_steps)}/{len(steps)} steps ok"
          + (f"; failed: {', '.join(failed_steps)}" if failed_steps else "") + ")")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
