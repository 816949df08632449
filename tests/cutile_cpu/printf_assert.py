"""Device printf and assert on the CPU. printf text reaches sys.stdout after
the launch, in order with the script's own prints (also when sys.stdout is
redirected); a failed ct.assert_ raises tileiras_cpu.KernelFault naming this
file and the assert's line, and leaves the output array as it was."""
import contextlib
import io

from _check import ct, np, check, expect_fault


@ct.kernel
def report(x, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tile,))
    ct.printf("block %d sum %d\n", i, ct.sum(t))
    ct.store(out, index=(i,), tile=t + 1)


@ct.kernel
def guarded(x, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tile,))
    ct.store(out, index=(i,), tile=t * 2)
    ct.assert_(t >= 0, "negative input")   # ASSERT_LINE


x = np.arange(64, dtype=np.int32)
out = np.zeros(64, np.int32)
print("before launch", flush=True)
ct.launch(None, (2,), report, (x, out, 32))
print("after launch")
check("printf kernel result", out, x + 1)

buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    ct.launch(None, (2,), report, (x, out, 32))
lines = sorted(buf.getvalue().splitlines())
check("printf to a redirected sys.stdout", lines == ["block 0 sum 496", "block 1 sum 1520"], True)

ct.launch(None, (2,), guarded, (x, out, 32))
check("assert that holds", out, x * 2)

bad = x.copy()
bad[40] = -5
out[:] = 9
expect_fault("assert", "assert", guarded, "# ASSERT_LINE", lambda: ct.launch(None, (2,), guarded, (bad, out, 32)))
check("assert left the output alone", out, np.full(64, 9, np.int32))
