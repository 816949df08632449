"""Scalar parameters of every width: how each scalar dtype arrives in the ABI."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def scalar_params(out, a, b, c, d, e, f, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.full((tile,), a, dtype=ct.float32)
    t = t + ct.full((tile,), b, dtype=ct.float32)
    t = t + ct.full((tile,), c, dtype=ct.float32)
    t = t + ct.full((tile,), d, dtype=ct.float32)
    t = t + ct.full((tile,), e, dtype=ct.float32)
    t = t * ct.full((tile,), f, dtype=ct.float32)
    ct.store(out, index=(pid,), tile=t)


CORPUS = [
    ("scalar_params", scalar_params,
     "runtime scalars i32, i64, f16, f64, i8, bf16 converted and summed into an f32 tile", [
         [arr(ct.float32), scalar(ct.int32), scalar(ct.int64), scalar(ct.float16),
          scalar(ct.float64), scalar(ct.int8), scalar(ct.bfloat16), 128],
     ]),
]
