"""FFT-style butterflies with shape ops, real arithmetic (re and im as two tiles).

fft: a radix-2 Stockham FFT along the rows of a (tm, n) tile. Stage st
(s = 2**st, m = n / 2s) views each row as (2, m, s), extracts the halves a
and b, and writes a + b and (a - b) * w_p, w_p = exp(-2 pi i p / 2m), as
cat + permute to (m, 2, s): the output is in natural order, no bit
reversal. Twiddles come from a table tw[j] = exp(-2 pi i j / n), j < n/2,
reshaped to (m, s) with column 0 extracted.

bit_reverse: the bit-reversal permutation of each 64-element row, as a
reshape to (tm, 2, 2, 2, 2, 2, 2) and a permute reversing the six bit axes.
"""
import cuda.tile as ct
from _common import arr


@ct.kernel
def fft(xr, xi, twr, twi, yr, yi, tm: ct.Constant[int], n: ct.Constant[int]):
    pid = ct.bid(0)
    re = ct.load(xr, index=(pid, 0), shape=(tm, n), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    im = ct.load(xi, index=(pid, 0), shape=(tm, n), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    wr_all = ct.load(twr, index=(0,), shape=(n // 2,))
    wi_all = ct.load(twi, index=(0,), shape=(n // 2,))
    for st in ct.static_iter(range(n.bit_length() - 1)):
        s = ct.static_eval(1 << st)
        m = ct.static_eval(n // (2 << st))
        r4 = re.reshape((tm, 2, m, s))
        i4 = im.reshape((tm, 2, m, s))
        ar = ct.extract(r4, (0, 0, 0, 0), shape=(tm, 1, m, s))
        br = ct.extract(r4, (0, 1, 0, 0), shape=(tm, 1, m, s))
        ai = ct.extract(i4, (0, 0, 0, 0), shape=(tm, 1, m, s))
        bi = ct.extract(i4, (0, 1, 0, 0), shape=(tm, 1, m, s))
        wr = ct.extract(wr_all.reshape((m, s)), (0, 0), shape=(m, 1)).reshape((1, 1, m, 1))
        wi = ct.extract(wi_all.reshape((m, s)), (0, 0), shape=(m, 1)).reshape((1, 1, m, 1))
        dr = ar - br
        di = ai - bi
        re = ct.permute(ct.cat((ar + br, dr * wr - di * wi), 1), (0, 2, 1, 3)).reshape((tm, n))
        im = ct.permute(ct.cat((ai + bi, dr * wi + di * wr), 1), (0, 2, 1, 3)).reshape((tm, n))
    ct.store(yr, index=(pid, 0), tile=re.astype(yr.dtype))
    ct.store(yi, index=(pid, 0), tile=im.astype(yi.dtype))


@ct.kernel
def bit_reverse(x, y, tm: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(tm, 64))
    r = ct.permute(t.reshape((tm, 2, 2, 2, 2, 2, 2)), (0, 6, 5, 4, 3, 2, 1))
    ct.store(y, index=(pid, 0), tile=r.reshape((tm, 64)))


CORPUS = [
    ("fft", fft, "radix-2 Stockham FFT along rows, re/im as two f32 tiles, f32 twiddle table: per stage reshape to 4-D, extract the halves, cat + permute (0,2,1,3); 4x64 f32 (6 stages) and 2x128 f16 in/out (7 stages)", [
        [arr(ct.float32, 2), arr(ct.float32, 2), arr(ct.float32), arr(ct.float32),
         arr(ct.float32, 2), arr(ct.float32, 2), 4, 64],
        [arr(ct.float16, 2), arr(ct.float16, 2), arr(ct.float32), arr(ct.float32),
         arr(ct.float16, 2), arr(ct.float16, 2), 2, 128],
    ]),
    ("bit_reverse", bit_reverse, "bit-reversal permutation of 64-element rows: reshape to 7-D (tm,2,2,2,2,2,2) and permute (0,6,5,4,3,2,1); 4x64 f32 and 8x64 f16", [
        [arr(ct.float32, 2), arr(ct.float32, 2), 4],
        [arr(ct.float16, 2), arr(ct.float16, 2), 8],
    ]),
]
