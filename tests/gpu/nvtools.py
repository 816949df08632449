"""Shared helpers of scripts/compare-nvidia, scripts/bench-compile and scripts/gpu-check.

Stdlib only. Finds NVIDIA's tools (the pip wheels in a venv), runs commands
with wall/CPU timing, formats tables.
"""
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIP_PACKAGES = ["nvidia-cuda-tileiras", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm", "cuda-tile"]


def venv_dirs(root=ROOT):
    return [os.path.join(root, ".venv")]


def nvidia_bin(explicit=None, root=ROOT):
    """The directory holding NVIDIA's tileiras (and ptxas, cuobjdump, nvdisasm
    beside it), or None. explicit (a tileiras path or its directory) is the
    only candidate when given; else $TILEIRAS_NVIDIA, then <root>/.venv's
    nvidia/cu13/bin."""
    cands = []
    c = explicit or os.environ.get("TILEIRAS_NVIDIA")
    if c:
        cands.append(os.path.dirname(c) if os.path.isfile(c) else c)
    for v in ([] if c else venv_dirs(root)):
        cands += sorted(glob.glob(os.path.join(v, "lib", "python3*", "site-packages", "nvidia", "cu1*", "bin")),
                        reverse=True)
    for d in cands:
        if os.access(os.path.join(d, "tileiras"), os.X_OK):
            return os.path.abspath(d)
    return None


def tool(nvbin, name):
    """A tool beside NVIDIA's tileiras, else on PATH, else None."""
    if nvbin and os.access(os.path.join(nvbin, name), os.X_OK):
        return os.path.join(nvbin, name)
    return shutil.which(name)


def setup_venv(root=ROOT, log=sys.stderr):
    """Create <root>/.venv with NVIDIA's wheels (network needed). Returns the bin dir or None."""
    v = os.path.join(root, ".venv")
    py = os.path.join(v, "bin", "python")
    if not os.path.exists(py):
        print("creating %s" % v, file=log)
        if subprocess.call([sys.executable, "-m", "venv", v]) != 0:
            return None
    print("pip install %s" % " ".join(PIP_PACKAGES), file=log)
    if subprocess.call([py, "-m", "pip", "install", "-q"] + PIP_PACKAGES) != 0:
        return None
    return nvidia_bin(root=root)


def nvidia_env():
    """The environment NVIDIA's tileiras must run in: no CUDA_HOME/CUDA_PATH,
    or it loads libNVVM from there and fails with exit 5 (docs/abi.md 0)."""
    env = dict(os.environ)
    env.pop("CUDA_HOME", None)
    env.pop("CUDA_PATH", None)
    return env


class Run:
    def __init__(self, rc, wall, cpu, stdout, stderr):
        self.rc, self.wall, self.cpu, self.stdout, self.stderr = rc, wall, cpu, stdout, stderr

    GENERIC = ("failed to compile Tile IR program", "input does not correspond to Tile IR bytecode")

    def first_error(self):
        """The most telling line of stderr: the first error that is not one of
        the generic closing lines, else the last line."""
        lines = [ln.strip() for ln in (self.stderr or b"").decode("utf-8", "replace").splitlines() if ln.strip()]
        if not lines:
            return ""
        errs = [ln for ln in lines if "error" in ln.lower() and not any(g in ln for g in self.GENERIC)]
        return (errs[0] if errs else lines[-1])[:200]


def run(cmd, env=None, timeout=300, stdin=None, stdout=subprocess.PIPE, cwd=None):
    """Run cmd; wall seconds and child CPU seconds (user+sys)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, timeout=timeout, stdin=stdin, stdout=stdout,
                           stderr=subprocess.PIPE, cwd=cwd)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout, (e.stderr or b"") + b"\n(timed out)"
    except OSError as e:
        rc, out, err = 127, b"", str(e).encode()
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return Run(rc, wall, cpu, out, err)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_table(headers, rows, right=None):
    """Plain-text table; right: set of column indexes to right-align."""
    right = right or set()
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for n, r in enumerate(cells):
        out.append("  ".join(c.rjust(w[i]) if i in right else c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
        if n == 0:
            out.append("  ".join("-" * x for x in w))
    return "\n".join(out)


def machine_description():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs" % (cpu or "unknown CPU", os.cpu_count() or 0)


def corpus_files(corpus, versions=None):
    """[(version, module, path)] of tests/corpus-like directories.

    corpus is a directory holding <version>/<module>.tileirbc, or a directory
    of .tileirbc files, or a single file."""
    if os.path.isfile(corpus):
        return [("", os.path.splitext(os.path.basename(corpus))[0], corpus)]
    out = []
    flat = sorted(glob.glob(os.path.join(corpus, "*.tileirbc")))
    for p in flat:
        out.append(("", os.path.splitext(os.path.basename(p))[0], p))
    for d in sorted(glob.glob(os.path.join(corpus, "*", ""))):
        v = os.path.basename(os.path.dirname(d))
        if versions and v not in versions:
            continue
        for p in sorted(glob.glob(os.path.join(d, "*.tileirbc"))):
            out.append((v, os.path.splitext(os.path.basename(p))[0], p))
    return out
