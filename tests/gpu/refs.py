"""numpy references for the corpus kernels (tests/kernels/*.py), for scripts/gpu-check.

Each reference is `ref(a, s) -> {output name: expected array}` where `a` maps
array parameter names to host numpy arrays (the logical views, inputs as they
were uploaded; an inout array holds its initial contents) and `s` maps scalar
parameter names and size variables to Python numbers. Expected floating
results are float64 unless the output is an exact conversion.

Each kernel also has a second, deliberately naive formulation (`NAIVE`: plain
Python loops, element by element, following the cuTile source line by line)
that `scripts/gpu-check --self-test` runs on small inputs to check the numpy
version. Semantics taken from the bytecode (tests/corpus/13.4/*.tileir):
tiles are loaded at index*tile, partial tiles are padded (zero or -inf) where
the kernel asks for padding, stores outside the array are dropped, integer //
and % follow Python (floor) rules, f32->i32 truncates, f32->f16/bf16 rounds to
nearest even.
"""
import math

import numpy as np

# --- helpers -------------------------------------------------------------------


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """float32 array -> bf16 bits (uint16), round to nearest even, NaN kept."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    return np.where(nan, np.uint16(0x7FC0), r)


def as_f64(arr, dtype):
    """A manifest-typed host array as float64 (bf16 arrays are held as bits)."""
    if dtype == "bf16":
        return bf16_to_f32(arr).astype(np.float64)
    return np.asarray(arr).astype(np.float64)


def tiles_cumsum(x, tile, dtype):
    n = x.shape[0]
    pad = (-n) % tile
    xp = np.concatenate([x, np.zeros(pad, dtype=x.dtype)])
    if dtype == "i32":
        out = np.cumsum(xp.reshape(-1, tile).astype(np.int64), axis=1)
        out = ((out + 2**31) % 2**32 - 2**31).astype(np.int32)
    else:
        out = np.cumsum(xp.reshape(-1, tile).astype(np.float64), axis=1)
    return out.reshape(-1)[:n]


# --- references ----------------------------------------------------------------


def vector_add(a, s):
    return {"c": a["a"].astype(np.float32) + a["b"].astype(np.float32)}


def saxpy(a, s):
    return {"out": np.float64(np.float32(s["alpha"])) * a["x"].astype(np.float64) + a["y"]}


def cast_to_f16(a, s):
    return {"y": a["x"].astype(np.float32).astype(np.float16)}


def cast_f16_to_f32(a, s):
    return {"y": a["x"].astype(np.float32)}


def cast_to_bf16(a, s):
    return {"y": f32_to_bf16(a["x"])}


def cast_bf16_to_f32(a, s):
    return {"y": bf16_to_f32(a["x"])}


def cast_i32_to_f32(a, s):
    return {"y": a["x"].astype(np.float32)}


def cast_f32_to_i32(a, s):
    return {"y": np.trunc(a["x"]).astype(np.int32)}


def elementwise_float(a, s):
    tx = a["x"].astype(np.float64)
    ty = a["y"].astype(np.float64)
    ea = np.exp(tx)
    b = np.sqrt(np.abs(ty))
    m = np.maximum(ea, b)
    n = np.minimum(np.log(b + 1.0), np.tanh(tx))
    r = np.where(tx > ty, m, n - ty)
    r = np.where(tx == 0.0, r * 2.0, r / 3.0)
    r = np.where((tx <= 1.0) & (ty >= -1.0), r, -r)
    return {"out": r}


def _wrap32(v):
    return ((np.asarray(v, dtype=np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


def elementwise_int(a, s):
    tx = a["x"].astype(np.int64)
    ty = a["y"].astype(np.int64)
    ea = (tx & 0xFF) | _wrap32(ty << 3).astype(np.int64)
    b = (tx ^ ty) >> 1
    safe = np.where(ty != 0, ty, 1)
    c = np.where(ty != 0, tx // safe + tx % safe, ea)
    d = np.maximum(np.minimum(ea, b), c) - tx * 7
    return {"out": _wrap32(d)}


def gather_scatter(a, s):
    x, out = a["x"], a["out"].copy()
    n = min(int(s["n"]), x.shape[0], out.shape[0])
    if n > 0:
        out[:n] = x[:n] * np.float32(2.0)
    return {"out": out}


def indirect_gather(a, s):
    x, idx = a["x"], a["idx"].astype(np.int64)
    ok = (idx >= 0) & (idx < x.shape[0])
    return {"out": np.where(ok, x[np.where(ok, idx, 0)], np.float32(0.0)).astype(np.float32)}


def histogram(a, s):
    nb = int(s["nbins"])
    b = np.clip(a["x"].astype(np.int64), 0, nb - 1)
    b = b[b < a["hist"].shape[0]]
    return {"hist": (a["hist"].astype(np.int64)
                     + np.bincount(b, minlength=a["hist"].shape[0])).astype(np.int32)}


def layer_norm(a, s):
    x = a["x"].astype(np.float64)
    tn = x.shape[1]
    mean = x.sum(axis=1, keepdims=True) / tn
    d = x - mean
    var = (d * d).sum(axis=1, keepdims=True) / tn
    r = 1.0 / np.sqrt(var + np.float64(np.float32(s["eps"])))
    return {"y": d * r * a["w"].astype(np.float64) + a["b"].astype(np.float64)}


def loop_accum(a, s):
    x = a["x"].astype(np.float64)
    m, k = x.shape
    tn = a["out"].shape[1]
    pad = (-k) % tn
    xp = np.concatenate([x, np.zeros((m, pad))], axis=1)
    return {"out": xp.reshape(m, -1, tn).sum(axis=1)[:, :a["out"].shape[1]]}


def _matmul(a, s, out_dtype):
    A = as_f64(a["a"], s["_dtype_a"]).astype(np.float32)
    B = as_f64(a["b"], s["_dtype_a"]).astype(np.float32)
    return {"c": (A @ B).astype(np.float64)}


def matmul_f16(a, s):
    return _matmul(dict(a), dict(s, _dtype_a="f16"), "f32")


def matmul_bf16(a, s):
    return _matmul(dict(a), dict(s, _dtype_a="bf16"), "bf16")


def prefix_sum_f32(a, s):
    return {"out": tiles_cumsum(a["x"], 256, "f32")}


def prefix_sum_i32(a, s):
    return {"out": tiles_cumsum(a["x"], 256, "i32")}


def reduce_sum_f32(a, s):
    return {"out": a["x"][:, :64].astype(np.float64).sum(axis=1)}


def reduce_sum_i32(a, s):
    return {"out": _wrap32(a["x"][:, :64].astype(np.int64).sum(axis=1))}


def reduce_max(a, s):
    return {"out": a["x"][:64, :].max(axis=0)}


def scalar_params(a, s):
    f32 = np.float32
    t = f32(s["a"]) + f32(s["b"])
    t = f32(t + f32(np.float16(s["c"])))
    t = f32(t + f32(s["d"]))
    t = f32(t + f32(s["e"]))
    t = f32(t * bf16_to_f32(f32_to_bf16(np.array([s["f"]], dtype=np.float32)))[0])
    return {"out": np.full(a["out"].shape, t, dtype=np.float32)}


def softmax(a, s):
    x = a["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out": e / e.sum(axis=1, keepdims=True)}


def transpose(a, s):
    return {"out": a["x"].T.copy()}


def permute3d(a, s):
    return {"out": a["x"].transpose(2, 1, 0).copy()}


def debug_print(a, s):
    """Not an array result: the per-block sums that ct.printf prints."""
    x = a["x"].astype(np.float64)
    tile = 8
    n = x.shape[0]
    pad = (-n) % tile
    xp = np.concatenate([x, np.zeros(pad)])
    return {"_printf_sums": xp.reshape(-1, tile).sum(axis=1)}


def _f64(x):
    """An input array as float64; bf16 arrays arrive as their bits (uint16)."""
    x = np.asarray(x)
    return bf16_to_f32(x).astype(np.float64) if x.dtype == np.uint16 else x.astype(np.float64)


def rms_norm(a, s):
    x = _f64(a["x"])
    ms = (x * x).sum(axis=1, keepdims=True) / x.shape[1]
    return {"y": x / np.sqrt(ms + np.float64(np.float32(s["eps"]))) * _f64(a["w"])}


def topk(a, s):
    """k rounds of (max, smallest index of the max), the winner masked: a
    stable descending sort (ties: the smaller index first)."""
    k = a["vals"].shape[1]
    order = np.argsort(-a["x"].astype(np.float64), axis=1, kind="stable")[:, :k]
    return {"vals": np.take_along_axis(a["x"], order, axis=1), "idxs": order.astype(np.int32)}


def fft(a, s):
    """The kernel's radix-2 Stockham network along the rows with the twiddle
    table it is given (the DFT when the table is exp(-2 pi i j / n))."""
    re, im = _f64(a["xr"]), _f64(a["xi"])
    twr, twi = _f64(a["twr"]), _f64(a["twi"])
    rows, n = re.shape
    st = 1
    while st < n:
        m = n // (2 * st)
        r4, i4 = re.reshape(rows, 2, m, st), im.reshape(rows, 2, m, st)
        wr = twr.reshape(m, st)[:, 0].reshape(1, m, 1)
        wi = twi.reshape(m, st)[:, 0].reshape(1, m, 1)
        dr, di = r4[:, 0] - r4[:, 1], i4[:, 0] - i4[:, 1]
        re = np.stack([r4[:, 0] + r4[:, 1], dr * wr - di * wi], axis=2).reshape(rows, n)
        im = np.stack([i4[:, 0] + i4[:, 1], dr * wi + di * wr], axis=2).reshape(rows, n)
        st *= 2
    return {"yr": re, "yi": im}


def bit_reverse(a, s):
    n = a["x"].shape[1]
    nb = n.bit_length() - 1
    rev = [int(format(i, "0%db" % nb)[::-1], 2) for i in range(n)]
    return {"y": a["x"][:, rev].copy()}


def loop_break(a, s):
    """Per block of 8 rows: add up 64-column tiles (f32, in order) until the
    block's maximum passes the limit; the sum and the number of tiles added."""
    x = a["x"].astype(np.float32)
    rows, cols = x.shape
    tm, tn = 8, a["out"].shape[1]
    nb, nt = -(-rows // tm), -(-cols // tn)
    xp = np.zeros((nb * tm, nt * tn), np.float32)
    xp[:rows, :cols] = x
    acc = np.cumsum(xp.reshape(nb, tm, nt, tn).transpose(0, 2, 1, 3), axis=1, dtype=np.float32)
    over = acc.max(axis=(2, 3)) > np.float32(s["limit"])
    cnt = np.where(over.any(axis=1), over.argmax(axis=1) + 1, nt)
    out = acc[np.arange(nb), cnt - 1].reshape(nb * tm, tn)[:rows]
    return {"out": out, "cnt": cnt.astype(np.int32)}


REFS = {k: v for k, v in globals().items() if callable(v) and not k.startswith("_")
        and k not in ("bf16_to_f32", "f32_to_bf16", "as_f64", "tiles_cumsum")}

# --- naive formulations, for the self-test only (small inputs) -----------------


def _n_floordiv(x, y):
    q = abs(x) // abs(y)
    if (x < 0) != (y < 0) and q * abs(y) != abs(x):
        q += 1
    return -q if (x < 0) != (y < 0) else q


def _n_wrap(v):
    return (v + 2**31) % 2**32 - 2**31


def n_elementwise_int(a, s):
    out = []
    for x, y in zip(a["x"].tolist(), a["y"].tolist()):
        ea = (x & 0xFF) | _n_wrap(y << 3)
        b = (x ^ y) >> 1
        if y != 0:
            q = _n_floordiv(x, y)
            c = q + (x - q * y)
        else:
            c = ea
        out.append(_n_wrap(max(min(ea, b), c) - x * 7))
    return {"out": np.array(out, dtype=np.int32)}


def n_elementwise_float(a, s):
    out = []
    for x, y in zip(a["x"].tolist(), a["y"].tolist()):
        m = max(math.exp(x), math.sqrt(abs(y)))
        n = min(math.log(math.sqrt(abs(y)) + 1.0), math.tanh(x))
        r = m if x > y else n - y
        r = r * 2.0 if x == 0.0 else r / 3.0
        r = r if (x <= 1.0 and y >= -1.0) else -r
        out.append(r)
    return {"out": np.array(out)}


def n_softmax(a, s):
    rows = []
    for row in a["x"].tolist():
        m = max(row)
        e = [math.exp(v - m) for v in row]
        t = sum(e)
        rows.append([v / t for v in e])
    return {"out": np.array(rows)}


def n_layer_norm(a, s):
    rows = []
    w, b = a["w"].tolist(), a["b"].tolist()
    for row in a["x"].tolist():
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        r = 1.0 / math.sqrt(var + float(np.float32(s["eps"])))
        rows.append([(v - mean) * r * w[i] + b[i] for i, v in enumerate(row)])
    return {"y": np.array(rows)}


def n_matmul(a, s, dt):
    A = as_f64(a["a"], dt).tolist()
    B = as_f64(a["b"], dt).tolist()
    M, K, N = len(A), len(B), len(B[0])
    return {"c": np.array([[sum(A[i][k] * B[k][j] for k in range(K)) for j in range(N)]
                           for i in range(M)])}


def n_prefix(a, s, dt):
    out, acc = [], 0
    for i, v in enumerate(a["x"].tolist()):
        if i % 256 == 0:
            acc = 0
        acc = acc + v
        if dt == "i32":
            acc = _n_wrap(acc)
        out.append(acc)
    return {"out": np.array(out, dtype=np.int32 if dt == "i32" else np.float64)}


def n_loop_accum(a, s):
    x = a["x"].tolist()
    tn = a["out"].shape[1]
    return {"out": np.array([[sum(row[k] for k in range(c, len(row), tn)) for c in range(tn)]
                             for row in x])}


def n_histogram(a, s):
    h = a["hist"].tolist()
    for v in a["x"].tolist():
        b = min(max(v, 0), int(s["nbins"]) - 1)
        if b < len(h):
            h[b] += 1
    return {"hist": np.array(h, dtype=np.int32)}


def n_indirect_gather(a, s):
    x = a["x"].tolist()
    return {"out": np.array([x[i] if 0 <= i < len(x) else 0.0 for i in a["idx"].tolist()],
                            dtype=np.float32)}


def n_gather_scatter(a, s):
    out = a["out"].tolist()
    for i, v in enumerate(a["x"].tolist()):
        if i < int(s["n"]) and i < len(out):
            out[i] = v * 2.0
    return {"out": np.array(out, dtype=np.float32)}


def n_transpose(a, s):
    x = a["x"].tolist()
    return {"out": np.array([[x[i][j] for i in range(len(x))] for j in range(len(x[0]))],
                            dtype=np.float32)}


def n_permute3d(a, s):
    x = a["x"].tolist()
    A, B, C = len(x), len(x[0]), len(x[0][0])
    return {"out": np.array([[[x[i][j][k] for i in range(A)] for j in range(B)] for k in range(C)],
                            dtype=np.float32)}


def n_reduce_sum(a, s, dt):
    r = [sum(row[:64]) for row in a["x"].tolist()]
    if dt == "i32":
        return {"out": np.array([_n_wrap(v) for v in r], dtype=np.int32)}
    return {"out": np.array(r)}


def n_reduce_max(a, s):
    x = a["x"].tolist()
    return {"out": np.array([max(x[i][j] for i in range(min(64, len(x)))) for j in range(len(x[0]))],
                            dtype=np.float32)}


def n_cast_f32_to_i32(a, s):
    return {"y": np.array([int(v) for v in a["x"].tolist()], dtype=np.int32)}


def n_cast_to_bf16(a, s):
    import sys
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import abi
    return {"y": np.array([abi.bf16_bits(float(v)) for v in a["x"].tolist()], dtype=np.uint16)}


def n_vector_add(a, s):
    return {"c": np.array([np.float32(x) + np.float32(y) for x, y in zip(a["a"].tolist(), a["b"].tolist())],
                          dtype=np.float32)}


def n_saxpy(a, s):
    al = float(np.float32(s["alpha"]))
    return {"out": np.array([al * x + y for x, y in zip(a["x"].tolist(), a["y"].tolist())])}


def n_scalar_params(a, s):
    import sys
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import abi
    import struct as _st
    f = _st.unpack("<f", _st.pack("<I", abi.bf16_bits(float(s["f"])) << 16))[0]
    t = np.float32(s["a"]) + np.float32(s["b"])
    for v in (np.float16(s["c"]), s["d"], s["e"]):
        t = np.float32(t + np.float32(v))
    t = np.float32(t * np.float32(f))
    return {"out": np.array([t] * a["out"].shape[0], dtype=np.float32)}


def n_rms_norm(a, s):
    w, rows = _f64(a["w"]).tolist(), []
    for row in _f64(a["x"]).tolist():
        ms = sum(v * v for v in row) / len(row)
        r = 1.0 / math.sqrt(ms + float(np.float32(s["eps"])))
        rows.append([v * r * w[i] for i, v in enumerate(row)])
    return {"y": np.array(rows)}


def n_topk(a, s):
    k = a["vals"].shape[1]
    vals, idxs = [], []
    for row in a["x"].astype(np.float64).tolist():
        row, v, ix = list(row), [], []
        for _ in range(k):
            best = 0
            for j in range(1, len(row)):
                if row[j] > row[best]:
                    best = j
            v.append(row[best])
            ix.append(best)
            row[best] = -math.inf
        vals.append(v)
        idxs.append(ix)
    return {"vals": np.array(vals).astype(a["x"].dtype), "idxs": np.array(idxs, dtype=np.int32)}


def n_fft(a, s):
    twr, twi = _f64(a["twr"]).tolist(), _f64(a["twi"]).tolist()
    yr, yi = [], []
    for xr, xi in zip(_f64(a["xr"]).tolist(), _f64(a["xi"]).tolist()):
        n, st = len(xr), 1
        while st < n:
            m = n // (2 * st)
            zr, zi = [0.0] * n, [0.0] * n
            for p in range(m):
                wr, wi = twr[p * st], twi[p * st]
                for q in range(st):
                    ar, ai = xr[q + st * p], xi[q + st * p]
                    br, bi = xr[q + st * (p + m)], xi[q + st * (p + m)]
                    zr[q + st * 2 * p], zi[q + st * 2 * p] = ar + br, ai + bi
                    dr, di = ar - br, ai - bi
                    zr[q + st * (2 * p + 1)] = dr * wr - di * wi
                    zi[q + st * (2 * p + 1)] = dr * wi + di * wr
            xr, xi, st = zr, zi, 2 * st
        yr.append(xr)
        yi.append(xi)
    return {"yr": np.array(yr), "yi": np.array(yi)}


def n_bit_reverse(a, s):
    rows = []
    for row in a["x"].tolist():
        n = len(row)
        nb = n.bit_length() - 1
        rows.append([row[sum(((i >> b) & 1) << (nb - 1 - b) for b in range(nb))] for i in range(n)])
    return {"y": np.array(rows, dtype=a["x"].dtype)}


def n_loop_break(a, s):
    f32 = np.float32
    x = a["x"].astype(np.float32)
    rows, cols = x.shape
    tn = a["out"].shape[1]
    lim = f32(s["limit"])
    out, cnt = [], []
    for r0 in range(0, rows, 8):
        acc = [[f32(0)] * tn for _ in range(8)]
        k = 0
        while k * tn < cols:
            for i in range(8):
                for j in range(tn):
                    r, c = r0 + i, k * tn + j
                    acc[i][j] = f32(acc[i][j] + (x[r, c] if r < rows and c < cols else f32(0)))
            k += 1
            if max(max(row) for row in acc) > lim:
                break
        out += acc[:min(8, rows - r0)]
        cnt.append(k)
    return {"out": np.array(out, dtype=np.float32), "cnt": np.array(cnt, dtype=np.int32)}


def n_debug_print(a, s):
    x = a["x"].tolist()
    return {"_printf_sums": np.array([sum(x[i:i + 8]) for i in range(0, len(x), 8)])}


NAIVE = {
    "vector_add": n_vector_add,
    "saxpy": n_saxpy,
    "cast_to_f16": lambda a, s: {"y": np.array([np.float16(v) for v in a["x"].tolist()], dtype=np.float16)},
    "cast_f16_to_f32": lambda a, s: {"y": np.array([float(v) for v in a["x"].tolist()], dtype=np.float32)},
    "cast_to_bf16": n_cast_to_bf16,
    "cast_bf16_to_f32": lambda a, s: {"y": np.array(
        [__import__("struct").unpack("<f", __import__("struct").pack("<I", int(v) << 16))[0]
         for v in a["x"].tolist()], dtype=np.float32)},
    "cast_i32_to_f32": lambda a, s: {"y": np.array([float(v) for v in a["x"].tolist()], dtype=np.float32)},
    "cast_f32_to_i32": n_cast_f32_to_i32,
    "elementwise_float": n_elementwise_float,
    "elementwise_int": n_elementwise_int,
    "gather_scatter": n_gather_scatter,
    "indirect_gather": n_indirect_gather,
    "histogram": n_histogram,
    "layer_norm": n_layer_norm,
    "loop_accum": n_loop_accum,
    "matmul_f16": lambda a, s: n_matmul(a, s, "f16"),
    "matmul_bf16": lambda a, s: n_matmul(a, s, "bf16"),
    "prefix_sum_f32": lambda a, s: n_prefix(a, s, "f32"),
    "prefix_sum_i32": lambda a, s: n_prefix(a, s, "i32"),
    "reduce_sum_f32": lambda a, s: n_reduce_sum(a, s, "f32"),
    "reduce_sum_i32": lambda a, s: n_reduce_sum(a, s, "i32"),
    "reduce_max": n_reduce_max,
    "scalar_params": n_scalar_params,
    "softmax": n_softmax,
    "transpose": n_transpose,
    "permute3d": n_permute3d,
    "debug_print": n_debug_print,
    "rms_norm": n_rms_norm,
    "topk": n_topk,
    "fft": n_fft,
    "bit_reverse": n_bit_reverse,
    "loop_break": n_loop_break,
}
