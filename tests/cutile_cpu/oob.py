"""An out-of-bounds write on the CPU: a scatter without bounds checks past
the end of its array raises tileiras_cpu.KernelFault naming this file and
the scatter's line, and nothing is written to any argument (the in-bounds
elements of the same launch included). With the fault fixed it runs."""
from _check import ct, np, check, expect_fault


@ct.kernel
def spill(x, out, extra, tile: ct.Constant[int]):
    idx = ct.bid(0) * tile + ct.arange(tile, dtype=ct.int32)
    v = ct.gather(x, idx)
    ct.scatter(out, idx + extra, v, check_bounds=False)   # OOB_LINE


x = np.arange(256, dtype=np.float32)
out = np.zeros(256, np.float32)
expect_fault("oob", "out of bounds", spill, "# OOB_LINE",
             lambda: ct.launch(None, (4,), spill, (x, out, 1 << 20, 64)))
check("oob wrote nothing", out, np.zeros(256, np.float32))
check("oob input untouched", x, np.arange(256, dtype=np.float32))

ct.launch(None, (4,), spill, (x, out, 0, 64))
check("in bounds after the fault", out, x)
