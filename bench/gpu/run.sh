#!/usr/bin/env bash
# bench/gpu/run.sh STAGE: validates the CUPTI backend of rocprof-rs on an NVIDIA GPU.
#
#   STAGE   what it does (README.md has the details and thresholds)
#   smoke        capp under rocprof-rs with every trace flag; check_capp.py; stats and analyze;
#                capp again without --cuda-api-trace, and with an NVTX range before CUDA init
#   equivalence  torch_workload.py and launch_bench.py --mode micro: rocprof-rs vs torch.profiler
#                (compare_torch.py), and torch.profiler inside a traced process (check_coexist.py)
#   overhead     overhead.py: no tool / CUPTI floor / rocprof-rs / + API trace / torch.profiler
#   fixtures     raw CUPTI buffers (ROCPROF_RS_CUPTI_DUMP) of capp and a tiny torch script
#   memory       memory.py: peak RSS of mem_launch (8 threads, 2M/8M/32M empty kernels): no tool,
#                the CUPTI floor, librocprof_rs.so (needs only the library, not the CLI)
#   counters     issue 22: known kernels (copy, FP32 FMA, bank-conflicted shared memory, L2 reuse,
#                a tiny synchronised kernel) and a bf16 GEMM under --preset roofline; their metric
#                means against ncu, their classes against the answers worked out by hand; one run of
#                a torch.compile'd ResNet-18 + transformer layer for one-run coverage (COUNTERS_MODEL=0
#                skips it)
#   preflight    the harness alone, no rocprof-rs needed: builds, capp, libbench, floor, Kineto
#   all-quick    smoke, equivalence, fixtures and a shortened overhead in one command
#   ranks        issue 27, 2+ GPUs: a DDP job (ranks/ddp_train.py, torchrun, one rank per GPU)
#                traced as is and with rank 1 sleeping in one step; rocprof-rs ranks on both;
#                ranks/check_ranks.py against each rank's own account, our Parquet and a
#                torch.profiler run of the same straggler workload (NCCL time)
#   telemetry    issue 24, one GPU: --device-sample on an idle context and a bf16 GEMM loop
#                (telemetry/workload.py), nvidia-smi sampling beside the GEMM run; idle vs load
#                power, energy counter vs the integral of power, peak memory vs torch's plus the
#                context, SM clock vs nvidia-smi, the loop's cost at 1 and 10 ms; stats, export
#                --format madengine (telemetry/check_telemetry.py)
#   python       issue 25, one GPU: the carried wheel (dist/, python/build-wheel.sh) in a venv
#                beside the machine's torch; one training step profiled in-process with
#                rocprof_rs.start/region (CUPTI) against torch.profiler's of the same step
#                (python/inprocess_step.py, python/check_inprocess.py)
#   report       issue 26, one GPU: torch_workload.py traced with kernels, NVTX, copies and device
#                samples; torch.profiler's run of the same steps (compare_torch.py); `rocprof-rs
#                report` of it; report/check_report.py: the page's kernels, GPU busy time, device
#                and timeline against pyarrow's reading of the dataset and nvidia-smi's UUID. The
#                page and the dataset come back (the dataset is the report test's H100 fixture)
#   serve        issue 42, one GPU: serve/decode.py (a 12-layer GPT-like bf16 decode, batch 16,
#                static KV cache; CUDA-graph and eager) under no tool, the CUPTI floor, rocprof-rs
#                --kernel-trace, torch.profiler, and rocprof-rs --window, --graph-trace graph (and
#                both), interleaved rounds (SERVE_ARGS: --configs A,B,C,T,W,G,K,H); the windowed
#                and graph-level datasets checked against the program's replay log
#                (serve/check_windows.py), the windows' per-kernel means and scaled calls against
#                the full trace's; serve.md
#   roofs        issue 41, one GPU: `doctor --measure-roofs` (the GPU's own roofs, kept for
#                analyze), then the same under ncu; roofs/check_roofs.py: each microbenchmark's
#                bytes or FLOPs equal ncu's counters, its loads hit the level measured, and
#                ncu's launch times give the same roofs
#   sol          issue 41, one GPU: counters/model.py (a torch.compile'd ResNet-18 and a bf16
#                transformer layer: cuDNN, cuBLAS and Triton kernels) traced for timings, under
#                --preset roofline, and PC-sampled for the stall mix; the same model's step 2 under
#                `ncu --set full`, its raw and details pages (rule findings) as CSV, distilled to
#                ncu.json; `analyze` of it (--samples for the stall mix); sol/check_sol.py: the
#                classes against ncu's Speed of Light (sol/README.md maps them), occupancy and
#                waves. sol-data.tgz holds the fixtures of tests/fixtures/sol-h200
#   pcsampling   issue 40, one GPU: PC sampling of pcsampling/pcs_app.cu (copy, bank conflicts,
#                an FMA chain, a cuBLAS SGEMM) against ncu's WarpStateStats and SourceCounters
#                (pcsampling/check_pcsampling.py); then its cost on a CUDA-graph decode loop
#                (pcsampling/decode_loop.py) beside tracing alone, CUPTI's own sample and ncu
#                (pcsampling/check_cost.py); PCS_ROUNDS=0 skips the cost part
#   json         issue 43, one GPU: every --format json output on real hardware (capp traced with
#                every domain and device samples, again kernels only; pcs_app PC-sampled): stats (and
#                its device section), analyze, diff, score, hotspots, export --report json, avail
#                (the GPU's metrics), doctor and doctor --measure-roofs; each document validated
#                against docs/schemas by tests/verify/check_json_schemas.py (where the machine's
#                Python has jsonschema; the documents come back in json-documents/ either way)
#
# Run from anywhere; it works in the repository root. On the GPU machine $OUT is the folder that
# comes back (at most 8 files); elsewhere it defaults to bench/gpu/out. Each stage writes
# $OUT/<stage>.log (everything printed), $OUT/<stage>.json (step statuses and verdicts),
# $OUT/env.txt, and its own few files. A failed step does not stop the stage: every step runs,
# its exit status is recorded, and the script exits 1 at the end if any failed.
#
# Environment: ROCPROF (the CLI; default target/gpu-carry/rocprof-rs, with librocprof_rs.so
# beside it), PYTHON (python3), CUDA_HOME (/usr/local/cuda), CUPTI_LIB_DIR, STEP_TIMEOUT (s),
# MEMORY_ARGS (extra options for memory.py, e.g. --baseline-tool PATH --rounds 3), RANKS_*
# (the ranks stage: RANKS_NPROC, RANKS_STEPS, RANKS_WARMUP, RANKS_STRAGGLER_STEP,
# RANKS_STRAGGLER_MS, RANKS_TIMEOUT; see ranks/README.md), TELEMETRY_* (the telemetry stage:
# TELEMETRY_IDLE_S 5, TELEMETRY_LOAD_S 15, TELEMETRY_ITERS 2500, TELEMETRY_ROUNDS 3).

# shellcheck disable=SC2317  # functions run through `step`, which shellcheck cannot follow
set -euo pipefail
export PYTHONUNBUFFERED=1

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$REPO"

STAGE="${1:-}"
case "$STAGE" in
    smoke | equivalence | overhead | fixtures | memory | counters | preflight | all-quick | ranks | telemetry | python | report | pcsampling | sol | roofs | serve | json) ;;
    *)
        awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        echo "usage: bash bench/gpu/run.sh STAGE" >&2
        exit 2
        ;;
esac

