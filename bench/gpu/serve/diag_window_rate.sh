#!/usr/bin/env bash
# Why windows under-count calls (issue 42, diagnosis): the decode under `--window` at each
# WINDOWS setting, its windows set against the program's own replay launches (check_windows.py's
# per_window: switch times, launches and launch-call durations inside and before each window),
# and `stats`' scaled calls of the most frequent kernel against the truth (its calls per
# recorded replay times the replays launched). Prints DIAG_WINDOW lines.
#
#     WINDOWS="50ms/5s 20ms/2s" diag_window_rate.sh DIR [STEPS]
set -u
R="${ROCPROF:-$PWD/target/gpu-carry/rocprof-rs}"
W="$1"; STEPS="${2:-12000}"
mkdir -p "$W"
for window in ${WINDOWS:-50ms/5s 20ms/2s}; do
    tag=$(echo "$window" | tr '/' '_')
    rm -rf "$W/$tag"
    "$R" run --backend cupti --kernel-trace --window "$window" -d "$W/$tag" --quiet -- \
        python3 bench/gpu/serve/decode.py --steps "$STEPS" --replay-log "$W/$tag.replays.json" > "$W/$tag.out" 2> "$W/$tag.err"
    "$R" stats "$W/$tag" --format json > "$W/$tag.stats.json" 2> "$W/$tag.stats.err"
    python3 bench/gpu/serve/check_windows.py "$W/$tag" "$W/$tag.replays.json" --windowed > "$W/$tag.check.json"
    python3 - "$W" "$tag" "$window" <<'PY'
import json, sys
w, tag, window = sys.argv[1:]
check = json.load(open(f"{w}/{tag}.check.json"))
stats = next((s for s in json.load(open(f"{w}/{tag}.stats.json"))["sections"] if s.get("section") == "kernel"), {})
serve = next((json.loads(l[6:]) for l in open(f"{w}/{tag}.out") if l.startswith("SERVE ")), {})
rows = sorted(stats.get("rows", []), key=lambda r: -r["calls"])
top = rows[0] if rows else {}
replays_seen = max(check.get("replays_with_rows", 0), 1)
truth = top.get("calls", 0) / replays_seen * check.get("replays", 0)
est = stats.get("scaled", {}).get("estimates", {}).get(top.get("name"), {})
print("DIAG_WINDOW " + json.dumps({
    "window": window, "tokens_per_s": serve.get("tokens_per_s"), "wall_s": serve.get("wall_s"),
    "phases": serve.get("phases"), "replays": check.get("replays"), "by_place": check.get("replays_by_place"),
    "recorded_share": stats.get("scaled", {}).get("recorded_share"), "top": top.get("name", "")[:60],
    "window_calls": top.get("calls"), "truth_calls": round(truth), "estimate": est,
    "queued_windows": stats.get("scaled", {}).get("queued_windows"),
    "per_window": [{k: v for k, v in pw.items() if k in ("sure_ms", "launched_sure", "launched_same_span_before")}
                   for pw in check.get("per_window", [])], "ok": check.get("ok"), "notes": stats.get("notes")}))
PY
done
