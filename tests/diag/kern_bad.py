import cuda.tile as ct


@ct.kernel
def imm(a, b, c, t: ct.Constant[int]):
    ta = ct.load(a, index=(0, 0), shape=(t, t))
    tb = ct.load(b, index=(0, 0), shape=(t, t))
    acc = ct.full((t, t), 0, dtype=ct.int32)
    acc = ct.mma(ta, tb, acc)  # MMA_LINE
    ct.store(c, index=(0, 0), tile=acc)
