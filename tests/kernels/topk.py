"""Top-k of each row: k rounds of row max + argmax, the winner masked to -inf with ct.where."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def topk(x, vals, idxs, tm: ct.Constant[int], tn: ct.Constant[int], k: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    col = ct.arange(tn, dtype=ct.int32).reshape((1, tn))
    slot = ct.arange(k, dtype=ct.int32).reshape((1, k))
    v = ct.full((tm, k), 0.0, dtype=ct.float32)
    ix = ct.full((tm, k), 0, dtype=ct.int32)
    for i in range(k):
        m = ct.max(t, axis=1, keepdims=True)
        a = ct.argmax(t, axis=1, keepdims=True)   # ties: the smallest index
        v = ct.where(slot == i, m, v)
        ix = ct.where(slot == i, a, ix)
        t = ct.where(col == a, float("-inf"), t)
    ct.store(vals, index=(pid, 0), tile=v.astype(vals.dtype))
    ct.store(idxs, index=(pid, 0), tile=ix)


CORPUS = [
    ("topk", topk, "top-4 of each row of an 8x128 tile: a for loop of max + argmax reductions, ct.where into the (8,4) value/index tiles and masking the winner; f32 and f16 values", [
        [arr(ct.float32, 2), arr(ct.float32, 2), arr(ct.int32, 2), 8, 128, 4],
        [arr(ct.float16, 2), arr(ct.float16, 2), arr(ct.int32, 2), 8, 128, 4],
    ]),
]
