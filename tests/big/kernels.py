"""Tiles larger than a CTA's registers (issue 42): tile-sched computes their
stores and reductions in loops over chunks (tools/tile-sched/chunk.c),
exported by tests/big/gen-big. One tile per block; each kernel's tile is
many times what 128 threads hold in registers."""
import cuda.tile as ct


@ct.kernel
def ew_exp(x, y, n: ct.Constant[int]):
    """y = exp(x) over an n-element tile."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    ct.store(y, index=(i,), tile=ct.exp(t))


@ct.kernel
def row_ssq(x, y, r: ct.Constant[int], c: ct.Constant[int]):
    """y[row] = sum of squares over an r x c row tile (chunked along the rows)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(r, c))
    ct.store(y, index=(i,), tile=ct.sum(t * t, axis=1))


@ct.kernel
def col_sum(x, y, r: ct.Constant[int], c: ct.Constant[int]):
    """y[col] = sum over an r x c tile's column (a reduction inside each chunk)."""
    j = ct.bid(0)
    t = ct.load(x, index=(0, j), shape=(r, c))
    ct.store(y, index=(j,), tile=ct.sum(t, axis=0))


@ct.kernel
def layer_norm(x, w, b, y, r: ct.Constant[int], c: ct.Constant[int]):
    """Layer norm over c-wide rows: the mean, the variance, then the normalized
    row times w plus b (three passes, two reductions broadcast back)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(r, c))
    mean = ct.sum(t, axis=1, keepdims=True) / c
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / c
    tw = ct.load(w, index=(0,), shape=(c,))
    tb = ct.load(b, index=(0,), shape=(c,))
    out = d * ct.rsqrt(var + 1e-5) * tw + tb
    ct.store(y, index=(i, 0), tile=out.astype(y.dtype))


@ct.kernel
def softmax_rows(x, y, r: ct.Constant[int], c: ct.Constant[int]):
    """Softmax over c-wide rows: max, sum of exponentials, then the quotient."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(r, c), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, index=(i, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def scale_and_sum(x, y, s, n: ct.Constant[int]):
    """Two sinks of one tile: y = 2x stored and s = sum(x) (one loop reads x once)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    ct.store(y, index=(i,), tile=t * 2.0)
    ct.store(s, index=(i,), tile=ct.reshape(ct.sum(t, axis=0), (1,)))


@ct.kernel
def cast_rows(x, y, r: ct.Constant[int], c: ct.Constant[int]):
    """y = f16(x * x + 1) over an r x c tile (chunked along the outer dim)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(r, c))
    ct.store(y, index=(i, 0), tile=(t * t + 1.0).astype(ct.float16))


@ct.kernel
def transpose(x, y, n: ct.Constant[int]):
    """y[:, i-th block] = x[i-th block, :].T for an n x n tile: 256 KiB at n = 256, which a
    whole-tile exchange cannot hold; chunked, each chunk's permute is small."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(n, n))
    ct.store(y, index=(0, i), tile=ct.permute(t, (1, 0)))


@ct.kernel
def cumsum(x, y, n: ct.Constant[int]):
    """A running sum over an n-element tile: scans are kept whole (not chunked yet), so a
    1M-element one is refused with the numbers, at this line."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    ct.store(y, index=(i,), tile=ct.cumsum(t, axis=0))


@ct.kernel
def scans(x, y, z, r: ct.Constant[int], c: ct.Constant[int]):
    """Running sums along c-wide rows, forward into y and reversed into z (the chunks of
    the reversed one's loop run last to first)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(r, c))
    ct.store(y, index=(i, 0), tile=ct.cumsum(t, axis=1))
    ct.store(z, index=(i, 0), tile=ct.cumsum(t, axis=1, reverse=True))


@ct.kernel
def every_other(x, y, n: ct.Constant[int]):
    """y = x[0::2] through a gather of an n-element index tile: pointer loads are kept
    whole, so at n = 1M (8192 elements a thread) it is refused, located here."""
    i = ct.bid(0)
    t = ct.gather(x, ct.arange(n, dtype=ct.int32) * 2 + i * 2 * n)
    ct.store(y, index=(i,), tile=t)


@ct.kernel
def swap_halves(x, y, n: ct.Constant[int]):
    """y = the two halves of an n-element tile swapped, through ct.cat: a cat keeps its
    tile whole, so at n = 1M (8192 elements a thread) it is refused, located here."""
    i = ct.bid(0)
    a = ct.load(x, index=(2 * i,), shape=(n // 2,))
    b = ct.load(x, index=(2 * i + 1,), shape=(n // 2,))
    ct.store(y, index=(i,), tile=ct.cat((b, a), 0))
