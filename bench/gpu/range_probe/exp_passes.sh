# X22 (tensor metrics by path: which decode from one pass) and the callbacks mode with SASS metrics; then X18-X21 via CASES="pass_accumulate mixed_switch". Writes into $OUT.
set -u
cd bench/gpu/range_probe && SKIP_MAIN=1 SKIP_NCU=1 SKIP_CB_HW=1 CASES="split_paths" OUT=$OUT bash run.sh > $OUT/run.out 2>&1
grep -E "^X22|^RANGE exp=X22|CUPTI_FAIL|^case" $OUT/cases.log | sed -E 's/smsp__sass_thread_inst_executed_op_/S_/g; s/sm__ops_path_tensor_/T_/g' | cut -c1-900
echo "== callbacks + SASS"
timeout 60 /tmp/range_probe_build/range_probe --callbacks --roofline smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum > $OUT/cb_sass.log 2>&1; echo rc=$?
grep -E "^RANGE|^H[0-9]|CUPTI_FAIL" $OUT/cb_sass.log | sed -E 's/smsp__sass_thread_inst_executed_op_/S_/g' | head -20
