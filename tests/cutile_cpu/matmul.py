"""Matrix products (ct.mma) on the CPU: f16 x f16 -> f32 with partial tiles
and a K loop, bf16 (ml_dtypes), f32 (tf32 inputs), int8 -> int32, and a
batched 3-D product."""
from _check import ct, np, check, skip, ml_dtypes

rng = np.random.default_rng(4)


@ct.kernel
def matmul(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=c.dtype if c.dtype == ct.int32 else ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


@ct.kernel
def bmm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    z, i, j = ct.bid(0), ct.bid(1), ct.bid(2)
    ta = ct.load(a, index=(z, i, 0), shape=(1, tm, tk)).reshape((tm, tk))
    tb = ct.load(b, index=(z, 0, j), shape=(1, tk, tn)).reshape((tk, tn))
    acc = ct.mma(ta, tb, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(c, index=(z, i, j), tile=acc.reshape((1, tm, tn)))


def small(shape, dtype):
    return (rng.integers(-4, 5, shape) / 4).astype(dtype)


m, n, k = 80, 48, 72
a, b = small((m, k), np.float16), small((k, n), np.float16)
c = np.zeros((m, n), np.float32)
ct.launch(None, (3, 2), matmul, (a, b, c, 32, 32, 32))
check("matmul f16 80x48x72", c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6)

a32, b32 = small((64, 32), np.float32), small((32, 32), np.float32)
c = np.zeros((64, 32), np.float32)
ct.launch(None, (2, 1), matmul, (a32, b32, c, 32, 32, 16))
check("matmul f32 64x32x32", c, a32 @ b32, rtol=1e-3)

ai, bi = rng.integers(-8, 8, (32, 64)).astype(np.int8), rng.integers(-8, 8, (64, 32)).astype(np.int8)
ci = np.zeros((32, 32), np.int32)
ct.launch(None, (1, 1), matmul, (ai, bi, ci, 32, 32, 32))
check("matmul i8 -> i32", ci, ai.astype(np.int32) @ bi.astype(np.int32))

if ml_dtypes is None:
    skip("matmul bf16", "ml_dtypes is not installed")
else:
    ab, bb = small((32, 32), ml_dtypes.bfloat16), small((32, 32), ml_dtypes.bfloat16)
    cb = np.zeros((32, 32), ml_dtypes.bfloat16)
    ct.launch(None, (1, 1), matmul, (ab, bb, cb, 32, 32, 16))
    want = (ab.astype(np.float32) @ bb.astype(np.float32)).astype(ml_dtypes.bfloat16)
    check("matmul bf16", cb, want)

a3, b3 = small((3, 32, 16), np.float16), small((3, 16, 32), np.float16)
c3 = np.zeros((3, 32, 32), np.float32)
ct.launch(None, (3, 1, 2), bmm, (a3, b3, c3, 32, 16, 16))
check("bmm f16 3-D", c3, a3.astype(np.float32) @ b3.astype(np.float32))
