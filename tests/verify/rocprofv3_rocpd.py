#!/usr/bin/env python3
"""A rocpd database shaped as rocprofv3 writes one, and a check of what `rocprof-rs import` made of it.

    rocprofv3_rocpd.py make DB          write the database (AMD's schema from crates/analysis/src/rocpd/sql)
    rocprofv3_rocpd.py check DATASET    check the imported dataset

No rocprofv3 database from a real GPU is at hand, so this one is written by hand, following
rocprofv3's writer (lib/output/generateRocpd.cpp): table ids are node ids and OS ids, extdata
is `{}` (no rocprof-rs keys), counter values are one row per hardware instance, a roctxMarkA is
a sample on a track named by its category, scratch memory is rocpd_memory_allocate at level
SCRATCH with its flags as a JSON string, and the agent's extdata is empty, as AMD's reader allows.
"""

import sqlite3
import sys
from pathlib import Path

import pyarrow.dataset as ds

GUID = "0000ddb5-8903-7903-b269-cd8d3745bb8a"
SQL = Path(__file__).resolve().parents[2] / "crates" / "analysis" / "src" / "rocpd" / "sql"
PID, TID = 4242, 4243


def make(path: str):
    Path(path).unlink(missing_ok=True)
    con = sqlite3.connect(path)
    uuid = "_" + GUID.replace("-", "_")
    for name in ["rocpd_tables", "rocpd_views", "data_views", "marker_views", "summary_views", "rocpd_indexes"]:
        con.executescript((SQL / f"{name}.sql").read_text().replace("{{uuid}}", uuid).replace("{{guid}}", GUID))
    t = lambda name: f"rocpd_{name}{uuid}"
    strings = ["", "HIP_RUNTIME_API_EXT", "KERNEL_DISPATCH", "MARKER_CORE_RANGE_API", "MEMORY_ALLOCATION",
               "MEMORY_COPY", "MEMORY_COPY_HOST_TO_DEVICE", "SCRATCH_MEMORY", "hipLaunchKernel", "hipMemcpy",
               "roctxThreadRangeA", "ROCDECODE_API", "rocDecDecodeFrame"]
    con.executemany(f"INSERT INTO {t('string')} (id, string) VALUES (?, ?)", [(i + 1, s) for i, s in enumerate(strings)])
    sid = {s: i + 1 for i, s in enumerate(strings)}
    con.execute(f"INSERT INTO {t('info_node')} (id, hash, machine_id, hostname) VALUES (7, 7, 'm', 'host')")
    con.execute(f"INSERT INTO {t('info_process')} (id, nid, ppid, pid, init, fini, start, end, command) "
                f"VALUES (?, 7, 1, ?, 0, 10000, 0, 10000, './app')", (PID, PID))
    con.execute(f"INSERT INTO {t('info_thread')} (id, nid, ppid, pid, tid) VALUES (?, 7, 1, ?, ?)", (TID, PID, TID))
    con.execute(f"INSERT INTO {t('info_stream')} (id, nid, pid, name) VALUES (0, 7, ?, 'Default Stream')", (PID,))
    con.execute(f"INSERT INTO {t('info_queue')} (id, nid, pid, name) VALUES (0, 7, ?, 'Default Queue')", (PID,))
    con.execute(f"INSERT INTO {t('info_queue')} (id, nid, pid, name) VALUES (93824992, 7, ?, 'Queue 0')", (PID,))
    for node, kind, name in [(0, "CPU", "AMD EPYC 9654"), (2, "GPU", "gfx942")]:
        con.execute(f"INSERT INTO {t('info_agent')} (id, nid, pid, type, absolute_index, logical_index, type_index, "
                    f"name, product_name, extdata) VALUES (?, 7, ?, ?, ?, ?, 0, ?, ?, '{{}}')",
                    (node, PID, kind, node, node // 2, name, name))
    con.execute(f"INSERT INTO {t('info_code_object')} (id, nid, pid, agent_id, uri) VALUES (1, 7, ?, 2, 'file://a.out')", (PID,))
    con.execute(f"INSERT INTO {t('info_kernel_symbol')} (id, nid, pid, code_object_id, kernel_name, display_name, "
                f"kernarg_segment_size, group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, "
                f"accum_vgpr_count) VALUES (5, 7, ?, 1, '_Z4axpyPf', 'axpy(float*)', 16, 0, 0, 24, 32, 0)", (PID,))
    for id, name in [(1, "SQ_WAVES"), (2, "TCC_HIT")]:
        con.execute(f"INSERT INTO {t('info_pmc')} (id, nid, pid, agent_id, target_arch, name, symbol, component, value_type) "
                    f"VALUES (?, 7, ?, 2, 'GPU', ?, ?, 'rocm', 'ABS')", (id, PID, name, name))
    event = 0

    def ev(category, stack, extdata="{}"):
        nonlocal event
        event += 1
        con.execute(f"INSERT INTO {t('event')} (id, category_id, stack_id, parent_stack_id, correlation_id, extdata) "
                    f"VALUES (?, ?, ?, ?, 0, ?)", (event, sid[category], stack, stack, extdata))
        return event

    for i in range(3):
        e = ev("HIP_RUNTIME_API_EXT", 10 + i)
        con.execute(f"INSERT INTO {t('region')} (id, nid, pid, tid, start, end, name_id, event_id) VALUES (?, 7, ?, ?, ?, ?, ?, ?)",
                    (10 + i, PID, TID, 1000 * i, 1000 * i + 50, sid["hipLaunchKernel"], e))
    e = ev("ROCDECODE_API", 20)
    con.execute(f"INSERT INTO {t('region')} (id, nid, pid, tid, start, end, name_id, event_id) VALUES (20, 7, ?, ?, 5, 9, ?, ?)",
                (PID, TID, sid["rocDecDecodeFrame"], e))
    e = ev("MARKER_CORE_RANGE_API", 30, '{"message":"step"}')
    con.execute(f"INSERT INTO {t('region')} (id, nid, pid, tid, start, end, name_id, event_id) VALUES (30, 7, ?, ?, 0, 4000, ?, ?)",
                (PID, TID, sid["roctxThreadRangeA"], e))
    e = ev("MARKER_CORE_RANGE_API", 31, '{"message":"checkpoint"}')
    con.execute(f"INSERT INTO {t('track')} (id, nid, pid, tid, name_id) VALUES (1, 7, ?, ?, ?)", (PID, TID, sid["MARKER_CORE_RANGE_API"]))
    con.execute(f"INSERT INTO {t('sample')} (id, track_id, timestamp, event_id) VALUES (31, 1, 2500, ?)", (e,))
    for i in range(3):
        e = ev("KERNEL_DISPATCH", 10 + i)
        con.execute(f"INSERT INTO {t('kernel_dispatch')} (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, "
                    f"stream_id, start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
                    f"workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) "
                    f"VALUES (?, 7, ?, ?, 2, 5, ?, 93824992, 0, ?, ?, 0, 1024, 256, 1, 1, 65536, 1, 1, 1, ?)",
                    (i + 1, PID, TID, i + 1, 1000 * i + 100, 1000 * i + 400, e))
        for pmc, values in [(1, [10.0 + i, 20.0]), (2, [1.0, 2.0])]:
            for v in values:
                con.execute(f"INSERT INTO {t('pmc_event')} (event_id, pmc_id, value) VALUES (?, ?, ?)", (e, pmc, v))
    e = ev("MEMORY_COPY", 40)
    con.execute(f"INSERT INTO {t('memory_copy')} (nid, pid, tid, start, end, name_id, dst_agent_id, dst_address, src_agent_id, "
                f"src_address, size, stream_id, event_id) VALUES (7, ?, ?, 60, 90, ?, 2, 4096, 0, 8192, 1048576, 0, ?)",
                (PID, TID, sid["MEMORY_COPY_HOST_TO_DEVICE"], e))
    e = ev("MEMORY_ALLOCATION", 41)
    con.execute(f"INSERT INTO {t('memory_allocate')} (nid, pid, tid, agent_id, type, level, start, end, address, size, "
                f"queue_id, stream_id, event_id) VALUES (7, ?, ?, 2, 'ALLOC', 'REAL', 1, 2, 65536, 4096, 0, 0, ?)", (PID, TID, e))
    e = ev("SCRATCH_MEMORY", 42)
    con.execute(f"INSERT INTO {t('memory_allocate')} (nid, pid, tid, agent_id, type, level, start, end, address, size, "
                f"queue_id, stream_id, event_id, extdata) VALUES (7, ?, ?, 2, 'ALLOC', 'SCRATCH', 3, 4, 0, 512, 93824992, 0, ?, "
                f"'{{\"flags\":\"1\"}}')", (PID, TID, e))
    con.commit()
    assert con.execute(f"SELECT COUNT(*) FROM {t('kernel_dispatch')}").fetchone()[0] == 3


def check(root: str):
    def rows(name):
        files = sorted((Path(root) / name).glob("*.parquet"))
        return ds.dataset([str(f) for f in files], format="parquet").to_table().to_pylist() if files else []

    k = rows("kernel_dispatch")
    assert len(k) == 3 and all(r["kernel_name"] == "axpy(float*)" and r["mangled_name"] == "_Z4axpyPf" for r in k), k
    assert [r["duration_ns"] for r in k] == [300, 300, 300] and k[0]["regs"] == 32 and k[0]["sgpr"] == 24, k
    assert {r["agent_id"] for r in k} == {2} and k[0]["queue_id"] == 93824992 and k[0]["pid"] == PID, k
    c = rows("counter")
    waves = sorted((r["dispatch_id"], r["value"], r["instances"]) for r in c if r["counter"] == "SQ_WAVES")
    assert waves == [(1, 30.0, 2), (2, 31.0, 2), (3, 32.0, 2)], waves
    assert len(c) == 6, c
    kc = {(r["counter"]): r for r in rows("kernel_counter")}
    assert kc["SQ_WAVES"]["samples"] == 3 and kc["SQ_WAVES"]["dispatches"] == 3 and kc["SQ_WAVES"]["sum"] == 93.0, kc
    api = rows("hip_api")
    assert [(r["operation"], r["correlation_id"]) for r in api] == [("hipLaunchKernel", 10 + i) for i in range(3)], api
    m = sorted((r["operation"], r["message"], r["start_ns"], r["end_ns"]) for r in rows("marker"))
    assert m == [("roctxMarkA", "checkpoint", 2500, 2500), ("roctxThreadRangeA", "step", 0, 4000)], m
    copy = rows("memory_copy")
    assert [(r["operation"], r["bytes"], r["src_agent_id"], r["dst_agent_id"]) for r in copy] == \
        [("MEMORY_COPY_HOST_TO_DEVICE", 1048576, 0, 2)], copy
    assert [r["operation"] for r in rows("memory_allocation")] == ["MEMORY_ALLOCATION_ALLOCATE"]
    s = rows("scratch_memory")
    assert [(r["operation"], r["flags"], r["queue_id"], r["bytes"]) for r in s] == [("SCRATCH_MEMORY_ALLOC", 1, 93824992, 512)], s
    agents = sorted((r["agent_id"], r["agent_type"], r["name"]) for r in rows("agent"))
    assert agents == [(0, "CPU", "AMD EPYC 9654"), (2, "GPU", "gfx942")], agents
    assert [r["kernel_name"] for r in rows("kernel_symbol")] == ["axpy(float*)"]
    print("the rocprofv3-shaped database imported as expected")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
