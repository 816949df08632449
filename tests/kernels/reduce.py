"""Reductions along an axis: row sums (axis 1) and column maxima (axis 0)."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def reduce_sum(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.sum(t, axis=1))


@ct.kernel
def reduce_max(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(0, pid), shape=(tm, tn),
                padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out, index=(pid,), tile=ct.max(t, axis=0))


CORPUS = [
    ("reduce_sum", reduce_sum, "sum along axis 1 of a 32x64 tile (f32 and i32 signatures)", [
        [arr(ct.float32, 2), arr(ct.float32), 32, 64],
        [arr(ct.int32, 2), arr(ct.int32), 32, 64],
    ]),
    ("reduce_max", reduce_max, "max along axis 0 of a 64x32 f32 tile, -inf padding", [
        [arr(ct.float32, 2), arr(ct.float32), 64, 32],
    ]),
]
