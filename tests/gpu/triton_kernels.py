"""Triton equivalents of three corpus kernels, for scripts/gpu-check's comparison.

Same computation, same tile shapes where that makes sense, same data; they run
on the GPU machine (Triton and PyTorch are installed there) and are imported
only there. Each runner takes torch tensors already on the device (contiguous)
and the manifest's scalars, launches once, and returns nothing; gpu-check
times the runner the way it times a cubin launch.

  vector_add       c = a + b                (BLOCK 1024, one program per block)
  softmax          row softmax of (M, 256)  (one program per row)
  layer_norm       y = (x-mean)/sqrt(var+eps)*w + b over rows of 128, f32 out
  layer_norm_f16   the same with an f16 output
"""
import triton
import triton.language as tl


@triton.jit
def _vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, a + b, mask=mask)


@triton.jit
def _softmax(x_ptr, out_ptr, x_stride, out_stride, ncols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def _layer_norm(x_ptr, w_ptr, b_ptr, y_ptr, x_stride, y_stride, eps, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * x_stride + cols)
    mean = tl.sum(x, axis=0) / N
    d = x - mean
    var = tl.sum(d * d, axis=0) / N
    r = 1.0 / tl.sqrt(var + eps)
    y = d * r * tl.load(w_ptr + cols) + tl.load(b_ptr + cols)
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty))


def vector_add(t, s):
    n = t["a"].numel()
    _vector_add[(triton.cdiv(n, 1024),)](t["a"], t["b"], t["c"], n, BLOCK=1024)


def softmax(t, s):
    x, out = t["x"], t["out"]
    m, n = x.shape
    _softmax[(m,)](x, out, x.stride(0), out.stride(0), n, BLOCK=triton.next_power_of_2(n))


def layer_norm(t, s):
    x, y = t["x"], t["y"]
    m, n = x.shape
    _layer_norm[(m,)](x, t["w"], t["b"], y, x.stride(0), y.stride(0), float(s["eps"]), N=n)


layer_norm_f16 = layer_norm

RUNNERS = {"vector_add": vector_add, "softmax": softmax, "layer_norm": layer_norm,
           "layer_norm_f16": layer_norm_f16}
