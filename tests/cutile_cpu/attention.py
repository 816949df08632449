"""A small attention on the CPU: tests/fmha/kernels.py's fmha (online
softmax, two products per K/V step), f16, plain and causal, against numpy."""
import math
import os
import sys

from _check import HERE, ct, np, check

sys.path.insert(0, os.path.join(HERE, "..", "fmha"))
from kernels import fmha  # noqa: E402

rng = np.random.default_rng(5)


def reference(q, k, v, causal):
    q, k, v = (t.astype(np.float32) for t in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


B, H, S, D, TM, TN = 1, 2, 64, 32, 32, 32
q, k, v = (rng.standard_normal((B, H, S, D)).astype(np.float16) for _ in range(3))
for causal in (False, True):
    o = np.zeros((B, H, S, D), np.float16)
    ct.launch(None, (S // TM, B * H), fmha, (q, k, v, o, 1 / math.sqrt(D), D, H, TM, TN, causal))
    check("fmha f16 %s" % ("causal" if causal else "plain"), o, reference(q, k, v, causal),
          rtol=2e-2, atol=2e-2)
