"""Device-side printf, Python-style print and assert."""
import cuda.tile as ct
from _common import arr


@ct.kernel
def debug_print(x, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    s = ct.sum(t)
    ct.printf("block %d sum %f\n", pid, s)
    ct.print(f"tile={t}")
    ct.assert_(t >= 0.0, "negative input")


CORPUS = [
    ("debug_print", debug_print, "ct.printf, ct.print (f-string) and ct.assert_ with message", [
        [arr(ct.float32), 8],
    ]),
]
