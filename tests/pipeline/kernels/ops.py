"""Kernels covering the elementwise op list beyond the corpus, for tests/pipeline.bats.

Exported by tests/pipeline/gen-kernels into tests/pipeline/corpus/ (see
aligned.py for the array constraints).
"""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint


def arr(dtype, ndim=1):
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False)


def scalar(dtype):
    return ScalarConstraint(dtype)


@ct.kernel
def fmath(x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.NEG_INF)
    ty = ct.load(y, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.NAN)
    a = ct.sin(tx) + ct.cos(ty) * ct.tan(tx)
    b = ct.sinh(tx) - ct.cosh(ty) + ct.tanh(tx)
    c = ct.exp2(tx) + ct.log2(ct.abs(ty) + 1.0) + ct.pow(ct.abs(tx), ty) + ct.atan2(tx, ty)
    d = ct.floor(tx) + ct.ceil(ty) + ct.rsqrt(ct.abs(tx) + 1.0) + tx % ty - (-tx)
    e = ct.maximum(ct.minimum(a, b), c) / d
    ct.store(out, index=(pid,), tile=ct.where(ct.isnan(e), 0.0, e))


@ct.kernel
def imath(x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    a = tx // ty + tx % ty + (tx >> 3) + (ty << 2)
    b = ct.maximum(tx, ty) - ct.minimum(tx, ty) + ct.bitwise_not(tx)
    c = ct.where(tx > ty, a, b) * ct.where(tx == ty, tx, ty)
    ct.store(out, index=(pid,), tile=c ^ (a | b))


@ct.kernel
def umath(x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    a = tx % ty + (tx >> 3) + (ty << 2)
    b = ct.maximum(tx, ty) - ct.minimum(tx, ty)
    ct.store(out, index=(pid,), tile=ct.where(tx < ty, a, b))


@ct.kernel
def convert(x, i8, f64, i64, o8, oi16, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    t8 = ct.load(i8, index=(pid,), shape=(tile,))
    t64 = ct.load(f64, index=(pid,), shape=(tile,))
    ti = ct.load(i64, index=(pid,), shape=(tile,))
    s = tx + ct.astype(t8, ct.float32) + ct.astype(t64, ct.float32) + ct.astype(ti, ct.float32)
    bits = ct.bitcast(s, ct.int32) + ct.astype(t8, ct.int32) + ct.astype(ti, ct.int32)
    ct.store(o8, index=(pid,), tile=ct.astype(s, o8.dtype))
    ct.store(oi16, index=(pid,), tile=ct.astype(bits, ct.int16))
    ct.store(f64, index=(pid,), tile=ct.astype(ct.astype(bits, ct.float16), ct.float64))


@ct.kernel
def branches(x, out, n, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    if n > 0:
        t = t * 2.0
    else:
        t = t + 1.0
    t = t + ct.num_blocks(0)
    ct.store(out, index=(pid,), tile=t)


@ct.kernel
def roundtrip(x, out, tile: ct.Constant[int]):
    """store then load the same array: the loads are ordered after the store by tokens"""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    ct.store(x, index=(pid,), tile=t + 1.0)       # same elements, same threads: no barrier
    u = ct.load(x, index=(pid,), shape=(tile,))   # reads back its own writes: no barrier
    v = ct.load(x, index=(2 * pid,), shape=(tile // 2,))   # other threads' writes: barrier
    ct.store(out, index=(pid,), tile=u)
    ct.store(out, index=(2 * pid + 1,), tile=v)


@ct.kernel
def bias2d(x, bias, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    """a loaded row broadcast over a loaded tile: the row's load layout is not
    the one the broadcast needs, so tile-sched converts it (warp shuffles)"""
    i = ct.bid(0)
    j = ct.bid(1)
    tx = ct.load(x, index=(i, j), shape=(tm, tn))
    row = ct.load(bias, index=(0, j), shape=(1, tn))
    col = ct.load(bias, index=(i, 0), shape=(tm, 1))
    ct.store(out, index=(i, j), tile=tx + row + col)


F32 = ct.float32
KERNELS = [
    ("fmath", fmath, [[arr(F32), arr(F32), arr(F32), 256],
                      [arr(ct.float16), arr(ct.float16), arr(ct.float16), 256],
                      [arr(ct.float64), arr(ct.float64), arr(ct.float64), 128]]),
    ("imath", imath, [[arr(ct.int32), arr(ct.int32), arr(ct.int32), 128],
                      [arr(ct.int64), arr(ct.int64), arr(ct.int64), 128],
                      [arr(ct.int16), arr(ct.int16), arr(ct.int16), 512]]),
    ("umath", umath, [[arr(ct.uint32), arr(ct.uint32), arr(ct.uint32), 128],
                      [arr(ct.uint8), arr(ct.uint8), arr(ct.uint8), 1024]]),
    ("convert", convert, [[arr(F32), arr(ct.int8), arr(ct.float64), arr(ct.int64),
                           arr(ct.bfloat16), arr(ct.int16), 128]]),
    ("convert_f8", convert, [[arr(F32), arr(ct.int8), arr(ct.float64), arr(ct.int64),
                              arr(ct.float8_e4m3fn), arr(ct.int16), 128],
                             [arr(F32), arr(ct.int8), arr(ct.float64), arr(ct.int64),
                              arr(ct.float8_e5m2), arr(ct.int16), 128]]),
    ("bias2d", bias2d, [[arr(F32, 2), arr(F32, 2), arr(F32, 2), 16, 64]]),
    ("branches", branches, [[arr(F32), arr(F32), scalar(ct.int32), 128]]),
    ("roundtrip", roundtrip, [[ArrayConstraint(F32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0,
                                               alias_groups=("a",), may_alias_internally=False),
                               ArrayConstraint(F32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0,
                                               alias_groups=("a",), may_alias_internally=False), 128]]),
]
