"""torch_cuda_cpu: a pytest plugin that runs tests written for torch on a
CUDA device on the CPU, with cuTile's launches going to tile-run through
tileiras_cpu (docs/cutile-cpu.md, "cuTile's own test suite"). For the test
suite of cutile-python (issue 40); not part of what users import.

    PYTHONPATH=python:tests/cutile_suite pytest -p torch_cuda_cpu test/...

What it does, once, when pytest loads it:
  - imports tileiras_cpu first (the CPU driver and cuTile's launch on the CPU);
  - enters a TorchFunctionMode that turns every device argument naming CUDA
    ("cuda", "cuda:0", torch.device("cuda"), 0 for .to/.cuda) into the CPU,
    for factory functions, .to(), .cuda(), *_like and torch.testing's
    make_tensor alike; Tensor.is_cuda reads True (tests check it before
    launching); products with an out_dtype (torch.mm(a, b, out_dtype=...),
    which torch's CPU side lacks) computed widened and cast;
  - replaces torch.cuda's device, stream and event calls by CPU stand-ins:
    one device whose capability is the CPU driver's, streams that cuTile
    accepts as the default stream, events that record wall time,
    synchronize() doing nothing (launches are synchronous).
Python processes a test starts (cuTile's test_assert.py runs itself as a
script) get the same through tests/cutile_suite/sitecustomize.py when
TORCH_CUDA_CPU=1 is in their environment (scripts/cutile-suite-cpu sets it).
CUDA graphs, IPC and several devices are not emulated: their calls raise
RuntimeError("... not available on the CPU"), which the suite's runner counts
as a class of its own."""
import time

import tileiras_cpu  # noqa: F401  (before torch or cuda.tile load any driver)
import torch
from torch.overrides import TorchFunctionMode

_CPU = torch.device("cpu")


def _is_cuda(d):
    if isinstance(d, torch.device):
        return d.type == "cuda"
    if isinstance(d, str):
        return d == "cuda" or d.startswith("cuda:")
    return False


def _cpu_args(func, args, kwargs):
    if "device" in kwargs and _is_cuda(kwargs["device"]):
        kwargs["device"] = _CPU
    if func in (torch.Tensor.to, torch.Tensor.cuda) and len(args) > 1:
        a = list(args)
        if _is_cuda(a[1]) or (func is torch.Tensor.cuda and isinstance(a[1], int)):
            a[1] = _CPU
        args = tuple(a)
    return args, kwargs


# products with an out_dtype, which torch's CPU side lacks ("Could not run
# 'aten::mm.dtype' with arguments from the 'CPU' backend"): the operands
# widened to f32 (i32 for integers), the product cast to out_dtype, which is
# what CUDA's kernels accumulate in
_OUT_DTYPE_PRODUCTS = {torch.mm, torch.bmm, torch.matmul, torch.addmm, torch.baddbmm}


def _product_out_dtype(func, args, kwargs):
    out_dtype = kwargs.pop("out_dtype")
    wide = torch.int32 if not out_dtype.is_floating_point else torch.float32
    args = tuple(a.to(wide) if isinstance(a, torch.Tensor) else a for a in args)
    return func(*args, **kwargs).to(out_dtype)


class CudaOnCpu(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            return args[0]
        if func in _OUT_DTYPE_PRODUCTS and kwargs.get("out_dtype") is not None:
            args, kwargs = _cpu_args(func, args, kwargs)
            return _product_out_dtype(func, args, kwargs)
        if getattr(func, "__name__", "") == "__get__" and \
                getattr(getattr(func, "__self__", None), "__name__", "") == "is_cuda":
            return True
        args, kwargs = _cpu_args(func, args, kwargs)
        return func(*args, **kwargs)


class _Stream:
    """The default stream: cuTile takes it as stream 0."""
    cuda_stream = 0

    def __init__(self, *a, **k):
        pass

    def __cuda_stream__(self):
        return (0, 0)

    def synchronize(self):
        pass

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        e = event or _Event()
        e.record()
        return e

    def query(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Event:
    def __init__(self, enable_timing=False, *a, **k):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, other):
        return (other.t - self.t) * 1000.0


class _Props:
    def __init__(self, cc):
        self.name = "tile-run (CPU)"
        self.major, self.minor = cc
        self.multi_processor_count = 1
        self.total_memory = 1 << 34


def _unavailable(what):
    def f(*a, **k):
        raise RuntimeError("%s is not available on the CPU (tileiras_cpu)" % what)
    return f


def _capability():
    from cuda.tile._cext import get_compute_capability
    try:
        return tuple(get_compute_capability())
    except Exception:
        return (8, 9)


def _patch_torch_cuda():
    c = torch.cuda
    stream = _Stream()
    simple = {
        "is_available": lambda: True, "is_initialized": lambda: True, "init": lambda: None,
        "device_count": lambda: 1, "current_device": lambda: 0, "set_device": lambda d: None,
        "synchronize": lambda *a, **k: None, "empty_cache": lambda: None,
        "current_stream": lambda *a, **k: stream, "default_stream": lambda *a, **k: stream,
        "set_stream": lambda s: None, "stream": lambda s=None: stream,
        "get_device_capability": lambda *a, **k: _capability(),
        "get_device_properties": lambda *a, **k: _Props(_capability()),
        "get_device_name": lambda *a, **k: "tile-run (CPU)",
        "mem_get_info": lambda *a, **k: (1 << 34, 1 << 34),
        "manual_seed": torch.manual_seed, "manual_seed_all": torch.manual_seed,
        "Stream": _Stream, "Event": _Event,
        "CUDAGraph": _unavailable("torch.cuda.CUDAGraph"), "graph": _unavailable("torch.cuda.graph"),
    }
    for name, f in simple.items():
        setattr(c, name, f)


_active = []


def activate():
    """torch's CUDA side on the CPU from now on, in this thread (once)."""
    if _active:
        return
    _patch_torch_cuda()
    mode = CudaOnCpu()
    mode.__enter__()            # for the whole process, in this thread
    _active.append(mode)


def pytest_configure(config):
    activate()
