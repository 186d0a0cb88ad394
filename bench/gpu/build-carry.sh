#!/usr/bin/env bash
# bench/gpu/build-carry.sh: builds the profiler here (no GPU needed) for the GPU machine.
#
# The GPU machine has no Rust toolchain, so the CLI and the tool library are built here, stripped
# and put in target/gpu-carry/, which the device call carries (carry: ["target/gpu-carry"]; the
# carry limit is 64 MiB in all, so this fails above 60 MiB). The CLI finds librocprof_rs.so
# beside itself. Printed: each file's size and the newest GLIBC symbol version it needs (the
# GPU machine runs Ubuntu 24.04, glibc 2.39), and whether the library exports the CUDA
# injection entry points.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

LIMIT_MIB=60
CARRY="${CARRY:-target/gpu-carry}"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

cargo build --release --workspace

rm -rf "$CARRY"
mkdir -p "$CARRY"
cp target/release/rocprof-rs target/release/librocprof_rs.so "$CARRY/"
strip "$CARRY/rocprof-rs" "$CARRY/librocprof_rs.so"

total=0
for f in "$CARRY/rocprof-rs" "$CARRY/librocprof_rs.so"; do
    size=$(stat -c %s "$f")
    total=$((total + size))
    glibc=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sort -V | tail -n 1 || true)
    printf '%-40s %6s MiB  newest %s\n' "$f" "$(mib "$size")" "${glibc:-none}"
done

# The CUDA entry points (a warning only: the AMD side works without them).
for sym in InitializeInjection InitializeInjectionNvtx2; do
    if nm -D --defined-only "$CARRY/librocprof_rs.so" | awk '{print $NF}' | grep -qx "$sym"; then
        echo "exports $sym"
    else
        echo "WARNING: librocprof_rs.so does not export $sym: CUDA injection will not work"
    fi
done

echo "total $(mib "$total") MiB (limit $LIMIT_MIB MiB)"
if ((total > LIMIT_MIB * 1048576)); then
    echo "build-carry.sh: $CARRY is over $LIMIT_MIB MiB: it would not fit the device call's carry limit" >&2
    exit 1
fi
