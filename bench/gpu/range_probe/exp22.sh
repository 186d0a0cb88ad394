#!/usr/bin/env bash
# Issue 22 experiment: interleaved pass sequences (X13-X15), the H100's sustained peaks per unit
# (what ncu's roofline takes), and what one tensor "op" is. Writes into $OUT.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/exp22}"; mkdir -p "$OUT"
BUILD=/tmp/range_probe_build
SKIP_MAIN=1 SKIP_NCU=1 SKIP_CB_HW=1 CASES="pass_rotation pass_interleave pass_interleave_idx pass_abandon" \
    OUT="$OUT" bash "$HERE/run.sh" > /dev/null 2>&1
grep -E "^(X1[2-5])[a-z]*: |TIMING|^RANGE exp=X|^case |CUPTI_FAIL|WATCHDOG" "$OUT/cases.log" | cut -c1-400
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
PEAKS="dram__bytes.sum.peak_sustained,dram__cycles_elapsed.avg.per_second,lts__t_bytes.sum.peak_sustained,lts__cycles_elapsed.avg.per_second,l1tex__t_bytes.sum.peak_sustained,l1tex__cycles_elapsed.avg.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.peak_sustained,sm__cycles_elapsed.avg.per_second,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained,sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained,sm__ops_path_tensor_src_fp8.sum.peak_sustained,sm__ops_path_tensor_src_fp64.sum.peak_sustained,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second"
echo "== peaks"
timeout -k 5 60 "$NCU" --metrics "$PEAKS" --clock-control none --launch-count 2 --csv --print-units base "$BUILD/range_probe" --plain > "$OUT/peaks.csv" 2> "$OUT/peaks.err"
echo "ncu rc=$?"; tail -3 "$OUT/peaks.err"
python3 - "$OUT/peaks.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r))
    print(d.get("Kernel Name"), d.get("Metric Name"), d.get("Metric Unit"), d.get("Metric Value"))
PY
echo "== tensor ops"
TM="sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp64.sum,sm__ops_path_tensor_src_fp8.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_dmma.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum"
timeout -k 5 120 "$NCU" --metrics "$TM" --clock-control none --nvtx --csv --print-units base python3 "$HERE/gemm_probe.py" > "$OUT/tensor.csv" 2> "$OUT/tensor.err"
echo "ncu rc=$?"; tail -3 "$OUT/tensor.err"; grep EXPECT "$OUT/tensor.csv"
python3 - "$OUT/tensor.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r))
    v = d.get("Metric Value", "")
    if v not in ("0", ""):
        print(d.get("ID"), d.get("Kernel Name", "")[:70], d.get("Grid Size"), d.get("Metric Name"), v)
PY
