"""Kernels with alignment facts, for the vectorization tests of tests/pipeline.bats.

The corpus kernels (tests/kernels/) make no alignment promises, so neither
NVIDIA's tileiras nor ours may use 16-byte accesses on them. These declare
16-byte aligned bases, unit innermost strides and sizes divisible by 4
(cuTile ArrayConstraint base_addr_divisible_by / stride_constant /
shape_divisible_by), which reach the bytecode as `assume div_by` facts.
Exported by tests/pipeline/gen-kernels into tests/pipeline/corpus/.
"""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint


def aligned(dtype, ndim=1, shape_div=4, stride_div=4):
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,),
                           shape_divisible_by=shape_div,
                           stride_divisible_by=(stride_div,) * (ndim - 1) + (1,),
                           base_addr_divisible_by=16)


@ct.kernel
def vadd(a, b, c, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ta + tb)


@ct.kernel
def saxpy(alpha, x, y, out, tile: ct.Constant[int]):
    pid = ct.bid(0)
    tx = ct.load(x, index=(pid,), shape=(tile,))
    ty = ct.load(y, index=(pid,), shape=(tile,))
    ct.store(out, index=(pid,), tile=alpha * tx + ty)


@ct.kernel
def cast(x, y, tile: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    ct.store(y, index=(pid,), tile=ct.astype(t, y.dtype))


@ct.kernel
def add2d(x, y, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    tx = ct.load(x, index=(i, j), shape=(tm, tn))
    ty = ct.load(y, index=(i, j), shape=(tm, tn))
    ct.store(out, index=(i, j), tile=tx * 2.0 + ty)


@ct.kernel
def loop_accum(x, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    pid = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        acc = acc + ct.load(x, index=(pid, k), shape=(tm, tn),
                            padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid, 0), tile=acc)


F32, F16, BF16 = ct.float32, ct.float16, ct.bfloat16
KERNELS = [
    # name, kernel, signatures
    ("vadd_v4", vadd, [[aligned(F32), aligned(F32), aligned(F32), 1024],
                       [aligned(F32, shape_div=1024), aligned(F32, shape_div=1024),
                        aligned(F32, shape_div=1024), 1024]]),
    ("saxpy_v4", saxpy, [[ScalarConstraint(F32), aligned(F32), aligned(F32), aligned(F32), 2048]]),
    ("cast_v4", cast, [[aligned(F32), aligned(F16, shape_div=8), 1024],
                       [aligned(BF16, shape_div=8), aligned(F32), 1024]]),
    ("add2d_v4", add2d, [[aligned(F32, 2), aligned(F32, 2), aligned(F32, 2), 16, 64]]),
    ("loop_accum_v4", loop_accum, [[aligned(F32, 2), aligned(F32, 2), 16, 32]]),
]
