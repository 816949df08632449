"""MMA kernels beyond the corpus matmul (tests/kernels/matmul.py): every
operand / accumulator pair ct.mma allows, exported by tests/mma/gen-mma.
C = A @ B in a K loop over tk-wide tiles, the accumulator of dtype acc_dt,
stored as C's dtype."""
import cuda.tile as ct


@ct.kernel
def mm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=c.dtype)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def mm_tf32(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta.astype(ct.tfloat32), tb.astype(ct.tfloat32), acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def bmm(a, b, c, tb: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched: C[z] = A[z] @ B[z] for a (tb x tm x tn) block of batches z."""
    i = ct.bid(0)
    j = ct.bid(1)
    z = ct.bid(2)
    acc = ct.zeros((tb, tm, tn), dtype=c.dtype)
    for k in range(ct.num_tiles(a, axis=2, shape=(tb, tm, tk))):
        ta = ct.load(a, index=(z, i, k), shape=(tb, tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb_ = ct.load(b, index=(z, k, j), shape=(tb, tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb_, acc)
    ct.store(c, index=(z, i, j), tile=acc)


@ct.kernel
def mm_scaled(a, sa, b, sb, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Block-scaled (mmaf_scaled): C = (A * SA) @ (B * SB), one scale per 32
    elements of K (SA [M, K/32], SB [K/32, N], f8E8M0FNU)."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tsa = ct.load(sa, index=(i, k), shape=(tm, tk // 32), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        tsb = ct.load(sb, index=(k, j), shape=(tk // 32, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma_scaled(ta, tsa, tb, tsb, acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def mm_tile(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """One tile product, the accumulator read from C and written back (as
    cuTile's own ct.mma tests launch it, with one block): C = A @ B + C for
    tiles of any shape ct.mma takes, smaller than the MMA atom too."""
    ta = ct.load(a, index=(0, 0), shape=(tm, tk))
    tb = ct.load(b, index=(0, 0), shape=(tk, tn))
    acc = ct.load(c, index=(0, 0), shape=(tm, tn))
    ct.store(c, index=(0, 0), tile=ct.mma(ta, tb, acc))


@ct.kernel
def mm_tile_fast(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """mm_tile with fast accumulation (8-bit floats)."""
    ta = ct.load(a, index=(0, 0), shape=(tm, tk))
    tb = ct.load(b, index=(0, 0), shape=(tk, tn))
    acc = ct.load(c, index=(0, 0), shape=(tm, tn))
    ct.store(c, index=(0, 0), tile=ct.mma(ta, tb, acc, use_fast_acc=True))


@ct.kernel
def mm_tile_tf32(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """mm_tile with the operands rounded to tf32."""
    ta = ct.load(a, index=(0, 0), shape=(tm, tk)).astype(ct.tfloat32)
    tb = ct.load(b, index=(0, 0), shape=(tk, tn)).astype(ct.tfloat32)
    acc = ct.load(c, index=(0, 0), shape=(tm, tn))
    ct.store(c, index=(0, 0), tile=ct.mma(ta, tb, acc))


@ct.kernel
def bmm_tile(a, b, c, tb: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched mm_tile: C[z] = A[z] @ B[z] + C[z] for one block of tb batches."""
    ta = ct.load(a, index=(0, 0, 0), shape=(tb, tm, tk))
    tb_ = ct.load(b, index=(0, 0, 0), shape=(tb, tk, tn))
    acc = ct.load(c, index=(0, 0, 0), shape=(tb, tm, tn))
    ct.store(c, index=(0, 0, 0), tile=ct.mma(ta, tb_, acc))


@ct.kernel
def big_extract(x, out, i: ct.Constant[int]):
    """A 256x256 f32 tile and a 64x64 block of it chosen at run time: the
    extract moves through shared memory as large as the tile (256 KiB), more
    than any target gives a block: a located user error, not PTX ptxas refuses."""
    t = ct.load(x, index=(0, 0), shape=(256, 256))
    j = ct.bid(0)
    ct.store(out, index=(0, 0), tile=ct.extract(t, index=(j, i), shape=(64, 64)))


@ct.kernel
def bmm_loop(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A batched matmul written as cuTile's BatchMatMul sample is (grid: batch,
    M tiles, N tiles; rank-3 loads of one batch reshaped to rank 2, a K loop,
    the accumulator in f32 stored as C's type), at its tiles: 128x256x128."""
    z = ct.bid(0)
    i = ct.bid(1)
    j = ct.bid(2)
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(a.shape[2], tk)):
        ta = ct.reshape(ct.load(a, index=(z, i, k), shape=(1, tm, tk), padding_mode=ct.PaddingMode.ZERO), (tm, tk))
        tb = ct.reshape(ct.load(b, index=(z, k, j), shape=(1, tk, tn), padding_mode=ct.PaddingMode.ZERO), (tk, tn))
        acc = ct.mma(ta, tb, acc=acc)
    ct.store(c, index=(z, i, j), tile=ct.reshape(ct.astype(acc, c.dtype), (1, tm, tn)))


@ct.kernel
def dft_batched(xr, xi, wr, wi, yr, yi, bs: ct.Constant[int], f: ct.Constant[int], n: ct.Constant[int]):
    """One radix-f step of a factorized FFT as cuTile's FFT sample does it:
    Y = W @ X for bs batches of f x n complex values (real and imaginary
    parts apart), W f x f broadcast over the batch: products smaller than
    any MMA atom (f = 2, 4, 8), by FMA."""
    z = ct.bid(0)
    x_r = ct.load(xr, index=(z, 0, 0), shape=(bs, f, n))
    x_i = ct.load(xi, index=(z, 0, 0), shape=(bs, f, n))
    w_r = ct.reshape(ct.load(wr, index=(0, 0), shape=(f, f)), (1, f, f))
    w_i = ct.reshape(ct.load(wi, index=(0, 0), shape=(f, f)), (1, f, f))
    ct.store(yr, index=(z, 0, 0), tile=ct.matmul(w_r, x_r) - ct.matmul(w_i, x_i))
    ct.store(yi, index=(z, 0, 0), tile=ct.matmul(w_i, x_r) + ct.matmul(w_r, x_i))
