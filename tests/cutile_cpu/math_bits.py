"""Math functions and integer/bitwise operators on the CPU, one result row
per operation: sqrt, log, log2, exp2, sin, cos, tanh, floor, ceil, pow,
rsqrt, minimum/maximum (f32, f64 where exact), and //, %, &, |, ^, <<, >>,
comparisons (i32, i64)."""
from _check import ct, np, check

rng = np.random.default_rng(7)
T = 64


def put(out, row, i, tile, value):
    ct.store(out, index=(row, i), tile=value.reshape((1, tile)))


@ct.kernel
def floats(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,))
    b = ct.load(y, index=(i,), shape=(tile,))
    put(out, 0, i, tile, ct.sqrt(b))
    put(out, 1, i, tile, ct.log(b))
    put(out, 2, i, tile, ct.log2(b))
    put(out, 3, i, tile, ct.exp2(a))
    put(out, 4, i, tile, ct.sin(a))
    put(out, 5, i, tile, ct.cos(a))
    put(out, 6, i, tile, ct.tanh(a))
    put(out, 7, i, tile, ct.floor(a))
    put(out, 8, i, tile, ct.ceil(a))
    put(out, 9, i, tile, ct.pow(b, a))
    put(out, 10, i, tile, ct.rsqrt(b))
    put(out, 11, i, tile, ct.minimum(a, b) - ct.maximum(a, b) + ct.abs(a))


@ct.kernel
def ints(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,))
    b = ct.load(y, index=(i,), shape=(tile,))
    put(out, 0, i, tile, a // b)
    put(out, 1, i, tile, a % b)
    put(out, 2, i, tile, a & b)
    put(out, 3, i, tile, a | b)
    put(out, 4, i, tile, a ^ b)
    put(out, 5, i, tile, a << 3)
    put(out, 6, i, tile, a >> 2)
    put(out, 7, i, tile, ct.where(a > b, a, -b))
    put(out, 8, i, tile, ct.minimum(a, b) * 2 + ct.maximum(a, b))


n = 128
a = rng.uniform(-3, 3, n).astype(np.float32)
b = rng.uniform(0.1, 4, n).astype(np.float32)
out = np.zeros((12, n), np.float32)
ct.launch(None, (n // T,), floats, (a, b, out, T))
want = [np.sqrt(b), np.log(b), np.log2(b), np.exp2(a), np.sin(a), np.cos(a), np.tanh(a), np.floor(a),
        np.ceil(a), np.power(b, a), 1 / np.sqrt(b), np.minimum(a, b) - np.maximum(a, b) + np.abs(a)]
names = ["sqrt", "log", "log2", "exp2", "sin", "cos", "tanh", "floor", "ceil", "pow", "rsqrt", "min/max/abs"]
for row, (name, w) in enumerate(zip(names, want)):
    check("f32 " + name, out[row], w, rtol=2e-6 if name in ("floor", "ceil", "sqrt") else 2e-5, atol=1e-6)

for dt in (np.int32, np.int64):
    x = rng.integers(0, 1 << 20, n).astype(dt)
    y = rng.integers(1, 1000, n).astype(dt)
    out = np.zeros((9, n), dt)
    ct.launch(None, (n // T,), ints, (x, y, out, T))
    want = [x // y, x % y, x & y, x | y, x ^ y, x << 3, x >> 2, np.where(x > y, x, -y),
            np.minimum(x, y) * 2 + np.maximum(x, y)]
    for row, (name, w) in enumerate(zip(["//", "%", "&", "|", "^", "<<", ">>", "where", "min/max"], want)):
        check("%s %s" % (np.dtype(dt).name, name), out[row], w)
