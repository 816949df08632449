"""Vector add: c[i] = a[i] + b[i] over 1-D f32 arrays, one tile per block."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def vector_add(a, b, c, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ta + tb)


CORPUS = [
    ("vector_add", vector_add, "f32 c = a + b; strided arrays tile 128, and contiguous (stride const 1) tile 1024", [
        # generic strided arrays, 128-wide tiles
        [arr(ct.float32), arr(ct.float32), arr(ct.float32), 128],
        # contiguous arrays (stride constant 1), 1024-wide tiles
        [arr(ct.float32, contiguous=True), arr(ct.float32, contiguous=True),
         arr(ct.float32, contiguous=True), 1024],
    ]),
]
