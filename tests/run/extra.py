"""Value cases beyond the kernel manifest (scripts/gpu-manifest.json), for
tests/run/run-corpus: the reduction, scan and shape-op kernels of
tests/reduce/corpus, the float-format kernels of tests/ops, tests/pipeline
kernels, and corpus kernels with hand-made inputs (ties, trip counts) that
random inputs would not reach.

CASES: name -> Extra(bytecode, entry prefix, build, tol, targets). build(rng)
returns (params, grid, {param index: reference}); a param is A(array) (a
cuTile array: pointer, shape..., strides... in elements, i32), P(array) (a
bare pointer), I32(v) or F32(v); a reference is an array, or (decode,
array) when the output is stored bits (bf16). tol 0: bit-equal; else
|got - want| <= tol + tol * |want| elementwise (numpy.allclose, float64).
References come from tests/gpu/refs.py where the kernel is a manifest kernel.
"""
import collections
import os

import numpy as np

import refs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RC = os.path.join(ROOT, "tests", "reduce", "corpus")
C13 = os.path.join(ROOT, "tests", "corpus", "13.3")
OPSK = os.path.join(ROOT, "tests", "ops")
PCK = os.path.join(ROOT, "tests", "pipeline", "corpus")

Extra = collections.namedtuple("Extra", "bytecode prefix build tol targets")
EVERY = ("sm_80", "sm_89", "sm_90", "sm_100", "sm_120")


def A(x):
    return ("arr", np.ascontiguousarray(x))


def P(x):
    return ("ptr", np.ascontiguousarray(x))


def I32(v):
    return ("i32", np.int32(v))


def F32(v):
    return ("f32", np.float32(v))


def rnd(shape, dt, rng, lo=-4, hi=4):
    if np.dtype(dt).kind == "f":
        return rng.uniform(lo, hi, size=shape).astype(dt)
    return rng.integers(lo, hi, size=shape).astype(dt)


def tiles_cumsum(x, t, axis=0, rev=False):
    y = x.copy()
    n = x.shape[axis]
    for s in range(0, n, t):
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(s, s + t)
        blk = x[tuple(sl)]
        if rev:
            blk = np.flip(np.cumsum(np.flip(blk, axis), axis=axis, dtype=x.dtype), axis)
        else:
            blk = np.cumsum(blk, axis=axis, dtype=x.dtype)
        y[tuple(sl)] = blk
    return y


def c_argmax(rng):
    x = rnd((32, 64), np.float32, rng)
    x[3, 10] = x[3, 40] = 100.0         # a tie: the smaller index wins
    out = np.zeros(32, np.int32)
    return [A(x), A(out)], (2, 1, 1), {1: x.argmax(axis=1).astype(np.int32)}


def c_argmin(rng):
    x = rnd((64, 32), np.float32, rng)
    x[5, 7] = x[60, 7] = -100.0
    out = np.zeros(32, np.int32)
    return [A(x), A(out)], (2, 1, 1), {1: x.argmin(axis=0).astype(np.int32)}


def c_sum_all(rng):
    x = rnd((32, 32), np.float32, rng)
    out = np.zeros((2, 1), np.float32)
    ref = np.array([[x[:16].sum()], [x[16:].sum()]], np.float32)
    return [A(x), A(out)], (2, 1, 1), {1: ref}


def c_sum_and_max(rng):
    x = rnd((16, 128), np.float32, rng)
    s = np.zeros(16, np.float32)
    m = np.zeros(16, np.float32)
    return [A(x), A(s), A(m)], (2, 1, 1), {1: x.sum(axis=1), 2: x.max(axis=1)}


def c_reduce_types(dt):
    def b(rng):
        x = rnd((32, 64), dt, rng, -100, 100)
        out = np.zeros(32, dt)
        return [A(x), A(out)], (2, 1, 1), {1: x.max(axis=1)}
    return b


def c_prod_small(rng):
    x = rnd((256, 4), np.float32, rng, 0.5, 1.5)
    out = np.zeros(256, np.float32)
    return [A(x), A(out)], (2, 1, 1), {1: x.prod(axis=1)}


def c_softmax_c(rows, cols):
    def b(rng):
        x = rnd((2 * rows, cols), np.float32, rng)
        out = np.zeros_like(x)
        return [A(x), A(out)], (2, 1, 1), {1: refs.softmax({"x": x}, {})["out"]}
    return b


def c_col_norm(rng):
    x = rnd((64, 32), np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(out)], (2, 1, 1), {1: x / np.sqrt((x * x).sum(axis=0, keepdims=True) + 1e-6)}


def c_cumsum_rev(rng):
    x = rnd((16, 128), np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(out)], (2, 1, 1), {1: tiles_cumsum(x, 128, axis=1, rev=True)}


def c_cumprod(rng):
    x = rnd((32, 32), np.int32, rng, 1, 3)
    out = np.zeros_like(x)
    ref = x.copy()
    for j in range(0, 32, 16):
        ref[:, j:j + 16] = np.cumprod(x[:, j:j + 16], axis=0, dtype=np.int32)
    return [A(x), A(out)], (2, 1, 1), {1: ref}


def c_scan_pair(rng):
    x = rnd(1024, np.float32, rng)
    m = np.zeros(1024, np.float32)
    n = np.zeros(1024, np.int32)
    rm = np.concatenate([np.maximum.accumulate(x[:512]), np.maximum.accumulate(x[512:])])
    rn = np.concatenate([np.arange(1, 513), np.arange(1, 513)]).astype(np.int32)
    return [A(x), A(m), A(n)], (2, 1, 1), {1: rm, 2: rn}


def c_cat_extract(rng):
    x = rnd((32, 32), np.float32, rng)
    y = rnd((32, 32), np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(y), A(out)], (2, 1, 1), {2: y * 2 + x}


def c_bcast(rng):
    x = rnd((32, 64), np.float32, rng)
    r = rnd(64, np.float32, rng)
    c = rnd(32, np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(r), A(c), A(out)], (2, 1, 1), {3: x * r[None, :] + c[:, None]}


def c_reshape_mix(rng):
    x = rnd((32, 64), np.float32, rng)
    y = rnd((128, 16), np.float32, rng)
    out = np.zeros((128, 16), np.float32)
    ref = np.concatenate([x[:16].reshape(64, 16) + y[:64], x[16:].reshape(64, 16) + y[64:]])
    return [A(x), A(y), A(out)], (2, 1, 1), {2: ref}


def c_transpose_c(rng):
    x = rnd((128, 128), np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(out)], (2, 2, 1), {1: x.T + 1}


def c_pack_unpack(rng):
    x = rnd(512, np.float32, rng)
    out = np.zeros(512, np.int32)
    return [A(x), A(out)], (2, 1, 1), {1: x.view(np.int32)}


def c_bytes_f16(rng):
    x = rng.integers(0, 256, size=1024).astype(np.uint8)
    x[1::2] &= 0x3b                      # keep the halves finite
    out = np.zeros(512, np.float16)
    return [A(x.view(np.int8)), A(out)], (2, 1, 1), {1: x.view(np.float16)}


def c_extract_dyn(rng):
    x = rnd((32, 64), np.float32, rng)
    out = np.zeros((64, 64), np.float32)
    return [A(x), A(out)], (8, 1, 1), {1: np.concatenate([x, x])}


def c_insert(rng):
    x = rnd((64, 32), np.float32, rng)
    out = np.zeros_like(x)
    ref = x.copy()
    for pid in range(2):
        t = x[pid * 32:(pid + 1) * 32].copy()
        b = t[0:16, 16:32] * 2
        t[16:32, 0:16] = b
        r = (pid % 2) * 16
        t[r:r + 16, 16:32] = b + 1
        ref[pid * 32:(pid + 1) * 32] = t
    return [A(x), A(out)], (2, 1, 1), {1: ref}


def c_tiny(rng):
    x = rnd((8, 8), np.float32, rng)
    s = np.zeros(8, np.float32)
    c = np.zeros((8, 8), np.float32)
    m = np.zeros(2, np.float32)
    return [A(x), A(s), A(c), A(m)], (2, 1, 1), {1: x.sum(axis=1), 2: np.cumsum(x, axis=1),
                                                3: np.array([x[:4].max(), x[4:].max()], np.float32)}


def c_cumsum_v4(rng):
    x = rnd(4096, np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(out)], (2, 1, 1), {1: tiles_cumsum(x, 2048)}


def c_rowsum_loop(rng):
    x = rnd((32, 256), np.float32, rng)
    out = np.zeros(32, np.float32)
    return [A(x), A(out)], (2, 1, 1), {1: x.sum(axis=1) + x.max(axis=1)}


def c_rowsum_loop_cols(cols):
    """rowsum_loop over `cols` columns: 0 (the loop runs no iteration, but
    its load prefetched for the first, tile-sched prefetch.c, still issues,
    masked) or ragged (the last chunk and the one prefetched past it
    masked)."""
    def b(rng):
        x = rnd((32, cols), np.float32, rng)
        out = np.zeros(32, np.float32)
        want = x.sum(axis=1) + (x.max(axis=1) if cols else np.float32(-3.0e38))
        return [A(x), A(out)], (2, 1, 1), {1: want.astype(np.float32)}
    return b


def c_scan_permuted(rng):
    x = rnd((32, 64), np.int32, rng)
    out = np.zeros_like(x)
    ref = x.copy()
    for pid in range(2):
        t = x[pid * 16:(pid + 1) * 16]
        u = np.cumsum(t.T.reshape(-1), dtype=np.int32).reshape(64, 16)
        ref[pid * 16:(pid + 1) * 16] = u.T
    return [A(x), A(out)], (2, 1, 1), {1: ref}


def c_bias2d(rng):
    x = rnd((32, 128), np.float32, rng)
    bias = rnd((32, 128), np.float32, rng)
    out = np.zeros_like(x)
    return [A(x), A(bias), A(out)], (2, 2, 1), {2: x + bias[0:1, :] + bias[:, 0:1]}


def c_topk(dt):
    """ties (the smaller index first) and a winner in the last column"""
    def b(rng):
        x = rnd((13, 128), dt, rng)
        x[3, 10] = x[3, 40] = x[3, 99] = 100
        x[12, 127] = 50
        vals = np.zeros((13, 4), dt)
        idxs = np.zeros((13, 4), np.int32)
        r = refs.topk({"x": x, "vals": vals, "idxs": idxs}, {})
        return [A(x), A(vals), A(idxs)], (2, 1, 1), {1: r["vals"], 2: r["idxs"]}
    return b


