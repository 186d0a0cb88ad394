"""bf16 GEMMs through torch/cuBLAS (tensor cores): 4096x4096x4096, REPS times, with the
program's own account of the FLOPs (2*M*N*K each)."""
import json
import sys

import torch

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
n = 4096
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
for _ in range(reps):
    c = a @ b
torch.cuda.synchronize()
print("EXPECT " + json.dumps({"gemm_bf16": {"flops": 2 * n**3, "reps": reps}}), flush=True)
