"""Shared by the cuTile programs of tests/cutile-cpu.bats: makes
tileiras_cpu importable (python/ of this checkout), activates it before
cuda.tile, and checks results against numpy. Each program prints one
"ok NAME" line per check and exits 0, or fails with the first mismatch;
"skip NAME: why" for a check whose optional package (ml_dtypes, torch) is
missing. Run one by hand: .venv/bin/python tests/cutile_cpu/elementwise.py
(or python -m tileiras_cpu tests/cutile_cpu/elementwise.py)."""
import importlib
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tileiras_cpu  # noqa: E402  (before cuda.tile)
import cuda.tile as ct  # noqa: E402,F401
import numpy as np  # noqa: E402


def corpus(name):
    """A module of tests/kernels (the corpus kernels, reused here)."""
    sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
    return importlib.import_module(name)


def optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


ml_dtypes = optional("ml_dtypes")
torch = optional("torch")


def check(name, got, want, rtol=0.0, atol=0.0):
    if isinstance(want, (str, tuple, bool)):
        if got != want:
            raise AssertionError("%s: got %r, want %r" % (name, got, want))
        print("ok", name)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype and (got.dtype.kind == "V" or want.dtype.kind == "V"):
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float64) if got.dtype.kind != "b" else got,
                               want.astype(np.float64) if want.dtype.kind != "b" else want,
                               rtol=rtol, atol=atol, err_msg=name)
    print("ok", name)


def skip(name, why):
    print("skip %s: %s" % (name, why))


def expect_fault(name, kind, kernel, marker, launch):
    """launch() raises tileiras_cpu.KernelFault of this kind whose place is
    the line of kernel's source that holds marker (a comment)."""
    src, first = inspect.getsourcelines(kernel._pyfunc)
    line = first + [i for i, text in enumerate(src) if marker in text][0]
    path = os.path.abspath(inspect.getsourcefile(kernel._pyfunc))
    try:
        launch()
    except tileiras_cpu.KernelFault as e:
        print("KernelFault:", e)
        check(name + " kind", e.kind, kind)
        check(name + " place", (e.file, e.line), (path, line))
        check(name + " message names file:line", "%s:%d:" % (path, line) in str(e), True)
        return
    raise AssertionError("%s: no KernelFault" % name)
