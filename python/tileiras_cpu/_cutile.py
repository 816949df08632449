"""What tileiras_cpu changes in cuTile Python, in memory only (its installed
files are not touched):

- compile: cuTile's tileiras becomes the project's bin/tileiras with
  --emit=ptx appended to every compile (cuda.tile._compile._find_compiler_bin),
  so the "cubin" cuTile loads is PTX with line info, which the CPU driver
  runs; the compiler version cuTile keys its disk cache with gains a line
  naming tileiras_cpu, and the cache moves to a tileiras_cpu subdirectory, so
  a real cubin is never handed to the CPU driver nor PTX to a real one;
- launch: cuda.tile.launch (see _launch.py).
"""
import importlib.metadata
import os
import warnings

KNOWN_CUTILE_VERSIONS = ("1.7.0",)


def check_version():
    """Warn once when the installed cuTile is not one tileiras_cpu knows."""
    try:
        version = importlib.metadata.version("cuda-tile")
    except importlib.metadata.PackageNotFoundError:
        raise ImportError("tileiras_cpu: cuTile Python (the cuda-tile package) is not installed")
    if version not in KNOWN_CUTILE_VERSIONS:
        warnings.warn("tileiras_cpu knows cuTile %s; this is cuTile %s: its driver calls and "
                      "compile hooks may differ" % (", ".join(KNOWN_CUTILE_VERSIONS), version),
                      stacklevel=3)
    return version


def patch_compile(build):
    from cuda.tile import _compile as c
    from cuda.tile._cext import default_tile_context

    bindir = os.path.join(build, "bin")

    class PtxCompiler(c._CompilerBinary):
        def run(self, args, flags, timeout_sec=None):
            if "-o" in args:
                flags = [*flags, "--emit=ptx"]
            return super().run(args, flags, timeout_sec)

    binary = PtxCompiler(os.path.join(bindir, "tileiras"),
                         bindir + os.pathsep + os.environ.get("PATH", ""),
                         os.environ.get("LD_LIBRARY_PATH", ""), True)
    version = ((c._try_get_compiler_version(binary.path) or "tileiras (unknown version)\n")
               + "tileiras_cpu: PTX for the CPU driver\n")
    c._find_compiler_bin = lambda: binary
    c._get_compiler_version_string = lambda: version
    config = default_tile_context.config
    if config.cache_dir is not None:
        config.cache_dir = os.path.join(config.cache_dir, "tileiras_cpu")
