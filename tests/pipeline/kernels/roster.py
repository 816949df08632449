"""Kernels for the rest of the non-MMA op roster, for tests/ops.bats: atomics in
every mode, type, ordering and scope; loops with break and continue; math
with rounding modes and flush-to-zero; print / printf / assert; strided,
gather/scatter and atomic-reduction views; grid dependency control.

Exported by tests/pipeline/gen-kernels into tests/pipeline/corpus/ as
bytecode 13.4 (the views need 13.3, grid dependency control 13.4).
"""
import cuda.tile as ct
from cuda.tile import MemoryOrder as MO, MemoryScope as MS, RoundingMode as RM
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint


def arr(dtype, ndim=1):
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False)


def scalar(dtype):
    return ScalarConstraint(dtype)


def aligned(dtype, ndim=1):
    """16-byte aligned base, unit innermost stride, sizes and outer strides divisible by 4."""
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False,
                           stride_constant=(None,) * (ndim - 1) + (1,), shape_divisible_by=4,
                           stride_divisible_by=(4,) * (ndim - 1) + (1,), base_addr_divisible_by=16)


@ct.kernel
def atomic_int(x, out, tile: ct.Constant[int]):
    """Every integer mode, every ordering and scope; results used (atom) and unused (red)."""
    pid = ct.bid(0)
    idx = pid * tile + ct.arange(tile, dtype=ct.int32)
    v = ct.load(out, index=(pid,), shape=(tile,))
    a = ct.atomic_add(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    b = ct.atomic_max(x, idx, v, memory_order=MO.ACQUIRE, memory_scope=MS.BLOCK)
    c = ct.atomic_min(x, idx, v, memory_order=MO.RELEASE, memory_scope=MS.SYS)
    d = ct.atomic_and(x, idx, v, memory_order=MO.ACQ_REL, memory_scope=MS.DEVICE)
    e = ct.atomic_or(x, idx, v)
    f = ct.atomic_xor(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.BLOCK)
    g = ct.atomic_xchg(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    ct.store(out, index=(pid,), tile=a + b + c + d + e + f + g)
    # results unused: red where the ordering allows it
    ct.atomic_add(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    ct.atomic_max(x, idx, v, memory_order=MO.RELEASE, memory_scope=MS.BLOCK)
    ct.atomic_min(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.SYS)
    ct.atomic_and(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    ct.atomic_or(x, idx, v, memory_order=MO.RELEASE, memory_scope=MS.DEVICE)
    ct.atomic_xor(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    ct.atomic_add(x, idx, v, memory_order=MO.ACQUIRE, memory_scope=MS.DEVICE)


@ct.kernel
def atomic_float(x, out, tile: ct.Constant[int]):
    """addf (f16, bf16, f32, f64)."""
    pid = ct.bid(0)
    idx = pid * tile + ct.arange(tile, dtype=ct.int32)
    v = ct.load(out, index=(pid,), shape=(tile,))
    a = ct.atomic_add(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.DEVICE)
    b = ct.atomic_add(x, idx, v, memory_order=MO.ACQ_REL, memory_scope=MS.SYS)
    ct.store(out, index=(pid,), tile=a + b)
    ct.atomic_add(x, idx, v, memory_order=MO.RELAXED, memory_scope=MS.BLOCK)


@ct.kernel
def atomic_cas(x, out, tile: ct.Constant[int]):
    """compare-and-swap and exchange (i32, i64, f32, f64), masked by the bounds check."""
    pid = ct.bid(0)
    idx = pid * tile + ct.arange(tile, dtype=ct.int32)
    v = ct.load(out, index=(pid,), shape=(tile,))
    old = ct.atomic_cas(x, idx, v, v + v, memory_order=MO.ACQ_REL, memory_scope=MS.DEVICE)
    prev = ct.atomic_xchg(x, idx, old, memory_order=MO.RELEASE, memory_scope=MS.SYS)
    ct.store(out, index=(pid,), tile=old + prev)


@ct.kernel
def atomic_counter(counter, out, tile: ct.Constant[int]):
    """One scalar atomic per tile block whose old value every thread needs."""
    pid = ct.bid(0)
    slot = ct.atomic_add(counter, 0, 1)
    ct.store(out, index=(pid,), tile=ct.full((tile,), 0, dtype=ct.int32) + slot)


@ct.kernel
def atomic_red_view(x, y, tile: ct.Constant[int]):
    """TiledView.atomic_store_add: atomic_red_view_tko (13.3), partition and strided views."""
    pid = ct.bid(0)
    t = ct.load(y, index=(pid, 0), shape=(tile, tile))
    tv = x.tiled_view((tile, tile))
    tv.atomic_store_add((pid, 0), t)
    sv = x.tiled_view((tile, tile), traversal_steps=(tile // 2, tile))
    sv.atomic_store_add((pid, 0), t)


@ct.kernel
def strided_gather(x, out, tile: ct.Constant[int]):
    """Overlapping tiles (strided_view) and advanced indexing (gather_scatter_view)."""
    pid = ct.bid(0)
    tv = x.tiled_view((tile, tile), traversal_steps=(tile // 2, tile),
                      padding_mode=ct.PaddingMode.NEG_INF)
    a = tv.load((ct.minimum(pid, tv.num_tiles(0) - 1), 0))
    rows = ct.arange(tile, dtype=ct.int32) * 2
    b = ct.load_advanced_indexing(x, (rows, ct.Slice(0, tile)), padding_mode=ct.PaddingMode.ZERO)
    ct.store_advanced_indexing(out, (rows + 1, ct.Slice(0, tile)), a + b)


@ct.kernel
def strided_rows(x, y, out, tm: ct.Constant[int], tn: ct.Constant[int]):
    """Overlapping windows (strided views) over aligned arrays: tm x tn tiles
    of x starting every tm // 2 rows, and 1-D windows of y of 2 * tn elements
    starting every tn (the first half of each is stored)."""
    pid = ct.bid(0)
    a = x.tiled_view((tm, tn), traversal_steps=(tm // 2, tn)).load((pid, 0))
    w = y.tiled_view((2 * tn,), traversal_steps=(tn,), padding_mode=ct.PaddingMode.ZERO).load((pid,))
    ct.store(out, index=(pid, 0), tile=a + ct.extract(w, (0,), shape=(tn,)).reshape((1, tn)))


@ct.kernel
def loops(x, out, n, tile: ct.Constant[int]):
    """while loops with break and continue, nested, carrying tiles and scalars."""
    pid = ct.bid(0)
    acc = ct.zeros((tile,), dtype=ct.float32)
    i = 0
    while i < n:
        i = i + 1
        if i % 3 == 0:
            continue
        t = ct.load(x, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
        if ct.gather(x, i * tile) > 1000.0:
            break
        j = 0
        while True:
            acc = acc + t
            j = j + 1
            if j >= 2:
                break
    ct.store(out, index=(pid,), tile=acc)


@ct.kernel
def fround(x, y, out, tile: ct.Constant[int]):
    """Rounding modes and flush-to-zero on add/sub/mul/div/sqrt, approx exp/tanh, ftz exp2/rsqrt/max."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.load(y, index=(pid,), shape=(tile,))
    r = ct.add(a, b, rounding_mode=RM.RZ) + ct.sub(a, b, rounding_mode=RM.RM, flush_to_zero=True)
    r = r + ct.mul(a, b, rounding_mode=RM.RP) + ct.truediv(a, b, rounding_mode=RM.RN, flush_to_zero=True)
    r = r + ct.truediv(a, b, rounding_mode=RM.APPROX) + ct.truediv(a, b, rounding_mode=RM.FULL)
    r = r + ct.sqrt(ct.abs(a), rounding_mode=RM.RZ) + ct.sqrt(ct.abs(b), rounding_mode=RM.APPROX)
    r = r + ct.exp(a, rounding_mode=RM.APPROX) + ct.exp2(b, flush_to_zero=True)
    r = r + ct.rsqrt(ct.abs(a), flush_to_zero=True) + ct.tanh(b, rounding_mode=RM.APPROX)
    r = r + ct.maximum(a, b, flush_to_zero=True) + ct.minimum(a, b, propagate_nan=True)
    r = r + ct.atan2(a, b) + ct.log(ct.abs(b)) + ct.pow(ct.abs(a), 3)
    ct.store(out, index=(pid,), tile=r)


@ct.kernel
def fround64(x, y, out, tile: ct.Constant[int]):
    """IEEE rounding modes on f64 add/sub/mul/div/sqrt/fma."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.load(y, index=(pid,), shape=(tile,))
    r = ct.add(a, b, rounding_mode=RM.RZ) + ct.sub(a, b, rounding_mode=RM.RM)
    r = r + ct.mul(a, b, rounding_mode=RM.RP) + ct.truediv(a, b, rounding_mode=RM.RZ)
    r = r + ct.sqrt(ct.abs(a), rounding_mode=RM.RP) + ct.exp(a) + ct.atan2(a, b) + a ** 3
    ct.store(out, index=(pid,), tile=r)


@ct.kernel
def fround16(x, y, out, tile: ct.Constant[int]):
    """The same on f16 / bf16 (computed in f32 where PTX has no instruction) and conversions with rounding."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.load(y, index=(pid,), shape=(tile,))
    r = ct.add(a, b, rounding_mode=RM.RZ) + ct.mul(a, b, rounding_mode=RM.RM)
    r = r + ct.truediv(a, b) + ct.sqrt(ct.abs(a)) + ct.exp(b) + ct.tanh(a)
    r = r + ct.maximum(a, b) + ct.atan2(a, b)
    f = ct.astype(r, ct.float32)
    ct.store(out, index=(pid,), tile=ct.astype(f * 3.0, out.dtype, rounding_mode=RM.RZ))


@ct.kernel
def imath2(x, y, out, tile: ct.Constant[int]):
    """Signed and unsigned division / remainder / shifts, mulhi, pow with an integer exponent."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.load(y, index=(pid,), shape=(tile,))
    r = a // b + a % b + ct.cdiv(a, b) + (a >> 2) + ct.minimum(a, b)
    ct.store(out, index=(pid,), tile=r)


@ct.kernel
def umath2(x, y, out, tile: ct.Constant[int]):
    """Unsigned remainder, ceiling division, shifts, min (cuTile's floordiv is not valid unsigned)."""
    pid = ct.bid(0)
    a = ct.load(x, index=(pid,), shape=(tile,))
    b = ct.load(y, index=(pid,), shape=(tile,))
    r = a % b + ct.cdiv(a, b) + (a >> 2) + ct.minimum(a, b)
    ct.store(out, index=(pid,), tile=r)


@ct.kernel
def prints(x, xi, xh, tile: ct.Constant[int]):
    """printf of scalars of every width, 1-D and 2-D tiles, a long tile; print; assert."""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(tile,))
    ti = ct.load(xi, index=(pid,), shape=(tile,))
    th = ct.load(xh, index=(pid,), shape=(tile,))
    s = ct.full((), 7, dtype=ct.int64)
    u = ct.full((), 9, dtype=ct.uint32)
    b = ct.full((), 3, dtype=ct.int8)
    ct.printf("pid %d i64 %lld u32 %u i8 %d f16 %f\n", pid, s, u, b, th.item() if False else ct.full((), 1.5, dtype=ct.float16))
    ct.printf("tile %5.2f ints %x\n", t, ti)
    ct.print(f"2d={ct.reshape(t, (2, tile // 2))} half={th}")
    ct.print("long", ct.reshape(ct.astype(ct.arange(64, dtype=ct.int32), ct.int64), (8, 8)))
    ct.assert_(t >= 0.0, "negative input")
    ct.assert_(ct.reshape(ti, (2, tile // 2)) != 3)


@ct.kernel
def gdc(x, out, tile: ct.Constant[int]):
    """Programmatic dependent launch: griddepcontrol.wait / launch_dependents (sm_90+)."""
    pid = ct.bid(0)
    ct.grid_dependency_control_wait()
    t = ct.load(x, index=(pid,), shape=(tile,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(out, index=(pid,), tile=t * 2.0)


@ct.kernel
def shifted_tile(x, out, tile: ct.Constant[int]):
    """Tile index pid - 1: -1 for block 0. NVIDIA's tileiras zero-extends an
    i32 tile index, so that tile is out of bounds (padding, no access);
    docs/lowering.md §5 "Index arithmetic"."""
    pid = ct.bid(0)
    t = ct.load(x, index=(pid - 1,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(pid,), tile=t + 1.0)


KERNELS = [
    ("atomic_int", atomic_int, [[arr(ct.int32), arr(ct.int32), 128],
                                [arr(ct.int64), arr(ct.int64), 128],
                                [arr(ct.uint32), arr(ct.uint32), 128],
                                [arr(ct.uint64), arr(ct.uint64), 128]]),
    ("atomic_float", atomic_float, [[arr(ct.float32), arr(ct.float32), 128],
                                    [arr(ct.float64), arr(ct.float64), 128],
                                    [arr(ct.float16), arr(ct.float16), 128],
                                    [arr(ct.bfloat16), arr(ct.bfloat16), 128]]),
    ("atomic_cas", atomic_cas, [[arr(ct.int32), arr(ct.int32), 128],
                                [arr(ct.int32), arr(ct.int32), 16],    # replicated over threads
                                [arr(ct.int64), arr(ct.int64), 128],
                                [arr(ct.float32), arr(ct.float32), 128],
                                [arr(ct.float64), arr(ct.float64), 128]]),
    ("atomic_counter", atomic_counter, [[arr(ct.int32), arr(ct.int32), 256]]),
    ("atomic_red_view", atomic_red_view, [[arr(ct.float32, 2), arr(ct.float32, 2), 16],
                                          [arr(ct.int32, 2), arr(ct.int32, 2), 16]]),
    ("strided_gather", strided_gather, [[arr(ct.float32, 2), arr(ct.float32, 2), 16]]),
    ("strided_v4", strided_rows, [[aligned(ct.float32, 2), aligned(ct.float32), aligned(ct.float32, 2), 8, 64]]),
    ("loops", loops, [[arr(ct.float32), arr(ct.float32), scalar(ct.int32), 128]]),
    ("fround", fround, [[arr(ct.float32), arr(ct.float32), arr(ct.float32), 128]]),
    ("fround64", fround64, [[arr(ct.float64), arr(ct.float64), arr(ct.float64), 128]]),
    ("fround16", fround16, [[arr(ct.float16), arr(ct.float16), arr(ct.float16), 128],
                            [arr(ct.bfloat16), arr(ct.bfloat16), arr(ct.bfloat16), 128]]),
    ("imath2", imath2, [[arr(ct.int32), arr(ct.int32), arr(ct.int32), 128],
                        [arr(ct.int64), arr(ct.int64), arr(ct.int64), 128]]),
    ("umath2", umath2, [[arr(ct.uint32), arr(ct.uint32), arr(ct.uint32), 128],
                        [arr(ct.uint64), arr(ct.uint64), arr(ct.uint64), 128]]),
    ("prints", prints, [[arr(ct.float32), arr(ct.int32), arr(ct.float16), 8]]),
    ("gdc", gdc, [[arr(ct.float32), arr(ct.float32), 128]]),
    ("shifted_tile", shifted_tile, [[arr(ct.float32), arr(ct.float32), 128]]),
]
