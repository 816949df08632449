"""Reductions, scans and shape ops beyond the corpus, for tests/reduce.bats.

Exported by tests/reduce/gen-kernels into tests/reduce/corpus/ (bytecode
13.3, so pack/unpack are available; 13.4 for entries that name it: insert). Arrays carry no alignment facts unless
named *_c (contiguous rows); see tests/kernels/_common.py.
"""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint


def arr(dtype, ndim=1, contiguous=False):
    sc = (None,) * (ndim - 1) + (1,) if contiguous else None
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False, stride_constant=sc)


def aligned(dtype, ndim=1):
    """16-byte aligned base, unit innermost stride, sizes divisible by 4: 16-byte accesses."""
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,), shape_divisible_by=4,
                           stride_divisible_by=(4,) * (ndim - 1) + (1,), base_addr_divisible_by=16)


def scalar(dtype):
    return ScalarConstraint(dtype)


# ---- reductions -----------------------------------------------------------

@ct.kernel
def argmax_rows(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out, index=(pid,), tile=ct.argmax(t, axis=1))


@ct.kernel
def argmin_cols(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(0, pid), shape=(tm, tn), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(out, index=(pid,), tile=ct.argmin(t, axis=0))


@ct.kernel
def sum_all(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    s = ct.sum(t, axis=None, keepdims=True)
    ct.store(out, index=(pid, 0), tile=s)


def _sum_max(a0, a1, b0, b1):
    return a0 + b0, ct.maximum(a1, b1)


@ct.kernel
def sum_and_max(x, out_s, out_m, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    s, m = ct.reduce((t, t), axis=1, func=_sum_max, identity=(0.0, -3.0e38))
    ct.store(out_s, index=(pid,), tile=s)
    ct.store(out_m, index=(pid,), tile=m)


@ct.kernel
def reduce_types(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # f16 / f64 / i64 / i8 reductions: 16-, 64- and 8-bit shuffles
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.max(t, axis=1))


@ct.kernel
def prod_small(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # the reduced dim fits in one thread's registers: no shuffles at all
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.prod(t, axis=1))


@ct.kernel
def softmax_c(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(pid, 0), tile=e / s)


@ct.kernel
def col_norm(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # reduce along axis 0 and broadcast back along axis 0
    pid = ct.bid(0)
    t = ct.load(x, index=(0, pid), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    s = ct.sum(t * t, axis=0, keepdims=True)
    ct.store(out, index=(0, pid), tile=t * ct.rsqrt(s + 1e-6))


# ---- scans ----------------------------------------------------------------

@ct.kernel
def cumsum_rows_rev(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid, 0), tile=ct.cumsum(t, axis=1, reverse=True))


@ct.kernel
def cumprod_cols(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(0, pid), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(0, pid), tile=ct.cumprod(t, axis=0))


def _run_max(a0, a1, b0, b1):
    # running (max, count of elements so far)
    return ct.maximum(a0, b0), a1 + b1


@ct.kernel
def scan_pair(x, out_m, out_n, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ones = ct.full((tile,), 1, dtype=ct.int32)
    m, n = ct.scan((t, ones), axis=0, func=_run_max, identity=(-3.0e38, 0))
    ct.store(out_m, index=(pid,), tile=m)
    ct.store(out_n, index=(pid,), tile=n)


# ---- shape ops --------------------------------------------------------------

@ct.kernel
def cat_extract(x, y, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    a = ct.load(x, index=(pid, 0), shape=(tm, tn))
    b = ct.load(y, index=(pid, 0), shape=(tm, tn))
    c = ct.cat((a, b), 1)                       # tm x 2tn
    d = ct.cat((c, c * 2.0), 0)                 # 2tm x 2tn
    e = ct.extract(d, (1, 0), shape=(tm, 2 * tn))
    f = ct.extract(e, (0, 1), shape=(tm, tn))   # = b * 2
    ct.store(out, index=(pid, 0), tile=f + a)


@ct.kernel
def bcast_rows_cols(x, r, c, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn))
    tr = ct.load(r, index=(0,), shape=(tn,))
    tc = ct.load(c, index=(pid,), shape=(tm,))
    u = t * ct.broadcast_to(ct.reshape(tr, (1, tn)), (tm, tn))
    v = u + ct.broadcast_to(ct.reshape(tc, (tm, 1)), (tm, tn))
    ct.store(out, index=(pid, 0), tile=v)


@ct.kernel
def reshape_mix(x, y, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # x tile (tm, tn) reshaped to (tn, tm) and added to y's (tn, tm) tile
    pid = ct.bid(0)
    a = ct.load(x, index=(pid, 0), shape=(tm, tn))
    b = ct.load(y, index=(pid, 0), shape=(tn, tm))
    ct.store(out, index=(pid, 0), tile=ct.reshape(a, (tn, tm)) + b)


@ct.kernel
def transpose_c(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(out, index=(j, i), tile=ct.transpose(t) + 1.0)


@ct.kernel
def pack_unpack(x, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.pack_to_bytes(t)                     # tile*4 bytes
    u = ct.unpack_from_bytes(b, ct.int32)       # reinterpret as i32
    ct.store(out, index=(pid,), tile=u)


@ct.kernel
def bytes_to_f16(x, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))          # uint8
    ct.store(out, index=(pid,), tile=ct.unpack_from_bytes(t, ct.float16))


@ct.kernel
def extract_dyn(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # block index from the block id: moved through shared memory
    pid = ct.bid(0)
    t = ct.load(x, index=(0, 0), shape=(tm, tn))
    ct.store(out, index=(pid, 0), tile=ct.extract(t, (pid % 4, 0), shape=(tm // 4, tn)))


@ct.kernel
def insert_block(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # 13.4: insert at a constant and at a dynamic block
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn))
    b = ct.extract(t, (0, 1), shape=(tm // 2, tn // 2)) * 2.0
    u = ct.insert(t, (1, 0), b)
    v = ct.insert(u, (pid % 2, 1), b + 1.0)
    ct.store(out, index=(pid, 0), tile=v)


@ct.kernel
def cumsum_v4(x, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.cumsum(t, axis=0))


@ct.kernel
def rowsum_loop(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # reductions inside a loop: a shared-memory round per iteration, and a
    # running max carried by the loop next to the sum
    pid = ct.bid(0)
    acc = ct.zeros((tm,), dtype=ct.float32)
    mx = ct.full((tm,), -3.0e38, dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        t = ct.load(x, index=(pid, k), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(t, axis=1)
        mx = ct.maximum(mx, ct.max(t, axis=1))
    ct.store(out, index=(pid,), tile=acc + mx)


@ct.kernel
def scan_permuted(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    # the scanned tile's layout comes from a transpose and a reshape: not
    # registers-lanes-warps along the scan, so tile-sched scans a blocked copy
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn))
    u = ct.reshape(ct.permute(t, (1, 0)), (tm * tn,))
    v = ct.reshape(ct.cumsum(u, axis=0), (tn, tm))
    ct.store(out, index=(pid, 0), tile=ct.permute(v, (1, 0)))


@ct.kernel
def tiny(x, out_s, out_c, out_m, tm: ct.Constant[int], tn: ct.Constant[int]):
    # fewer elements than threads: replicated lanes and warps
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out_s, index=(pid,), tile=ct.sum(t, axis=1))
    ct.store(out_c, index=(pid, 0), tile=ct.cumsum(t, axis=1))
    ct.store(out_m, index=(pid,), tile=ct.reshape(ct.max(t, axis=None, keepdims=True), (1,)))


F32, F16, F64, I32, I64, I8 = ct.float32, ct.float16, ct.float64, ct.int32, ct.int64, ct.int8
U8 = ct.uint8
KERNELS = [
    ("argmax_rows", argmax_rows, [[arr(F32, 2), arr(I32), 16, 64]]),
    ("argmin_cols", argmin_cols, [[arr(F32, 2), arr(I32), 64, 16]]),
    ("sum_all", sum_all, [[arr(F32, 2), arr(F32, 2), 16, 32]]),
    ("sum_and_max", sum_and_max, [[arr(F32, 2), arr(F32), arr(F32), 8, 128]]),
    ("reduce_types", reduce_types, [[arr(F16, 2), arr(F16), 16, 64],
                                    [arr(F64, 2), arr(F64), 16, 64],
                                    [arr(I64, 2), arr(I64), 16, 64],
                                    [arr(I8, 2), arr(I8), 16, 64]]),
    ("prod_small", prod_small, [[arr(F32, 2), arr(F32), 128, 4]]),
    ("softmax_c", softmax_c, [[arr(F32, 2, True), arr(F32, 2, True), 2, 1024],
                              [arr(F32, 2, True), arr(F32, 2, True), 16, 64]]),
    ("col_norm", col_norm, [[arr(F32, 2), arr(F32, 2), 64, 16]]),
    ("cumsum_rows_rev", cumsum_rows_rev, [[arr(F32, 2), arr(F32, 2), 8, 128]]),
    ("cumprod_cols", cumprod_cols, [[arr(I32, 2), arr(I32, 2), 32, 16]]),
    ("scan_pair", scan_pair, [[arr(F32), arr(F32), arr(I32), 512]]),
    ("cat_extract", cat_extract, [[arr(F32, 2), arr(F32, 2), arr(F32, 2), 16, 32]]),
    ("bcast_rows_cols", bcast_rows_cols, [[arr(F32, 2), arr(F32), arr(F32), arr(F32, 2), 16, 64]]),
    ("reshape_mix", reshape_mix, [[arr(F32, 2), arr(F32, 2), arr(F32, 2), 16, 64]]),
    ("transpose_c", transpose_c, [[arr(F32, 2, True), arr(F32, 2, True), 64, 64]]),
    ("pack_unpack", pack_unpack, [[arr(F32), arr(I32), 256]]),
    ("bytes_to_f16", bytes_to_f16, [[arr(U8), arr(F16), 512]]),
    ("softmax_v4", softmax_c, [[aligned(F32, 2), aligned(F32, 2), 4, 512]]),
    ("cumsum_v4", cumsum_v4, [[aligned(F32), aligned(F32), 2048]]),
    ("rowsum_loop", rowsum_loop, [[arr(F32, 2), arr(F32), 16, 64]]),
    ("scan_permuted", scan_permuted, [[arr(I32, 2), arr(I32, 2), 16, 64]]),
    ("tiny", tiny, [[arr(F32, 2), arr(F32), arr(F32, 2), arr(F32), 4, 8]]),
    ("extract_dyn", extract_dyn, [[arr(F32, 2), arr(F32, 2), 32, 64]]),
    ("insert_block", insert_block, [[arr(F32, 2), arr(F32, 2), 32, 32]], "13.4"),
]
