#!/usr/bin/env bash
# bench/gpu/range_probe/run.sh: builds range_probe with nvcc (CUPTI headers from the CUDA install,
# libcupti NOT linked), runs it in its normal and --callbacks modes, then runs ncu on the same
# binary in --plain mode for the same metrics, and compares (compare.py).
#
# Run from anywhere. $OUT (default bench/gpu/range_probe/out) gets: run.log (everything),
# probe.log, probe_cb.log, cases.log, ncu4.csv, ncu4_nocache.csv, ncu_roof.csv, compare.md.
# SKIP_MAIN=1 skips the normal and --callbacks runs, SKIP_NCU=1 the ncu runs and the comparison.
# Environment: CUDA_HOME (/usr/local/cuda), NVCC, NCU, PYTHON (python3), CUPTI_LIB (a libcupti to
# dlopen instead of the probe's own search), BUILD (/tmp/range_probe_build).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$HERE/out}"
mkdir -p "$OUT"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
NCU="${NCU:-$(command -v ncu || echo "$CUDA_HOME/bin/ncu")}"
PY="${PYTHON:-python3}"
BUILD="${BUILD:-/tmp/range_probe_build}"
mkdir -p "$BUILD"
exec > >(tee "$OUT/run.log") 2>&1

echo "== versions"
date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,persistence_mode --format=csv 2>&1
nvidia-smi 2>&1 | sed -n '1,12p'
"$NVCC" --version 2>&1 | tail -2
"$NCU" --version 2>&1 | tail -2
WHEEL="$("$PY" -c 'import nvidia,os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))' 2>/dev/null || true)"
echo "python nvidia wheel dir: ${WHEEL:-none}"
"$PY" -c 'import importlib.metadata as m; print("nvidia-cuda-cupti wheel", m.version("nvidia-cuda-cupti"))' 2>/dev/null || true

echo "== where CUPTI is"
for d in "$CUDA_HOME/extras/CUPTI/lib64" "$CUDA_HOME/targets/x86_64-linux/lib" "$CUDA_HOME/lib64" "${WHEEL:-/nonexistent}/lib"; do
    ls -l "$d"/libcupti.so* "$d"/libnvperf_host.so* "$d"/libnvperf_target.so* 2>/dev/null | sed "s|^|  |"
done
CUPTI_INC=""
for d in "$CUDA_HOME/extras/CUPTI/include" "$CUDA_HOME/include" "$CUDA_HOME/targets/x86_64-linux/include" "${WHEEL:-/nonexistent}/include"; do
    if [[ -f "$d/cupti_range_profiler.h" && -f "$d/cupti_profiler_host.h" ]]; then CUPTI_INC="$d"; break; fi
done
echo "CUPTI headers: ${CUPTI_INC:-NOT FOUND}"
if [[ -z "$CUPTI_INC" ]]; then
    find / -name cupti_range_profiler.h -not -path '*/proc/*' 2>/dev/null | head
    exit 1
fi
grep -h "define CUPTI_API_VERSION" "$CUPTI_INC"/cupti_version.h 2>/dev/null
for f in cuptiRangeProfilerEnable cuptiRangeProfilerGetCounterDataSize cuptiProfilerHostGetNumOfPasses \
         cuptiProfilerHostGetBaseMetrics cuptiProfilerHostGetMaxNumHardwareMetricsPerPass bAllowDeviceLevelCounters; do
    printf '  %-50s %s\n' "$f" "$(grep -l "$f" "$CUPTI_INC"/cupti_*.h 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')"
done

echo "== build"
set -x
"$NVCC" -O3 -std=c++17 -arch=sm_90 -I"$CUPTI_INC" -o "$BUILD/range_probe" "$HERE/range_probe.cu" -ldl -lpthread
rc=$?
set +x
if [[ $rc -ne 0 ]]; then echo "BUILD FAILED ($rc)"; exit 1; fi
echo "linked libraries (no libcupti expected):"
ldd "$BUILD/range_probe" | sed 's/^/  /'
echo "FFMA instructions in fma_kernel's SASS: $(cuobjdump -sass "$BUILD/range_probe" 2>/dev/null | awk '/Function : .*fma_kernel/{f=1;next} /Function : /{f=0} f' | grep -c FFMA)"

