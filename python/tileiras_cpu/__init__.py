"""tileiras_cpu: cuTile Python on the CPU (docs/cutile-cpu.md).

    import tileiras_cpu          # before cuda.tile
    import cuda.tile as ct
    ct.launch(None, grid, kernel, (numpy_array, ...))    # runs on the CPU

Importing it loads the project's CPU driver as libcuda.so.1 (before cuTile
loads the real one), points cuTile's compile at the project's tileiras
(PTX with line info, sm_100 without TMA) and wraps cuda.tile.launch (numpy arrays and
torch CPU tensors, results in place, synchronous, device printf to
sys.stdout, faults as KernelFault naming the kernel's file and line).
cuTile's installed files are not changed. `python -m tileiras_cpu script.py`
runs a script with it active. TILEIRAS_CPU_CHECK=racecheck|none changes the
checks (memcheck by default); set_check() does too.
"""
import os
import sys

from tileiras_cpu import _cutile
from tileiras_cpu._cutile import KNOWN_CUTILE_VERSIONS
from tileiras_cpu._driver import CHECKS, Driver
from tileiras_cpu._launch import KernelFault, make_from_kernel_args, make_launch
from tileiras_cpu._paths import find_build

__all__ = ["KernelFault", "KNOWN_CUTILE_VERSIONS", "set_check", "build_dir", "cutile_version"]

if "cuda.tile" in sys.modules:
    raise ImportError("tileiras_cpu: import tileiras_cpu before cuda.tile (cuTile has already "
                      "loaded its CUDA driver)")

cutile_version = _cutile.check_version()
build_dir = find_build()
_driver = Driver(build_dir)


def set_check(name):
    """The checks of the next launches: "memcheck" (default), "racecheck" or "none"."""
    if name not in CHECKS:
        raise ValueError("tileiras_cpu: check must be one of %s" % ", ".join(CHECKS))
    _driver.set_check(name)


set_check(os.environ.get("TILEIRAS_CPU_CHECK", "memcheck"))

import cuda.tile  # noqa: E402  (after the driver is loaded)

_cutile.patch_compile(build_dir)
import cuda.tile._cext as _cext  # noqa: E402
# ct.launch is _cext.launch; tests and tools call _cext's own entry points too
_cext.launch = cuda.tile.launch = make_launch(_driver, _cext.launch)
_cext.launch_extended = make_launch(_driver, _cext.launch_extended, kernel_at=3, args_at=4)
if hasattr(cuda.tile, "launch_extended"):
    cuda.tile.launch_extended = _cext.launch_extended
_cext._benchmark = make_launch(_driver, _cext._benchmark)
try:    # cuTile's autotuner holds _benchmark by name
    import cuda.tile.tune._tune as _tune, cuda.tile.tune._tune_utils as _tune_utils  # noqa: E402
    _tune._benchmark = _tune_utils._benchmark = _cext._benchmark
except ImportError:
    pass
import cuda.tile.compilation  # noqa: E402
_sig = cuda.tile.compilation.KernelSignature
_sig.from_kernel_args = make_from_kernel_args(_sig.from_kernel_args)
