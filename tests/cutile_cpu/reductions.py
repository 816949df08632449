"""Reductions and scans on the CPU (tests/kernels' reduce, prefix_sum and
softmax kernels, and two of its own): row sums and column maxima of a 2-D
array (partial tiles padded with the identity), a 3-D sum over the middle
axis, a cumulative sum, argmax, and a softmax (max, exp, sum, divide)."""
from _check import ct, np, check, corpus

row_sum, col_max = corpus("reduce").reduce_sum, corpus("reduce").reduce_max
prefix = corpus("prefix_sum").prefix_sum
softmax = corpus("softmax").softmax

rng = np.random.default_rng(2)


@ct.kernel
def mid_sum(x, out, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0, 0), shape=(a, b, c))
    ct.store(out, index=(i, 0), tile=ct.sum(t, axis=1))


@ct.kernel
def row_argmax(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(tm, tn))
    ct.store(out, index=(i,), tile=ct.argmax(t, axis=1).astype(out.dtype))


x = rng.standard_normal((50, 30)).astype(np.float32)
out = np.zeros(50, np.float32)
ct.launch(None, (4,), row_sum, (x, out, 16, 32))
check("row_sum f32 50x30", out, x.sum(axis=1), rtol=1e-5, atol=1e-5)

xi = rng.integers(-1000, 1000, (50, 30)).astype(np.int32)
outi = np.zeros(50, np.int32)
ct.launch(None, (4,), row_sum, (xi, outi, 16, 32))
check("row_sum i32", outi, xi.sum(axis=1))

out = np.zeros(30, np.float32)
ct.launch(None, (2,), col_max, (x, out, 64, 16))
check("col_max f32", out, x.max(axis=0))

x3 = rng.standard_normal((4, 8, 16)).astype(np.float64)
out2 = np.zeros((4, 16), np.float64)
ct.launch(None, (4,), mid_sum, (x3, out2, 1, 8, 16))
check("mid_sum f64 3-D", out2, x3.sum(axis=1), rtol=1e-12)

xs = rng.integers(-5, 5, 256).astype(np.int64)
outs = np.zeros(256, np.int64)
ct.launch(None, (4,), prefix, (xs, outs, 64))
check("cumsum i64", outs, np.concatenate([np.cumsum(c) for c in xs.reshape(4, 64)]))

xa = rng.standard_normal((32, 64)).astype(np.float32)
outa = np.zeros(32, np.int32)
ct.launch(None, (2,), row_argmax, (xa, outa, 16, 64))
check("argmax f32", outa, xa.argmax(axis=1))

xh = rng.standard_normal((40, 100)).astype(np.float16)
outh = np.zeros_like(xh)
ct.launch(None, (3,), softmax, (xh, outh, 16, 128))
e = np.exp(xh.astype(np.float32) - xh.astype(np.float32).max(axis=1, keepdims=True))
check("softmax f16 40x100", outh, e / e.sum(axis=1, keepdims=True), rtol=2e-2, atol=2e-3)
