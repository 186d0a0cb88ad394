#!/usr/bin/env python3
"""A rocprofv3 kernel_trace.csv of N processes (Process_Id 10000 to 10000+N-1), ten dispatches
each, for timing the rocpd export against the number of processes (BENCHMARKS.md, "Hostile
review, round two: rocpd").

    rocpd_processes.py N OUT.csv
"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
cols = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Process_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
        "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size",
        "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
        "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
with open(out, "w") as f:
    f.write(",".join(f'"{c}"' for c in cols) + "\n")
    t = 1_000_000
    for p in range(n):
        for d in range(10):
            t += 1000
            f.write(f'"KERNEL_DISPATCH","Agent 4",1,1,{10000 + p},{20000 + p},{d + 1},{d % 3 + 1},'
                    f'"kernel_{d % 3}(float*)",{d + 1},{t},{t + 500},0,0,8,0,16,64,1,1,1024,1,1\n')
