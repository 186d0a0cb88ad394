#!/usr/bin/env bash
# python/build-wheel.sh [PROFILE]: builds the wheel into dist/.
#
# The CLI and the tool library are built with cargo (PROFILE: release by default; dev reuses a
# test build's artefacts), copied into python/rocprof_rs/_bin, and maturin builds the native
# module and the wheel around them (abi3, CPython 3.9 and later). The binaries need glibc 2.34,
# so the wheel is tagged manylinux_2_34. Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PROFILE="${1:-release}"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$PROFILE" in
    dev) OUTDIR="$TARGET/debug" ;;
    *) OUTDIR="$TARGET/$PROFILE" ;;
esac
cargo build --profile "$PROFILE" -p rocprof-rs -p rocprof-rs-recorder
mkdir -p python/rocprof_rs/_bin
cp "$OUTDIR/rocprof-rs" "$OUTDIR/librocprof_rs.so" python/rocprof_rs/_bin/
# Debug information stays in target/: the wheel carries the code alone.
if command -v strip >/dev/null 2>&1; then
    strip python/rocprof_rs/_bin/rocprof-rs python/rocprof_rs/_bin/librocprof_rs.so
fi
python3 -m maturin --version >/dev/null 2>&1 || python3 -m pip install -q 'maturin>=1.5,<2'
rm -f dist/rocprof_rs-*.whl
python3 -m maturin build --profile "$PROFILE" --out dist --compatibility manylinux_2_34 --strip
ls -l dist/*.whl
