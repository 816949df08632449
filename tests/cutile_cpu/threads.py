"""ct.launch from four Python threads at once: each thread's arrays are its
own launch's (the CPU driver keeps registered ranges per thread), results
right in every thread, and an out-of-bounds write in one thread is that
thread's KernelFault only."""
import threading

from _check import ct, np, check, tileiras_cpu


@ct.kernel
def axpy(x, y, a: float, tile: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(tile,))
    ct.store(y, index=(i,), tile=ct.load(y, index=(i,), shape=(tile,)) + a * t)


@ct.kernel
def spill(x, extra, tile: ct.Constant[int]):
    idx = ct.bid(0) * tile + ct.arange(tile, dtype=ct.int32)
    ct.scatter(x, idx + extra, ct.gather(x, idx), check_bounds=False)


results = {}


def work(k):
    x = np.full(4096, k + 1, np.float32)
    y = np.zeros(4096, np.float32)
    try:
        for _ in range(5):
            ct.launch(None, (4096 // 256,), axpy, (x, y, 2.0, 256))
        if k == 3:
            ct.launch(None, (1,), spill, (x, 1 << 22, 64))
        results[k] = ("ok", y)
    except tileiras_cpu.KernelFault as e:
        results[k] = (e.kind, y)


ct.launch(None, (1,), axpy, (np.ones(256, np.float32), np.zeros(256, np.float32), 1.0, 256))  # compile once
threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for k in range(4):
    kind, y = results[k]
    check("thread %d result" % k, y, np.full(4096, 10.0 * (k + 1), np.float32))
    check("thread %d outcome" % k, kind, "out of bounds" if k == 3 else "ok")
