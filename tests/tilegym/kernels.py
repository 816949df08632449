"""TileGym-style memory-bound kernels (issue 17's register/occupancy set):
what TileGym 1.5's forward kernels do, written in cuTile Python at TileGym's
sizes (a full 4096-wide row per tile block, 16-bit inputs, f32 math), for
scripts/compare-nvidia. Exported by tests/tilegym/gen (bytecode 13.4)."""
import cuda.tile as ct

N = 4096            # hidden size: one row per block, as TileGym's row kernels


@ct.kernel
def layernorm_fwd(x, w, b, y, eps, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    tw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32).reshape((1, tn))
    tb = ct.load(b, index=(0,), shape=(tn,)).astype(ct.float32).reshape((1, tn))
    mean = ct.sum(t, axis=1, keepdims=True) / tn
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / tn
    out = d * ct.rsqrt(var + eps) * tw + tb
    ct.store(y, index=(row, 0), tile=out.astype(y.dtype))


@ct.kernel
def rms_norm_fwd(x, w, y, eps, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    tw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32).reshape((1, tn))
    ms = ct.sum(t * t, axis=1, keepdims=True) / tn
    out = t * ct.rsqrt(ms + eps) * tw
    ct.store(y, index=(row, 0), tile=out.astype(y.dtype))


@ct.kernel
def softmax_fwd(x, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    out = e / ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=out.astype(y.dtype))


@ct.kernel
def relu_squared_fwd(x, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    r = ct.maximum(t, 0.0)
    ct.store(y, index=(row, 0), tile=(r * r).astype(y.dtype))


@ct.kernel
def swiglu_fwd(a, b, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    ta = ct.load(a, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    tb = ct.load(b, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    silu = ta / (1.0 + ct.exp(-ta))
    ct.store(y, index=(row, 0), tile=(silu * tb).astype(y.dtype))


@ct.kernel
def cross_entropy_fwd(logits, target, loss, tv: ct.Constant[int]):
    """Online log-sum-exp over the vocabulary in chunks of tv, minus the target's logit."""
    row = ct.bid(0)
    m = ct.full((1, 1), -1e30, dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(ct.num_tiles(logits, axis=1, shape=(1, tv))):
        t = ct.load(logits, index=(row, k), shape=(1, tv), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        mn = ct.maximum(m, ct.max(t, axis=1, keepdims=True))
        s = s * ct.exp(m - mn) + ct.sum(ct.exp(t - mn), axis=1, keepdims=True)
        m = mn
    tgt = ct.load(target, index=(row,), shape=(1,))
    xt = ct.gather(logits, (row, tgt.item())).astype(ct.float32)
    ct.store(loss, index=(row,), tile=(ct.log(s) + m).reshape((1,)) - xt)


@ct.kernel
def rope_fwd(x, cos, sin, y, th: ct.Constant[int], td: ct.Constant[int]):
    """Rotary embedding on [S, H, D] (one position per block, halves rotated)."""
    pos = ct.bid(0)
    half = td // 2
    x1 = ct.load(x, index=(pos, 0, 0), shape=(1, th, half)).astype(ct.float32)
    x2 = ct.load(x, index=(pos, 0, 1), shape=(1, th, half)).astype(ct.float32)
    c = ct.load(cos, index=(pos, 0), shape=(1, half)).astype(ct.float32).reshape((1, 1, half))
    s_ = ct.load(sin, index=(pos, 0), shape=(1, half)).astype(ct.float32).reshape((1, 1, half))
    ct.store(y, index=(pos, 0, 0), tile=(x1 * c - x2 * s_).astype(y.dtype))
    ct.store(y, index=(pos, 0, 1), tile=(x2 * c + x1 * s_).astype(y.dtype))


@ct.kernel
def gelu_fwd(x, y, tn: ct.Constant[int]):
    """GELU, tanh approximation (TileGym's activation)."""
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    g = 0.5 * t * (1.0 + ct.tanh(0.7978845608028654 * (t + 0.044715 * t * t * t)))
    ct.store(y, index=(row, 0), tile=g.astype(y.dtype))


@ct.kernel
def add_rms_norm_fwd(x, r, w, y, res, eps, tn: ct.Constant[int]):
    """Residual add then RMS norm: res = x + r (stored), y = rmsnorm(res) * w."""
    row = ct.bid(0)
    t = (ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32) +
         ct.load(r, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32))
    ct.store(res, index=(row, 0), tile=t.astype(res.dtype))
    tw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32).reshape((1, tn))
    ms = ct.sum(t * t, axis=1, keepdims=True) / tn
    ct.store(y, index=(row, 0), tile=(t * ct.rsqrt(ms + eps) * tw).astype(y.dtype))


@ct.kernel
def softmax_bwd(y, dy, dx, tn: ct.Constant[int]):
    """Softmax backward: dx = y * (dy - sum(dy * y))."""
    row = ct.bid(0)
    ty = ct.load(y, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    tdy = ct.load(dy, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    s = ct.sum(ty * tdy, axis=1, keepdims=True)
    ct.store(dx, index=(row, 0), tile=(ty * (tdy - s)).astype(dx.dtype))
