#!/usr/bin/env bash
# bench/gpu/pcsampling/repeat.sh RUNS [rocprof-rs run options...]: the decode loop traced RUNS
# times with the given options (default: stochastic PC sampling every 2^11 cycles), each with
# tools/segv_backtrace.so preloaded and Python's faulthandler on, to catch a crash that comes
# once in many runs. Prints each run's exit status; the stderr of every run that died of a
# signal is kept in $OUT/repeat-<n>.err. Exits 1 if any run did.
#
# Environment: ROCPROF (target/gpu-carry/rocprof-rs), PYTHON (python3), STEPS (1500), OUT.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
runs="${1:-12}"
shift || true
options=("$@")
((${#options[@]})) || options=(--kernel-trace --pc-sampling-method stochastic --pc-sampling-interval 2048)
ROCPROF="${ROCPROF:-$repo/target/gpu-carry/rocprof-rs}"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$repo/bench/gpu/out}"
work="$(mktemp -d /tmp/pcs-repeat.XXXXXX)"
mkdir -p "$OUT"
cc -O1 -g -shared -fPIC -o "$work/segv_backtrace.so" "$repo/bench/gpu/tools/segv_backtrace.c" || exit 1
died=0
for ((n = 1; n <= runs; n++)); do
    start=$EPOCHREALTIME
    LD_PRELOAD="$work/segv_backtrace.so" PYTHONFAULTHANDLER=1 timeout -k 10 120 "$ROCPROF" run --backend cupti \
        "${options[@]}" -d "$work/run-$n.d" -- "$PYTHON" "$here/decode_loop.py" --steps "${STEPS:-1500}" \
        > "$work/run-$n.out" 2> "$work/run-$n.err"
    rc=$?
    printf 'run %d: exit %d, %.1f s\n' "$n" "$rc" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
    if ((rc > 128)) || grep -q segv_backtrace "$work/run-$n.err"; then
        died=$((died + 1))
        cp "$work/run-$n.err" "$OUT/repeat-$n.err"
        tail -n 40 "$work/run-$n.err"
    fi
    rm -rf "$work/run-$n.d"
done
echo "repeat.sh: $died of $runs runs died of a signal"
((died == 0))