if [[ -z "${SKIP_MAIN:-}" ]]; then
echo "== probe (normal mode)"
timeout -k 5 75 "$BUILD/range_probe" --out "$BUILD" > "$OUT/probe.log" 2>&1
echo "probe rc=$?"
grep -E "^(CUPTI_LIB_PATH|CUPTI_VERSION|CHIP|DEVICE|PASSES|GROUP4?|greedy|COUNTER_DATA_SIZE|TIMING|WATCHDOG|CUPTI_FAIL|METRIC|MAPPED|tensor|base metrics|EXPECT|DeviceSupported|Enable|cupti)|: (Stop|DecodeData|numTotalRanges|worker)|^G: |^D[0-9]+: |^K[0-9]: |^H[0-9]: |^-- one-pass|PROBE DONE" "$OUT/probe.log"

echo "== probe (callbacks mode: subscriber + activity + range per launch from the launch callback)"
timeout -k 5 50 "$BUILD/range_probe" --callbacks --out "$BUILD" > "$OUT/probe_cb.log" 2>&1
echo "probe --callbacks rc=$?"
grep -vE "^RANGE |^CUPTI candidate" "$OUT/probe_cb.log" | tail -30
fi

echo "== isolated cases, one process each (cases.log)"
: > "$OUT/cases.log"
for c in ${CASES:-hw_per_launch sass_only hw_then_sass fresh_obj_each cds_binding user_range sass_2pass rot_hw_first rot_hw_only rot_hw_rebind rot_sass_rebind pass_rotation}; do
    echo "#### case $c" >> "$OUT/cases.log"
    timeout -k 5 40 "$BUILD/range_probe" --case "$c" >> "$OUT/cases.log" 2>&1
    echo "case $c rc=$?" | tee -a "$OUT/cases.log"
done
if [[ -z "${SKIP_CB_HW:-}" ]]; then
echo "#### callbacks mode with hardware metrics only" >> "$OUT/cases.log"
timeout -k 5 40 "$BUILD/range_probe" --callbacks \
    --roofline lts__t_bytes.sum,l1tex__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    >> "$OUT/cases.log" 2>&1
echo "callbacks hw-only rc=$?" | tee -a "$OUT/cases.log"
fi
grep -E "^(X[0-9]+|H[0-9])[a-z]*: |TIMING|^RANGE exp=(X|H)|^case |CUPTI_FAIL|WATCHDOG|^#### " "$OUT/cases.log" | cut -c1-260

if [[ -n "${SKIP_NCU:-}" ]]; then exit 0; fi

M4="dram__bytes_read.sum,dram__bytes_write.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum"
ROOF="$(cat "$BUILD/roofline_metrics.txt" 2>/dev/null)"
echo "== ncu, 4 metrics, default cache control"
timeout -k 5 50 "$NCU" --metrics "$M4" --clock-control none --csv --print-units base "$BUILD/range_probe" --plain > "$OUT/ncu4.csv" 2> "$BUILD/ncu4.err"
echo "ncu rc=$?"; tail -3 "$BUILD/ncu4.err"
echo "== ncu, 4 metrics, --cache-control none"
timeout -k 5 50 "$NCU" --metrics "$M4" --clock-control none --cache-control none --csv --print-units base "$BUILD/range_probe" --plain > "$OUT/ncu4_nocache.csv" 2> "$BUILD/ncu4n.err"
echo "ncu rc=$?"; tail -3 "$BUILD/ncu4n.err"
if [[ -n "$ROOF" ]]; then
    echo "== ncu, roofline set: $ROOF"
    timeout -k 5 75 "$NCU" --metrics "$ROOF" --clock-control none --csv --print-units base "$BUILD/range_probe" --plain > "$OUT/ncu_roof.csv" 2> "$BUILD/ncur.err"
    echo "ncu rc=$?"; tail -3 "$BUILD/ncur.err"
fi

echo "== compare"
"$PY" "$HERE/compare.py" --probe "$OUT/probe.log" --cb "$OUT/probe_cb.log" --ncu4 "$OUT/ncu4.csv" \
    --ncu4-nocache "$OUT/ncu4_nocache.csv" --ncu-roof "$OUT/ncu_roof.csv" --metrics "$M4" --roof "$ROOF" > "$OUT/compare.md"
cat "$OUT/compare.md"
