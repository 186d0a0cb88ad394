#!/usr/bin/env bash
# The flight recorder's memory over a long run (issue 42): the decode for SECONDS (default 600)
# under the flight recorder, sampling its own VmRSS every 5 s (decode.py --seconds); printed as
# one JSON line FLIGHT_RSS with the baseline beside it (the same decode under no tool for 60 s,
# run first) and the recorder's own account (the run metadata's flight_recorder object:
# records received, evicted, the most bytes kept).
#
# MODE=graph (default): `--graph-trace graph --flight-recorder 600 --flight-recorder-memory 16M`,
#   the always-on configuration: one graph_launch record per replay, about 1,400 a second,
#   which fill the 16 MiB bound (some 120,000 records) within about 90 s.
# MODE=node: `--kernel-trace --flight-recorder 120 --flight-recorder-memory 256M`, a record per
#   kernel (some 230,000 a second). NOTE: with CUDA 13.0's CUPTI, node-level records of graph
#   replays stop after about 25 million (seen on the H200 on 2026-11-29 at 24.8 million, 107 s
#   in; parca-dev/parcagpu#23 reports the same threshold on an A10, with CUPTI's own memory
#   growing about 1 GiB), so a 10-minute node-level run measures CUPTI as much as the recorder.
#
# MODE=graph-only: `--graph-trace graph` written to disk, no recorder: the floor it is set against.
#
#     [MODE=graph|node|graph-only] flight_rss.sh DIR [SECONDS]
set -u
R="${ROCPROF:-$PWD/target/gpu-carry/rocprof-rs}"
W="$1"; SECONDS_RUN="${2:-600}"
mkdir -p "$W"
python3 bench/gpu/serve/decode.py --seconds 60 > "$W/none.out" 2> "$W/none.err"
case "${MODE:-graph}" in
    graph) FLAGS=(--kernel-trace --graph-trace graph --flight-recorder 600 --flight-recorder-memory 16M); BOUND_KIB=16384 ;;
    node) FLAGS=(--kernel-trace --flight-recorder 120 --flight-recorder-memory 256M); BOUND_KIB=262144 ;;
    # The same tracing written to disk, no recorder: the floor the recorder's memory is set against.
    graph-only) FLAGS=(--kernel-trace --graph-trace graph); BOUND_KIB=0 ;;
    *) echo "MODE is graph or node" >&2; exit 2 ;;
esac
[ "${MODE:-graph}" = graph-only ] || FLAGS+=(--dump-on-exit)
"$R" run --backend cupti "${FLAGS[@]}" \
    -d "$W/rss" --quiet -- python3 bench/gpu/serve/decode.py --seconds "$SECONDS_RUN" > "$W/rss.out" 2> "$W/rss.err"
rc=$?
python3 - "$W" "$rc" "$BOUND_KIB" "${MODE:-graph}" <<'PY'
import glob, json, sys
w, rc, bound, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def serve(name):
    return next((json.loads(l[6:]) for l in open(f"{w}/{name}.out") if l.startswith("SERVE ")), None)
none, rss = serve("none"), serve("rss")
out = {"rc": rc, "mode": mode, "bound_kib": bound, "stderr": open(f"{w}/rss.err").read()[-600:]}
if none and rss:
    base = max(k for _, k in none["rss_kib"])
    samples = rss["rss_kib"]
    out.update(baseline_peak_kib=base, peak_kib=max(k for _, k in samples), seconds=samples[-1][0],
               samples=len(samples), tokens_per_s=rss["tokens_per_s"], baseline_tokens_per_s=none["tokens_per_s"],
               over_baseline_kib={"first_minute_max": max(k - base for t, k in samples if t <= 60),
                                  "peak": max(k for _, k in samples) - base,
                                  "last_minute_max": max(k - base for t, k in samples if t >= samples[-1][0] - 60)},
               timeline=samples[::6])
# The run's own metadata says what the recorder took in over the whole run: set beside the
# kernels the decode launched (steps x the graph's nodes), it tells a recorder that kept up
# from one whose records stopped coming.
for meta in glob.glob(f"{w}/rss/*.metadata.json"):
    out["run_flight_recorder"] = json.load(open(meta)).get("flight_recorder")
if rss:
    out["kernels_launched"] = rss["replays"] * (rss["graph_kernel_nodes"] or 0)
for meta in glob.glob(f"{w}/rss/dump-*/*.metadata.json"):
    m = json.load(open(meta))
    out["dump"] = {"trigger": m.get("trigger", {}).get("reason"), "flight_recorder": m.get("flight_recorder")}
print("FLIGHT_RSS " + json.dumps(out))
PY
