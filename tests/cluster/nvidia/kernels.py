"""cuTile kernels with @ct.kernel(num_ctas=2) (tests/cluster/nvidia/gen.py
exports them): NVIDIA's tileiras writes cluster PTX for them."""
import cuda.tile as ct
from _common import arr


@ct.kernel(num_ctas=2)
def matmul2(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


@ct.kernel(num_ctas=2)
def vadd2(a, b, c, tile: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(tile,))
    y = ct.load(b, index=(i,), shape=(tile,))
    ct.store(c, index=(i,), tile=x + y)


KERNELS = [
    ("matmul2", matmul2, [arr(ct.float16, 2, contiguous=True), arr(ct.float16, 2, contiguous=True),
                          arr(ct.float32, 2, contiguous=True), 128, 128, 64]),
    ("vadd2", vadd2, [arr(ct.float32, 1, contiguous=True), arr(ct.float32, 1, contiguous=True),
                      arr(ct.float32, 1, contiguous=True), 256]),
]
