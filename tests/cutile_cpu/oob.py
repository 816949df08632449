"""An out-of-bounds write on the CPU: a scatter without bounds checks past
the end of its array raises tileiras_cpu.KernelFault naming this file and
the scatter's line, and nothing is written to any argument (the in-bounds
elements of the same launch included). With the fault fixed it runs."""
import os

from _check import ct, np, check
import tileiras_cpu


@ct.kernel
def spill(x, out, extra, tile: ct.Constant[int]):
    idx = ct.bid(0) * tile + ct.arange(tile, dtype=ct.int32)
    v = ct.gather(x, idx)
    ct.scatter(out, idx + extra, v, check_bounds=False)   # OOB_LINE


x = np.arange(256, dtype=np.float32)
out = np.zeros(256, np.float32)
here = os.path.abspath(__file__)
line = [n for n, text in enumerate(open(here), 1) if "# OOB_LINE" in text and "ct.scatter" in text][0]
try:
    ct.launch(None, (4,), spill, (x, out, 1 << 20, 64))
    raise SystemExit("an out-of-bounds write raised nothing")
except tileiras_cpu.KernelFault as e:
    print("KernelFault:", e)
    check("oob kind", e.kind, "out of bounds")
    check("oob place", (e.file, e.line), (here, line))
    check("oob message names file:line", "%s:%d" % (here, line) in str(e), True)
check("oob wrote nothing", out, np.zeros(256, np.float32))
check("oob input untouched", x, np.arange(256, dtype=np.float32))

ct.launch(None, (4,), spill, (x, out, 0, 64))
check("in bounds after the fault", out, x)
