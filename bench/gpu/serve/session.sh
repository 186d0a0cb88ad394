#!/usr/bin/env bash
# Issue 42's GPU figures in one session of two calls (each call is at most 10 minutes; what a
# call starts with setsid runs on while the machine is held). On a two-GPU machine:
#
#     session.sh start   GPU 0: the serve stage (SERVE_ARGS), in the background;
#                        GPU 1: flight_rss.sh (600 s) in the background, then flight_probe.sh
#                        in the foreground; then waits while the call allows (WAIT_S).
#     session.sh finish  waits for both (at most WAIT_S), copies their results to $OUT.
#
# Everything goes to /tmp/always-on; $OUT gets serve.md, serve-runs.json, the logs.
set -u
S=/tmp/always-on
OUT="${OUT:-$S/out}"
WAIT_S="${WAIT_S:-500}"
t0=$SECONDS
case "${1:-}" in
start)
    rm -rf "$S" && mkdir -p "$S/serve" "$S/rss"
    CUDA_VISIBLE_DEVICES=0 OUT="$S/serve" setsid nohup bash bench/gpu/run.sh serve > "$S/serve.log" 2>&1 < /dev/null &
    CUDA_VISIBLE_DEVICES=1 setsid nohup bash bench/gpu/serve/flight_rss.sh "$S/rss" 600 > "$S/rss.log" 2>&1 < /dev/null &
    sleep 5
    CUDA_VISIBLE_DEVICES=1 timeout 240 bash bench/gpu/serve/flight_probe.sh > "$OUT/probe.txt" 2>&1
    ;;
finish) ;;
*) echo "usage: session.sh start|finish" >&2; exit 2 ;;
esac
done_both() { [ -f "$S/serve/verdict-serve.json" ] && grep -q FLIGHT_RSS "$S/rss.log"; }
while ! done_both && [ $((SECONDS - t0)) -lt "$WAIT_S" ]; do sleep 5; done
tail -n 40 "$S/serve.log"
cat "$S/rss.log"
cp "$S/serve/serve.md" "$S/serve/serve-runs.json" "$OUT/" 2>/dev/null
cp "$S/serve.log" "$S/rss.log" "$OUT/" 2>/dev/null
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
