set -uo pipefail
R=target/gpu-carry/rocprof-rs; W=/tmp/e24; mkdir -p $W
nvcc -O3 -arch=sm_90 -o $W/known bench/gpu/counters/known.cu && nvcc -O3 -arch=sm_90 -o $W/dirt bench/gpu/range_probe/dirt.cu || exit 1
rep() { python3 - "$@" <<'PY'
import sys, pyarrow.parquet as pq
name, d = sys.argv[1], sys.argv[2]
c = pq.read_table(d + "/counter").to_pandas()
c["k"] = c.kernel_name.str.split("(").str[0]
seq = c.groupby("correlation_id").agg(k=("k", "first"), g=("counter_group", "first")).reset_index()
w = c[c.counter == "dram__bytes_write.sum"].set_index("correlation_id").value
seq["w"] = seq.correlation_id.map(w)
seq["prev"] = seq.k.shift(1) + "/g" + seq.g.shift(1).astype("Int64").astype(str)
for k in ["copy", "l2_reuse", "sweep_a", "sweep_b", "nvjet"]:
    x = seq[seq.k.str.startswith(k) & seq.w.notna()]
    if len(x):
        print(f"{name:24} {k:9} " + " ".join(f"{v/1e6:.2f}({p})" for v, p in zip(x.w, x.prev)))
PY
}
for mode in "--kernel-trace --preset roofline" "--preset roofline" "--kernel-trace --pmc dram__bytes_write.sum,dram__bytes_read.sum,lts__t_bytes.sum"; do
  for prog in known dirt; do
    rm -rf $W/d; $R run --backend cupti $mode -d $W/d -- $W/$prog > $W/log 2>&1 || tail -3 $W/log
    rep "$prog[${mode// /_}]" $W/d
  done
done
ncu --metrics dram__bytes_write.sum --clock-control none --cache-control none --csv --print-units base -k regex:'copy|l2_reuse' $W/known --reps 3 2>&1 | grep -E 'copy|l2_reuse' | awk -F'","' '{print "ncu-none", substr($5,1,10), $NF}'
