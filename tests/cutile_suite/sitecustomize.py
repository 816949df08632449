"""sitecustomize: with TORCH_CUDA_CPU=1 in the environment and this
directory on PYTHONPATH, every Python process starts with torch's CUDA side
on the CPU and cuTile's launches on tile-run (torch_cuda_cpu.activate) -- the
processes cuTile's tests start themselves too (scripts/cutile-suite-cpu)."""
import os

if os.environ.get("TORCH_CUDA_CPU") == "1":
    import torch_cuda_cpu
    torch_cuda_cpu.activate()
