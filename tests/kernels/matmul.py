"""Small tiled matmul with ct.mma: C = A @ B, f16/bf16 inputs, f32 accumulator."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def matmul(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        ta = ct.load(a, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, index=(i, j), tile=acc.astype(c.dtype))


CORPUS = [
    ("matmul", matmul, "ct.mma in a K loop: f16 x f16 -> f32, and bf16 -> f32 acc -> bf16 store; 64x64x32 tiles", [
        [arr(ct.float16, 2, contiguous=True), arr(ct.float16, 2, contiguous=True),
         arr(ct.float32, 2, contiguous=True), 64, 64, 32],
        [arr(ct.bfloat16, 2, contiguous=True), arr(ct.bfloat16, 2, contiguous=True),
         arr(ct.bfloat16, 2, contiguous=True), 64, 64, 32],
    ]),
]
