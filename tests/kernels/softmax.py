"""Row softmax of a 2-D f32 array; one block per row tile, whole row in one tile."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def softmax(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(pid, 0), tile=e / s)


CORPUS = [
    ("softmax", softmax, "row softmax 4x256: max/sum reductions with keepdims, exp, broadcast divide", [
        [arr(ct.float32, 2, contiguous=True), arr(ct.float32, 2, contiguous=True), 4, 256],
    ]),
]
