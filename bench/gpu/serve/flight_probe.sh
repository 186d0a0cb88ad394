#!/usr/bin/env bash
# The flight recorder on the GPU (issue 42): how soon a SIGUSR2 dump appears while the decode
# runs under --graph-trace graph, that the decode goes on, and a hang dump for a kernel that
# never finishes. Prints one JSON line per probe. Run from the repository root with the carry.
set -u
R="${ROCPROF:-$PWD/target/gpu-carry/rocprof-rs}"
W="$(mktemp -d /tmp/flight.XXXXXX)"
# PROBES (default "signal hang") picks the parts.
PROBES="${PROBES:-signal hang}"
boot_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))'; }

if [[ " $PROBES " == *" signal "* ]]; then
# 0. The same decode without a tool, for the recorder's cost beside it (one run each).
python3 bench/gpu/serve/decode.py --steps 20000 > "$W/none.out" 2> "$W/none.err"
grep '^SERVE ' "$W/none.out" | sed 's/^SERVE /FLIGHT_BASELINE /'

# 1. SIGUSR2 during the decode, sent to `rocprof-rs run`, which passes it on.
"$R" run --backend cupti --kernel-trace --graph-trace graph --flight-recorder 10 -d "$W/sig" --quiet -- \
    python3 bench/gpu/serve/decode.py --steps 20000 > "$W/sig.out" 2> "$W/sig.err" &
RUN=$!
sleep 9
# `rocprof-rs run` passes the dump signal on to the application.
sent=$(boot_ns); kill -USR2 "$RUN"
seen=""
for _ in $(seq 1 300); do
    d=$(ls -d "$W"/sig/dump-* 2>/dev/null | head -n 1)
    if [ -n "$d" ] && ls "$d"/*.metadata.json > /dev/null 2>&1; then seen=$(boot_ns); break; fi
    sleep 0.01
done
wait $RUN; rc=$?
python3 - "$W" "$sent" "${seen:-0}" "$rc" <<'PY'
import glob, json, os, sys
sys.path.insert(0, "bench/gpu")
import benchlib
w, sent, seen, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
serve = [json.loads(l[6:]) for l in open(f"{w}/sig.out") if l.startswith("SERVE ")]
dumps = glob.glob(f"{w}/sig/dump-*")
rows = {t: benchlib.count_rows(dumps[0], t) for t in ("graph_launch", "kernel_dispatch") if dumps and benchlib.has_table(dumps[0], t)}
print("FLIGHT_SIGNAL " + json.dumps({"rc": rc, "dump_after_signal_s": (seen - sent) / 1e9 if seen else None,
      "dumps": [os.path.basename(d) for d in dumps], "rows": rows,
      "decode_went_on": bool(serve), "tokens_per_s": serve[0]["tokens_per_s"] if serve else None}))
PY

fi

if [[ " $PROBES " == *" hang "* ]]; then
# 2. A kernel that never finishes, with a 3 s hang limit.
"$R" run --backend cupti --kernel-trace --flight-recorder 30 --hang-seconds 3 -d "$W/hang" --quiet -- \
    python3 bench/gpu/serve/hang.py --hold 10 > "$W/hang.out" 2> "$W/hang.err"
python3 - "$W" <<'PY'
import glob, json, os, sys
w = sys.argv[1]
spin = [json.loads(l[5:]) for l in open(f"{w}/hang.out") if l.startswith("HANG ")]
# A hang also writes the request file (dump-request) that asks every process for a dump.
dumps = sorted(d for d in glob.glob(f"{w}/hang/dump-*") if os.path.isdir(d))
out = {"dumps": [os.path.basename(d) for d in dumps], "stderr": open(f"{w}/hang.err").read()[-600:]}
for d in dumps:
    m = json.load(open(glob.glob(f"{d}/*.metadata.json")[0]))
    t = m.get("trigger", {})
    out["trigger"] = t.get("reason")
    if spin:
        out["dump_after_launch_s"] = (t.get("at_ns", 0) - spin[0]["spin_launched_ns"]) / 1e9
    out["detail"] = json.dumps(t.get("detail"))[:900]
print("FLIGHT_HANG " + json.dumps(out))
PY
# 3. `ranks` on the hang's dump: the hangs section names the kernel and the open ranges.
for d in "$W"/hang/dump-*; do
    [ -d "$d" ] || continue
    "$R" ranks "$d" --section hangs --format csv 2>&1 | sed 's/^/FLIGHT_RANKS /'
done
fi
