"""Control flow, shapes, casts and scalars on the CPU, with tests/kernels'
corpus kernels: a for loop over K tiles, a while loop with break, a topk
loop of max/argmax/where, layer norm (rsqrt, broadcast), transpose and a
3-D permute, f32<->f16 casts, runtime scalars of several types."""
from _check import ct, np, check, corpus

rng = np.random.default_rng(6)

loop_accum = corpus("loop_accum").loop_accum
x = rng.standard_normal((16, 100)).astype(np.float32)
out = np.zeros((16, 32), np.float32)
ct.launch(None, (2,), loop_accum, (x, out, 8, 32))
want = np.pad(x, ((0, 0), (0, 28))).reshape(16, 4, 32).sum(axis=1)
check("for loop over K tiles", out, want, rtol=1e-5, atol=1e-5)

loop_break = corpus("loop_break").loop_break
x = np.ones((8, 64 * 5), np.float32)
out, cnt = np.zeros((8, 64), np.float32), np.zeros(1, np.int32)
ct.launch(None, (1,), loop_break, (x, out, cnt, 2.5, 8, 64))
check("while loop with break: trips", cnt, [3])
check("while loop with break: sum", out, np.full((8, 64), 3.0, np.float32))

topk = corpus("topk").topk
x = rng.permutation(16 * 128).reshape(16, 128).astype(np.float32)
vals, idxs = np.zeros((16, 4), np.float32), np.zeros((16, 4), np.int32)
ct.launch(None, (2,), topk, (x, vals, idxs, 8, 128, 4))
order = np.argsort(-x, axis=1)[:, :4]
check("topk indices", idxs, order)
check("topk values", vals, np.take_along_axis(x, order, axis=1))

layer_norm = corpus("layer_norm").layer_norm
x = rng.standard_normal((16, 128)).astype(np.float32)
w, b = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
y = np.zeros((16, 128), np.float16)
ct.launch(None, (2,), layer_norm, (x, w, b, y, 1e-5, 8, 128))
d = x - x.mean(axis=1, keepdims=True)
check("layer_norm f32 -> f16", y, d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * w + b,
      rtol=2e-3, atol=2e-3)

shapes = corpus("transpose")
x = rng.standard_normal((64, 96)).astype(np.float32)
out = np.zeros((96, 64), np.float32)
ct.launch(None, (2, 3), shapes.transpose, (x, out, 32, 32))
check("transpose 64x96", out, x.T)
x3 = rng.standard_normal((4, 8, 16)).astype(np.float32)
out3 = np.zeros((16, 8, 4), np.float32)
ct.launch(None, (1,), shapes.permute3d, (x3, out3, 4, 8, 16))
check("permute 3-D", out3, x3.transpose(2, 1, 0))

cast = corpus("casts").cast
x = (rng.standard_normal(256) * 100).astype(np.float32)
h = np.zeros(256, np.float16)
ct.launch(None, (2,), cast, (x, h, 128))
check("cast f32 -> f16", h, x.astype(np.float16))
back = np.zeros(256, np.float32)
ct.launch(None, (2,), cast, (h, back, 128))
check("cast f16 -> f32", back, h.astype(np.float32))

scalar_params = corpus("scalars").scalar_params
out = np.zeros(256, np.float32)
ct.launch(None, (2,), scalar_params, (out, 1, 2, 0.5, 0.25, 3, 2.0, 128))
check("runtime scalars", out, np.full(256, (1 + 2 + 0.5 + 0.25 + 3) * 2.0, np.float32))
