"""Prefix sum of each tile (ct.cumsum), inclusive, along axis 0."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def prefix_sum(x, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=ct.cumsum(t, axis=0))


CORPUS = [
    ("prefix_sum", prefix_sum, "ct.cumsum along axis 0 of a 256 tile (f32 and i32)", [
        [arr(ct.float32), arr(ct.float32), 256],
        [arr(ct.int32), arr(ct.int32), 256],
    ]),
]
