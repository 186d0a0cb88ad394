"""Distils `ncu --set full`'s pages into the JSON the `sol` fixture keeps (a few hundred KB
instead of the pages' 40 MB): per profiled kernel, its launch, its Speed of Light, occupancy,
launch statistics and warp stalls, and every rule ncu fired, with its estimated speedup.

    python3 distill_ncu.py --raw ncu-raw.csv --details ncu-details.csv --out ncu.json
"""
import argparse
import csv
import json
import sys

csv.field_size_limit(1 << 30)

# (section, metric) from the details page, under the key they are kept by.
DETAILS = {
    ("GPU Speed Of Light Throughput", "Memory Throughput"): "sol_memory_pct",
    ("GPU Speed Of Light Throughput", "Compute (SM) Throughput"): "sol_compute_pct",
    ("GPU Speed Of Light Throughput", "DRAM Throughput"): "sol_dram_pct",
    ("GPU Speed Of Light Throughput", "L1/TEX Cache Throughput"): "sol_l1_pct",
    ("GPU Speed Of Light Throughput", "L2 Cache Throughput"): "sol_l2_pct",
    ("GPU Speed Of Light Throughput", "Duration"): "duration_ns",
    ("Occupancy", "Theoretical Occupancy"): "theoretical_occupancy_pct",
    ("Occupancy", "Theoretical Active Warps per SM"): "theoretical_warps",
    ("Occupancy", "Achieved Occupancy"): "achieved_occupancy_pct",
    ("Occupancy", "Block Limit SM"): "block_limit_sm",
    ("Occupancy", "Block Limit Registers"): "block_limit_registers",
    ("Occupancy", "Block Limit Shared Mem"): "block_limit_shared_mem",
    ("Occupancy", "Block Limit Warps"): "block_limit_warps",
    ("Launch Statistics", "Waves Per SM"): "waves_per_sm",
    ("Launch Statistics", "Registers Per Thread"): "registers_per_thread",
    ("Launch Statistics", "Shared Memory Configuration Size"): "shared_mem_config_bytes",
    ("Launch Statistics", "Driver Shared Memory Per Block"): "driver_shared_bytes",
    ("Launch Statistics", "Dynamic Shared Memory Per Block"): "dynamic_shared_bytes",
    ("Launch Statistics", "Static Shared Memory Per Block"): "static_shared_bytes",
    ("Launch Statistics", "Block Size"): "block_size",
    ("Launch Statistics", "Grid Size"): "grid_size",
    ("Launch Statistics", "Cluster Size"): "cluster_size",
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction"): "warp_cycles_per_issue",
    ("Scheduler Statistics", "One or More Eligible"): "issue_active_pct",
}


def number(text):
    text = (text or "").replace(",", "").strip()
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else round(value, 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--details", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    kernels = {}
    with open(args.details, newline="") as f:
        for row in csv.DictReader(f):
            if not (row.get("ID") or "").isdigit():
                continue  # a rule's text broken over lines by ncu itself
            k = kernels.setdefault(
                int(row["ID"]),
                {"id": int(row["ID"]), "name": row["Kernel Name"], "grid": row["Grid Size"], "block": row["Block Size"],
                 "metrics": {}, "stalls": {}, "rules": []},
            )
            section, label, metric = row["Section Name"], row["Body Item Label"], row["Metric Name"]
            if row.get("Rule Name"):
                k["rules"].append({
                    "section": section,
                    "rule": row["Rule Name"],
                    "type": row["Rule Type"],
                    "text": " ".join(row["Rule Description"].split())[:600],
                    "speedup_type": row.get("Estimated Speedup Type") or "",
                    "speedup_pct": number(row.get("Estimated Speedup")),
                })
            elif section == "Warp State Statistics" and label == "Warp State (All Cycles)":
                value = number(row["Metric Value"])
                if value:
                    k["stalls"][metric] = value
            elif (section, metric) in DETAILS and not label:
                k["metrics"][DETAILS[(section, metric)]] = number(row["Metric Value"])
    with open(args.raw, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        next(reader)  # units
        wanted = [i for i, h in enumerate(header) if h.startswith("launch__occupancy_limit_")
                  or h in ("launch__registers_per_thread", "launch__shared_mem_per_block_static",
                           "launch__shared_mem_per_block_dynamic", "launch__waves_per_multiprocessor",
                           "sm__maximum_warps_per_active_cycle_pct", "launch__cluster_size")]
        for row in reader:
            if not row or not row[0].isdigit() or int(row[0]) not in kernels:
                continue
            kernels[int(row[0])]["raw"] = {header[i]: number(row[i]) for i in wanted}
    out = {"source": "ncu --set full --clock-control none --cache-control none, counters/model.py step 2",
           "kernels": [kernels[i] for i in sorted(kernels)]}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(kernels)} kernels, {sum(len(k['rules']) for k in kernels.values())} rules -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