OUT="${OUT:-$HERE/out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
ROCPROF="${ROCPROF:-target/gpu-carry/rocprof-rs}"
[[ "$ROCPROF" == /* ]] || ROCPROF="$REPO/$ROCPROF"
export ROCPROF
PY="${PYTHON:-python3}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
CUPTI_LIB_DIR="${CUPTI_LIB_DIR:-/usr/local/cuda-13.0/targets/x86_64-linux/lib}"
BUILD="$HERE/build"
T="${STEP_TIMEOUT:-120}"            # seconds, per workload process
WORK="$(mktemp -d "/tmp/rocprof-bench-$STAGE.XXXXXX")"
STEPS="$WORK/steps.tsv"
VERDICTS=()                          # checker JSON files merged into $OUT/<stage>.json
: > "$STEPS"

# All four trace domains the CUPTI backend has.
ALL_TRACES=(--kernel-trace --memory-copy-trace --marker-trace --cuda-api-trace)

# ---------------------------------------------------------------------------------------------
# Helpers. `step NAME CMD...` runs one command, logs its status and duration, and never stops
# the stage. Commands run inside it are in an errexit-free context, so the helpers below check
# their own statuses.

step() {
    local name="$1"
    shift
    local t0=$SECONDS rc=0
    echo
    echo "=== [$name] $*"
    "$@" || rc=$?
    echo "=== [$name] exit $rc, $((SECONDS - t0)) s"
    printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t0))" >> "$STEPS"
    return 0
}

# tee_to FILE CMD...: CMD's stdout into FILE and the log; the status is CMD's (pipefail).
tee_to() {
    local file="$1"
    shift
    "$@" | tee "$file"
}

# The profiler, with a timeout: traced CMD... (the rocprof-rs options come first, then --).
traced() {
    timeout -k 10 "$T" "$ROCPROF" run --backend cupti "$@"
}

# needs OUTPUT SOURCE: true when OUTPUT must be (re)built.
needs() { [[ ! -e "$1" || "$2" -nt "$1" ]]; }

build_all() {
    mkdir -p "$BUILD"
    if [[ "$STAGE" == ranks || "$STAGE" == telemetry || "$STAGE" == python || "$STAGE" == report || "$STAGE" == pcsampling || "$STAGE" == sol || "$STAGE" == roofs ]]; then
        echo "$STAGE: nothing to build (python and torch only)"
        return 0
    fi
    # The memory stage needs only mem_launch and the floor: nvcc's minute goes to nothing else.
    if [[ "$STAGE" != memory ]] && needs "$BUILD/capp" "$HERE/capp.cu"; then
        echo "building capp"
        "$NVCC" -O2 -std=c++17 -arch=sm_90 -lineinfo -cudart shared -Xptxas -v \
            -Xlinker -rpath,"$CUDA_HOME/lib64" -o "$BUILD/capp" "$HERE/capp.cu" || return 1
    fi
    if [[ "$STAGE" != memory ]] && needs "$BUILD/libbench.so" "$HERE/kernels.cu"; then
        echo "building libbench.so"
        "$NVCC" -O2 -std=c++17 -arch=sm_90 -Xcompiler -fPIC -shared -cudart shared \
            -Xlinker -rpath,"$CUDA_HOME/lib64" -o "$BUILD/libbench.so" "$HERE/kernels.cu" || return 1
    fi
    if needs "$BUILD/mem_launch" "$HERE/mem_launch.cu"; then
        echo "building mem_launch"
        "$NVCC" -O2 -std=c++17 -arch=sm_90 -cudart shared -Xlinker -rpath,"$CUDA_HOME/lib64" \
            -o "$BUILD/mem_launch" "$HERE/mem_launch.cu" || return 1
    fi
    if needs "$BUILD/cupti_floor.so" "$HERE/cupti_floor.c"; then
        echo "building cupti_floor.so"
        # rpath: found by soname first, so under torch this is torch's already-loaded libcupti.
        gcc -O2 -Wall -shared -fPIC "$HERE/cupti_floor.c" -I"$CUDA_HOME/include" -L"$CUPTI_LIB_DIR" \
            -l:libcupti.so.13 -Wl,-rpath,"$CUPTI_LIB_DIR" -o "$BUILD/cupti_floor.so" || return 1
    fi
    ls -l "$BUILD"
}

write_env() {
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "stage: $STAGE"
        echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 || true)"
        echo "nvcc: $("$NVCC" --version 2>&1 | tail -n 1 || true)"
        echo "python: $("$PY" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -n 1 || true)"
        if [[ -x "$ROCPROF" ]]; then
            echo "rocprof-rs: $("$ROCPROF" --version 2>&1 | head -n 1)"
            echo "sha256: $(cd "$(dirname "$ROCPROF")" && sha256sum "$(basename "$ROCPROF")" librocprof_rs.so 2>&1 | tr '\n' ' ')"
        else
            echo "rocprof-rs: missing ($ROCPROF)"
            local lib
            lib="$(dirname "$ROCPROF")/librocprof_rs.so"
            [[ -e "$lib" ]] && echo "sha256: $(sha256sum "$lib")"
        fi
        echo "git: $(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
        echo "kernel: $(uname -r)"
    } > "$OUT/env.txt"
    cat "$OUT/env.txt"
}

require_rocprof() {
    if [[ "$STAGE" == memory ]]; then
        # The memory stage injects the library itself: the CLI need not be there.
        [[ -e "$(dirname "$ROCPROF")/librocprof_rs.so" ]] && return 0
        echo "run.sh: $(dirname "$ROCPROF")/librocprof_rs.so is missing"
        return 1
    fi
    if [[ ! -x "$ROCPROF" || ! -e "$(dirname "$ROCPROF")/librocprof_rs.so" ]]; then
        echo "run.sh: $ROCPROF or librocprof_rs.so beside it is missing (bash bench/gpu/build-carry.sh, then carry target/gpu-carry)"
        return 1
    fi
}

# ---------------------------------------------------------------------------------------------
# Stages.

stage_smoke() {
    local W="$WORK/smoke"
    mkdir -p "$W"
    step capp_bare tee_to "$W/bare.stdout" timeout -k 10 "$T" "$BUILD/capp"

    step capp_traced tee_to "$W/full.stdout" traced "${ALL_TRACES[@]}" -d "$W/full" -o capp -- "$BUILD/capp"
    step check_full "$PY" "$HERE/check_capp.py" "$W/full" --stdout "$W/full.stdout" --cuda-api required \
        --label smoke_full --out "$W/check-full.json"
    VERDICTS+=("$W/check-full.json")
    step stats tee_to "$OUT/smoke-stats.txt" "$ROCPROF" stats "$W/full"
    step analyze tee_to "$OUT/smoke-analyze.txt" "$ROCPROF" analyze "$W/full" --gpu h100_sxm5
    # Whether the agent row alone resolves the GPU (no --gpu): appended, informational.
    {
        echo
        echo "### rocprof-rs analyze (no --gpu: resolved from the agent table)"
        "$ROCPROF" analyze "$W/full" 2>&1 || echo "(exit $?)"
    } >> "$OUT/smoke-analyze.txt"

    step capp_no_api tee_to "$W/no_api.stdout" traced --kernel-trace --memory-copy-trace --marker-trace \
        -d "$W/no_api" -o capp -- "$BUILD/capp"
    step check_no_api "$PY" "$HERE/check_capp.py" "$W/no_api" --stdout "$W/no_api.stdout" --cuda-api absent \
        --label smoke_no_cuda_api --out "$W/check-no_api.json"
    VERDICTS+=("$W/check-no_api.json")

    # NVTX before cuInit: the range "early" is only reported (optional_markers_seen).
    step capp_nvtx_first tee_to "$W/nvtx_first.stdout" traced "${ALL_TRACES[@]}" -d "$W/nvtx_first" -o capp \
        -- "$BUILD/capp" --nvtx-before-init
    step check_nvtx_first "$PY" "$HERE/check_capp.py" "$W/nvtx_first" --stdout "$W/nvtx_first.stdout" \
        --cuda-api required --label smoke_nvtx_before_init --out "$W/check-nvtx_first.json"
    VERDICTS+=("$W/check-nvtx_first.json")

    step tar tar -C "$W" -czf "$OUT/smoke.tgz" .
}

stage_equivalence() {
    local W="$WORK/equivalence" reps="${MICRO_REPS:-20}"
    mkdir -p "$W"
    # 1. The torch workload: ours (markers delimit "measure") vs torch.profiler, separate runs.
    step torch_ours tee_to "$W/torch_ours.stdout" traced --kernel-trace --marker-trace -d "$W/torch_ours" \
        -o torch -- "$PY" "$HERE/torch_workload.py"
    step torch_kineto tee_to "$W/torch_kineto.stdout" timeout -k 10 "$T" "$PY" "$HERE/torch_workload.py" \
        --torch-profiler "$W/torch_kineto.json"
    step compare_torch "$PY" "$HERE/compare_torch.py" "$W/torch_ours" "$W/torch_kineto.json" \
        --label torch_workload --ours-log "$W/torch_ours.stdout" --out "$W/verdict-torch.json" \
        --md "$OUT/equivalence-torch.md"
    VERDICTS+=("$W/verdict-torch.json")

    # 2. The micro sequence: five distinct kernels of stable, well-separated durations.
    step micro_ours tee_to "$W/micro_ours.stdout" traced --kernel-trace --marker-trace -d "$W/micro_ours" \
        -o micro -- "$PY" "$HERE/launch_bench.py" --mode micro --reps "$reps"
    step micro_kineto tee_to "$W/micro_kineto.stdout" timeout -k 10 "$T" "$PY" "$HERE/launch_bench.py" \
        --mode micro --reps "$reps" --torch-profiler "$W/micro_kineto.json"
    step compare_micro "$PY" "$HERE/compare_torch.py" "$W/micro_ours" "$W/micro_kineto.json" \
        --label micro --out "$W/verdict-micro.json" --md "$OUT/equivalence-micro.md"
    VERDICTS+=("$W/verdict-micro.json")

    # 3. torch.profiler inside a traced process: our rows unchanged; torch gets none (reported).
    step coexist_run tee_to "$W/coexist.stdout" traced --kernel-trace --marker-trace -d "$W/coexist" \
        -o coexist -- "$PY" "$HERE/torch_workload.py" --torch-profiler "$W/coexist_kineto.json"
    step check_coexist "$PY" "$HERE/check_coexist.py" "$W/torch_ours" "$W/coexist" "$W/coexist_kineto.json" \
        --out "$W/verdict-coexist.json"
    VERDICTS+=("$W/verdict-coexist.json")

    step tar tar -C "$W" -czf "$OUT/equivalence-data.tgz" .
}

stage_overhead() {
    # shellcheck disable=SC2086  # OVERHEAD_ARGS is a list of options
    step overhead "$PY" "$HERE/overhead.py" --out-dir "$OUT" ${OVERHEAD_ARGS:-}
}

stage_memory() {
    # The floor and mem_launch find libcupti and libcudart through their rpaths.
    # shellcheck disable=SC2086  # MEMORY_ARGS is a list of options
    step memory "$PY" "$HERE/memory.py" --out-dir "$OUT" --tool "$(dirname "$ROCPROF")/librocprof_rs.so" \
        ${MEMORY_ARGS:-}
}

stage_fixtures() {
    local W="$WORK/fixtures" D="$WORK/fixtures/dump"
    mkdir -p "$D/capp" "$D/capp-small" "$D/torch"
    cp "$OUT/env.txt" "$D/ENV.txt"
    step capp_dump tee_to "$W/capp.stdout" env ROCPROF_RS_CUPTI_DUMP="$D/capp" \
        timeout -k 10 "$T" "$ROCPROF" run --backend cupti "${ALL_TRACES[@]}" -d "$W/capp" -o capp -- "$BUILD/capp"
    step check_capp_dump "$PY" "$HERE/check_capp.py" "$W/capp" --stdout "$W/capp.stdout" --cuda-api required \
        --label fixtures_capp --out "$W/check-capp.json"
    VERDICTS+=("$W/check-capp.json")
    # Small buffers (8 records each): fixtures that span several buffers.
    step capp_dump_small tee_to "$W/capp_small.stdout" env ROCPROF_RS_CUPTI_DUMP="$D/capp-small" \
        ROCPROF_RS_CUPTI_BUFFER_RECORDS=8 \
        timeout -k 10 "$T" "$ROCPROF" run --backend cupti "${ALL_TRACES[@]}" -d "$W/capp_small" -o capp -- "$BUILD/capp"
    step torch_dump tee_to "$W/torch.stdout" env ROCPROF_RS_CUPTI_DUMP="$D/torch" \
        timeout -k 10 "$T" "$ROCPROF" run --backend cupti "${ALL_TRACES[@]}" -d "$W/torch" -o torch \
        -- "$PY" "$HERE/torch_tiny.py"
    step names "$PY" "$HERE/fixture_names.py" "$D" --out "$D/summary.json"
    {
        echo "Captured by bench/gpu/run.sh fixtures on $(date -u +%Y-%m-%d)."
        echo "capp:       ROCPROF_RS_CUPTI_DUMP=capp rocprof-rs run --backend cupti ${ALL_TRACES[*]} -- capp"
        echo "capp-small: the same with ROCPROF_RS_CUPTI_BUFFER_RECORDS=8"
        echo "torch:      the same flags -- python3 bench/gpu/torch_tiny.py"
        echo "Parquet outputs of the same runs: ../capp, ../capp_small, ../torch. ENV.txt: GPU, driver, versions."
        echo "demangled.tsv: mangled name, c++filt, abi::__cxa_demangle (taken on the GPU machine)."
    } > "$D/README.txt"
    step tar tar -C "$W" -czf "$OUT/fixtures.tgz" .
    ls -l "$OUT/fixtures.tgz" || true
}

# The harness itself, without rocprof-rs: does everything build, run and report on this machine?
stage_preflight() {
    local W="$WORK/preflight"
    mkdir -p "$W"
    step capp_bare tee_to "$W/capp.stdout" timeout -k 10 "$T" "$BUILD/capp"
    step capp_nvtx_first timeout -k 10 "$T" "$BUILD/capp" --nvtx-before-init
    step floor_capp env CUDA_INJECTION64_PATH="$BUILD/cupti_floor.so" timeout -k 10 "$T" "$BUILD/capp"
    local lb=("$PY" "$HERE/launch_bench.py")
    step launches_A timeout -k 10 "$T" "${lb[@]}" --mode launches --n 20000
    step launches_B env CUDA_INJECTION64_PATH="$BUILD/cupti_floor.so" timeout -k 10 "$T" "${lb[@]}" --mode launches --n 20000
    step launches_T timeout -k 10 "$T" "${lb[@]}" --mode launches --n 20000 --torch-profiler
    step graph_A timeout -k 10 "$T" "${lb[@]}" --mode graph --nodes 1000 --reps 50
    step graph_T timeout -k 10 "$T" "${lb[@]}" --mode graph --nodes 1000 --reps 50 --torch-profiler
    step micro_T timeout -k 10 "$T" "${lb[@]}" --mode micro --reps 10 --torch-profiler "$W/micro_kineto.json"
    step torch_T timeout -k 10 "$T" "$PY" "$HERE/torch_workload.py" --torch-profiler "$W/torch_kineto.json"
    step torch_tiny timeout -k 10 "$T" "$PY" "$HERE/torch_tiny.py"
    step summarize "$PY" - "$W/micro_kineto.json" "$W/torch_kineto.json" <<'EOF'
import json, sys
from collections import Counter
for path in sys.argv[1:]:
    d = json.load(open(path))
    k = d["kernels"]
    print(f"{path}: {len(k)} kernels, {len(set(x['name'] for x in k))} names, other {d['other_cuda_events']}, "
          f"chrome error {d['chrome_trace_error']}, unmatched {d['events_without_chrome_match']}")
    print("  with grid/block args:", sum(1 for x in k if 'grid' in x and 'block' in x))
    for name, n in Counter(x["name"] for x in k).most_common(8):
        print(f"  {n:5d}  {name[:110]}")
    sys.exit(0 if k else 1)
EOF
    step tar tar -C "$W" -czf "$OUT/preflight.tgz" .
}

# A command's wall time in seconds into $W/time.<name>, its output into $W/<name>.log.
timed() {
    local name="$1"
    shift
    local t0 rc=0
    t0=$EPOCHREALTIME
    "$@" > "$W/$name.log" 2>&1 || rc=$?
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }' > "$W/time.$name"
    tail -n 5 "$W/$name.log"
    return "$rc"
}

stage_counters() {
    local W="$WORK/counters" C="$HERE/counters"
    mkdir -p "$W"
    local NCU
    NCU="$(command -v ncu || echo "$CUDA_HOME/bin/ncu")"
    # The GPU's own roofs: an L2-resident re-read (l2_reuse) is judged against what the L2
    # delivers to loads, not its peak (issue 41, item 4).
    step counters_roofs roofs_measure "$W"
    local roofs
    roofs="$(kept_roofs "$W")"
    step known_build "$NVCC" -O3 -std=c++17 -arch=sm_90 -o "$W/known" "$C/known.cu"
    step known_plain timed plain timeout -k 10 "$T" "$W/known"
    step known_timed timed timed timeout -k 10 "$T" "$ROCPROF" run --backend cupti --kernel-trace -d "$W/known_timed" -- "$W/known"
    step known_counted timed counted timeout -k 10 "$T" env ROCPROF_RS_CUPTI_DUMP="$W/dump_known" ROCPROF_RS_CUPTI_DUMP_MAX=9000000 \
        "$ROCPROF" run --backend cupti --kernel-trace --preset roofline -d "$W/known_counted" -- "$W/known"
    local metrics
    metrics="$("$PY" -c 'import sys, pyarrow.parquet as pq; print(",".join(sorted(set(pq.read_table(sys.argv[1] + "/counter").column("counter").to_pylist()))))' "$W/known_counted" 2>/dev/null)"
    echo "metrics collected: $metrics"
    step known_ncu timed ncu_known timeout -k 10 300 "$NCU" --metrics "$metrics" --clock-control none --csv --print-units base "$W/known"
    cp "$W/ncu_known.log" "$W/ncu_known.csv"
    step known_analyze sh -c "'$ROCPROF' analyze '$W/known_counted' --timings '$W/known_timed' --gpu h100_sxm5 --roofs '$roofs' --format json > '$W/analyze_known.json'"
    "$ROCPROF" analyze "$W/known_counted" --timings "$W/known_timed" --gpu h100_sxm5 --roofs "$roofs" --top 8 > "$W/analyze_known.txt" 2>&1
    "$ROCPROF" analyze "$W/known_counted" --timings "$W/known_timed" --gpu h100_sxm5 --roofs datasheet --top 8 > "$W/analyze_known_datasheet.txt" 2>&1
    # A GEMM's L2 bytes vary by 3% from launch to launch (its tiles' order): 12 launches of ours
    # (4 per group) against 8 of ncu's.
    step gemm_timed timed gemm_timed timeout -k 10 "$T" "$ROCPROF" run --backend cupti --kernel-trace -d "$W/gemm_timed" -- "$PY" "$C/gemm.py"
    step gemm_counted timed gemm_counted timeout -k 10 "$T" env ROCPROF_RS_CUPTI_DUMP="$W/dump_gemm" ROCPROF_RS_CUPTI_DUMP_MAX=3000000 \
        "$ROCPROF" run --backend cupti --kernel-trace --preset roofline -d "$W/gemm_counted" -- "$PY" "$C/gemm.py" 12
    # ncu twice, in two processes: a GEMM's L2 traffic moves by a few percent with where its
    # buffers land in memory, and the tolerance must not be tighter than ncu against itself.
    local r
    for r in a b; do
        step gemm_ncu_$r timed ncu_gemm_$r timeout -k 10 300 "$NCU" --metrics "$metrics" --clock-control none --csv --print-units base -k regex:nvjet "$PY" "$C/gemm.py" 8
        cp "$W/ncu_gemm_$r.log" "$W/ncu_gemm_$r.csv"
    done
    step gemm_analyze sh -c "'$ROCPROF' analyze '$W/gemm_counted' --timings '$W/gemm_timed' --gpu h100_sxm5 --format json > '$W/analyze_gemm.json'"
    local model_args=()
    if [[ "${COUNTERS_MODEL:-1}" != 0 ]]; then
        step model_timed timed model_timed timeout -k 10 300 "$ROCPROF" run --backend cupti --kernel-trace --marker-trace -d "$W/model_timed" -- "$PY" "$C/model.py" 6
        step model_counted timed model_counted timeout -k 10 400 "$ROCPROF" run --backend cupti --kernel-trace --marker-trace --preset roofline -d "$W/model_counted" -- "$PY" "$C/model.py" 12
        # ncu replays the whole application per pass and leaves the caches alone: each launch
        # sees the caches the run left it, as ours does (its kernel replay would flush L2 first).
        # Two steps, twice: how much ncu's own values move from step to step and from run to run.
        for r in a b; do
            step model_ncu_$r timed ncu_model_$r timeout -k 10 400 "$NCU" --metrics "$metrics" --clock-control none --csv --print-units base \
                --replay-mode application --cache-control none --nvtx --nvtx-include "step2/" --nvtx-include "step3/" "$PY" "$C/model.py" 4
            cp "$W/ncu_model_$r.log" "$W/ncu_model_$r.csv"
        done
        "$ROCPROF" analyze "$W/model_counted" --timings "$W/model_timed" --gpu h100_sxm5 --top 10 > "$W/analyze_model.txt" 2>&1
        "$ROCPROF" analyze "$W/model_counted" --timings "$W/model_timed" --gpu h100_sxm5 --format json > "$W/analyze_model.json" 2>&1
        model_args=(--model "$W/model_counted" --model-ncu "$W/ncu_model_a.csv,$W/ncu_model_b.csv")
    fi
    step compare "$PY" "$C/compare.py" --known "$W/known_counted" --known-timed "$W/known_timed" --ncu "$W/ncu_known.csv" \
        --analyze "$W/analyze_known.json" --expect "$W/plain.log" --gemm "$W/gemm_counted" --gemm-ncu "$W/ncu_gemm_a.csv,$W/ncu_gemm_b.csv" \
        --gemm-analyze "$W/analyze_gemm.json" "${model_args[@]}" --md "$OUT/counters.md" --json "$W/compare.json"
    VERDICTS+=("$W/compare.json")
    { for f in "$W"/time.*; do echo "${f##*/time.} $(cat "$f")"; done; } | tee "$W/times.txt"
    step tar tar -C "$W" --exclude=known --exclude='*.log' -czf "$OUT/counters.tgz" .
}

