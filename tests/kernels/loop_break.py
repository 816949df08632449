"""While loop with break: accumulate row tiles until the running maximum passes a limit."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def loop_break(x, out, cnt, limit, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    n = ct.num_tiles(x, axis=1, shape=(tm, tn))
    k = 0
    while k < n:
        acc = acc + ct.load(x, index=(pid, k), shape=(tm, tn),
                            padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        k = k + 1
        if ct.max(acc) > limit:
            break
    ct.store(out, index=(pid, 0), tile=acc)
    ct.store(cnt, index=(pid,), tile=ct.full((1,), k, dtype=ct.int32))


CORPUS = [
    ("loop_break", loop_break, "while loop with break (cuda_tile.loop, break in both ifs): 8x64 f32 accumulator over k-tiles until the whole-tile max passes an f32 scalar limit, trip count stored; f32 and f16 input", [
        [arr(ct.float32, 2), arr(ct.float32, 2), arr(ct.int32), scalar(ct.float32), 8, 64],
        [arr(ct.float16, 2), arr(ct.float32, 2), arr(ct.int32), scalar(ct.float32), 8, 64],
    ]),
]
