"""Kernels with cuTile 1.7's @ct.kernel(num_worker_warps=N) (Tile IR 13.5's
entry hint num_worker_warps_per_cta), for tests/workers.bats. Exported by
tests/workers/gen-workers."""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint


def arr(dtype, ndim=1):
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                           alias_groups=(), may_alias_internally=False)


@ct.kernel(num_worker_warps=8)
def vadd8(a, b, c, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ta + tb)


@ct.kernel(num_worker_warps=2)
def vadd2(a, b, c, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ta + tb)


@ct.kernel(num_worker_warps=ct.ByTarget(sm_100=8, default=2))
def vbt(a, b, c, tile: ct.Constant[int]):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ta - tb)


@ct.kernel(occupancy=4)
def vocc4(a, b, c, tile: ct.Constant[int]):
    """cuTile's occupancy hint: 4 CTAs an SM (NVIDIA: .maxnreg 128 at 128 threads)"""
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ct.exp(ta) * tb + ct.sin(ta))


@ct.kernel(occupancy=ct.ByTarget(sm_90=3, default=16), num_worker_warps=8)
def vocc_bt(a, b, c, tile: ct.Constant[int]):
    """by target, with 8 warps: sm_90 3 CTAs (.maxnreg 80), others 16 (the floor, 64)"""
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(tile,))
    tb = ct.load(b, index=(pid,), shape=(tile,))
    ct.store(c, index=(pid,), tile=ct.exp(ta) * tb + ct.sin(ta))


F32 = [arr(ct.float32)] * 3
KERNELS = [
    ("vadd8_sm100", vadd8, [F32 + [1024]], "sm_100"),
    ("vadd8_sm90", vadd8, [F32 + [1024]], "sm_90"),
    ("vadd2_sm90", vadd2, [F32 + [256]], "sm_90"),
    # hints {default: 2 warps, sm_100: 8 warps}
    ("bytarget", vbt, [F32 + [256]], "sm_100"),
    ("occ4_sm90", vocc4, [F32 + [1024]], "sm_90"),
    # hints {sm_90: occupancy 3, default: occupancy 16; num_worker_warps 8}
    ("occ_bytarget", vocc_bt, [F32 + [1024]], "sm_90"),
]
