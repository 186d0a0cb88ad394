#!/usr/bin/env bash
# nvdisasm_timed.sh: ROCPROF_RS_NVDISASM=this, to see what the sampler asks of nvdisasm. Runs the
# real one ($CUDA_HOME/bin/nvdisasm) and appends to $NVDISASM_LOG one line per call: the seconds
# it took (and a line at its start, as the sampler may kill it), its exit status, the cubin's
# size and ELF section count, and the arguments.
cubin="${!#}"
# NVDISASM_KEEP=DIR: a copy of each cubin, for timing nvdisasm on it afterwards.
[[ -n "${NVDISASM_KEEP:-}" ]] && cp -n "$cubin" "$NVDISASM_KEEP/"
start=$EPOCHREALTIME
printf 'start size %s args %s\n' "$(stat -c %s "$cubin")" "$*" >> "${NVDISASM_LOG:-/tmp/nvdisasm.log}"
"${CUDA_HOME:-/usr/local/cuda}/bin/nvdisasm" "$@"
rc=$?
took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
sections=$(readelf -S -W "$cubin" 2>/dev/null | grep -c '^ *\[')
printf '%s s rc %s size %s sections %s args %s\n' "$took" "$rc" "$(stat -c %s "$cubin")" "$sections" "$*" \
    >> "${NVDISASM_LOG:-/tmp/nvdisasm.log}"
exit $rc
