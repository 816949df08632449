"""cuTile's export path with CPU arrays: KernelSignature.from_kernel_args
reads a numpy array's dtype, shape, strides and alignment as it reads a
device array's (cuTile's own test_array.py asks this of torch tensors), and
the signature exports bytecode that compiles and runs."""
from _check import ct, np, check
from io import BytesIO
import cuda.tile.compilation as cc


@ct.kernel
def copy16(x, out):
    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(16, 16)))


x = np.arange(48 * 32, dtype=np.float16).reshape(48, 32)
out = np.zeros((16, 16), np.float16)
sig = cc.KernelSignature.from_kernel_args(copy16, (x, out), cc.CallingConvention.cutile_python_v2())
p = sig.parameters[0]
check("signature stride", p.stride_constant, (None, 1))
check("signature stride divisible", p.stride_divisible_by, (8, 1))
check("signature base alignment", p.base_addr_divisible_by >= 16, True)
io = BytesIO()
cc.export_kernel(copy16, [sig], io, gpu_code="sm_100", output_format="tileir_bytecode")
check("exported bytecode", io.getvalue()[:7] == b"\x7fTileIR", True)
ct.launch(None, (1,), copy16, (x, out))
check("launch after export", out, x[:16, :16])


@ct.kernel
def scale(x, out, k: ct.Constant[int]):
    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(16, 16)) * k)


# cuTile's own message names the type the user passed (not the CPU view of it)
try:
    ct.launch(None, (1,), scale, (x, out, x))
    check("an array as a constant is refused", False, True)
except Exception as e:
    check("an array as a constant names ndarray", "'ndarray'" in str(e), True)
