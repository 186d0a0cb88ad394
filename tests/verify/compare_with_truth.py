#!/usr/bin/env python3
"""Compares a rocprof-rs Parquet dataset with the ground truth rocprof-sim wrote.

Reads the tables with pyarrow only (none of rocprof-rs's code), maps each table's columns onto
the truth's, and compares them as multisets: every truth row must be there exactly once, and
nothing else. Exits 0 when every table matches, 1 with a report otherwise.

    compare_with_truth.py OUTPUT_DIR TRUTH_CSV [--tables kernel_dispatch,hip_api,...] [--stem STEM]
                          [--sum-instances]

With --stem, only the files of one process (named STEM-NNNNN.parquet) are read.
"""

import argparse
import json
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as ds

# table -> (truth record kind, [(truth column, parquet column)])
MAPPINGS = {
    "kernel_dispatch": ("kernel_dispatch", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("agent_id", "agent_id"),
        ("queue_id", "queue_id"), ("kernel_id", "kernel_id"), ("dispatch_id", "dispatch_id"),
        ("start_ns", "start_ns"), ("end_ns", "end_ns"),
        ("grid_x", "grid_x"), ("grid_y", "grid_y"), ("grid_z", "grid_z"),
        ("workgroup_x", "block_x"), ("workgroup_y", "block_y"), ("workgroup_z", "block_z"),
        ("lds_bytes", "shared_mem"), ("scratch_bytes", "scratch_size"),
    ]),
    "hip_api": ("hip_api", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("ancestor_id", "ancestor_id"),
        ("operation", "operation"), ("start_ns", "start_ns"), ("end_ns", "end_ns"),
    ]),
    "rccl_api": ("rccl_api", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("ancestor_id", "ancestor_id"),
        ("operation", "operation"), ("start_ns", "start_ns"), ("end_ns", "end_ns"),
    ]),
    "memory_copy": ("memory_copy", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("operation", "operation"),
        ("start_ns", "start_ns"), ("end_ns", "end_ns"), ("bytes", "bytes"),
        ("src_agent_id", "src_agent_id"), ("dst_agent_id", "dst_agent_id"),
        ("src_address", "src_address"), ("dst_address", "dst_address"),
    ]),
    "memory_allocation": ("memory_allocation", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("operation", "operation"),
        ("agent_id", "agent_id"), ("start_ns", "start_ns"), ("end_ns", "end_ns"), ("bytes", "bytes"),
        ("dst_address", "address"),
    ]),
    "scratch_memory": ("scratch_memory", [
        ("thread_id", "thread_id"), ("correlation_id", "correlation_id"), ("operation", "operation"),
        ("agent_id", "agent_id"), ("queue_id", "queue_id"), ("start_ns", "start_ns"), ("end_ns", "end_ns"),
        ("bytes", "bytes"),
    ]),
    "marker": ("marker_range", [
        ("correlation_id", "correlation_id"), ("operation", "operation"), ("name", "message"),
    ]),
    "counter": ("counter", [
        ("correlation_id", "correlation_id"), ("agent_id", "agent_id"), ("dispatch_id", "dispatch_id"),
        ("name", "counter"), ("value", "value"),
    ]),
    "kernel_symbol": ("kernel_symbol", [
        ("object_id", "code_object_id"), ("kernel_id", "kernel_id"), ("lds_bytes", "lds_size"),
        ("scratch_bytes", "scratch_size"), ("name", "mangled_name"),
    ]),
}


SUM_INSTANCES = False


def read_truth(path):
    with open(path, encoding="utf-8") as f:
        skip = 0
        for line in f:
            if not line.startswith("#"):
                break
            skip += 1
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(skip_rows=skip),
        convert_options=pacsv.ConvertOptions(
            column_types={"operation": pa.string(), "name": pa.string(), "record": pa.string()},
            strings_can_be_null=False,
        ),
    )
    return table


