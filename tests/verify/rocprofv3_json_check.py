#!/usr/bin/env python3
"""Checks the dataset `rocprof-rs import` made of tests/fixtures/rocprofv3-json/4242_results.json.

    rocprofv3_json_check.py DATASET [--develop]

The expected rows are written out by hand from the fixture's README (what each record of the
file means by the rocprofiler-sdk serializer), not computed by reading the JSON the way the
importer does. --develop: the develop-branch variant, whose scratch record has a size.
"""

import sys
from pathlib import Path

import pyarrow.dataset as ds

B = 5_000_000_000_000
PID = 4242
CPU, GPU = 37120, 37121
VECTOR_ADD = "vector_add(float*, float const*, float const*, int)"
MATMUL = "void matmul<16>(float const*, float const*, float*, int)"


def table(root: Path, name: str, columns):
    files = sorted((root / name).glob("*.parquet"))
    assert files, f"no {name} table"
    t = ds.dataset([str(f) for f in files], format="parquet").to_table()
    data = {c: t.column(c).to_pylist() for c in columns}
    assert set(t.column("pid").to_pylist()) == {PID}, f"{name}: pid"
    return sorted(tuple(data[c][i] for c in columns) for i in range(t.num_rows))


def check(got, want, what):
    if got != sorted(want):
        print(f"{what}:\n  got  {got}\n  want {sorted(want)}")
        return False
    return True


def main() -> int:
    root = Path(sys.argv[1])
    develop = "--develop" in sys.argv
    ok = True
    ok &= check(
        table(root, "kernel_dispatch", ["dispatch_id", "kernel_name", "start_ns", "duration_ns", "grid_x", "grid_y",
                                        "block_x", "block_y", "regs", "sgpr", "shared_mem", "scratch_size",
                                        "stream_id", "correlation_id", "agent_id", "queue_id", "kernel_id",
                                        "mangled_name", "thread_id"]),
        [
            (1, VECTOR_ADD, B + 3_200_000, 50_000, 1048576, 1, 256, 1, 8, 16, 0, 0, 1, 7, GPU, 2, 1,
             "_Z10vector_addPfPKfS1_i.kd", PID),
            (2, MATMUL, B + 3_400_000, 8_000_000, 1024, 1024, 16, 16, 40, 32, 2048, 64, 1, 8, GPU, 2, 2,
             "_Z6matmulILi16EEvPKfS1_Pfi.kd", PID),
            (3, VECTOR_ADD, B + 11_500_000, 40_000, 1048576, 1, 256, 1, 8, 16, 0, 0, 0, 9, GPU, 2, 1,
             "_Z10vector_addPfPKfS1_i.kd", PID),
        ],
        "kernel_dispatch",
    )
    ok &= check(
        table(root, "hip_api", ["operation", "start_ns", "duration_ns", "correlation_id", "ancestor_id"]),
        [
            ("hipMalloc", B + 1_100_000, 300_000, 2, 0),
            ("hipMemcpy", B + 1_600_000, 1_300_000, 5, 0),
            ("hipLaunchKernel", B + 3_100_000, 50_000, 7, 0),
            ("hipLaunchKernel", B + 3_300_000, 40_000, 8, 0),
        ],
        "hip_api",
    )
    ok &= check(
        table(root, "hsa_api", ["operation", "start_ns", "duration_ns", "correlation_id", "ancestor_id"]),
        [("hsa_amd_memory_pool_allocate", B + 1_150_000, 200_000, 3, 2)],
        "hsa_api",
    )
    ok &= check(
        table(root, "marker", ["message", "operation", "start_ns", "duration_ns", "correlation_id"]),
        [
            ("before_copy", "roctxMarkA", B + 1_500_000, 0, 4),
            ("compute", "roctxThreadRangeA", B + 3_000_000, 9_000_000, 6),
            ("outer", "roctxThreadRangeA", B + 1_000_000, 14_000_000, 1),
        ],
        "marker",
    )
    ok &= check(
        table(root, "memory_copy", ["operation", "start_ns", "duration_ns", "bytes", "src_agent_id", "dst_agent_id",
                                    "correlation_id"]),
        [("MEMORY_COPY_HOST_TO_DEVICE", B + 1_800_000, 1_000_000, 4194304, CPU, GPU, 5)],
        "memory_copy",
    )
    ok &= check(
        table(root, "memory_allocation", ["operation", "address", "bytes", "agent_id", "correlation_id", "duration_ns"]),
        [
            ("MEMORY_ALLOCATION_ALLOCATE", 0x00007F3A40000000, 4194304, GPU, 3, 180_000),
            ("MEMORY_ALLOCATION_ALLOCATE", 0x00007F3A3C000000, 1048576, CPU, 5, 50_000),
        ],
        "memory_allocation",
    )
    ok &= check(
        table(root, "scratch_memory", ["operation", "bytes", "flags", "agent_id", "queue_id", "correlation_id",
                                       "duration_ns"]),
        [("SCRATCH_MEMORY_ALLOC", 16777216 if develop else 0, 0, GPU, 2, 8, 20_000)],
        "scratch_memory",
    )
    ok &= check(
        table(root, "counter", ["dispatch_id", "counter", "value", "instances", "kernel_name", "correlation_id"]),
        [
            (1, "SQ_WAVES", 16384.0, 4, VECTOR_ADD, 7),
            (1, "GRBM_COUNT", 105000.0, 1, VECTOR_ADD, 7),
            (2, "SQ_WAVES", 16384.0, 4, MATMUL, 8),
            (2, "GRBM_COUNT", 16800000.0, 1, MATMUL, 8),
        ],
        "counter",
    )
    ok &= check(
        table(root, "agent", ["agent_id", "agent_type", "name", "product_name", "node_id", "gfx_target_version",
                              "cu_count", "num_xcc", "wave_front_size", "simd_per_cu", "max_waves_per_cu",
                              "lds_size_kb", "max_engine_clock_mhz", "local_mem_bytes"]),
        [
            (CPU, "CPU", "AMD EPYC 9534 64-Core Processor", "AMD EPYC 9534 64-Core Processor", 0, 0, 0, 1, 0, 0, 0,
             0, 0, 0),
            (GPU, "GPU", "gfx942", "AMD Instinct MI300X", 1, 90402, 152, 4, 64, 4, 32, 64, 2100, 103079215104),
        ],
        "agent",
    )
    ok &= check(
        table(root, "kernel_symbol", ["kernel_id", "kernel_name", "mangled_name", "lds_size", "scratch_size", "sgpr",
                                      "arch_vgpr"]),
        [
            (1, VECTOR_ADD, "_Z10vector_addPfPKfS1_i.kd", 0, 0, 16, 8),
            (2, MATMUL, "_Z6matmulILi16EEvPKfS1_Pfi.kd", 2048, 64, 32, 40),
        ],
        "kernel_symbol",
    )
    print("ok" if ok else "differences found")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