def c_loop_break(dt):
    """three row blocks that break after different numbers of k-tiles"""
    def b(rng):
        limit = 2.5
        x = rng.uniform(0, 1, size=(24, 300)).astype(np.float32)
        x[8:16] *= 0.75                 # breaks later than rows 0-7
        x[16:] *= 0.1                   # never passes the limit: runs all 5 tiles
        x = x.astype(dt)
        out = np.zeros((24, 64), np.float32)
        cnt = np.zeros(3, np.int32)
        r = refs.loop_break({"x": x, "out": out, "cnt": cnt}, {"limit": limit})
        assert len(set(r["cnt"].tolist())) == 3, r["cnt"]
        return [A(x), A(out), A(cnt), F32(limit)], (3, 1, 1), {1: r["out"], 2: r["cnt"]}
    return b


# ---- float formats (tile-ptx convert.c) and views: tests/ops and tests/pipeline kernels.
# References are computed here from the formats' definitions, independently of
# tile-ptx and of tile-run.

F4_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)


def f4_code(x):
    """nearest even-coded e2m1 of x, saturating at 6 (sign in bit 3); |x| is
    clamped first: for |x| >= 2^53 or so every distance rounds to |x| in
    float64 and the tie-break would pick code 0"""
    a = min(abs(float(x)), 6.0)
    d = np.abs(F4_VALUES - a)
    best = min(range(8), key=lambda c: (d[c], c & 1))
    return best | (8 if np.signbit(x) else 0)


def f4_value(c):
    v = F4_VALUES[c & 7]
    return -v if c & 8 else v


def tf32_ref(x, mode):
    out = np.empty_like(x)
    for i, v in enumerate(x):
        u = int(np.float32(v).view(np.uint32))
        lo = u & ~0x1fff
        hi = lo + 0x2000
        fl = float(np.uint32(lo).view(np.float32))
        fh = float(np.uint32(hi).view(np.float32))
        if mode == "zero":
            r = lo
        else:
            dl, dh = abs(float(v) - fl), abs(fh - float(v))
            tie_up = (mode == "away") or (lo & 0x2000)
            r = lo if dl < dh else hi if dh < dl else (hi if tie_up else lo)
        out[i] = np.uint32(r).view(np.float32)
    return out


def e8m0_ref(x, up):
    """2^floor / 2^ceil of log2|x| (the sign ignored, as cuda_fp8.hpp does),
    at least 2^-127 (code 0: zero and tiny values), at most 2^127"""
    out = np.empty_like(x)
    for i, v in enumerate(x):
        a = abs(float(v))
        if a == 0 or a < 2.0 ** -127:
            k = -127
        else:
            m, e = np.frexp(a)
            k = int(e) - 1 + (1 if up and m != 0.5 else 0)
        out[i] = np.float32(2.0 ** min(k, 127))
    return out


def narrow_inputs():
    """64 f32 values: e2m1 ties and saturation, tf32 ties (bit 12 set alone,
    with the kept bit even and odd), powers of two and their neighbours"""
    v = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -5.0, 7.0, 100.0, -0.3, 0.1, 1.0, 6.0, -2.75, 0.0]
    for base in (1.0, 3.0, -7.0, 0.15625):
        u = int(np.float32(base).view(np.uint32))
        v += [float(np.uint32(u | 0x1000).view(np.float32)), float(np.uint32(u | 0x3000).view(np.float32)),
              float(np.uint32(u | 0x0fff).view(np.float32)), float(np.uint32(u | 0x1001).view(np.float32))]
    v += [2.0 ** -130, 2.0 ** -127, 1.5 * 2.0 ** -127, 3e38, 0.75 * 2.0 ** 100, 2.0 ** 100, 2.0 ** 100 * 1.0000001,
          0.5, 0.625, 12.0, 1e-3, 33.0]
    while len(v) < 64:
        v.append(1.0 + len(v) / 64.0)
    return np.array(v[:64], np.float32)


def c_convert_narrow(rng):
    x = narrow_inputs()
    f4 = np.array([f4_value(f4_code(v)) for v in x], np.float32)
    refs = np.concatenate([f4, e8m0_ref(x, False), e8m0_ref(x, True), tf32_ref(x, "even"),
                           tf32_ref(x, "zero"), tf32_ref(x, "away")])
    return [P(x), P(np.zeros(6 * 64, np.float32))], (1, 1, 1), {1: refs}


def c_convert_tf32(rng):
    x = narrow_inputs()
    refs = np.concatenate([tf32_ref(x, "even"), tf32_ref(x, "zero"), tf32_ref(x, "away")])
    return [P(x), P(np.zeros(3 * 64, np.float32))], (1, 1, 1), {1: refs}


def c_f4_views(rng):
    x = (rng.integers(-28, 29, size=(8, 64)) * 0.25).astype(np.float32)   # ties and saturation included
    codes = np.array([[f4_code(v) for v in row] for row in x], np.uint8)
    q = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)        # element 2i in the low nibble
    r = rng.integers(0, 256, size=(8, 32), dtype=np.uint8)
    y = np.array([[f4_value((b >> (4 * (j % 2))) & 15) for j, b in enumerate(np.repeat(row, 2))] for row in r],
                 np.float32)
    return [P(x), P(np.zeros((8, 32), np.uint8)), P(r), P(np.zeros((8, 64), np.float32))], (2, 1, 1), {1: q, 3: y}


def c_f4_const(rng):
    out = np.concatenate([np.full(16, 1.5, np.float32), np.array([f4_value(c) for c in range(16)], np.float32)])
    xs = (np.arange(64) - 16) * 0.25
    out2 = np.array([f4_value(f4_code(v)) for v in xs], np.float32)
    return [P(np.zeros(32, np.float32)), P(np.zeros(64, np.float32))], (1, 1, 1), {0: out, 1: out2}


def c_f8_roundtrip(rng):
    x = np.concatenate([rng.uniform(-500, 500, 256), [448, 449, 464, 480, -1e6, 2.0 ** -9, 2.0 ** -10, 0.0] * 32])
    x = x.astype(np.float32)[:512]
    mags = np.array([float(2.0 ** ((c >> 3) - 7) * (1 + (c & 7) / 8)) if c >> 3 else float((c & 7) * 2.0 ** -9)
                     for c in range(0x7f)])
    ref = np.array([np.copysign(mags[min(range(0x7f), key=lambda c: (abs(mags[c] - abs(v)), c & 1))], v)
                    for v in x], np.float32)
    return [P(x), P(np.zeros(512, np.float32))], (1, 1, 1), {1: ref}


def c_strided_v4(rng):
    x = rnd((20, 64), np.float32, rng)
    y = rnd(256, np.float32, rng)
    out = np.zeros((32, 64), np.float32)
    ref = out.copy()
    for pid in range(4):
        ref[pid * 8:(pid + 1) * 8] = x[pid * 4:pid * 4 + 8] + y[pid * 64:pid * 64 + 64]
    return [A(x), A(y), A(out)], (4, 1, 1), {2: ref}


def c_vadd_v4(n, grid):
    """tests/pipeline/corpus/vadd_v4: 16-byte chunks, predicated where the
    size is ragged (n % 1024)"""
    def b(rng):
        x, y = rnd(n, np.float32, rng), rnd(n, np.float32, rng)
        return [A(x), A(y), A(np.zeros(n, np.float32))], (grid, 1, 1), {2: x + y}
    return b


def c_saxpy_v4(rng):
    x, y = rnd(5000, np.float32, rng), rnd(5000, np.float32, rng)
    return [F32(1.5), A(x), A(y), A(np.zeros(5000, np.float32))], (3, 1, 1), {3: np.float32(1.5) * x + y}


def c_saxpy_spare(rng):
    """tests/corpus saxpy (tile 256) over n = 300 with grid 4: block 1 is
    ragged, blocks 2 and 3 hold no element (tile-ptx's tile guard skips
    their loads and stores). Bare pointers into buffers twice n long, NaN
    past n in x and y and a sentinel in out: out[n:] must keep it."""
    n = 300
    x = np.full(2 * n, np.nan, np.float32)
    y = np.full(2 * n, np.nan, np.float32)
    x[:n], y[:n] = rnd(n, np.float32, rng), rnd(n, np.float32, rng)
    out = np.full(2 * n, 7.0, np.float32)
    ref = out.copy()
    ref[:n] = np.float32(1.5) * x[:n] + y[:n]
    arr = lambda a: [P(a), I32(n), I32(1)]
    return [F32(1.5)] + arr(x) + arr(y) + arr(out), (4, 1, 1), {7: ref}


def c_cast_v4(src, dst):
    def b(rng):
        x = rnd(2000, src, rng)
        return [A(x), A(np.zeros(2000, dst))], (2, 1, 1), {1: x.astype(dst)}
    return b


def c_add2d_v4(rng):
    x, y = rnd((50, 200), np.float32, rng), rnd((50, 200), np.float32, rng)
    return [A(x), A(y), A(np.zeros((50, 200), np.float32))], (4, 4, 1), {2: x * np.float32(2) + y}


def c_loop_accum_v4(rng):
    """column tiles of 32 summed over a ragged row of 100 (zero padding)"""
    x = rnd((40, 100), np.float32, rng)
    xp = np.zeros((40, 128), np.float32)
    xp[:, :100] = x
    ref = xp.reshape(40, 4, 32).sum(axis=1, dtype=np.float32)
    return [A(x), A(np.zeros((40, 32), np.float32))], (3, 1, 1), {1: ref}


def c_shifted_tile(rng):
    """tile index pid - 1: block 0's is -1, zero-extended as NVIDIA's (a
    tile far out of bounds: padding 0, no access; sign-extended it read the
    128 elements before x)"""
    x = rnd(300, np.float32, rng)
    out = np.zeros(300, np.float32)
    ref = np.ones(300, np.float32)
    ref[128:] += x[:172]
    return [A(x), A(out)], (3, 1, 1), {1: ref}


MMK = os.path.join(ROOT, "tests", "mma")
TGK = os.path.join(ROOT, "tests", "tilegym")


