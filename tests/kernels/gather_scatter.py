"""Pointer-style masked gather/scatter (ct.gather / ct.scatter).

gather_scatter: out[i] = x[i] * 2 for i < n, element indices built with arange,
with an explicit mask in addition to the built-in bounds check.
indirect_gather: out[i] = x[idx[i]] (index tile loaded from memory).
"""
import cuda.tile as ct
from _common import arr, scalar


@ct.kernel
def gather_scatter(x, out, n, tile: ct.Constant[int]):
    pid = ct.bid(0)
    idx = pid * tile + ct.arange(tile, dtype=ct.int32)
    mask = idx < n
    v = ct.gather(x, idx, mask=mask, padding_value=0.0)
    ct.scatter(out, idx, v * 2.0, mask=mask)


@ct.kernel
def indirect_gather(x, idx, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ti = ct.load(idx, index=(pid,), shape=(tile,))
    v = ct.gather(x, ti, check_bounds=True)
    ct.store(out, index=(pid,), tile=v)


CORPUS = [
    ("gather_scatter", gather_scatter, "ct.gather/ct.scatter with arange indices, explicit mask (idx < n, n an i32 scalar) and padding", [
        [arr(ct.float32), arr(ct.float32), scalar(ct.int32), 128],
    ]),
    ("indirect_gather", indirect_gather, "out = x[idx] with an index tile loaded from memory, bounds-checked gather", [
        [arr(ct.float32), arr(ct.int32), arr(ct.float32), 64],
    ]),
]
