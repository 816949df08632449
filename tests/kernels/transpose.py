"""Transpose a 2-D tile, and permute the axes of a 3-D tile."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def transpose(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(out, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def permute3d(x, out, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0, 0), shape=(a, b, c))
    ct.store(out, index=(0, 0, i), tile=ct.permute(t, (2, 1, 0)))


CORPUS = [
    ("transpose", transpose, "2-D tile transpose, 2-D grid (bid 0 and 1)", [
        [arr(ct.float32, 2), arr(ct.float32, 2), 32, 64],
    ]),
    ("permute3d", permute3d, "3-D tile permute (2,1,0)", [
        [arr(ct.float32, 3), arr(ct.float32, 3), 2, 4, 8],
    ]),
]
