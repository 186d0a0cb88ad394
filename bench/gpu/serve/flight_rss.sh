#!/usr/bin/env bash
# The flight recorder's memory over a long run (issue 42): the decode for SECONDS (default 600)
# under `--kernel-trace --flight-recorder 120 --flight-recorder-memory 256M --dump-on-exit`, so
# node-level kernel records (some 290,000 a second on an H200) fill the bound within seconds and
# the ring lives at its bound for the rest of the run. decode.py samples its own VmRSS every 5 s;
# printed as one JSON line FLIGHT_RSS with the baseline beside it: the same decode under no tool
# for 60 s, run first. Run from the repository root with the carry; DIR gets the runs.
#
#     flight_rss.sh DIR [SECONDS]
set -u
R="${ROCPROF:-$PWD/target/gpu-carry/rocprof-rs}"
W="$1"; SECONDS_RUN="${2:-600}"
mkdir -p "$W"
python3 bench/gpu/serve/decode.py --seconds 60 > "$W/none.out" 2> "$W/none.err"
"$R" run --backend cupti --kernel-trace --flight-recorder 120 --flight-recorder-memory 256M --dump-on-exit \
    -d "$W/rss" --quiet -- python3 bench/gpu/serve/decode.py --seconds "$SECONDS_RUN" > "$W/rss.out" 2> "$W/rss.err"
rc=$?
python3 - "$W" "$rc" <<'PY'
import glob, json, sys
w, rc = sys.argv[1], int(sys.argv[2])
def serve(name):
    return next((json.loads(l[6:]) for l in open(f"{w}/{name}.out") if l.startswith("SERVE ")), None)
none, rss = serve("none"), serve("rss")
out = {"rc": rc, "bound_kib": 256 * 1024, "stderr": open(f"{w}/rss.err").read()[-600:]}
if none and rss:
    base = max(k for _, k in none["rss_kib"])
    samples = rss["rss_kib"]
    out.update(baseline_peak_kib=base, peak_kib=max(k for _, k in samples), seconds=samples[-1][0],
               samples=len(samples), tokens_per_s=rss["tokens_per_s"], baseline_tokens_per_s=none["tokens_per_s"],
               over_baseline_kib={"first_minute_max": max(k - base for t, k in samples if t <= 60),
                                  "peak": max(k for _, k in samples) - base,
                                  "last_minute_max": max(k - base for t, k in samples if t >= samples[-1][0] - 60)},
               timeline=samples[::6])
for meta in glob.glob(f"{w}/rss/dump-*/*.metadata.json"):
    m = json.load(open(meta))
    out["dump"] = {"trigger": m.get("trigger", {}).get("reason"), "flight_recorder": m.get("flight_recorder")}
print("FLIGHT_RSS " + json.dumps(out))
PY
