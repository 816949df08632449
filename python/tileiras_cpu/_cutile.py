"""What tileiras_cpu changes in cuTile Python, in memory only (its installed
files are not touched):

- compile: cuTile's tileiras becomes the project's bin/tileiras with
  --emit=ptx appended to every compile and TILEIRAS_NO_TMA=1 in its
  environment (cuda.tile._compile._find_compiler_bin), so the "cubin" cuTile
  loads is PTX with line info and no TMA (whose tensor maps no host code
  fills on the CPU), for the device's sm_100, which the CPU driver runs; the compiler version cuTile keys its disk cache with gains a line
  naming tileiras_cpu, and the cache moves to a tileiras_cpu subdirectory, so
  a real cubin is never handed to the CPU driver nor PTX to a real one;
- launch: cuda.tile.launch (see _launch.py).
"""
import importlib.metadata
import os
import subprocess
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
        """_CompilerBinary.run with PTX out and no TMA (its errors as cuTile's)."""

        def run(self, args, flags, timeout_sec=None):
            if "-o" in args:
                flags = [*flags, "--emit=ptx"]
            env = dict(os.environ, PATH=self.bin_path, TILEIRAS_NO_TMA="1")
            try:
                subprocess.run([self.path, *args, *flags], env=env, check=True,
                               capture_output=True, timeout=timeout_sec)
            except subprocess.CalledProcessError as e:
                message, loc = c._parse_tileir_stderr(e.stderr.decode())
                raise c.TileCompilerExecutionError(e.returncode, message, loc, " ".join(flags),
                                                   c._try_get_compiler_version(self.path))
            except subprocess.TimeoutExpired:
                raise c.TileCompilerTimeoutError(
                    "`tileiras` compiler exceeded timeout %ss" % timeout_sec, " ".join(flags),
                    c._try_get_compiler_version(self.path))

    binary = PtxCompiler(os.path.join(bindir, "tileiras"),
                         bindir + os.pathsep + os.environ.get("PATH", ""), "", True)
    version = ((c._try_get_compiler_version(binary.path) or "tileiras (unknown version)\n")
               + "tileiras_cpu: PTX for the CPU driver\n")
    c._find_compiler_bin = lambda: binary
    c._get_compiler_version_string = lambda: version
    config = default_tile_context.config
    if config.cache_dir is not None:
        config.cache_dir = os.path.join(config.cache_dir, "tileiras_cpu")
