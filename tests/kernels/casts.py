"""Dtype conversion: y = x.astype(y.dtype), one generic kernel, signatures per cast."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def cast(x, y, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    ct.store(y, index=(pid,), tile=ct.astype(t, y.dtype))


CORPUS = [
    ("cast_f16", cast, "f32->f16 and f16->f32 astype", [
        [arr(ct.float32), arr(ct.float16), 128],   # f32 -> f16
        [arr(ct.float16), arr(ct.float32), 128],   # f16 -> f32
    ]),
    ("cast_bf16", cast, "f32->bf16 and bf16->f32 astype", [
        [arr(ct.float32), arr(ct.bfloat16), 128],  # f32 -> bf16
        [arr(ct.bfloat16), arr(ct.float32), 128],  # bf16 -> f32
    ]),
    ("cast_int", cast, "i32->f32 and f32->i32 astype", [
        [arr(ct.int32), arr(ct.float32), 128],     # i32 -> f32
        [arr(ct.float32), arr(ct.int32), 128],     # f32 -> i32
    ]),
]
