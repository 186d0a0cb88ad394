#!/usr/bin/env bash
# bench/gpu/robustness.sh: what the profiled application must survive under the CUPTI backend.
# Each case runs under `timeout 60` (a hang is a failure) and prints PASS or FAIL with why:
#   fork      a torch process forks children after CUDA is up (they exit normally and by
#             os._exit): no hang, the parent's rows whole, the children write nothing
#   sigterm   SIGTERM in the middle of a kernel loop: the process dies by SIGTERM as it would
#             untraced, and the files written are complete Parquet with the rows so far
#   os_exit   os._exit(3) after kernels: the exit code kept. Nothing written is complete without
#             exit handlers (Parquet files get their footer when closed), so no rows are
#             expected unless ROCPROF_RS_ROTATE_SECONDS completed a file first; the count is shown
#   unwritable  an output directory that cannot be created: one line, the exit code kept
#   fault     ROCPROF_RS_TEST_FAULT=panic-in-ingest: one line, the application unharmed
# Usage (GPU machine, repository root): bash bench/gpu/robustness.sh; results in $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
ROCPROF="${ROCPROF:-target/gpu-carry/rocprof-rs}"
OUT="${OUT:-bench/gpu/out}"
W="$(mktemp -d /tmp/robust.XXXXXX)"
mkdir -p "$OUT"
failed=0
verdict() { if [ "$2" = ok ]; then echo "PASS $1 $3"; else echo "FAIL $1 $3"; failed=1; fi; }
rows() { python3 -c "import pyarrow.dataset as d,sys; print(d.dataset(sys.argv[1]).count_rows())" "$1" 2>/dev/null || echo -1; }
run() { timeout -k 5 60 "$ROCPROF" run --backend cupti --kernel-trace -d "$1" -o out -- "${@:2}"; }

cat > "$W/fork.py" <<'PY'
import os, sys, torch
x = torch.ones(1 << 20, device="cuda")
for _ in range(100): x = x * 1.0001
torch.cuda.synchronize()
pids = []
for how in ("exit", "_exit"):
    pid = os.fork()
    if pid == 0:
        if how == "exit": sys.exit(0)
        os._exit(0)
    pids.append(pid)
for pid in pids: os.waitpid(pid, 0)
for _ in range(100): x = x * 1.0001
torch.cuda.synchronize()
print("launched", 200)
PY
run "$W/fork" python3 "$W/fork.py"; rc=$?
n=$(rows "$W/fork/kernel_dispatch"); files=$(ls "$W/fork/kernel_dispatch" | wc -l)
verdict fork "$([ $rc = 0 ] && [ "$n" -ge 200 ] && [ "$files" = 1 ] && echo ok)" "rc=$rc rows=$n files=$files (one process's)"

cat > "$W/loop.py" <<'PY'
import torch, time
x = torch.ones(1 << 20, device="cuda")
print("ready", flush=True)
while True:
    for _ in range(100): x = x * 1.0001
    torch.cuda.synchronize(); time.sleep(0.01)
PY
timeout -k 5 -s TERM 8 "$ROCPROF" run --backend cupti --kernel-trace -d "$W/term" -o out -- python3 "$W/loop.py"; rc=$?
n=$(rows "$W/term/kernel_dispatch")
verdict sigterm "$( { [ $rc = 124 ] || [ $rc = 143 ]; } && [ "$n" -gt 100 ] && echo ok)" "rc=$rc rows=$n"

cat > "$W/exit.py" <<'PY'
import os, torch, time
x = torch.ones(1 << 20, device="cuda")
for _ in range(500): x = x * 1.0001
torch.cuda.synchronize(); time.sleep(1.5)
os._exit(3)
PY
run "$W/exit" python3 "$W/exit.py"; rc=$?
n=$(rows "$W/exit/kernel_dispatch")
verdict os_exit "$([ $rc = 3 ] && echo ok)" "rc=$rc (3 expected); rows in completed files: $n (-1: none)"

mkdir -p "$W/ro" && touch "$W/ro/file"
timeout -k 5 60 "$ROCPROF" run --backend cupti --kernel-trace -d "$W/ro/file/sub" -- python3 -c "import torch,sys; torch.ones(4,device='cuda').sum().item(); sys.exit(5)" 2> "$W/ro.err"; rc=$?
verdict unwritable "$([ $rc = 5 ] && grep -q 'rocprof-rs' "$W/ro.err" && echo ok)" "rc=$rc; $(grep rocprof-rs "$W/ro.err" | head -2 | tr '\n' ' ')"

ROCPROF_RS_TEST_FAULT=panic-in-ingest run "$W/fault" python3 -c "import torch,sys; x=torch.ones(4,device='cuda'); [x.add_(1) for _ in range(10)]; torch.cuda.synchronize(); sys.exit(7)" 2> "$W/fault.err"; rc=$?
verdict fault "$([ $rc = 7 ] && grep -q 'injected fault' "$W/fault.err" && echo ok)" "rc=$rc; $(grep rocprof-rs "$W/fault.err" | head -2 | tr '\n' ' ')"

exit $failed
