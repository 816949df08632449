"""MMA usage patterns beyond a plain C = A @ B (issue 15, tests/mma2.bats),
exported by tests/mma2/gen-mma2: B given as [N, K] and transposed in the
kernel, split-K with atomic adds of partial products, a fused epilogue
(bias + ReLU + cast to f16), int8 x uint8 (mixed signedness). Ragged M, N, K
(zero-padded loads, masked stores) come from the sizes tests/run/extra.py
runs them at."""
import cuda.tile as ct


@ct.kernel
def mm_bt(a, bt, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C = A @ BT^T, BT [N, K]."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=c.dtype)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(bt, index=(j, k), shape=(tn, tk), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, ct.transpose(tb), acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def mm_bt_view(a, bt, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C = A @ BT^T, BT [N, K], B read through a transposed view of BT
    (order=(1, 0): the tile's rows run along BT's K, its columns down N)."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=c.dtype)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(bt, index=(k, j), shape=(tk, tn), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def mm_splitk(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C += A[:, Kz] @ B[Kz, :] for the K tile z = bid(2): one partial
    product per block, added into C (zeroed by the caller) atomically."""
    i = ct.bid(0)
    j = ct.bid(1)
    z = ct.bid(2)
    ta = ct.load(a, index=(i, z), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(z, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.mma(ta, tb, ct.zeros((tm, tn), dtype=ct.float32))
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    cols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(c, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def mm_epilogue(a, b, bias, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C = f16(relu(A @ B + bias)), bias [N] f32, accumulated in f32."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    tbias = ct.load(bias, index=(j,), shape=(tn,), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.maximum(acc + tbias[None, :], 0.0)
    ct.store(c, index=(i, j), tile=acc.astype(ct.float16))


@ct.kernel
def mm_mixed(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C = A @ B with A int8, B uint8 (mmai with mixed signedness), C int32."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc)


@ct.kernel
def mm_shared_acc(a, b, x, y, c, d, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """One zero tile as the accumulator of two products of different tilings:
    C = A @ B (f16: tensor cores) and D = X @ Y (f32: FMA), one K tile each."""
    i = ct.bid(0)
    j = ct.bid(1)
    zero = ct.zeros((tm, tn), dtype=ct.float32)
    ta = ct.load(a, index=(i, 0), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(0, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
    tx = ct.load(x, index=(i, 0), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
    ty = ct.load(y, index=(0, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(i, j), tile=ct.mma(ta, tb, zero))
    ct.store(d, index=(i, j), tile=ct.mma(tx, ty, zero))
