"""Elementwise chains: float unary/binary math, compares, select; integer ops."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def elementwise_float(x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    a = ct.exp(tx)
    b = ct.sqrt(ct.abs(ty))
    m = ct.maximum(a, b)
    n = ct.minimum(ct.log(b + 1.0), ct.tanh(tx))
    r = ct.where(tx > ty, m, n - ty)          # compare + select
    r = ct.where(tx == 0.0, r * 2.0, r / 3.0)
    r = ct.where((tx <= 1.0) & (ty >= -1.0), r, -r)
    ct.store(out, index=(pid,), tile=r)


@ct.kernel
def elementwise_int(x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    a = (tx & 0xff) | (ty << 3)
    b = (tx ^ ty) >> 1
    c = ct.where(ty != 0, tx // ty + tx % ty, a)
    d = ct.maximum(ct.minimum(a, b), c) - tx * 7
    ct.store(out, index=(pid,), tile=d)


CORPUS = [
    ("elementwise_float", elementwise_float, "exp, sqrt, abs, log, tanh, maximum, minimum, compares (>, ==, <=, >=), &, where/select, mul/div/neg", [
        [arr(ct.float32), arr(ct.float32), arr(ct.float32), 128],
    ]),
    ("elementwise_int", elementwise_int, "i32 and/or/xor/shl/shr, floordiv, mod, !=, where, min/max, mul/sub", [
        [arr(ct.int32), arr(ct.int32), arr(ct.int32), 128],
    ]),
]
