#!/usr/bin/env bash
# Issue 22: what makes SASS metrics read 0 when sessions are driven from the launch callback.
# The callbacks mode with SASS metrics only, with and without activity tracing, with the whole
# driver domain or cuLaunchKernel alone. Writes into $OUT.
set -u
cd "$(dirname "$0")" && SKIP_MAIN=1 SKIP_NCU=1 SKIP_CB_HW=1 CASES="sass_only" OUT=$OUT bash run.sh > $OUT/run.out 2>&1
M=smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
for v in ${VARIANTS:-"" "RP_NO_ACTIVITY=1" "RP_LAUNCH_ONLY=1" "RP_NO_ACTIVITY=1 RP_LAUNCH_ONLY=1" "RP_TOGGLE_ACTIVITY=1"}; do
    echo "== variant: ${v:-default}"
    env $v timeout 60 /tmp/range_probe_build/range_probe --callbacks --roofline $M > $OUT/cb.log 2>&1; echo rc=$?
    grep -E "^H[1-4]: " $OUT/cb.log | cut -c1-160
    grep -E "^RANGE exp=H(1|3)" $OUT/cb.log | sed -E 's/smsp__sass_thread_inst_executed_op_/S_/g' | cut -c1-200 | head -4
done