def c_mm(dt, cdt, M, N, K, tm, tn):
    """tests/mma kernels: C = A @ B over ragged sizes; small integer inputs,
    so every product and sum is exact in every operand / accumulator type
    (a fragment-layout error gives a wrong integer, never a rounding)."""
    def b(rng):
        # 8-bit: the full range, so signedness matters (sums stay exact in i32)
        lo, hi = {np.dtype(np.uint8): (0, 256), np.dtype(np.int8): (-128, 128)}.get(np.dtype(dt), (-4, 5))
        a = rng.integers(lo, hi, size=(M, K)).astype(dt)
        bb = rng.integers(lo, hi, size=(K, N)).astype(dt)
        c = np.zeros((M, N), cdt)
        want = (a.astype(np.float64) @ bb.astype(np.float64)).astype(cdt)
        return [A(a), A(bb), A(c)], (-(-M // tm), -(-N // tn), 1), {2: want}
    return b


# 8-bit float encodings of the integers -4..4 (numpy has no f8 dtype: the
# arrays are uint8 holding the bits): e4m3 bias 7, e5m2 bias 15
F8_CODES = {
    "e4m3": {0: 0x00, 1: 0x38, 2: 0x40, 3: 0x44, 4: 0x48},
    "e5m2": {0: 0x00, 1: 0x3C, 2: 0x40, 3: 0x42, 4: 0x44},
}


def c_mm_f8(fmt, cdt, M, N, K, tm, tn):
    """tests/mma f8 kernels: A, B integers in -4..4 encoded as e4m3 / e5m2
    bits; every product and sum (|.| <= 16 K) is exact in f32 and f16."""
    def enc(v):
        return np.vectorize(lambda x: F8_CODES[fmt][abs(int(x))] | (0x80 if x < 0 else 0), otypes=[np.uint8])(v)

    def b(rng):
        a = rng.integers(-4, 5, size=(M, K))
        bb = rng.integers(-4, 5, size=(K, N))
        c = np.zeros((M, N), cdt)
        want = (a.astype(np.float64) @ bb.astype(np.float64)).astype(cdt)
        return [A(enc(a)), A(enc(bb)), A(c)], (-(-M // tm), -(-N // tn), 1), {2: want}
    return b


def c_bmm(dt, cdt, Bz, M, N, K, tb, tm, tn):
    """tests/mma batched kernels: C[z] = A[z] @ B[z], ragged M, N, K, Bz batches
    in blocks of tb; small integers, so every result is exact."""
    def b(rng):
        lo, hi = {np.dtype(np.int8): (-128, 128)}.get(np.dtype(dt), (-4, 5))
        a = rng.integers(lo, hi, size=(Bz, M, K)).astype(dt)
        bb = rng.integers(lo, hi, size=(Bz, K, N)).astype(dt)
        c = np.zeros((Bz, M, N), cdt)
        want = np.matmul(a.astype(np.float64), bb.astype(np.float64)).astype(cdt)
        return [A(a), A(bb), A(c)], (-(-M // tm), -(-N // tn), Bz // tb), {2: want}
    return b


def c_mm_scaled(fmt, M, N, K, tm, tn):
    """tests/mma block-scaled kernels: A, B integers -4..4 (e4m3 / e5m2 bits),
    scales 2^-1, 2^0, 2^1 (f8E8M0FNU bits 126..128), one per 32 of K: every
    product and sum is exact in f32."""
    def enc(v):
        return np.vectorize(lambda x: F8_CODES[fmt][abs(int(x))] | (0x80 if x < 0 else 0), otypes=[np.uint8])(v)

    def b(rng):
        a = rng.integers(-4, 5, size=(M, K))
        bb = rng.integers(-4, 5, size=(K, N))
        ea = rng.integers(126, 129, size=(M, K // 32))
        eb = rng.integers(126, 129, size=(K // 32, N))
        sa = np.repeat(2.0 ** (ea - 127), 32, axis=1)
        sb = np.repeat(2.0 ** (eb - 127), 32, axis=0)
        want = ((a * sa) @ (bb * sb)).astype(np.float32)
        c = np.zeros((M, N), np.float32)
        return ([A(enc(a)), A(ea.astype(np.uint8)), A(enc(bb)), A(eb.astype(np.uint8)), A(c)],
                (-(-M // tm), -(-N // tn), 1), {4: want})
    return b


# tests/tilegym: TileGym-style row kernels (f16 entries), 3 rows of 4096 (and
# 2 positions of rope); references in f32 numpy, outputs f16
TGN = 4096
TG_ROWS = 3      # rows (blocks); tests/gpu/extra_launch.py sets more to time them


def tg_rows(rng, n=None):
    return rng.uniform(-3, 3, size=(n or TG_ROWS, TGN)).astype(np.float16)


def c_tg_layernorm(rng):
    x, w, b = tg_rows(rng), rng.uniform(0.5, 1.5, TGN).astype(np.float16), rng.uniform(-1, 1, TGN).astype(np.float16)
    xf = x.astype(np.float32)
    mean = xf.mean(1, keepdims=True)
    d = xf - mean
    ref = d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-5) * w.astype(np.float32) + b.astype(np.float32)
    return [A(x), A(w), A(b), A(np.zeros_like(x)), F32(1e-5)], (TG_ROWS, 1, 1), {3: ref.astype(np.float16)}


def c_tg_rms(rng):
    x, w = tg_rows(rng), rng.uniform(0.5, 1.5, TGN).astype(np.float16)
    xf = x.astype(np.float32)
    ref = xf / np.sqrt((xf * xf).mean(1, keepdims=True) + 1e-6) * w.astype(np.float32)
    return [A(x), A(w), A(np.zeros_like(x)), F32(1e-6)], (TG_ROWS, 1, 1), {2: ref.astype(np.float16)}


def c_tg_softmax(rng):
    x = tg_rows(rng)
    e = np.exp(x.astype(np.float32) - x.astype(np.float32).max(1, keepdims=True))
    return [A(x), A(np.zeros_like(x))], (TG_ROWS, 1, 1), {1: (e / e.sum(1, keepdims=True)).astype(np.float16)}


def c_tg_relu2(rng):
    x = tg_rows(rng)
    r = np.maximum(x.astype(np.float32), 0)
    return [A(x), A(np.zeros_like(x))], (TG_ROWS, 1, 1), {1: (r * r).astype(np.float16)}


def c_tg_swiglu(rng):
    a, b = tg_rows(rng), tg_rows(rng)
    af = a.astype(np.float32)
    ref = af / (1 + np.exp(-af)) * b.astype(np.float32)
    return [A(a), A(b), A(np.zeros_like(a))], (TG_ROWS, 1, 1), {2: ref.astype(np.float16)}


def c_tg_xent(rng):
    v = 3 * TGN + 100          # three chunks and a ragged fourth
    x = rng.uniform(-4, 4, size=(TG_ROWS, v)).astype(np.float16)
    t = rng.integers(0, v, TG_ROWS).astype(np.int32)
    xf = x.astype(np.float64)
    m = xf.max(1)
    ref = (np.log(np.exp(xf - m[:, None]).sum(1)) + m - xf[np.arange(TG_ROWS), t]).astype(np.float32)
    return [A(x), A(t), A(np.zeros(TG_ROWS, np.float32))], (TG_ROWS, 1, 1), {2: ref}


def c_tg_rope(rng):
    s, h, d = 2, 32, 128
    x = rng.uniform(-2, 2, size=(s, h, d)).astype(np.float16)
    ang = rng.uniform(0, 6.3, size=(s, d // 2))
    c, sn = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    x1, x2 = x[:, :, :d // 2].astype(np.float32), x[:, :, d // 2:].astype(np.float32)
    ref = np.concatenate([x1 * c[:, None] - x2 * sn[:, None], x2 * c[:, None] + x1 * sn[:, None]], axis=2)
    return [A(x), A(c), A(sn), A(np.zeros_like(x))], (s, 1, 1), {3: ref.astype(np.float16)}


def c_tg_gelu(rng):
    x = tg_rows(rng)
    t = x.astype(np.float32)
    ref = 0.5 * t * (1 + np.tanh(0.7978845608028654 * (t + 0.044715 * t * t * t)))
    return [A(x), A(np.zeros_like(x))], (TG_ROWS, 1, 1), {1: ref.astype(np.float16)}


def c_tg_add_rms(rng):
    x, r, w = tg_rows(rng), tg_rows(rng), rng.uniform(0.5, 1.5, TGN).astype(np.float16)
    t = x.astype(np.float32) + r.astype(np.float32)
    ref = t / np.sqrt((t * t).mean(1, keepdims=True) + 1e-6) * w.astype(np.float32)
    return ([A(x), A(r), A(w), A(np.zeros_like(x)), A(np.zeros_like(x)), F32(1e-6)], (TG_ROWS, 1, 1),
            {3: ref.astype(np.float16), 4: t.astype(np.float16)})


def c_tg_softmax_bwd(rng):
    e = np.exp(tg_rows(rng).astype(np.float32))
    y = (e / e.sum(1, keepdims=True)).astype(np.float16)
    dy = tg_rows(rng)
    yf, dyf = y.astype(np.float32), dy.astype(np.float32)
    ref = yf * (dyf - (yf * dyf).sum(1, keepdims=True))
    return [A(y), A(dy), A(np.zeros_like(y))], (TG_ROWS, 1, 1), {2: ref.astype(np.float16)}


MM2 = os.path.join(ROOT, "tests", "mma2")


def c_mm_bt(fmt, M, N, K, tm, tn):
    """tests/mma2 mm_bt: C = A @ BT^T with BT given [N, K]; integers -4..4 (f16,
    or e4m3 bits when fmt is "e4m3"), so every result is exact in f32."""
    def b(rng):
        a = rng.integers(-4, 5, size=(M, K))
        bt = rng.integers(-4, 5, size=(N, K))
        want = (a @ bt.T).astype(np.float32)
        if fmt == "e4m3":
            enc = np.vectorize(lambda x: F8_CODES[fmt][abs(int(x))] | (0x80 if x < 0 else 0), otypes=[np.uint8])
            a, bt = enc(a), enc(bt)
        else:
            a, bt = a.astype(np.float16), bt.astype(np.float16)
        return [A(a), A(bt), A(np.zeros((M, N), np.float32))], (-(-M // tm), -(-N // tn), 1), {2: want}
    return b


def c_mm_splitk(M, N, K, tm, tn, tk):
    """tests/mma2 mm_splitk: one K tile per block (grid z), partial products
    atomically added into a zeroed C; integer inputs, so any order is exact."""
    def b(rng):
        a = rng.integers(-4, 5, size=(M, K)).astype(np.float16)
        bb = rng.integers(-4, 5, size=(K, N)).astype(np.float16)
        want = (a.astype(np.float64) @ bb.astype(np.float64)).astype(np.float32)
        return ([A(a), A(bb), A(np.zeros((M, N), np.float32))], (-(-M // tm), -(-N // tn), -(-K // tk)), {2: want})
    return b


def c_mm_epilogue(M, N, K, tm, tn):
    """tests/mma2 mm_epilogue: f16(relu(A @ B + bias)); integer inputs and
    half-integer biases, every value exact in f16 (|.| <= 16 K + 8 < 2048)."""
    def b(rng):
        a = rng.integers(-4, 5, size=(M, K)).astype(np.float16)
        bb = rng.integers(-4, 5, size=(K, N)).astype(np.float16)
        bias = (rng.integers(-16, 17, size=N) / 2).astype(np.float32)
        want = np.maximum(a.astype(np.float64) @ bb.astype(np.float64) + bias, 0).astype(np.float16)
        return ([A(a), A(bb), A(bias), A(np.zeros((M, N), np.float16))], (-(-M // tm), -(-N // tn), 1), {3: want})
    return b


def c_mm_mixed(M, N, K, tm, tn):
    """tests/mma2 mm_mixed: int8 A (full range) x uint8 B (full range) -> i32."""
    def b(rng):
        a = rng.integers(-128, 128, size=(M, K)).astype(np.int8)
        bb = rng.integers(0, 256, size=(K, N)).astype(np.uint8)
        want = (a.astype(np.int64) @ bb.astype(np.int64)).astype(np.int32)
        return [A(a), A(bb), A(np.zeros((M, N), np.int32))], (-(-M // tm), -(-N // tn), 1), {2: want}
    return b


FMHA = os.path.join(ROOT, "tests", "fmha")


def c_fmha(B, H, S, N, D, tm, causal, bf16=False):
    """tests/fmha: softmax(Q K^T * scale [causal mask]) V per (batch, head),
    f16 (bf16: held as bits) inputs in [-1, 1]; S query rows and N keys
    ragged against the tiles. The reference is float64 from the same inputs;
    the kernel rounds P to f16 / bf16 before the second product (as every
    FlashAttention does), so outputs agree to ~1e-3 (f16), ~1e-2 (bf16)."""
    def b(rng):
        def operand(shape):
            x = rng.uniform(-1, 1, size=shape)
            if bf16:
                bits = refs.f32_to_bf16(x.astype(np.float32))
                return bits, refs.bf16_to_f32(bits).astype(np.float64)
            x = x.astype(np.float16)
            return x, x.astype(np.float64)
        q, qd = operand((B, H, S, D))
        k, kd = operand((B, H, N, D))
        v, vd = operand((B, H, N, D))
        scale = 1.0 / np.sqrt(D)
        s = np.einsum("bhmd,bhnd->bhmn", qd, kd) * np.float32(scale)
        if causal:
            s = np.where(np.arange(N)[None, :] > np.arange(S)[:, None], -np.inf, s)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        want = np.einsum("bhmn,bhnd->bhmd", p / p.sum(axis=-1, keepdims=True), vd)
        o = np.zeros((B, H, S, D), np.uint16 if bf16 else np.float16)
        ref = (refs.bf16_to_f32, want) if bf16 else want.astype(np.float16)
        return [A(q), A(k), A(v), A(o), F32(scale)], (-(-S // tm), B * H, 1), {3: ref}
    return b


def c_mm_shared_acc(M, N, K, tm, tn):
    """tests/mma2 mm_shared_acc: C = A @ B (f16) and D = X @ Y (f32) from one
    zero accumulator, one K tile (K <= tk); integer inputs, exact."""
    def b(rng):
        a = rng.integers(-4, 5, size=(M, K)).astype(np.float16)
        bb = rng.integers(-4, 5, size=(K, N)).astype(np.float16)
        x = rng.integers(-4, 5, size=(M, K)).astype(np.float32)
        y = rng.integers(-4, 5, size=(K, N)).astype(np.float32)
        want_c = (a.astype(np.float64) @ bb.astype(np.float64)).astype(np.float32)
        want_d = (x.astype(np.float64) @ y.astype(np.float64)).astype(np.float32)
        z = np.zeros((M, N), np.float32)
        return ([A(a), A(bb), A(x), A(y), A(z), A(z.copy())], (-(-M // tm), -(-N // tn), 1),
                {4: want_c, 5: want_d})
    return b


def c_mm_tile(kind, m, n, k, batch=0):
    """tests/mma mm_tile / bmm_tile (products of any shape, issue 41): one
    block computes C = A @ B + C over the top-left m x n x k (of each batch).
    Every array is one larger than the tile in each dimension: A and B hold
    NaN (8-bit: the format's largest value, integers: their extremes) beyond
    the tile and C a sentinel there that must survive, so a fragment that
    reads or writes past the tile (an FMA product narrower than its atom
    repeats rows and columns) fails. Small integers: every result is exact
    in every type. kind: (A, B, C numpy types, 8-bit float format or None)."""
    adt, bdt, cdt, f8 = kind
    bf16 = adt is None       # bf16 operands, held as bits
    if bf16:
        adt = bdt = np.float32

    def vals(dt, shape, rng):
        lo, hi = {"u1": (0, 256), "i1": (-128, 128)}.get(np.dtype(dt).str[1:], (-4, 5))
        return rng.integers(lo, hi, size=shape)

    def fill(v, dt, inside):
        out = np.empty(v.shape, np.float64)
        out[...] = np.nan if np.dtype(dt).kind == "f" else (127 if np.dtype(dt) == np.int8 else 255)
        out[inside] = v[inside]
        if bf16:
            return refs.f32_to_bf16(out.astype(np.float32))
        if f8:
            out = np.where(np.isnan(out), 0x7e if f8 == "e4m3" else 0x7b, out)      # 448 / 57344, finite
            enc = np.vectorize(lambda x: F8_CODES[f8][abs(int(x))] | (0x80 if x < 0 else 0) if abs(x) <= 4 else int(x),
                               otypes=[np.uint8])
            return enc(out)
        return out.astype(dt)

    def b(rng):
        lead = (batch,) if batch else ()
        ins = (slice(None),) * len(lead)
        a = vals(adt, lead + (m + 1, k + 1), rng)
        bb = vals(bdt, lead + (k + 1, n + 1), rng)
        c = rng.integers(-4, 5, size=lead + (m + 1, n + 1)).astype(np.float64)
        c[ins + (slice(m, None),)] = 77
        c[ins + (slice(None), slice(n, None))] = 77
        want = c.copy()
        want[ins + (slice(0, m), slice(0, n))] += np.matmul(a[ins + (slice(0, m), slice(0, k))].astype(np.float64),
                                                           bb[ins + (slice(0, k), slice(0, n))].astype(np.float64))
        ta = fill(a, adt, ins + (slice(0, m), slice(0, k)))
        tb = fill(bb, bdt, ins + (slice(0, k), slice(0, n)))
        return [A(ta), A(tb), A(c.astype(cdt))], (1, 1, 1), {2: want.astype(cdt)}
    return b


SMALL_TYPES = {   # module: numpy A, B, C types, 8-bit float format; mangled codes A, B, C
    "small_f16": ((np.float16, np.float16, np.float32, None), "f16", "f16", "f32"),
    "small_f16_f16": ((np.float16, np.float16, np.float16, None), "f16", "f16", "f16"),
    "small_bf16": ((None, None, np.float32, None), "bf16", "bf16", "f32"),
    "small_f32": ((np.float32, np.float32, np.float32, None), "f32", "f32", "f32"),
    "small_tf32": ((np.float32, np.float32, np.float32, None), "f32", "f32", "f32"),
    "small_f64": ((np.float64, np.float64, np.float64, None), "f64", "f64", "f64"),
    "small_i8": ((np.int8, np.int8, np.int32, None), "i8", "i8", "i32"),
    "small_u8": ((np.uint8, np.uint8, np.int32, None), "u8", "u8", "i32"),
    "small_i8u8": ((np.int8, np.uint8, np.int32, None), "i8", "u8", "i32"),
    "small_u8i8": ((np.uint8, np.int8, np.int32, None), "u8", "i8", "i32"),
    "small_e4m3": ((np.float64, np.float64, np.float32, "e4m3"), "f8m3fn", "f8m3fn", "f32"),
    "small_e4m3_f16": ((np.float64, np.float64, np.float16, "e4m3"), "f8m3fn", "f8m3fn", "f16"),
    "small_e5m2": ((np.float64, np.float64, np.float32, "e5m2"), "f8m2", "f8m2", "f32"),
    "small_e4m3_fast": ((np.float64, np.float64, np.float32, "e4m3"), "f8m3fn", "f8m3fn", "f32"),
    "large_f16": ((np.float16, np.float16, np.float32, None), "f16", "f16", "f32"),
    "large_tf32": ((np.float32, np.float32, np.float32, None), "f32", "f32", "f32"),
}
SMALL_SHAPES = {   # tests/mma/gen-mma's SMALL
    "small_f16": [(2, 2, 2), (2, 8, 16), (8, 16, 32), (16, 16, 4), (16, 4, 16), (16, 16, 16), (32, 2, 64), (8, 16, 64)],
    "small_f16_f16": [(2, 8, 16), (8, 8, 8), (16, 8, 16)],
    "small_bf16": [(2, 2, 2), (2, 8, 16), (16, 8, 16)],
    "small_f32": [(2, 2, 2), (2, 8, 16), (4, 4, 8)],
    "small_tf32": [(2, 8, 16), (16, 16, 4), (16, 8, 8)],
    "small_f64": [(2, 2, 2), (2, 8, 16), (8, 8, 4)],
    "small_i8": [(2, 2, 2), (16, 16, 16), (16, 8, 32), (4, 8, 64)],
    "small_u8": [(16, 16, 16)],
    "small_i8u8": [(16, 16, 16), (4, 4, 4)],
    "small_u8i8": [(16, 16, 16)],
    "small_e4m3": [(16, 16, 16), (2, 8, 32), (16, 8, 32)],
    "small_e4m3_f16": [(16, 16, 16)],
    "small_e5m2": [(16, 16, 16)],
    "small_e4m3_fast": [(16, 16, 16), (16, 8, 32)],
    "large_f16": [(128, 128, 128), (256, 256, 256)],
    "large_tf32": [(128, 128, 128)],
}


def c_bmm_loop(f8, cdt, Bz, M, N, K):
    """tests/mma sample_bmm_*: cuTile's BatchMatMul sample's kernel at its
    128x256x128 tiles; ragged M, N, K over two tiles of M and K; integers
    -4..4 (f8: e4m3 bits), so every sum is exact in f32 and in f16."""
    def b(rng):
        a = rng.integers(-4, 5, size=(Bz, M, K))
        bb = rng.integers(-4, 5, size=(Bz, K, N))
        want = np.matmul(a.astype(np.float64), bb.astype(np.float64)).astype(cdt)
        if f8:
            enc = np.vectorize(lambda x: F8_CODES["e4m3"][abs(int(x))] | (0x80 if x < 0 else 0), otypes=[np.uint8])
            ta, tb = enc(a), enc(bb)
        else:
            ta, tb = a.astype(np.float16), bb.astype(np.float16)
        return [A(ta), A(tb), A(np.zeros((Bz, M, N), cdt))], (Bz, -(-M // 128), -(-N // 256)), {2: want}
    return b


def c_bmm_tb1(Bz, M, N, K):
    """tests/mma bmm_f16_tb1_aligned: C[z] = A[z] @ B[z] (rank-3 ct.mma, one
    batch a block, 64x64x32 tiles, launch facts: TMA on sm_90); M, N, K
    ragged, strides multiples of 16 bytes as the facts say; integers -4..4,
    exact in f32."""
    def b(rng):
        a = rng.integers(-4, 5, size=(Bz, M, K))
        bb = rng.integers(-4, 5, size=(Bz, K, N))
        want = np.matmul(a.astype(np.float64), bb.astype(np.float64)).astype(np.float32)
        return ([A(a.astype(np.float16)), A(bb.astype(np.float16)), A(np.zeros((Bz, M, N), np.float32))],
                (-(-M // 64), -(-N // 64), Bz), {2: want})
    return b


def c_dft(f):
    """tests/mma sample_dft: Y = W @ X per batch (complex, parts apart), W
    the f-point DFT matrix, two blocks of 2 batches of f x 16."""
    def b(rng):
        bs, n, Bz = 2, 16, 4
        x = rng.uniform(-1, 1, size=(Bz, f, n)) + 1j * rng.uniform(-1, 1, size=(Bz, f, n))
        w = np.exp(-2j * np.pi * np.outer(np.arange(f), np.arange(f)) / f)
        y = np.matmul(w[None], x)
        f32 = np.float32
        z = np.zeros((Bz, f, n), f32)
        return ([A(x.real.astype(f32)), A(x.imag.astype(f32)), A(w.real.astype(f32)), A(w.imag.astype(f32)), A(z), A(z.copy())],
                (Bz // bs, 1, 1), {4: y.real.astype(f32), 5: y.imag.astype(f32)})
    return b


def small_cases():
    out = {}
    for mod, shapes in SMALL_SHAPES.items():
        kind, ca, cb, cc = SMALL_TYPES[mod]
        kern = {"small_tf32": "mm_tile_tf32", "large_tf32": "mm_tile_tf32", "small_e4m3_fast": "mm_tile_fast"}.get(mod, "mm_tile")
        # 8-bit floats: sm_89 and newer (NVIDIA refuses them on sm_80 too)
        targets = EVERY[1:] if kind[3] else EVERY
        if mod in ("large_f16", "large_tf32"):     # seconds a run on tile-run: sm_80's 163 KiB, sm_120's 99 KiB
            targets = ("sm_80", "sm_100", "sm_120")
        for m, n, k in shapes:
            sym = f"{kern}_Kt1_A2{ca}_1l0_2t1_A2{cb}_1l0_2t1_A2{cc}_1l0_2t1_I{m}_I{n}_I{k}"
            # 256^3: the K chunks of sm_80 (8 of 32) and sm_90 (2 of 128) are enough (seconds a run)
            out[f"{mod}/{m}x{n}x{k}"] = X(f"{MMK}/{mod}.tileirbc", sym, c_mm_tile(kind, m, n, k), 0,
                                          ("sm_80", "sm_90") if (m, n, k) == (256, 256, 256) else targets)
    out["small_bmm_f16/2x4x8x16"] = X(f"{MMK}/small_bmm_f16.tileirbc",
                                      "bmm_tile_Kt1_A3f16_3l0_4t1_A3f16_3l0_4t1_A3f32_3l0_4t1_I2_I4_I8_I16",
                                      c_mm_tile((np.float16, np.float16, np.float32, None), 4, 8, 16, batch=2), 0)
    # one batch, M and N one tile and a bit (ragged), K two steps: seconds a run
    out["sample_bmm_f16"] = X(f"{MMK}/sample_bmm_f16.tileirbc", "bmm_loop_Kt1_A3f16",
                              c_bmm_loop(False, np.float16, 1, 136, 264, 200), 0, ("sm_80", "sm_100"))
    out["bmm_f16_tb1_aligned"] = X(f"{MMK}/bmm_f16_tb1_aligned.tileirbc", "bmm_Kt1_", c_bmm_tb1(3, 80, 136, 72), 0,
                                   ("sm_80", "sm_90", "sm_120"))
    out["sample_bmm_e4m3"] = X(f"{MMK}/sample_bmm_e4m3.tileirbc", "bmm_loop_Kt1_A3f8m3fn",
                               c_bmm_loop(True, np.float32, 1, 136, 264, 200), 0, ("sm_120",))
    out["large_scaled_e4m3"] = X(f"{MMK}/large_scaled_e4m3.tileirbc", "mm_scaled_", c_mm_scaled("e4m3", 128, 256, 256, 128, 256),
                                 0, ("sm_100", "sm_120"))
    for f in (2, 4, 8):
        out[f"sample_dft/{f}"] = X(f"{MMK}/sample_dft.tileirbc",
                                   "dft_batched_Kt1_A3f32_3l0_4t1_A3f32_3l0_4t1_A2f32_1l0_2t1_A2f32_1l0_2t1_A3f32_3l0_4t1_"
                                   f"A3f32_3l0_4t1_I2_I{f}_I16", c_dft(f), 1e-5)
    return out


BIG = os.path.join(ROOT, "tests", "big")


def big_cases():
    """tests/big (issue 42): tiles many times what a CTA's registers hold,
    computed by tile-sched's chunk loops (tools/tile-sched/chunk.c); every
    output element checked, ragged where the kernel allows."""
    def ew_exp(n, grid):
        def b(rng):
            x = rnd((n * grid,), np.float32, rng)
            return [A(x), A(np.zeros_like(x))], (grid, 1, 1), {1: np.exp(x.astype(np.float64))}
        return b

    def row_ssq(rows, r, c):
        def b(rng):
            x = rnd((rows, c), np.float32, rng, -2, 2)
            grid = -(-rows // r)
            return [A(x), A(np.zeros(rows, np.float32))], (grid, 1, 1), {1: (x.astype(np.float64) ** 2).sum(1)}
        return b

    def col_sum(rng):
        x = rnd((64, 2048), np.float32, rng)
        return [A(x), A(np.zeros(2048, np.float32))], (2, 1, 1), {1: x.astype(np.float64).sum(0)}

    def layer_norm(rng):
        x, w, bb = rnd((8, 8192), np.float32, rng), rnd((8192,), np.float32, rng, -1, 1), rnd((8192,), np.float32, rng, -1, 1)
        x64 = x.astype(np.float64)
        d = x64 - x64.mean(1, keepdims=True)
        want = d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-5) * w + bb
        return ([A(x), A(w), A(bb), A(np.zeros((8, 8192), np.uint16))], (2, 1, 1),
                {3: (refs.bf16_to_f32, want)})

    def softmax_rows(rng):
        x = rnd((3, 16384), np.float32, rng)      # ragged: the second tile's second row is past the end
        e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
        return [A(x), A(np.zeros_like(x))], (2, 1, 1), {1: e / e.sum(1, keepdims=True)}

    def scale_and_sum(rng):
        x = rnd((2 * 65536,), np.float32, rng)
        return ([A(x), A(np.zeros_like(x)), A(np.zeros(2, np.float32))], (2, 1, 1),
                {1: 2.0 * x.astype(np.float64), 2: x.astype(np.float64).reshape(2, -1).sum(1)})

    def cast_rows(rng):
        x = rnd((300, 256), np.float32, rng, -2, 2)    # ragged: 44 rows of the second tile
        return [A(x), A(np.zeros((300, 256), np.float16))], (2, 1, 1), {1: (x * x + 1.0).astype(np.float16)}

    def transpose(rng):
        x = rnd((512, 256), np.float32, rng)
        return [A(x), A(np.zeros((256, 512), np.float32))], (2, 1, 1), {1: x.T.copy()}

    def cumsum_1m(rng):
        x = rng.integers(-1, 2, 1048576).astype(np.float32)     # exact in f32 at any order
        return [A(x), A(np.zeros_like(x))], (1, 1, 1), {1: np.cumsum(x.astype(np.float64))}

    def scans(rng):
        x = rng.integers(-3, 4, (6, 8192)).astype(np.float32)   # ragged: the second tile's last 2 rows
        x64 = x.astype(np.float64)
        return ([A(x), A(np.zeros_like(x)), A(np.zeros_like(x))], (2, 1, 1),
                {1: np.cumsum(x64, 1), 2: np.cumsum(x64[:, ::-1], 1)[:, ::-1]})

    def every_other(rng):
        x = rnd((2 * 1048576 - 7,), np.float32, rng)       # the last index is past the end: padding 0
        want = np.zeros(1048576)
        want[:1048573] = x[0::2]
        return [A(x), A(np.full(1048576, 5, np.float32))], (1, 1, 1), {1: want}

    T = ("sm_80", "sm_90")
    return {
        "big/every_other_1m": X(f"{BIG}/every_other_1m.tileirbc", "every_other_", every_other, 0, T),
        "big/cumsum_1m": X(f"{BIG}/cumsum_1m.tileirbc", "cumsum_", cumsum_1m, 0, T),
        "big/scans": X(f"{BIG}/scans.tileirbc", "scans_", scans, 0),
        "big/exp_16384": X(f"{BIG}/ew_exp.tileirbc", "ew_exp_Kt1_A1f32_1t1_A1f32_1t1_I16384", ew_exp(16384, 2), 1e-6),
        "big/exp_262144": X(f"{BIG}/ew_exp.tileirbc", "ew_exp_Kt1_A1f32_1t1_A1f32_1t1_I262144", ew_exp(262144, 1), 1e-6, T),
        "big/row_ssq_64x8192": X(f"{BIG}/row_ssq.tileirbc", "row_ssq_Kt1_A2f32_1l0_2t1_A1f32_1t1_I64_I8192",
                                 row_ssq(64, 64, 8192), 1e-5, T),
        "big/row_ssq_4x4096": X(f"{BIG}/row_ssq.tileirbc", "row_ssq_Kt1_A2f32_1l0_2t1_A1f32_1t1_I4_I4096",
                                row_ssq(6, 4, 4096), 1e-5),
        "big/col_sum": X(f"{BIG}/col_sum.tileirbc", "col_sum_", col_sum, 1e-5),
        "big/layer_norm": X(f"{BIG}/layer_norm.tileirbc", "layer_norm_", layer_norm, 1e-2),
        "big/softmax_rows": X(f"{BIG}/softmax_rows.tileirbc", "softmax_rows_", softmax_rows, 1e-6),
        "big/scale_and_sum": X(f"{BIG}/scale_and_sum.tileirbc", "scale_and_sum_", scale_and_sum, 1e-5),
        "big/cast_rows": X(f"{BIG}/cast_rows.tileirbc", "cast_rows_", cast_rows, 1e-3),
        "big/transpose": X(f"{BIG}/transpose.tileirbc", "transpose_", transpose, 0),
    }


TG151 = os.path.join(ROOT, "tests", "tilegym", "v151")


def tilegym151_cases():
    """TileGym 1.5.1's own kernels (tests/tilegym/v151/gen), launched as
    TileGym's launchers launch them, against numpy."""
    def rms_sp(bf16, offset):
        def b(rng):
            M, N = 48, 4096           # 12 tiles of 4 rows over 2 persistent blocks
            xv = rng.uniform(-2, 2, (M, N)).astype(np.float32)
            wv = rng.uniform(-1, 1, N).astype(np.float32)
            if bf16:
                x, w = refs.f32_to_bf16(xv), refs.f32_to_bf16(wv)
                xv, wv = refs.bf16_to_f32(x), refs.bf16_to_f32(w)
                y = np.zeros((M, N), np.uint16)
            else:
                x, w = xv.astype(np.float16), wv.astype(np.float16)
                xv, wv = x.astype(np.float32), w.astype(np.float32)
                y = np.zeros((M, N), np.float16)
            x64 = xv.astype(np.float64)
            rstd = 1.0 / np.sqrt((x64 * x64).mean(1, keepdims=True) + 1e-6)
            want = x64 * rstd * (offset + wv.astype(np.float64))
            return ([A(x), A(y), A(w), A(np.zeros(M, np.float32))], (2, 1, 1),
                    {1: (refs.bf16_to_f32, want) if bf16 else want, 3: rstd[:, 0]})
        return b

    def liger_ln(rng):
        M, N = 16, 8192
        x = refs.f32_to_bf16(rng.uniform(-2, 2, (M, N)).astype(np.float32))
        w = refs.f32_to_bf16(rng.uniform(-1, 1, N).astype(np.float32))
        b = refs.f32_to_bf16(rng.uniform(-1, 1, N).astype(np.float32))
        x64 = refs.bf16_to_f32(x).astype(np.float64)
        mean = x64.mean(1, keepdims=True)
        rstd = 1.0 / np.sqrt((x64 * x64).mean(1, keepdims=True) - mean * mean + 1e-6)
        want = (x64 - mean) * rstd * refs.bf16_to_f32(w) + refs.bf16_to_f32(b)
        z = lambda *sh: np.zeros(sh, np.uint16)
        return ([A(x), A(z(M, N)), A(w), A(b), A(z(M)), A(z(M))], (M, 1, 1),
                {1: (refs.bf16_to_f32, want), 4: (refs.bf16_to_f32, mean[:, 0]), 5: (refs.bf16_to_f32, rstd[:, 0])})

    def half(dt, rng, shape, lo=-2.0, hi=2.0):
        """(bits or array as passed, its values as f64) of a bf16 / f16 / f32 array"""
        v = rng.uniform(lo, hi, shape).astype(np.float32)
        if dt == "bf16":
            x = refs.f32_to_bf16(v)
            return x, refs.bf16_to_f32(x).astype(np.float64)
        x = v.astype(np.float16 if dt == "f16" else np.float32)
        return x, x.astype(np.float64)

    def out(dt, shape):
        return np.zeros(shape, {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}[dt])

    def want(dt, w):
        return (refs.bf16_to_f32, w) if dt == "bf16" else w

    def softmax_p(dt, M, N):
        def b(rng):
            x, xv = half(dt, rng, (M, N))
            e = np.exp(xv - xv.max(1, keepdims=True))
            return [A(out(dt, (M, N))), A(x)], (6, 1, 1), {0: want(dt, e / e.sum(1, keepdims=True))}
        return b

    def rms_mw(dt, M, N, offset):
        def b(rng):
            x, xv = half(dt, rng, (M, N))
            w, wv = half(dt, rng, (N,), -1.0, 1.0)
            rstd = 1.0 / np.sqrt((xv * xv).mean(1, keepdims=True) + 1e-6)
            return ([A(x), A(w), A(out(dt, (M, N))), A(np.zeros(M, np.float32))], (M, 1, 1),
                    {2: want(dt, xv * rstd * (offset + wv)), 3: rstd[:, 0]})
        return b

    def silu(v):
        return v / (1.0 + np.exp(-v))

    def swiglu_f(dt, M, N):
        def b(rng):
            a, av = half(dt, rng, (M, N), -4.0, 4.0)
            bb, bv = half(dt, rng, (M, N))
            sa = silu(av)
            if dt == "bf16":       # silu(a) is rounded to a's type before the product
                sa = refs.bf16_to_f32(refs.f32_to_bf16(sa.astype(np.float32))).astype(np.float64)
            return [A(a), A(bb), A(out(dt, (M, N)))], (M, 1, 1), {2: want(dt, sa * bv)}
        return b

    def silu_mul(dt, M, H):
        def b(rng):
            x, xv = half(dt, rng, (M, 2 * H), -4.0, 4.0)
            return ([A(x), A(out(dt, (M, H)))], (M, 1, 1), {1: want(dt, silu(xv[:, :H]) * xv[:, H:])})
        return b

    def gelu_f(dt, n, block):
        def b(rng):
            x, xv = half(dt, rng, (n,), -5.0, 5.0)
            g = 0.5 * xv * (1.0 + np.tanh(0.7978845608028654 * (xv + 0.044715 * xv ** 3)))
            return [A(out(dt, (n,))), A(x)], (n // block, 1, 1), {0: want(dt, g)}
        return b

    def dropout_f(dt, n, p, seed):
        def b(rng):
            x, xv = half(dt, rng, (n,))
            o = np.arange(n, dtype=np.int64)
            h = ((o * 1103515245 + seed) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
            h = h ^ (h >> 16)
            h = h ^ (h << 8)
            h = h ^ (h >> 4)
            keep = (h & 0x7FFFFFFF).astype(np.float32) / np.float32(2147483647.0) > np.float32(p)
            scale = np.float32(1.0 / (1.0 - p))
            w = np.where(keep, (xv.astype(np.float32) * scale).astype(np.float64), 0.0)
            return [A(x), A(out(dt, (n,)))], (n // 1024, 1, 1), {1: want(dt, w)}
        return b

    def geglu_f(dt, M, N):
        def b(rng):
            a, av = half(dt, rng, (M, N), -4.0, 4.0)
            bb, bv = half(dt, rng, (M, N))
            g = 0.5 * av * (1.0 + np.tanh(0.7978845608028654 * (av + 0.044715 * av * av * av)))
            if dt == "bf16":       # gelu(a) is rounded to b's type before the product
                g = refs.bf16_to_f32(refs.f32_to_bf16(g.astype(np.float32))).astype(np.float64)
            return [A(a), A(bb), A(out(dt, (M, N)))], (M, 1, 1), {2: want(dt, g * bv)}
        return b

    G = "_gelu_kernel_Kt1_A1"
    G32 = G + "f32_1i16t1_p16_A1f32_1i16t1_p16_I1048576_I1024_I"
    rows = [   # label, module, entry (prefix), inputs, tolerance: on sm_80, sm_90, sm_100
        ("softmax_persistent_bf16", "softmax_persistent", "_softmax_kernel_Kt1_A2bf16", softmax_p("bf16", 64, 4096), 1e-2),
        ("softmax_persistent_f32", "softmax_persistent", "_softmax_kernel_Kt1_A2f32", softmax_p("f32", 64, 1008), 1e-5),
        ("rms_norm_multi_wave_cached_bf16", "rms_norm_multi_wave_cached", "_rms_norm_kernel_multi_wave_cached_Kt1_A2bf16",
         rms_mw("bf16", 8, 4096, 0.0), 1e-2),
        ("rms_norm_multi_wave_cached_f32", "rms_norm_multi_wave_cached", "_rms_norm_kernel_multi_wave_cached_Kt1_A2f32",
         rms_mw("f32", 4, 8192, 1.0), 1e-5),
        ("swiglu_fwd_bf16", "swiglu_fwd", "_swiglu_forward_kernel_Kt1_A2bf16", swiglu_f("bf16", 8, 4096), 2e-2),
        ("swiglu_fwd_f32", "swiglu_fwd", "_swiglu_forward_kernel_Kt1_A2f32", swiglu_f("f32", 8, 2000), 1e-5),
        ("silu_and_mul_bf16", "silu_and_mul", "_silu_and_mul_kernel_row_wise_Kt1_A2bf16", silu_mul("bf16", 8, 4096), 2e-2),
        ("silu_and_mul_f16", "silu_and_mul", "_silu_and_mul_kernel_row_wise_Kt1_A2f16", silu_mul("f16", 8, 1536), 1e-2),
        ("gelu_tanh_f32", "gelu", G32 + "1", gelu_f("f32", 8192, 1024), 1e-5),
        ("gelu_exact_f32", "gelu", G32 + "0", gelu_f("f32", 8192, 1024), 1e-5),
        ("gelu_tanh_bf16", "gelu", G + "bf16", gelu_f("bf16", 16384, 4096), 2e-2),
        ("dropout_f32", "dropout", "_dropout_kernel_Kt1_A1f32", dropout_f("f32", 8192, 0.1, -182847734), 1e-6),
        ("dropout_bf16", "dropout", "_dropout_kernel_Kt1_A1bf16", dropout_f("bf16", 8192, 0.5, 1401181143), 1e-2),
        ("liger_geglu_fwd_bf16", "liger_geglu_fwd", "_geglu_fwd_kernel_ct_Kt1_A2bf16", geglu_f("bf16", 4, 8192), 2e-2),
        ("liger_geglu_fwd_f32", "liger_geglu_fwd", "_geglu_fwd_kernel_ct_Kt1_A2f32", geglu_f("f32", 4, 3008), 1e-5),
    ]
    cases = {"tilegym151/" + n: X(f"{TG151}/{m}.tileirbc", e, b, t, ("sm_80", "sm_90", "sm_100")) for n, m, e, b, t in rows}
    return {
        **cases,
        "tilegym151/liger_layer_norm_fwd": X(f"{TG151}/liger_layer_norm_fwd.tileirbc", "_layer_norm_fwd_kernel_ct_",
                                            liger_ln, 2e-2, ("sm_80", "sm_90", "sm_100", "sm_120")),
        "tilegym151/rms_norm_static_persistent_bf16": X(f"{TG151}/rms_norm_static_persistent.tileirbc",
                                                          "_rms_norm_kernel_static_persistent_Kt1_A2bf16",
                                                          rms_sp(True, 0.0), 1e-2, ("sm_80", "sm_90", "sm_100", "sm_120")),
        "tilegym151/rms_norm_static_persistent_f16": X(f"{TG151}/rms_norm_static_persistent.tileirbc",
                                                         "_rms_norm_kernel_static_persistent_Kt1_A2f16",
                                                         rms_sp(False, 1.0), 1e-2, ("sm_80", "sm_90")),
    }


def X(bc, prefix, build, tol, targets=EVERY):
    return Extra(bc, prefix, build, tol, targets)


CASES = {
    "argmax_rows": X(f"{RC}/argmax_rows.tileirbc", "argmax_rows_", c_argmax, 0),
    "argmin_cols": X(f"{RC}/argmin_cols.tileirbc", "argmin_cols_", c_argmin, 0),
    "sum_all": X(f"{RC}/sum_all.tileirbc", "sum_all_", c_sum_all, 1e-4),
    "sum_and_max": X(f"{RC}/sum_and_max.tileirbc", "sum_and_max_", c_sum_and_max, 1e-4),
    "reduce_types/f16": X(f"{RC}/reduce_types.tileirbc", "reduce_types_Kt1_A2f16", c_reduce_types(np.float16), 0),
    "reduce_types/f64": X(f"{RC}/reduce_types.tileirbc", "reduce_types_Kt1_A2f64", c_reduce_types(np.float64), 0),
    "reduce_types/i64": X(f"{RC}/reduce_types.tileirbc", "reduce_types_Kt1_A2i64", c_reduce_types(np.int64), 0),
    "reduce_types/i8": X(f"{RC}/reduce_types.tileirbc", "reduce_types_Kt1_A2i8", c_reduce_types(np.int8), 0),
    "prod_small": X(f"{RC}/prod_small.tileirbc", "prod_small_", c_prod_small, 1e-5),
    "softmax_c/2x1024": X(f"{RC}/softmax_c.tileirbc", "softmax_c_Kt1_A2f32_1l0_2t1_A2f32_1l0_2t1_I2_",
                          c_softmax_c(2, 1024), 1e-5),
    "softmax_c/16x64": X(f"{RC}/softmax_c.tileirbc", "softmax_c_Kt1_A2f32_1l0_2t1_A2f32_1l0_2t1_I16_",
                         c_softmax_c(16, 64), 1e-5),
    "col_norm": X(f"{RC}/col_norm.tileirbc", "col_norm_", c_col_norm, 1e-5),
    "cumsum_rows_rev": X(f"{RC}/cumsum_rows_rev.tileirbc", "cumsum_rows_rev_", c_cumsum_rev, 1e-4),
    "cumprod_cols": X(f"{RC}/cumprod_cols.tileirbc", "cumprod_cols_", c_cumprod, 0),
    "scan_pair": X(f"{RC}/scan_pair.tileirbc", "scan_pair_", c_scan_pair, 0),
    "cat_extract": X(f"{RC}/cat_extract.tileirbc", "cat_extract_", c_cat_extract, 1e-6),
    "bcast_rows_cols": X(f"{RC}/bcast_rows_cols.tileirbc", "bcast_rows_cols_", c_bcast, 1e-6),
    "reshape_mix": X(f"{RC}/reshape_mix.tileirbc", "reshape_mix_", c_reshape_mix, 0),
    "transpose_c": X(f"{RC}/transpose_c.tileirbc", "transpose_c_", c_transpose_c, 0),
    "pack_unpack": X(f"{RC}/pack_unpack.tileirbc", "pack_unpack_", c_pack_unpack, 0),
    "bytes_to_f16": X(f"{RC}/bytes_to_f16.tileirbc", "bytes_to_f16_", c_bytes_f16, 0),
    "softmax_v4": X(f"{RC}/softmax_v4.tileirbc", "softmax_c_", c_softmax_c(4, 512), 1e-5),
    "cumsum_v4": X(f"{RC}/cumsum_v4.tileirbc", "cumsum_v4_", c_cumsum_v4, 1e-3),
    "rowsum_loop": X(f"{RC}/rowsum_loop.tileirbc", "rowsum_loop_", c_rowsum_loop, 1e-4),
    "rowsum_loop/no_iteration": X(f"{RC}/rowsum_loop.tileirbc", "rowsum_loop_", c_rowsum_loop_cols(0), 1e-4),
    "rowsum_loop/ragged": X(f"{RC}/rowsum_loop.tileirbc", "rowsum_loop_", c_rowsum_loop_cols(301), 1e-4),
    "scan_permuted": X(f"{RC}/scan_permuted.tileirbc", "scan_permuted_", c_scan_permuted, 0),
    "tiny": X(f"{RC}/tiny.tileirbc", "tiny_", c_tiny, 1e-5),
    "extract_dyn": X(f"{RC}/extract_dyn.tileirbc", "extract_dyn_", c_extract_dyn, 0),
    "insert_block": X(f"{RC}/insert_block.tileirbc", "insert_block_", c_insert, 0),
    "bias2d": X(f"{PCK}/bias2d.tileirbc", "bias2d_", c_bias2d, 1e-6),
    "strided_v4": X(f"{PCK}/strided_v4.tileirbc", "strided_rows_", c_strided_v4, 0),
    "shifted_tile": X(f"{PCK}/shifted_tile.tileirbc", "shifted_tile_", c_shifted_tile, 0),
    "vadd_v4/ragged": X(f"{PCK}/vadd_v4.tileirbc", "vadd_Kt1_A1f32_1i4t1", c_vadd_v4(3000, 3), 0),
    "vadd_v4/whole": X(f"{PCK}/vadd_v4.tileirbc", "vadd_Kt1_A1f32_1i1024t1", c_vadd_v4(2048, 2), 0),
    "saxpy_v4": X(f"{PCK}/saxpy_v4.tileirbc", "saxpy_", c_saxpy_v4, 1e-6),
    "saxpy_spare/i32": X(f"{C13}/saxpy.tileirbc", "saxpy_Kt1_Sf32_A1f32_1l0_A1f32", c_saxpy_spare, 1e-6),
    "saxpy_spare/i64": X(f"{C13}/saxpy.tileirbc", "saxpy_Kt1_Sf32_A1f32_1l0_w", c_saxpy_spare, 1e-6),
    "cast_v4/f16": X(f"{PCK}/cast_v4.tileirbc", "cast_Kt1_A1f32", c_cast_v4(np.float32, np.float16), 0),
    "add2d_v4": X(f"{PCK}/add2d_v4.tileirbc", "add2d_", c_add2d_v4, 1e-6),
    "loop_accum_v4": X(f"{PCK}/loop_accum_v4.tileirbc", "loop_accum_", c_loop_accum_v4, 1e-5),
    "topk_ties/f32": X(f"{C13}/topk.tileirbc", "topk_Kt1_A2f32", c_topk(np.float32), 0),
    "topk_ties/f16": X(f"{C13}/topk.tileirbc", "topk_Kt1_A2f16", c_topk(np.float16), 0),
    "loop_break_trips/f32": X(f"{C13}/loop_break.tileirbc", "loop_break_Kt1_A2f32", c_loop_break(np.float32), 0),
    "loop_break_trips/f16": X(f"{C13}/loop_break.tileirbc", "loop_break_Kt1_A2f16", c_loop_break(np.float16), 0),
    "convert_narrow": X(f"{OPSK}/convert_narrow.tileirbc", "convert_narrow", c_convert_narrow, 0, ("sm_100",)),
    "convert_tf32": X(f"{OPSK}/convert_tf32.tileirbc", "convert_tf32", c_convert_tf32, 0),
    "f4_views": X(f"{OPSK}/f4_views.tileirbc", "f4_views", c_f4_views, 0, ("sm_100",)),
    "f4_const": X(f"{OPSK}/f4_const.tileirbc", "f4_const", c_f4_const, 0, ("sm_100",)),
    "mm_f16_f16": X(f"{MMK}/mm_f16_f16.tileirbc", "mm_", c_mm(np.float16, np.float16, 100, 72, 40, 64, 64), 0,
                    ("sm_75",) + EVERY),
    "mm_f32": X(f"{MMK}/mm_f32.tileirbc", "mm_", c_mm(np.float32, np.float32, 100, 72, 40, 64, 64), 0,
                ("sm_75",) + EVERY),
    "mm_tf32": X(f"{MMK}/mm_tf32.tileirbc", "mm_tf32_", c_mm(np.float32, np.float32, 100, 72, 40, 64, 64), 0),
    "mm_f64": X(f"{MMK}/mm_f64.tileirbc", "mm_", c_mm(np.float64, np.float64, 50, 40, 20, 32, 32), 0),
    "mm_i8": X(f"{MMK}/mm_i8.tileirbc", "mm_", c_mm(np.int8, np.int32, 100, 72, 100, 64, 64), 0),
    "mm_u8": X(f"{MMK}/mm_u8.tileirbc", "mm_", c_mm(np.uint8, np.int32, 100, 72, 100, 64, 64), 0),
    "bmm_f16": X(f"{MMK}/bmm_f16.tileirbc", "bmm_", c_bmm(np.float16, np.float32, 4, 40, 36, 72, 2, 32, 32), 0,
                 ("sm_75",) + EVERY),
    "bmm_i8": X(f"{MMK}/bmm_i8.tileirbc", "bmm_", c_bmm(np.int8, np.int32, 8, 40, 36, 72, 4, 32, 32), 0),
    "mm_scaled_e4m3": X(f"{MMK}/mm_scaled_e4m3.tileirbc", "mm_scaled_", c_mm_scaled("e4m3", 40, 36, 128, 32, 32), 0,
                        ("sm_100", "sm_120")),
    "mm_scaled_e5m2": X(f"{MMK}/mm_scaled_e5m2.tileirbc", "mm_scaled_", c_mm_scaled("e5m2", 40, 36, 128, 32, 32), 0,
                        ("sm_100", "sm_120")),
    "tilegym/layernorm": X(f"{TGK}/layernorm_fwd.tileirbc", "layernorm_fwd_Kt1_A2f16", c_tg_layernorm, 2e-3),
    "tilegym/rms_norm": X(f"{TGK}/rms_norm_fwd.tileirbc", "rms_norm_fwd_Kt1_A2f16", c_tg_rms, 2e-3),
    "tilegym/softmax": X(f"{TGK}/softmax_fwd.tileirbc", "softmax_fwd_Kt1_A2f16", c_tg_softmax, 1e-3),
    "tilegym/relu_squared": X(f"{TGK}/relu_squared_fwd.tileirbc", "relu_squared_fwd_Kt1_A2f16", c_tg_relu2, 0),
    "tilegym/swiglu": X(f"{TGK}/swiglu_fwd.tileirbc", "swiglu_fwd_Kt1_A2f16", c_tg_swiglu, 2e-3),
    "tilegym/cross_entropy": X(f"{TGK}/cross_entropy_fwd.tileirbc", "cross_entropy_fwd_Kt1_A2f16", c_tg_xent, 1e-4),
    "tilegym/rope": X(f"{TGK}/rope_fwd.tileirbc", "rope_fwd_Kt1_A3f16", c_tg_rope, 2e-3),
    "tilegym/gelu": X(f"{TGK}/gelu_fwd.tileirbc", "gelu_fwd_Kt1_A2f16", c_tg_gelu, 2e-3),
    "tilegym/add_rms_norm": X(f"{TGK}/add_rms_norm_fwd.tileirbc", "add_rms_norm_fwd_Kt1_A2f16", c_tg_add_rms, 2e-3),
    "tilegym/softmax_bwd": X(f"{TGK}/softmax_bwd.tileirbc", "softmax_bwd_Kt1_A2f16", c_tg_softmax_bwd, 2e-3),
    "mm_e4m3": X(f"{MMK}/mm_e4m3.tileirbc", "mm_", c_mm_f8("e4m3", np.float32, 100, 72, 100, 64, 64), 0,
                 ("sm_89", "sm_90", "sm_120")),
    "mm_e5m2": X(f"{MMK}/mm_e5m2.tileirbc", "mm_", c_mm_f8("e5m2", np.float32, 100, 72, 100, 64, 64), 0,
                 ("sm_89", "sm_90", "sm_120")),
    "mm_e4m3_f16": X(f"{MMK}/mm_e4m3_f16.tileirbc", "mm_", c_mm_f8("e4m3", np.float16, 100, 72, 100, 64, 64), 0,
                     ("sm_89", "sm_90", "sm_120")),
    "f8_roundtrip": X(f"{OPSK}/f8_roundtrip.tileirbc", "f8_roundtrip", c_f8_roundtrip, 0, ("sm_90", "sm_100", "sm_120")),
    # cuTile's launch bytecode (tests/mma/launch: 16-byte aligned bases, row strides divisible by 4
    # (f64: 2) elements, as the launch promised): row strides K and N here are multiples of 4
    "launch/mm_i8": X(f"{MMK}/launch/mm.kernels.ln8.4gsfbzaa.tileirbc", "mm_",
                      c_mm(np.int8, np.int32, 100, 72, 100, 64, 64), 0),
    "launch/mm_u8": X(f"{MMK}/launch/mm.kernels.ln8.f_y2hldp.tileirbc", "mm_",
                      c_mm(np.uint8, np.int32, 100, 72, 100, 64, 64), 0),
    "launch/mm_f64": X(f"{MMK}/launch/mm.kernels.ln8._f2r396p.tileirbc", "mm_",
                       c_mm(np.float64, np.float64, 50, 40, 20, 32, 32), 0),
    "launch/mm_f32": X(f"{MMK}/launch/mm.kernels.ln8.ymjlokpw.tileirbc", "mm_",
                       c_mm(np.float32, np.float32, 100, 72, 40, 64, 64), 0),
    "launch/mm_tf32": X(f"{MMK}/launch/mm_tf32.kernels.ln20.gqcn080s.tileirbc", "mm_tf32_",
                        c_mm(np.float32, np.float32, 100, 72, 40, 64, 64), 0),
    "mm_bt_f16": X(f"{MM2}/mm_bt_f16.tileirbc", "mm_bt_", c_mm_bt("f16", 100, 72, 100, 64, 64), 0),
    "mm_bt_e4m3": X(f"{MM2}/mm_bt_e4m3.tileirbc", "mm_bt_", c_mm_bt("e4m3", 100, 72, 100, 64, 64), 0,
                    ("sm_89", "sm_90")),
    "mm_bt_f16_a16": X(f"{MM2}/mm_bt_f16_a16.tileirbc", "mm_bt_", c_mm_bt("f16", 112, 80, 96, 64, 64), 0),
    "mm_bt_view_f16_a16": X(f"{MM2}/mm_bt_view_f16_a16.tileirbc", "mm_bt_view_", c_mm_bt("f16", 112, 80, 96, 64, 64), 0),
    "mm_bt_e4m3_a16": X(f"{MM2}/mm_bt_e4m3_a16.tileirbc", "mm_bt_", c_mm_bt("e4m3", 112, 80, 96, 64, 64), 0,
                        ("sm_89", "sm_90")),
    "mm_splitk_f16": X(f"{MM2}/mm_splitk_f16.tileirbc", "mm_splitk_", c_mm_splitk(100, 72, 100, 64, 64, 32), 0),
    "mm_epilogue_f16": X(f"{MM2}/mm_epilogue_f16.tileirbc", "mm_epilogue_", c_mm_epilogue(100, 72, 100, 64, 64), 0),
    "mm_mixed_i8u8": X(f"{MM2}/mm_mixed_i8u8.tileirbc", "mm_mixed_", c_mm_mixed(100, 72, 100, 64, 64), 0),
    "mm_shared_acc": X(f"{MM2}/mm_shared_acc.tileirbc", "mm_shared_acc", c_mm_shared_acc(50, 40, 16, 32, 32), 0),
    "fmha_f16": X(f"{FMHA}/fmha_f16.tileirbc", "fmha", c_fmha(2, 2, 100, 150, 64, 64, False), 4e-3),
    "fmha_f16_causal": X(f"{FMHA}/fmha_f16_causal.tileirbc", "fmha", c_fmha(1, 2, 150, 150, 64, 64, True), 4e-3),
    "fmha_bf16": X(f"{FMHA}/fmha_bf16.tileirbc", "fmha", c_fmha(2, 2, 100, 150, 64, 64, False, bf16=True), 4e-3),
    # launch facts (16-byte alignment, sizes divisible by 16): ragged against the tiles all the same
    "fmha_f16_aligned": X(f"{FMHA}/fmha_f16_aligned.tileirbc", "fmha", c_fmha(2, 2, 144, 208, 64, 64, False), 4e-3),
    "fmha_f16_aligned_128": X(f"{FMHA}/fmha_f16_aligned_128.tileirbc", "fmha",
                              c_fmha(1, 2, 144, 208, 64, 128, False), 4e-3),
    "fmha_f16_causal_aligned": X(f"{FMHA}/fmha_f16_causal_aligned.tileirbc", "fmha",
                                 c_fmha(1, 2, 208, 208, 64, 64, True), 4e-3),
    "fmha_bf16_aligned": X(f"{FMHA}/fmha_bf16_aligned.tileirbc", "fmha",
                           c_fmha(2, 2, 144, 208, 64, 64, False, bf16=True), 4e-3),
    # head dim 128: two 128-byte column blocks a tile (two TMA boxes a copy)
    "fmha_f16_d128_aligned": X(f"{FMHA}/fmha_f16_d128_aligned.tileirbc", "fmha",
                               c_fmha(1, 2, 144, 208, 128, 64, False), 4e-3),
    "fmha_f16_d128_aligned_128": X(f"{FMHA}/fmha_f16_d128_aligned_128.tileirbc", "fmha",
                                   c_fmha(1, 2, 144, 208, 128, 128, False), 4e-3),
    # cuTile's AttentionFMHA at its largest tile (256 query rows, 128 keys, causal): sm_120 holds P V
    # whole (80 KiB of 99), not cut in K and pipelined beside Q K^T (k_chunks.c); ragged
    "fmha_f16_causal_256x128": X(f"{FMHA}/fmha_f16_causal_256x128.tileirbc", "fmha",
                                 c_fmha(1, 2, 272, 272, 64, 256, True), 4e-3, ("sm_90", "sm_120")),
    # the bytecode cuTile 1.7.0 wrote at launch on the H200 ([4, 4, 4096, 64] f16; tiles 64x64, 128x64)
    "fmha_launch_64": X(f"{FMHA}/launch/fmha.kernels.ln13.karzz69l.tileirbc", "fmha",
                        c_fmha(1, 4, 144, 208, 64, 64, False), 4e-3),
    "fmha_launch_128": X(f"{FMHA}/launch/fmha.kernels.ln13.teualzs7.tileirbc", "fmha",
                         c_fmha(1, 4, 144, 208, 64, 128, False), 4e-3),
}
CASES.update(small_cases())
CASES.update(big_cases())
CASES.update(tilegym151_cases())
