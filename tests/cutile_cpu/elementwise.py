"""Elementwise kernels through ct.launch on the CPU: 1-D for every integer
and float dtype numpy has (and bool), bf16 and f8 through ml_dtypes, 2-D and
3-D tiles with partial edge tiles, results in place; torch CPU tensors when
torch is installed."""
from _check import ct, np, check, skip, ml_dtypes, torch

T = 64


@ct.kernel
def twice_plus(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=a + a + b)


@ct.kernel
def logic(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,))
    b = ct.load(y, index=(i,), shape=(tile,))
    ct.store(out, index=(i,), tile=ct.where(a, b, ~b))


@ct.kernel
def widen(x, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)).astype(ct.float32) * 2.0)


@ct.kernel
def narrow(x, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)).astype(out.dtype))


@ct.kernel
def add2d(x, y, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, j), tile=a * b + 1.0)


@ct.kernel
def scale3d(x, out, s: float, ta: ct.Constant[int], tb: ct.Constant[int], tc: ct.Constant[int]):
    i, j, k = ct.bid(0), ct.bid(1), ct.bid(2)
    t = ct.load(x, index=(i, j, k), shape=(ta, tb, tc), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, j, k), tile=ct.exp(t) * s - t)


rng = np.random.default_rng(1)
n = 200                                          # 4 tiles, the last partial
grid = ((n + T - 1) // T,)
for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32,
              np.float16, np.float32, np.float64):
    x = rng.integers(-20, 20, n).astype(dtype) if np.dtype(dtype).kind != "u" else rng.integers(0, 40, n).astype(dtype)
    y = rng.integers(0, 20, n).astype(dtype)
    out = np.zeros(n, dtype)
    ct.launch(None, grid, twice_plus, (x, y, out, T))
    check("twice_plus %s" % np.dtype(dtype).name, out, (x + x + y).astype(dtype))

xb, yb = rng.integers(0, 2, 128).astype(bool), rng.integers(0, 2, 128).astype(bool)
out = np.zeros(128, bool)
ct.launch(None, (2,), logic, (xb, yb, out, T))
check("logic bool", out, np.where(xb, yb, ~yb))

if ml_dtypes is None:
    skip("bf16 and f8", "ml_dtypes is not installed")
else:
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"):
        dt = getattr(ml_dtypes, name)
        if name == "float8_e8m0fnu":            # powers of two only
            f = (2.0 ** rng.integers(-6, 6, 128)).astype(np.float32)
        else:
            f = (rng.integers(-64, 64, 128) / 8).astype(np.float32)
        x = f.astype(dt)
        out = np.zeros(128, np.float32)
        ct.launch(None, (2,), widen, (x, out, T))
        check("widen %s" % name, out, x.astype(np.float32) * 2)
        if name == "float8_e8m0fnu":            # cuTile wants a rounding mode to make one
            continue
        back = np.zeros(128, dt)
        ct.launch(None, (2,), narrow, (f, back, T))
        check("narrow %s" % name, back.astype(np.float32), f.astype(dt).astype(np.float32))
    x = (rng.integers(-8, 8, n) / 2).astype(ml_dtypes.bfloat16)
    out = np.zeros(n, ml_dtypes.bfloat16)
    ct.launch(None, grid, twice_plus, (x, x, out, T))
    check("twice_plus bfloat16", out, (x.astype(np.float32) * 3).astype(ml_dtypes.bfloat16))

m, k = 70, 45
x = rng.standard_normal((m, k)).astype(np.float32)
y = rng.standard_normal((m, k)).astype(np.float32)
out = np.zeros((m, k), np.float32)
ct.launch(None, (3, 3), add2d, (x, y, out, 32, 16))
check("add2d f32 70x45", out, x * y + 1, rtol=1e-6, atol=1e-6)

xt = x.T                                         # a strided view: strides (1, 45)
out = np.zeros((k, m), np.float32)
ct.launch(None, (2, 5), add2d, (xt, xt, out, 32, 16))
check("add2d transposed view", out, xt * xt + 1, rtol=1e-6, atol=1e-6)

x3 = rng.standard_normal((3, 5, 40)).astype(np.float32)
out3 = np.zeros_like(x3)
ct.launch(None, (3, 2, 3), scale3d, (x3, out3, 0.5, 1, 4, 16))
check("scale3d f32 3x5x40", out3, np.exp(x3) * 0.5 - x3, rtol=1e-5, atol=1e-6)

if torch is None:
    skip("torch CPU tensors", "torch is not installed")
else:
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int32):
        a = torch.arange(n, dtype=torch.float32).remainder(17).to(dt)
        o = torch.zeros(n, dtype=dt)
        ct.launch(None, grid, twice_plus, (a, a, o, T))
        check("twice_plus torch %s" % dt, o.float().numpy(), (a.float() * 3).to(dt).float().numpy())
    for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        a = (torch.arange(128, dtype=torch.float32).remainder(16) / 4).to(dt)
        o = torch.zeros(128, dtype=torch.float32)
        ct.launch(None, (2,), widen, (a, o, T))
        check("widen torch %s" % dt, o.numpy(), a.float().numpy() * 2)
