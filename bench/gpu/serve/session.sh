#!/usr/bin/env bash
# Issue 42's GPU figures in one session of two calls (each call is at most 10 minutes; what a
# call starts with setsid runs on while the machine is held). On a two-GPU machine:
#
#     session.sh start   GPU 0: the serve stage (SERVE_ARGS), in the background;
#                        GPU 1: diag_window_rate.sh in the foreground (DIAG=0 skips it), then
#                        flight_rss.sh (600 s) in the background (PROBE=1: flight_probe.sh
#                        first); then waits while the call allows (WAIT_S). Each GPU's jobs
#                        run on their own half of the cores, so the two barely meet.
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
    half=$(( $(nproc) / 2 ))
    CUDA_VISIBLE_DEVICES=0 OUT="$S/serve" setsid nohup taskset -c "0-$((half - 1))" bash bench/gpu/run.sh serve > "$S/serve.log" 2>&1 < /dev/null &
    if [ "${DIAG:-1}" = 1 ]; then
        CUDA_VISIBLE_DEVICES=1 WINDOWS="${DIAG_WINDOWS:-50ms/5s 20ms/2s}" timeout 200 taskset -c "$half-$(( 2 * half - 1 ))" \
            bash bench/gpu/serve/diag_window_rate.sh "$S/diag" > "$OUT/diag.txt" 2>&1
        grep DIAG_WINDOW "$OUT/diag.txt"
    fi
    if [ "${PROBE:-0}" = 1 ]; then
        CUDA_VISIBLE_DEVICES=1 timeout 240 taskset -c "$half-$(( 2 * half - 1 ))" bash bench/gpu/serve/flight_probe.sh > "$OUT/probe.txt" 2>&1
    fi
    CUDA_VISIBLE_DEVICES=1 setsid nohup taskset -c "$half-$(( 2 * half - 1 ))" bash bench/gpu/serve/flight_rss.sh "$S/rss" 600 > "$S/rss.log" 2>&1 < /dev/null &
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