# reap_ranks PREFIX: the ranks of a finished run that are still alive (each wrote its pid to
# PREFIX.<rank>.pid at start; torchrun starts its workers in sessions of their own, so a timeout's
# group kill may miss them) are killed by pid, and the step fails, naming them.
reap_ranks() {
    local f pid left=0
    for f in "$1".*.pid; do
        [[ -e "$f" ]] || continue
        pid="$(cat "$f")"
        [[ "$pid" =~ ^[0-9]+$ ]] || continue
        if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q ddp_train.py; then
            echo "rank pid $pid ($f) outlived its run: killing it"
            kill -KILL "$pid" 2>/dev/null || true
            left=1
        fi
    done
    [[ $left == 0 ]] || return 1
    echo "no rank left running"
}

# logged FILE CMD...: CMD's stdout into FILE and its stderr into FILE.err, then both into the log.
# Files, not tee's pipe: a rank that outlived its run holds torchrun's stdout and stderr, and a
# pipe's reader would wait for their end forever (the stage's own tee into <stage>.log too).
logged() {
    local file="$1" rc=0
    shift
    "$@" > "$file" 2> "$file.err" || rc=$?
    cat "$file" "$file.err"
    return "$rc"
}

# to_file FILE CMD...: CMD's stdout into FILE only (its stderr, e.g. ranks' notes, to the log).
to_file() {
    local file="$1"
    shift
    "$@" > "$file"
}

