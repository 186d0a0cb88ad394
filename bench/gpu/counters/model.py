"""A torch.compile'd ResNet-18 and a bf16 transformer layer, ITERS steps with NVTX step
markers: the one-run coverage workload of the `counters` stage."""
import sys

import torch
import torchvision

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 6
torch.manual_seed(0)
resnet = torchvision.models.resnet18().cuda().to(memory_format=torch.channels_last).eval()
layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True).cuda().to(torch.bfloat16).eval()
resnet = torch.compile(resnet)
layer = torch.compile(layer)
x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
t = torch.randn(16, 256, 512, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(2):  # compile outside the measured steps
        resnet(x)
        layer(t)
    torch.cuda.synchronize()
    for i in range(iters):
        torch.cuda.nvtx.range_push(f"step{i}")
        resnet(x)
        layer(t)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
print(f"EXPECT {{\"iters\": {iters}}}", flush=True)