def normalise(table, columns):
    """The columns as comparable types (ints as int64 via uint64 where needed, text as text)."""
    arrays = []
    for name in columns:
        col = table.column(name)
        if pa.types.is_dictionary(col.type):
            # Names are dictionary-encoded on disk; readers see their text.
            col = pc.cast(col, col.type.value_type)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            arrays.append(pc.cast(col, pa.string()))
        elif pa.types.is_null(col.type):
            arrays.append(pc.cast(col, pa.string()))
        elif name == "value":
            # Counter values are doubles; the truth's integers and fractions alike, exactly.
            arrays.append(pc.cast(col, pa.float64()))
        else:
            arrays.append(pc.cast(col, pa.uint64()))
    out = pa.table(arrays, names=[f"c{i}" for i in range(len(columns))])
    return out.sort_by([(f"c{i}", "ascending") for i in range(len(columns))])


def process_files(folder, stem):
    """The table's files, or only those of the process whose file-name stem is `stem`."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(".parquet"))
    if stem is not None:
        names = [f for f in names if f[: -len("-00000.parquet")] == stem]
    return [os.path.join(folder, f) for f in names]


def compare(table_name, truth, dataset_dir, report, stem=None):
    record, pairs = MAPPINGS[table_name]
    truth_rows = truth.filter(pc.equal(truth.column("record"), record))
    folder = os.path.join(dataset_dir, table_name)
    files = process_files(folder, stem) if os.path.isdir(folder) else []
    got = ds.dataset(files, format="parquet").to_table() if files else None
    if got is not None and table_name == "counter" and SUM_INSTANCES:
        # One row per hardware instance: their sum per dispatch and counter is the truth's.
        keys = ["correlation_id", "agent_id", "dispatch_id", "counter"]
        got = got.group_by(keys).aggregate([("value", "sum")]).rename_columns(keys + ["value"])
    n_truth, n_got = truth_rows.num_rows, (got.num_rows if got is not None else 0)
    entry = {"truth": n_truth, "got": n_got}
    if n_truth == 0 and n_got == 0:
        entry["ok"] = True
        report[table_name] = entry
        return True
    if got is None or n_truth != n_got:
        entry["ok"] = False
        report[table_name] = entry
        return False
    a = normalise(truth_rows, [t for t, _ in pairs])
    b = normalise(got, [p for _, p in pairs])
    ok = a.equals(b)
    entry["ok"] = ok
    if not ok:
        diffs = []
        for i in range(min(a.num_rows, 200000)):
            ra, rb = a.slice(i, 1).to_pylist()[0], b.slice(i, 1).to_pylist()[0]
            if ra != rb:
                diffs.append({"truth": ra, "got": rb})
                if len(diffs) >= 3:
                    break
        entry["first_differences"] = diffs
        entry["columns"] = [p for _, p in pairs]
    report[table_name] = entry
    return ok


def check_metadata(dataset_dir, report):
    """Every file says which format version it is and which clock its timestamps use."""
    problems = []
    for root, _, files in os.walk(dataset_dir):
        for f in files:
            if f.endswith(".parquet"):
                import pyarrow.parquet as pq
                meta = pq.read_metadata(os.path.join(root, f)).metadata or {}
                # Format 3 adds the origin columns and the process table; these tables compare alike.
                if meta.get(b"rocprof_rs.format_version") not in (b"2", b"3") or b"rocprof_rs.clock" not in meta:
                    problems.append(os.path.join(root, f))
    report["metadata_problems"] = problems
    return not problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output_dir")
    parser.add_argument("truth_csv")
    parser.add_argument("--tables", default=",".join(MAPPINGS))
    parser.add_argument("--stem", default=None)
    parser.add_argument("--sum-instances", action="store_true",
                        help="the counter table has a row per instance: compare their sums")
    args = parser.parse_args()
    global SUM_INSTANCES
    SUM_INSTANCES = args.sum_instances
    truth = read_truth(args.truth_csv)
    report = {}
    ok = True
    for name in args.tables.split(","):
        ok = compare(name, truth, args.output_dir, report, args.stem) and ok
    ok = check_metadata(args.output_dir, report) and ok
    json.dump(report, sys.stdout, indent=1, default=str)
    print()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