# ranks_cli: the carried CLI must have the ranks command (commit 0b7ae27 and later).
ranks_cli() {
    if ! "$ROCPROF" ranks --help > /dev/null 2>&1; then
        echo "ranks: $ROCPROF has no ranks command: carry a newer build (bash bench/gpu/build-carry.sh)"
        return 1
    fi
    echo "ranks: $ROCPROF has the ranks command"
}

# at_least_two_gpus N: the stage needs two GPUs or more.
at_least_two_gpus() {
    if (($1 < 2)); then
        echo "ranks: $1 GPU(s) visible (nvidia-smi -L); this stage needs at least 2 (a multi-GPU kind)"
        return 1
    fi
    echo "ranks: $1 ranks, one per GPU"
}

# issue 27: rocprof-rs ranks on a real NCCL job. Three runs of ranks/ddp_train.py under torchrun
# (N ranks, one per GPU): traced as is; traced with rank 1 sleeping in step K; the straggler
# workload again under torch.profiler alone (CUPTI has one subscriber: the reference is a
# separate run of the same deterministic workload, as in the equivalence stage). Then `ranks`
# on both traced runs and check_ranks.py.
stage_ranks() {
    local W="$WORK/ranks" R="$HERE/ranks"
    # traced reads $T: bash locals are dynamically scoped, so this is the limit of every run here.
    local T="${RANKS_TIMEOUT:-150}"
    local S="${RANKS_STEPS:-30}" WU="${RANKS_WARMUP:-5}" K="${RANKS_STRAGGLER_STEP:-12}" MS="${RANKS_STRAGGLER_MS:-50}"
    local deadline=$((T - 30)) N
    mkdir -p "$W"
    # NVLink multicast stays off on the lent machines, in every process (ddp_train.py sets them too).
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    N="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
    N="${N:-0}"
    if [[ -n "${RANKS_NPROC:-}" ]] && ((RANKS_NPROC < N)); then N="$RANKS_NPROC"; fi
    step gpus at_least_two_gpus "$N"
    if ((N < 2)); then
        return 0
    fi
    nvidia-smi topo -m || true  # the links between the GPUs, for the record
    step ranks_cli ranks_cli
    # Every run: the rendezvous and the process group time out, and each rank ends itself at
    # $deadline s or when torchrun is gone (ddp_train.py's watchdog), inside timeout's $T.
    local launch=("$PY" -m torch.distributed.run --standalone --nproc-per-node "$N" --max-restarts 0
        --rdzv-conf join_timeout=60 "$R/ddp_train.py" --warmup "$WU" --steps "$S"
        --deadline-s "$deadline" --pg-timeout-s 60)
    local straggle=(--straggler-rank 1 --straggler-step "$K" --straggler-ms "$MS")
    local marker=(--step-marker '^step ')

    step plain_run logged "$W/plain.stdout" traced --kernel-trace --marker-trace -d "$W/plain" \
        -- "${launch[@]}" --truth-out "$W/truth-plain"
    step plain_reap reap_ranks "$W/truth-plain"
    step straggler_run logged "$W/straggler.stdout" traced --kernel-trace --marker-trace -d "$W/straggler" \
        -- "${launch[@]}" "${straggle[@]}" --truth-out "$W/truth-straggler"
    step straggler_reap reap_ranks "$W/truth-straggler"
    step torch_run logged "$W/torch.stdout" timeout -k 10 "$T" "${launch[@]}" "${straggle[@]}" \
        --truth-out "$W/truth-torch" --torch-profiler "$W/torch"
    step torch_reap reap_ranks "$W/truth-torch"

    step ranks_plain to_file "$W/ranks-plain.json" timeout -k 5 60 "$ROCPROF" ranks "$W/plain" "${marker[@]}" --format json
    step ranks_straggler to_file "$W/ranks-straggler.json" timeout -k 5 60 "$ROCPROF" ranks "$W/straggler" "${marker[@]}" \
        --format json
    {
        local run
        for run in straggler plain; do
            echo "### rocprof-rs ranks $run --step-marker '^step ' --top 5"
            timeout -k 5 60 "$ROCPROF" ranks "$W/$run" "${marker[@]}" --top 5 2>&1 || echo "(exit $?)"
            echo
        done
        echo "### rocprof-rs stats straggler"
        timeout -k 5 60 "$ROCPROF" stats "$W/straggler" 2>&1 || echo "(exit $?)"
    } > "$OUT/ranks-tables.txt"
    cat "$OUT/ranks-tables.txt"

    step check "$PY" "$R/check_ranks.py" --world-size "$N" --steps "$S" --straggler-rank 1 --straggler-step "$K" \
        --straggler-ms "$MS" \
        --plain "$W/plain" --plain-truth "$W/truth-plain" --plain-stdout "$W/plain.stdout" \
        --plain-ranks "$W/ranks-plain.json" \
        --straggler "$W/straggler" --straggler-truth "$W/truth-straggler" --straggler-stdout "$W/straggler.stdout" \
        --straggler-ranks "$W/ranks-straggler.json" \
        --torch-prefix "$W/torch" --torch-truth "$W/truth-torch" --torch-stdout "$W/torch.stdout" \
        --out "$W/verdict-ranks.json" --md "$OUT/ranks.md"
    VERDICTS+=("$W/verdict-ranks.json")
    step tar tar -C "$W" -czf "$OUT/ranks-data.tgz" .
    ls -l "$OUT/ranks-data.tgz" || true
}

