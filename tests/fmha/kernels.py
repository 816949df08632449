"""Attention forward (FlashAttention-2 style, online softmax) for tests/fmha,
exported by tests/fmha/gen-fmha. q, k, v, o are [batch, heads, seq, D]; one
block per (tm query rows, batch*head). Each step of the K/V loop makes two
products: S = Q K^T (K read through a transposed view, as cuTile users write
it) and acc += P V, with the running row maximum and sum in between."""
import math

import cuda.tile as ct

LOG2E = 1.0 / math.log(2)


@ct.kernel
def fmha(q, k, v, o, qk_scale: float, D: ct.Constant[int], H: ct.Constant[int], tm: ct.Constant[int],
         tn: ct.Constant[int], causal: ct.Constant[bool]):
    bm = ct.bid(0)
    bh = ct.bid(1)
    b = bh // H
    h = bh % H
    scale = qk_scale * LOG2E
    rows = (bm * tm + ct.arange(tm, dtype=ct.int32))[:, None]
    first_col = ct.arange(tn, dtype=ct.int32)[None, :]
    row_max = ct.full((tm, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.full((tm, 1), 0.0, dtype=ct.float32)
    acc = ct.full((tm, D), 0.0, dtype=ct.float32)
    qt = ct.load(q, index=(b, h, bm, 0), shape=(1, 1, tm, D), padding_mode=ct.PaddingMode.ZERO).reshape((tm, D))
    n_kv = k.shape[2]
    if causal:
        steps = ct.cdiv(min((bm + 1) * tm, n_kv), tn)
    else:
        steps = ct.cdiv(n_kv, tn)
    for j in range(0, steps):
        kt = ct.load(k, index=(b, h, 0, j), shape=(1, 1, D, tn), order=(0, 1, 3, 2),
                     padding_mode=ct.PaddingMode.ZERO).reshape((D, tn))
        s = ct.mma(qt, kt, ct.full((tm, tn), 0.0, dtype=ct.float32))
        cols = j * tn + first_col
        keep = cols < n_kv
        if causal:
            keep = keep & (rows >= cols)
        s = s + ct.where(keep, 0.0, -math.inf)
        new_max = ct.maximum(row_max, ct.max(s, axis=-1, keepdims=True) * scale)
        p = ct.exp2(s * scale - new_max)
        alpha = ct.exp2(row_max - new_max)
        row_sum = row_sum * alpha + ct.sum(p, axis=-1, keepdims=True)
        vt = ct.load(v, index=(b, h, j, 0), shape=(1, 1, tn, D), padding_mode=ct.PaddingMode.ZERO).reshape((tn, D))
        acc = ct.mma(p.astype(q.dtype), vt, acc * alpha)
        row_max = new_max
    out = (acc / row_sum).reshape((1, 1, tm, D)).astype(o.dtype)
    ct.store(o, index=(b, h, bm, 0), tile=out)
