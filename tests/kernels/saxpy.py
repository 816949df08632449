"""SAXPY: y_out = alpha * x + y with a runtime f32 scalar parameter."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def saxpy(alpha, x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    ct.store(out, index=(pid,), tile=alpha * tx + ty)


CORPUS = [
    ("saxpy", saxpy, "f32 out = alpha*x + y, alpha a runtime f32 scalar parameter", [
        [scalar(ct.float32), arr(ct.float32), arr(ct.float32), arr(ct.float32), 256],
    ]),
]