# smi_lines FILE: nvidia-smi's background sampling wrote lines (its stderr is FILE.err).
smi_lines() {
    local n
    n="$(wc -l < "$1" 2>/dev/null || echo 0)"
    echo "nvidia-smi: $n lines in $1"
    head -n 2 "$1" 2>/dev/null || true
    [[ -s "$1.err" ]] && head -c 400 "$1.err"
    ((n > 0))
}

# oh_run CONFIG DATASET CMD...: one run of the telemetry stage's overhead loop: no tool, the tool
# without sampling, sampling every 10 ms, every 1 ms.
oh_run() {
    local cfg="$1" dataset="$2"
    shift 2
    case "$cfg" in
        none) timeout -k 10 "$T" "$@" ;;
        tool) traced -d "$dataset" -- "$@" ;;
        sample10) traced --device-sample 10 -d "$dataset" -- "$@" ;;
        sample1) traced --device-sample 1 -d "$dataset" -- "$@" ;;
        *)
            echo "oh_run: unknown configuration $cfg"
            return 2
            ;;
    esac
}

# issue 24: the device sampler (`run --device-sample`) on one GPU. An idle context and a bf16
# GEMM loop (telemetry/workload.py) traced with samples every 10 ms, nvidia-smi sampling every
# 100 ms in the background during the GEMM run; the GEMM loop with a fixed count under no tool,
# the tool, and sampling at 10 and 1 ms, rounds interleaved (each round starts one configuration
# later); stats and export --format madengine on the GEMM run; telemetry/check_telemetry.py.
stage_telemetry() {
    local W="$WORK/telemetry" TL="$HERE/telemetry"
    local idle_s="${TELEMETRY_IDLE_S:-5}" load_s="${TELEMETRY_LOAD_S:-15}" iters="${TELEMETRY_ITERS:-2500}"
    local rounds="${TELEMETRY_ROUNDS:-3}"
    local wl=("$PY" "$TL/workload.py")
    mkdir -p "$W/overhead"
    nvidia-smi --query-gpu=index,name,uuid,power.limit,clocks.max.sm --format=csv || true

    step idle_run logged "$W/idle.stdout" traced --device-sample 10 -d "$W/idle" \
        -- "${wl[@]}" idle --seconds "$idle_s" --report "$W/idle.json"

    # nvidia-smi's own readings beside the GEMM run (the SM clock's reference): started just
    # before, ended just after; its timeout only guards against a stage cut short.
    timeout -k 5 $((T + 60)) nvidia-smi --query-gpu=timestamp,uuid,clocks.sm,power.draw,memory.used \
        --format=csv,noheader,nounits -lms 100 > "$W/smi.csv" 2> "$W/smi.csv.err" &
    local smi=$!
    step gemm_run logged "$W/gemm.stdout" traced --device-sample 10 --marker-trace --kernel-trace -d "$W/gemm" \
        -- "${wl[@]}" gemm --seconds "$load_s" --settle-seconds 2 --report "$W/gemm.json"
    kill "$smi" 2> /dev/null || true
    wait "$smi" 2> /dev/null || true
    step smi smi_lines "$W/smi.csv"

    local cfgs=(none tool sample10 sample1) r i cfg base
    for ((r = 1; r <= rounds; r++)); do
        for ((i = 0; i < ${#cfgs[@]}; i++)); do
            cfg="${cfgs[$(((i + r - 1) % ${#cfgs[@]}))]}"
            base="$W/overhead/$cfg-$r"
            step "overhead_${cfg}_$r" logged "$base.out" oh_run "$cfg" "$base" \
                "${wl[@]}" gemm --iters "$iters" --report "$base.json"
        done
    done

    step stats tee_to "$W/stats.txt" timeout -k 5 60 "$ROCPROF" stats "$W/gemm"
    step export_madengine tee_to "$W/export.txt" timeout -k 5 60 "$ROCPROF" export "$W/gemm" --format madengine \
        -o "$W/madengine"
    {
        echo "### rocprof-rs stats (gemm run)"
        cat "$W/stats.txt" 2> /dev/null
        echo
        echo "### rocprof-rs stats (idle run)"
        timeout -k 5 60 "$ROCPROF" stats "$W/idle" 2>&1 || echo "(exit $?)"
        echo
        echo "### rocprof-rs analyze (gemm run): throttling from the samples"
        timeout -k 5 60 "$ROCPROF" analyze "$W/gemm" 2>&1 | tail -n 25 || echo "(exit $?)"
        echo
        echo "### rocprof-rs export (gemm run) --format madengine"
        cat "$W/export.txt" 2> /dev/null
        local f
        while IFS= read -r f; do
            echo "--- ${f#"$W"/}: $(($(wc -l < "$f") - 1)) rows; the first 3 lines"
            head -n 3 "$f"
        done < <(find "$W/madengine" -name '*.csv' 2> /dev/null | sort)
    } > "$OUT/telemetry-stats.txt"
    cat "$OUT/telemetry-stats.txt"

    step check "$PY" "$TL/check_telemetry.py" --idle "$W/idle" --idle-report "$W/idle.json" --idle-log "$W/idle.stdout" \
        --gemm "$W/gemm" --gemm-report "$W/gemm.json" --gemm-log "$W/gemm.stdout" --smi "$W/smi.csv" \
        --madengine "$W/madengine" --overhead "$W/overhead" --rounds "$rounds" --interval-ms 10 \
        --out "$W/verdict-telemetry.json" --md "$OUT/telemetry.md"
    VERDICTS+=("$W/verdict-telemetry.json")
    step tar tar -C "$W" -czf "$OUT/telemetry-data.tgz" .
    ls -l "$OUT/telemetry-data.tgz" || true
}

# issue 25: the Python package's in-process profile of one PyTorch training step (CUPTI),
# against torch.profiler's of the same step. The wheel is carried as dist/ (python/build-wheel.sh
# here) and installed with no dependencies into a folder on PYTHONPATH: the machine's torch and
# pyarrow serve, and pip fetches nothing.
stage_python() {
    local W="$WORK/python" PY_DIR="$HERE/python" wheel
    mkdir -p "$W"
    wheel="$(ls -t "$REPO"/dist/rocprof_rs-*.whl 2> /dev/null | head -n 1)"
    echo "wheel: ${wheel:-none in $REPO/dist}"
    # Into a folder of its own on PYTHONPATH, beside the machine's torch and pyarrow (a venv
    # would not see them where they are in the user's site).
    step install "$PY" -m pip install -q --no-deps --no-index --target "$W/site" "$wheel"
    step rocprof_step env PYTHONPATH="$W/site" "$PY" "$PY_DIR/inprocess_step.py" --mode rocprof --out "$W/dataset" \
        --report "$W/rocprof.json"
    step torch_step env PYTHONPATH="$W/site" "$PY" "$PY_DIR/inprocess_step.py" --mode torch --out "$W/unused" \
        --report "$W/torch.json"
    step check "$PY" "$PY_DIR/check_inprocess.py" "$W/rocprof.json" "$W/torch.json" --out "$W/verdict-python.json"
    VERDICTS+=("$W/verdict-python.json")
    step stats tee_to "$OUT/python-stats.txt" env PYTHONPATH="$W/site" "$W/site/bin/rocprof-rs" stats "$W/dataset"
    cp "$W/rocprof.json" "$W/torch.json" "$OUT/" 2> /dev/null || true
}

stage_report() {
    local W="$WORK/report" uuid
    mkdir -p "$W"
    uuid="$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 | tr -d ' ')"
    step ours tee_to "$W/ours.stdout" traced --kernel-trace --marker-trace --memory-copy-trace --device-sample 10 \
        -d "$W/ours" -o torch -- "$PY" "$HERE/torch_workload.py" --warmup 10 --steps 20
    step kineto tee_to "$W/kineto.stdout" timeout -k 10 "$T" "$PY" "$HERE/torch_workload.py" --warmup 10 --steps 20 \
        --torch-profiler "$W/kineto.json"
    step compare_torch "$PY" "$HERE/compare_torch.py" "$W/ours" "$W/kineto.json" --label report_torch \
        --ours-log "$W/ours.stdout" --out "$W/verdict-torch.json"
    VERDICTS+=("$W/verdict-torch.json")
    step report tee_to "$W/report.txt" timeout -k 5 120 "$ROCPROF" report "$W/ours" -o "$OUT/report-h100.html"
    step check "$PY" "$HERE/report/check_report.py" "$OUT/report-h100.html" "$W/ours" --gpu-uuid "$uuid" \
        --out "$W/verdict-report.json"
    VERDICTS+=("$W/verdict-report.json")
    step tar tar -C "$W" -czf "$OUT/report-dataset.tgz" ours
}

stage_all_quick() {
    local s
    for s in smoke equivalence fixtures overhead; do
        mkdir -p "$WORK/all/$s"
        if [[ $s == overhead ]]; then
            step "$s" env OUT="$WORK/all/$s" OVERHEAD_ARGS="--rounds 2 --n 20000 --reps 50 --budget-s 150" \
                bash "$HERE/run.sh" "$s"
        else
            step "$s" env OUT="$WORK/all/$s" bash "$HERE/run.sh" "$s"
        fi
        [[ -e "$WORK/all/$s/$s.json" ]] && VERDICTS+=("$WORK/all/$s/$s.json")
    done
    step tar tar -C "$WORK/all" -czf "$OUT/all-quick.tgz" .
}

# issue 40: PC sampling against Nsight Compute on kernels whose hot spot is known
# (pcsampling/pcs_app.cu), then its cost on a CUDA-graph decode loop (pcsampling/decode_loop.py)
# beside tracing alone, CUPTI's own pc_sampling_continuous sample and ncu.
stage_pcsampling() {
    local W="$WORK/pcsampling" P="$HERE/pcsampling" reps="${PCS_REPS:-200}" rounds="${PCS_ROUNDS:-3}"
    local steps="${PCS_STEPS:-1500}" app="$BUILD/pcs_app" pcc="$BUILD/libpc_sampling_continuous.so"
    # Every 2^14 cycles: at 2^11 (ncu's and CUPTI's default) these kernels, which keep every
    # scheduler busy, fill CUPTI's hardware buffer faster than its threads decode it.
    local interval="${PCS_INTERVAL:-16384}"
    mkdir -p "$W/cost" "$BUILD"
    step build_pcs "$NVCC" -O3 -lineinfo -arch=sm_90 -o "$app" "$P/pcs_app.cu" -lcublas
    step build_cupti_sample build_cupti_pc_sample "$pcc"
    step plain logged "$W/plain.txt" "$app" "$reps"
    step sampled logged "$W/sampled.txt" traced --kernel-trace --pc-sampling-method stochastic \
        --pc-sampling-interval "$interval" -d "$W/run" -- "$app" "$reps"
    step nvdisasm_probe pcs_nvdisasm_probe "$app" "$W"
    step hotspots to_file "$W/hotspots.json" "$ROCPROF" hotspots "$W/run" --format json --top 100000 --kernels 100
    step hotspots_text tee_to "$W/hotspots.txt" "$ROCPROF" hotspots "$W/run" --top 4
    # At the clocks and caches the application runs with, as rocprof-rs sees it (ncu locks the
    # clocks to base and flushes caches between passes by default).
    step ncu logged "$W/ncu.txt" timeout -k 10 400 ncu --section WarpStateStats --section SourceCounters \
        --clock-control none --cache-control none -f -o "$W/ncu" "$app" 2
    step ncu_raw to_file "$W/ncu-raw.csv" ncu -i "$W/ncu.ncu-rep" --page raw --csv
    step ncu_source to_file "$W/ncu-source.csv" ncu -i "$W/ncu.ncu-rep" --page source --csv --print-source sass
    step check "$PY" "$P/check_pcsampling.py" --hotspots "$W/hotspots.json" --ncu-raw "$W/ncu-raw.csv" \
        --ncu-source "$W/ncu-source.csv" --times "$W/sampled.txt" --out "$W/verdict-pcsampling.json" \
        --md "$OUT/pcsampling.md"
    VERDICTS+=("$W/verdict-pcsampling.json")

    if [[ "$rounds" == 0 ]]; then
        step tar tar -C "$W" -czf "$OUT/pcsampling-data.tgz" --exclude='*.ncu-rep' .
        return 0
    fi
    local cfgs=(none trace sampled sampled2048 cupti_sample) r i cfg base
    for ((r = 1; r <= rounds; r++)); do
        for ((i = 0; i < ${#cfgs[@]}; i++)); do
            cfg="${cfgs[$(((i + r - 1) % ${#cfgs[@]}))]}"
            base="$W/cost/$cfg-$r"
            if [[ $cfg == cupti_sample ]]; then
                # The reference, not under test: it exits 1 itself when CUPTI's hardware buffer
                # fills; check_cost.py reports its runs, and the step does not fail the stage.
                logged "$base.out" pcs_cost_run "$cfg" "$base" "$pcc" "$P/decode_loop.py" --steps "$steps" ||
                    echo "cupti_sample round $r: exit $?"
            else
                step "cost_${cfg}_$r" logged "$base.out" pcs_cost_run "$cfg" "$base" "$pcc" "$P/decode_loop.py" \
                    --steps "$steps"
            fi
        done
    done
    step cost_ncu logged "$W/cost/ncu.out" pcs_ncu_run "$W/cost/ncu" "$P/decode_loop.py"
    step cost_check "$PY" "$P/check_cost.py" --dir "$W/cost" --rounds "$rounds" --out "$W/verdict-cost.json" \
        --md "$OUT/pcsampling-cost.md"
    VERDICTS+=("$W/verdict-cost.json")
    rm -rf "$W/ncu.ncu-rep" "$W/cost/ncu.ncu-rep" "$W"/cost/*.d
    step tar tar -C "$W" -czf "$OUT/pcsampling-data.tgz" .
}

# build_cupti_pc_sample LIB: CUPTI's own pc_sampling_continuous injection, as its Makefile builds it.
build_cupti_pc_sample() {
    local src="$CUDA_HOME/extras/CUPTI/samples/pc_sampling_continuous" dir="$BUILD/pcc"
    rm -rf "$dir" && cp -r "$src" "$dir" && cp -r "$CUDA_HOME/extras/CUPTI/samples/common" "$BUILD/" &&
        (cd "$dir" && make CUDA_INSTALL_PATH="$CUDA_HOME" > make.log 2>&1) && cp "$dir/libpc_sampling_continuous.so" "$1"
}

# roofs_measure DIR: `doctor --measure-roofs` of GPU 0, kept in DIR/kept, its JSON in DIR/roofs.json.
roofs_measure() {
    "$ROCPROF" doctor --measure-roofs --device 0 --json --roofs-dir "$1/kept" > "$1/roofs.json"
}

# kept_roofs DIR: the file roofs_measure kept in DIR/kept, or `datasheet` where it kept none.
kept_roofs() {
    local kept
    for kept in "$1"/kept/*.json; do
        [[ -f "$kept" ]] && { echo "$kept"; return; }
    done
    echo datasheet
}

stage_roofs() {
    local W="$WORK/roofs" NCU
    NCU="$(command -v ncu || echo "$CUDA_HOME/bin/ncu")"
    mkdir -p "$W"
    step roofs_measure roofs_measure "$W"
    step roofs_text "$ROCPROF" doctor --measure-roofs --device 0 --roofs-dir "$W/kept-again"
    step roofs_ncu logged "$W/ncu.txt" "$NCU" --clock-control none --cache-control none -f -o "$W/ncu" \
        --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,gpu__time_duration.sum \
        "$ROCPROF" doctor --measure-roofs --device 0 --roofs-dir "$W/kept-ncu"
    step roofs_ncu_raw to_file "$W/ncu-raw.csv" "$NCU" -i "$W/ncu.ncu-rep" --page raw --csv --print-units base
    step roofs_check "$PY" "$HERE/roofs/check_roofs.py" --ours "$W/roofs.json" --ncu "$W/ncu-raw.csv" \
        --out "$W/verdict-roofs.json" --md "$OUT/roofs.md"
    VERDICTS+=("$W/verdict-roofs.json")
    step copy_measured cp "$W/roofs.json" "$OUT/roofs-measured.json"
    step copy_ncu cp "$W/ncu-raw.csv" "$OUT/roofs-ncu-raw.csv"
}

stage_json() {
    local W="$WORK/json" D="$OUT/json-documents"
    mkdir -p "$W" "$D"
    step capp_all tee_to "$W/a.stdout" traced "${ALL_TRACES[@]}" --device-sample 10 -d "$W/a" -o capp -- "$BUILD/capp"
    step capp_kernels tee_to "$W/b.stdout" traced --kernel-trace -d "$W/b" -o capp -- "$BUILD/capp"
    # capp's kernels last microseconds, too short to be sampled: the pcsampling stage's app.
    step build_pcs "$NVCC" -O3 -lineinfo -arch=sm_90 -o "$BUILD/pcs_app" "$HERE/pcsampling/pcs_app.cu" -lcublas
    step pcs_sampled tee_to "$W/pc.stdout" traced --kernel-trace --pc-sampling-method stochastic \
        --pc-sampling-interval 16384 -d "$W/pc" -- "$BUILD/pcs_app" 20
    step stats to_file "$D/stats.json" "$ROCPROF" stats "$W/a" --format json
    step stats_device to_file "$D/stats-device.json" "$ROCPROF" stats "$W/a" --section device --format json
    step stats_by_rank to_file "$D/stats-by-rank.json" "$ROCPROF" stats "$W/a" --by-rank --format json
    step analyze to_file "$D/analyze.json" "$ROCPROF" analyze "$W/a" --format json
    # 1 is a regression beyond the threshold, a verdict rather than a failure: the document is written.
    step diff to_file "$D/diff.json" "$ROCPROF" diff "$W/b" "$W/a" --format json
    step score to_file "$D/score.json" "$ROCPROF" score "$W/a" --format json
    step hotspots to_file "$D/hotspots.json" "$ROCPROF" hotspots "$W/pc" --format json
    step export to_file "$D/export.json" "$ROCPROF" export "$W/a" --format perfetto -o "$W/a.pftrace" --report json
    step avail to_file "$D/avail.json" "$ROCPROF" avail --filter dram__bytes --format json
    step doctor to_file "$D/doctor.json" "$ROCPROF" doctor --format json
    step roofs to_file "$D/doctor-roofs.json" "$ROCPROF" doctor --measure-roofs --device 0 --roofs-dir "$W/roofs" \
        --format json
    step validate "$PY" "$REPO/tests/verify/check_json_schemas.py" "$REPO/docs/schemas" "$D" \
        --expect stats analyze diff score hotspots export avail-nvidia doctor doctor-roofs
}

stage_serve() {
    # shellcheck disable=SC2086  # SERVE_ARGS is a list of options
    step serve "$PY" "$HERE/serve/serve.py" --out-dir "$OUT" ${SERVE_ARGS:-}
    VERDICTS+=("$OUT/verdict-serve.json")
}

stage_sol() {
    local W="$WORK/sol" C="$HERE/counters" NCU
    NCU="$(command -v ncu || echo "$CUDA_HOME/bin/ncu")"
    mkdir -p "$W"
    # The GPU's own roofs (issue 41, item 4): the model judged against them too, for comparison.
    step sol_roofs roofs_measure "$W"
    step sol_timed logged "$W/timed.txt" traced --kernel-trace --marker-trace -d "$W/timed" -- "$PY" "$C/model.py" 6
    step sol_counted logged "$W/counted.txt" traced --kernel-trace --marker-trace --preset roofline \
        -d "$W/counted" -- "$PY" "$C/model.py" 12
    step sol_sampled logged "$W/sampled.txt" traced --kernel-trace --marker-trace --pc-sampling-method stochastic \
        --pc-sampling-interval 16384 -d "$W/sampled" -- "$PY" "$C/model.py" 6
    # One step, every kernel of it, at the clocks and caches the application runs with.
    step sol_ncu logged "$W/ncu.txt" timeout -k 10 "${SOL_NCU_TIMEOUT:-300}" "$NCU" --set full --clock-control none \
        --cache-control none --nvtx --nvtx-include "step2/" -f -o "$W/ncu" "$PY" "$C/model.py" 4
    step sol_ncu_raw to_file "$W/ncu-raw.csv" "$NCU" -i "$W/ncu.ncu-rep" --page raw --csv --print-units base
    step sol_ncu_details to_file "$W/ncu-details.csv" "$NCU" -i "$W/ncu.ncu-rep" --page details --csv \
        --print-units base --print-details all
    step sol_ncu_rules to_file "$W/ncu-details.txt" "$NCU" -i "$W/ncu.ncu-rep" --page details --print-details all \
        --print-rule-details
    # ncu's Speed of Light holds each unit to its peak, the datasheet's: the verdict is against
    # those. Against the roofs sol_roofs measured, for sol/README.md's comparison.
    step sol_analyze to_file "$W/analyze.txt" "$ROCPROF" analyze "$W/counted" --timings "$W/timed" \
        --samples "$W/sampled" --roofs datasheet --top 40
    step sol_analyze_json to_file "$W/analyze.json" "$ROCPROF" analyze "$W/counted" --timings "$W/timed" \
        --samples "$W/sampled" --roofs datasheet --format json
    step sol_analyze_measured to_file "$W/analyze-measured.json" "$ROCPROF" analyze "$W/counted" \
        --timings "$W/timed" --samples "$W/sampled" --roofs "$(kept_roofs "$W")" --format json
    step sol_distill "$PY" "$HERE/sol/distill_ncu.py" --raw "$W/ncu-raw.csv" --details "$W/ncu-details.csv" \
        --out "$W/ncu.json"
    step sol_check "$PY" "$HERE/sol/check_sol.py" --analyze "$W/analyze.json" --ncu "$W/ncu.json" \
        --out "$W/verdict-sol.json" --md "$OUT/sol.md"
    step sol_check_measured "$PY" "$HERE/sol/check_sol.py" --analyze "$W/analyze-measured.json" \
        --ncu "$W/ncu.json" --out "$W/verdict-sol-measured.json" --md "$OUT/sol-measured.md"
    VERDICTS+=("$W/verdict-sol.json")
    # The pages themselves stay on the machine (40 MB): ncu.json is what the fixture keeps.
    step tar tar -C "$W" -czf "$OUT/sol-data.tgz" --exclude='*.ncu-rep' --exclude='ncu-details.*' .
    step tar_rep tar -C "$W" -cJf "$OUT/sol-ncu-rep.tar.xz" ncu.ncu-rep
}

# pcs_nvdisasm_probe APP DIR: what nvdisasm's -fun takes, on the app's own cubin.
pcs_nvdisasm_probe() {
    (cd "$2" && "$CUDA_HOME/bin/cuobjdump" -xelf all "$1" > /dev/null) || return 1
    local cubin
    cubin="$(ls "$2"/*.cubin | head -n 1)"
    "$CUDA_HOME/bin/nvdisasm" -c -g -fun _ZN3pcs9fma_chainEPfffi "$cubin" 2>&1 | head -n 12
    "$CUDA_HOME/bin/nvdisasm" -c -fun 9 "$cubin" 2>&1 | head -n 4
    rm -f "$2"/*.cubin
}

# pcs_cost_run CONFIG BASE CUPTI_SAMPLE_LIB SCRIPT ARGS...: the decode loop under one configuration.
pcs_cost_run() {
    local cfg="$1" base="$2" pcc="$3"
    shift 3
    case "$cfg" in
        none) timeout -k 10 "$T" "$PY" "$@" ;;
        trace) traced --kernel-trace -d "$base.d" -- "$PY" "$@" ;;
        sampled) traced --kernel-trace --pc-sampling-method stochastic -d "$base.d" -- "$PY" "$@" ;;
        sampled2048) traced --kernel-trace --pc-sampling-method stochastic --pc-sampling-interval 2048 \
            -d "$base.d" -- "$PY" "$@" ;;
        cupti_sample) (cd "$(dirname "$base")" && CUDA_INJECTION64_PATH="$pcc" \
            LD_LIBRARY_PATH="$CUPTI_LIB_DIR:$CUDA_HOME/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}" \
            timeout -k 10 "$T" "$PY" "$@") ;;
    esac
}

# pcs_ncu_run BASE SCRIPT: ncu's two sections on the first 20 kernels of a short decode loop,
# timed whole (ncu replays each kernel it profiles, so its cost is per kernel, not per token).
pcs_ncu_run() {
    local t0=$EPOCHREALTIME rc=0
    timeout -k 10 400 ncu --section WarpStateStats --section SourceCounters -c 20 -f -o "$1" "$PY" "$2" \
        --steps 200 --warmup 10 || rc=$?
    "$PY" -c "import sys; print('ncu_wall_s', float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$EPOCHREALTIME"
    return "$rc"
}

finish() {
    "$PY" "$HERE/merge_verdicts.py" --stage "$STAGE" --steps "$STEPS" --out "$OUT/$STAGE.json" "${VERDICTS[@]}"
}

main() {
    echo "run.sh $STAGE: repo $REPO, OUT $OUT, work $WORK"
    write_env
    step build build_all
    if [[ "$STAGE" != preflight && "$STAGE" != all-quick && "$STAGE" != python ]]; then
        step require_rocprof require_rocprof
    fi
    if awk -F'\t' '($1 == "build" || $1 == "require_rocprof") && $2 != 0 { bad = 1 } END { exit !bad }' "$STEPS"; then
        echo "run.sh: cannot run stage $STAGE (see above)"
    else
        # Called in an `||` list, so errexit is off inside: a command that fails outside a step
        # cannot cut the stage short before finish writes its summary.
        "stage_${STAGE//-/_}" || printf 'stage_%s\t%s\t0\n' "$STAGE" "$?" >> "$STEPS"
    fi
    finish
}

main 2>&1 | tee "$OUT/$STAGE.log"
exit "${PIPESTATUS[0]}"
