#!/usr/bin/env bash
# bench/gpu/range_probe/dirt.sh: X23, the dirty L2 lines a range-profiler session leaves (dirt.cu).
# On the GPU machine: bash bench/gpu/range_probe/dirt.sh; results under $OUT (or /tmp/dirt).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="${OUT:-/tmp/dirt}"
mkdir -p "$OUT"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
ROCPROF="${ROCPROF:-$REPO/target/gpu-carry/rocprof-rs}"
NCU="$(command -v ncu || echo "$CUDA_HOME/bin/ncu")"
W="$(mktemp -d)"
"$CUDA_HOME/bin/nvcc" -O3 -arch=sm_90 -o "$W/dirt" "$HERE/dirt.cu" || exit 1
M=dram__bytes_write.sum,dram__bytes_read.sum
report() {  # report NAME DIR: dram writes per kernel, in MB, each dispatch
    python3 - "$1" "$2" <<'PY'
import sys, pyarrow.parquet as pq
name, d = sys.argv[1], sys.argv[2]
t = pq.read_table(d + "/counter").to_pandas()
t = t[t.counter == "dram__bytes_write.sum"]
for k, g in t.groupby(t.kernel_name.str.split("(").str[0]):
    print(f"{name:28} {k:10} n={len(g):3}  dram_write MB: " + " ".join(f"{v / 1e6:.2f}" for v in g.sort_values("correlation_id").value))
PY
}
{
for inc in 'sweep' 'sweep|noop' '.'; do
    tag="ours[${inc}]"
    rm -rf "$W/d"
    "$ROCPROF" run --backend cupti --kernel-trace --pmc "$M" --kernel-include-regex "$inc" -d "$W/d" -- "$W/dirt" > "$W/log" 2>&1 || tail -5 "$W/log"
    report "$tag" "$W/d"
done
# The same with a second (SASS) group in the configuration, as the roofline preset has.
rm -rf "$W/d"
"$ROCPROF" run --backend cupti --kernel-trace --pmc "$M,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" --kernel-include-regex 'sweep|noop' -d "$W/d" -- "$W/dirt" --reps 16 > "$W/log" 2>&1 || tail -5 "$W/log"
report "ours[+sass, sweep|noop]" "$W/d"
for cc in all none; do
    "$NCU" --metrics dram__bytes_write.sum --clock-control none --cache-control $cc --csv --print-units base -k regex:'sweep|noop' "$W/dirt" --reps 3 2>&1 \
        | python3 -c "
import sys, csv
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10 and r[-3] == 'dram__bytes_write.sum']
for r in rows: print(f'ncu[cache-control $cc]           {r[4].split(\"(\")[0]:10} dram_write MB: {float(r[-1].replace(\",\", \"\")) / 1e6:.2f}')
"
done
} 2>&1 | tee "$OUT/dirt.txt"
