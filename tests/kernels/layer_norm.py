"""Layer norm over the last axis: y = (x - mean) / sqrt(var + eps) * w + b."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def layer_norm(x, w, b, y, eps, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    tw = ct.load(w, index=(0,), shape=(tn,))
    tb = ct.load(b, index=(0,), shape=(tn,))
    mean = ct.sum(t, axis=1, keepdims=True) / tn
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / tn
    r = ct.rsqrt(var + eps)
    out = d * r * tw.reshape((1, tn)) + tb.reshape((1, tn))
    ct.store(y, index=(pid, 0), tile=out.astype(y.dtype))


CORPUS = [
    ("layer_norm", layer_norm, "layer norm 8x128: mean/var reductions, rsqrt, weight/bias broadcast, f32 eps scalar; f32 and f16 output", [
        [arr(ct.float32, 2), arr(ct.float32), arr(ct.float32), arr(ct.float32, 2),
         scalar(ct.float32), 8, 128],
        [arr(ct.float32, 2), arr(ct.float32), arr(ct.float32), arr(ct.float16, 2),
         scalar(ct.float32), 8, 128],
    ]),
]
