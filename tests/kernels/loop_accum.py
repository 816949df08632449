"""For loop carrying a tile accumulator: out[i, :] = sum over k-tiles of x[i, k-tile]."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def loop_accum(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        acc = acc + ct.load(x, index=(pid, k), shape=(tm, tn),
                            padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid, 0), tile=acc)


CORPUS = [
    ("loop_accum", loop_accum, "for loop over ct.num_tiles carrying a 16x32 f32 accumulator, zero-padded loads", [
        [arr(ct.float32, 2), arr(ct.float32, 2), 16, 32],
    ]),
]
