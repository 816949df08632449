"""Histogram with atomics: hist[bin(x[i])] += 1 via ct.atomic_add."""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def histogram(x, hist, nbins, tile: ct.Constant[int]):
    pid = ct.bid(0)
    v = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.minimum(ct.maximum(v, 0), nbins - 1)
    ct.atomic_add(hist, b, 1)


CORPUS = [
    ("histogram", histogram, "ct.atomic_add of 1 into hist[clamp(x)] (i32 atomics, scalar nbins)", [
        [arr(ct.int32), arr(ct.int32), scalar(ct.int32), 256],
    ]),
]
