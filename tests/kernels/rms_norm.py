"""RMS norm over the last axis: y = x / sqrt(mean(x^2) + eps) * w, computed in f32."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def rms_norm(x, w, y, eps, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    tw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32)
    ms = ct.sum(t * t, axis=1, keepdims=True) / tn
    out = t * ct.rsqrt(ms + eps) * tw.reshape((1, tn))
    ct.store(y, index=(pid, 0), tile=out.astype(y.dtype))


CORPUS = [
    ("rms_norm", rms_norm, "RMS norm 8x128: one sum-of-squares row reduction, rsqrt, weight broadcast, f32 eps scalar; f32, and bf16 in/out computed in f32", [
        [arr(ct.float32, 2), arr(ct.float32), arr(ct.float32, 2), scalar(ct.float32), 8, 128],
        [arr(ct.bfloat16, 2), arr(ct.bfloat16), arr(ct.bfloat16, 2), scalar(ct.float32), 8, 128],
    ]),
]
