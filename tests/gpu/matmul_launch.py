# matmul_launch.py (GPU machine): launch a matmul cubin of cuTile's
# tests/kernels/matmul.py (15 parameters: A, B, C each as pointer, 2 sizes,
# 2 strides) with the CUDA driver API and block (1,1,1), as cuTile does;
# check against torch's product; time 20 launches with CUDA events.
# usage: python3 matmul_launch.py CUBIN ENTRY|auto TILE IN[:OUT] M N K
#   IN, OUT: f16 | bf16 (| f32 for OUT; default f32). Prints one JSON line.
# How it was used (docs/benchmarks.md "TMA on the GPU"): cubins made here
# with tileiras (TILEIRAS_PTXAS = pip ptxas 13.5) and NVIDIA's tileiras
# into an ignored folder carried to the device machine.
import ctypes, sys, json, torch
cub, entry, tile, dt, M, N, K = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], *map(int, sys.argv[5:8])
cu = ctypes.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0:
        s = ctypes.c_char_p(); cu.cuGetErrorString(r, ctypes.byref(s))
        raise RuntimeError("%s: %d %s" % (what, r, s.value.decode() if s.value else "?"))
torch.cuda.init(); torch.zeros(1, device="cuda")
ctx = ctypes.c_void_p(); ck(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "ctx")
data = open(cub, "rb").read()
if entry == "auto":
    import re
    entry = re.search(rb"matmul_Kt1[A-Za-z0-9_]*_I32", data).group(0).decode()
mod = ctypes.c_void_p(); ck(cu.cuModuleLoadData(ctypes.byref(mod), data), "cuModuleLoadData")
fn = ctypes.c_void_p(); ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, entry.encode()), "cuModuleGetFunction")
ins, outs = (dt.split(":") + ["f32"])[:2]
tdt = torch.float16 if ins == "f16" else torch.bfloat16
cdt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[outs]
g = torch.Generator(device="cuda").manual_seed(1)
A = torch.randn(M, K, device="cuda", generator=g).to(tdt)
B = torch.randn(K, N, device="cuda", generator=g).to(tdt)
C = torch.full((M, N), float("nan"), device="cuda", dtype=cdt)
vals = [ctypes.c_uint64(A.data_ptr()), ctypes.c_int32(M), ctypes.c_int32(K), ctypes.c_int32(K), ctypes.c_int32(1),
        ctypes.c_uint64(B.data_ptr()), ctypes.c_int32(K), ctypes.c_int32(N), ctypes.c_int32(N), ctypes.c_int32(1),
        ctypes.c_uint64(C.data_ptr()), ctypes.c_int32(M), ctypes.c_int32(N), ctypes.c_int32(N), ctypes.c_int32(1)]
params = (ctypes.c_void_p * len(vals))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in vals])
gx, gy = (M + tile - 1) // tile, (N + tile - 1) // tile
def launch():
    ck(cu.cuLaunchKernel(fn, gx, gy, 1, 1, 1, 1, 0, None, params, None), "cuLaunchKernel")
launch(); torch.cuda.synchronize()
ref = A.float() @ B.float()
err = ((C.float() - ref).abs().max() / ref.abs().max()).item()
nans = torch.isnan(C).sum().item()
for _ in range(3): launch()
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
n = 20
s.record()
for _ in range(n): launch()
e.record(); torch.cuda.synchronize()
ms = s.elapsed_time(e) / n
print(json.dumps({"cubin": cub.split("/")[-1], "M": M, "N": N, "K": K, "relerr": err, "nan": nans,
                  "ms": round(ms, 4), "tflops": round(2 * M * N * K / ms / 1e9, 1)}))
