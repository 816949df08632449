"""Gather/scatter and atomics on the CPU (tests/kernels' gather_scatter and
histogram kernels, and three of its own): a masked gather/scatter, an
indirect gather through an index array, a histogram by atomic_add (many
blocks on one counter), atomic_max, and a compare-and-swap claim."""
from _check import ct, np, check, corpus

gather_scatter, indirect = corpus("gather_scatter").gather_scatter, corpus("gather_scatter").indirect_gather
histogram = corpus("histogram").histogram

rng = np.random.default_rng(3)


@ct.kernel
def reverse2d(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    r = ct.arange(tm, dtype=ct.int32)[:, None]
    c = ct.arange(tn, dtype=ct.int32)[None, :]
    v = ct.gather(x, (r, c))
    ct.scatter(out, (tm - 1 - r, c), v)


@ct.kernel
def block_max(x, best, tile: ct.Constant[int]):
    v = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.atomic_max(best, 0, ct.max(v))


@ct.kernel
def claim(slots, owner):
    b = ct.bid(0)
    ct.atomic_cas(owner, b % 4, -1, b)


n = 300
x = rng.standard_normal(n).astype(np.float32)
out = np.full(n + 20, 7.0, np.float32)
ct.launch(None, (3,), gather_scatter, (x, out, n, 128))
check("gather/scatter masked", out, np.concatenate([x * 2, np.full(20, 7.0, np.float32)]))

idx = rng.integers(0, n, 256).astype(np.int32)
out = np.zeros(256, np.float32)
ct.launch(None, (4,), indirect, (x, idx, out, 64))
check("indirect gather", out, x[idx])

m = rng.integers(0, 100, (8, 16)).astype(np.int32)
out = np.zeros_like(m)
ct.launch(None, (1,), reverse2d, (m, out, 8, 16))
check("gather/scatter 2-D", out, m[::-1])

v = rng.integers(-3, 20, 1024).astype(np.int32)
hist = np.zeros(16, np.int32)
ct.launch(None, (8,), histogram, (v, hist, 16, 128))
check("histogram atomic_add", hist, np.bincount(np.clip(v, 0, 15), minlength=16))

vals = rng.integers(-10**6, 10**6, 512).astype(np.int32)
best = np.full(1, -2**31, np.int32)
ct.launch(None, (8,), block_max, (vals, best, 64))
check("atomic_max", best, [vals.max()])

owner = np.full(4, -1, np.int32)
ct.launch(None, (16,), claim, (np.zeros(1, np.int32), owner))
ok = all(o >= 0 and o % 4 == i for i, o in enumerate(owner))
check("atomic_cas claims", ok, True)
