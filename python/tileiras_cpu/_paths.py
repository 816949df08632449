"""Where tileiras_cpu finds the project's build: the directory holding
bin/tileiras, lib/libtilerun.so and lib/tileiras_cpu/libcuda.so.1.

In order: $TILEIRAS_CPU_BUILD; the checkout this package sits in
(python/tileiras_cpu/../../build); the directory above the `tileiras` on PATH.
"""
import os
import shutil

FAKE_DRIVER = os.path.join("lib", "tileiras_cpu", "libcuda.so.1")
LIBTILERUN = os.path.join("lib", "libtilerun.so")
TILEIRAS = os.path.join("bin", "tileiras")


def _complete(build):
    return all(os.path.exists(os.path.join(build, f)) for f in (FAKE_DRIVER, LIBTILERUN, TILEIRAS))


def find_build():
    """The build directory, or raise ImportError naming what is missing."""
    candidates = []
    if os.environ.get("TILEIRAS_CPU_BUILD"):
        candidates.append(os.environ["TILEIRAS_CPU_BUILD"])
    here = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(here, "..", "..", "build"))
    on_path = shutil.which("tileiras")
    if on_path:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(on_path)), ".."))
    for build in candidates:
        if _complete(build):
            return os.path.realpath(build)
    raise ImportError("tileiras_cpu: no build with %s, %s and %s in %s (run `make` in the "
                      "tileiras checkout, or set TILEIRAS_CPU_BUILD)"
                      % (TILEIRAS, LIBTILERUN, FAKE_DRIVER, ", ".join(candidates)))
