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
    ("saxpy", saxpy, "f32 out = alpha*x + y, alpha a runtime f32 scalar; i32 and i64 index dtypes", [
        [scalar(ct.float32), arr(ct.float32), arr(ct.float32), arr(ct.float32), 256],
        # 64-bit shape/stride parameters (index_dtype int64)
        [scalar(ct.float32), arr(ct.float32, index_dtype=ct.int64),
         arr(ct.float32, index_dtype=ct.int64), arr(ct.float32, index_dtype=ct.int64), 256],
    ]),
]
