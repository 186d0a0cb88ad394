"""bf16 GEMMs through torch/cuBLAS (tensor cores): 4096x4096x4096, REPS times, with the
program's own account of the FLOPs (2*M*N*K each)."""
import json
import sys

import torch

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
n = 4096
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
# Read 128 MiB before each GEMM so it starts with no dirty line in L2, as ncu's cache flush has
# it: the previous GEMM's output is written back in the read, not inside the next GEMM.
flush = torch.zeros(32 << 20, device="cuda", dtype=torch.float32)
torch.cuda.synchronize()
for _ in range(reps):
    flush.sum()
    c = a @ b
torch.cuda.synchronize()
print("EXPECT " + json.dumps({"gemm_bf16": {"flops": 2 * n**3, "reps": reps}}), flush=True)
