"""What one `sm__ops_path_tensor_*` op is: torch GEMMs of known FLOPs (2*M*N*K) under ncu.

Run under `ncu --metrics ... python3 gemm_probe.py`; prints the expected FLOPs per GEMM so the
ncu values can be divided by them.
"""
import torch

M = N = K = 2048
torch.backends.cuda.matmul.allow_tf32 = True
for dtype in (torch.bfloat16, torch.float16, torch.float32, torch.float64):
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(f"gemm_{dtype}")
    c = a @ b
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"EXPECT gemm {dtype} flops={2 * M * N * K}", flush=True)
