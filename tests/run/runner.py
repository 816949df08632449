"""Run corpus kernels on tile-run and check them against numpy: the library
behind tests/run/run-corpus (our PTX) and scripts/check-emulator (NVIDIA's
PTX on the same inputs).

A Run is one kernel entry, one set of inputs (a manifest case of
scripts/gpu-manifest.json, or an extra case of tests/run/extra.py), one PTX
file and one target. run() writes each array argument as a .npy file (the
case's backing buffer: strided arrays are views into it, poisoned where the
kernel must not write, no guard zone so tile-run's memcheck sees every
access outside it), passes sizes, strides and scalars as numbers in the
kernel's parameter order (cuTile's ABI, docs/abi.md section 4:
tests/gpu/abi.py expand()), runs

    tile-run --gpu-name SM --entry SYMBOL --grid X,Y,Z --check MODE --out DIR PTX ARG...

and compares what --out wrote with the reference (tests/gpu/cases.py
compare(): the manifest's metric; extras: their tol). Result: (status,
detail) with status "ok", "FAIL" (wrong values, fault, tile-run error) or
"skip" (tile-run does not exist); classify() turns the FAIL of a kernel
listed in KNOWN into "known".

NvidiaPtx captures NVIDIA's PTX for check-emulator; tensor_map_params()
counts the TMA tensor maps an entry of it takes.

compile_ptx() makes our PTX the way tileiras does, through the stages, with
tile-sched's --num-warps (the driver has no option for it).
"""
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

import abi
import cases as mcases
import extra
import refs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "corpus")
VERSIONS = ("13.1", "13.2", "13.3", "13.4")
SEED = 1234
SMALL = 1 << 16          # a manifest case's own sizes are used when no array exceeds this many elements
RUN_TIMEOUT = 300

# Kernels our stages cannot compile yet (a compile failure elsewhere is a failure).
NOT_COMPILED = {}

# Known wrong results, by kernel label: reported as "known", not failures
# (a pass is reported as ok with a note to drop the entry). Each names its
# owner; docs/tile-run-validation.md has the diagnosis.
KNOWN = {                       # label: (reason, the PTX it concerns: ("ours",), ("nvidia",) or both)
}

# Manifest inputs that reach undefined behaviour, replaced for these runs.
# elementwise_int: where(ty != 0, tx // ty + tx % ty, a) evaluates the
# division in every lane; integer division by zero is undefined (LLVM sdiv),
# so both NVIDIA's tileiras and ours drop the select (lanes with ty == 0 get
# the quotient's garbage, identically) and load ty without the bounds guard
# (the padding lanes only feed the division): no zeros in y, and a guard
# zone after each array for that speculated read.
UB_FIX = {
    "elementwise_int": {"nonzero": "y", "guard": mcases.GUARD},
}


# ---------------------------------------------------------------- compiling

# extra tile-sched / tile-ptx options (run-corpus --sched-flags, --ptx-flags),
# e.g. tile-sched --tma
SCHED_FLAGS = ""
PTX_FLAGS = ""


def compile_ptx(bindir, bytecode, sm, warps, cache):
    """Our PTX for one module: (text, None) or (None, error)."""
    key = (bytecode, sm, warps)
    if key not in cache:
        cmd = ("%s/tile-read %s | %s/tile-lower --gpu-name=%s | %s/tile-sched --num-warps=%d %s | "
               "%s/tile-ptx --gpu-name=%s %s" % (bindir, bytecode, bindir, sm, bindir, warps, SCHED_FLAGS, bindir, sm,
                                                 PTX_FLAGS))
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
        if p.returncode:
            err = [ln for ln in p.stderr.splitlines() if "error" in ln] or p.stderr.splitlines() or ["exit %d" % p.returncode]
            cache[key] = (None, err[0][:300])
        else:
            cache[key] = (p.stdout, None)
    return cache[key]


def entries(ptx):
    return re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)", ptx, re.M)


def digest(text):
    return hashlib.sha1(text.encode()).hexdigest()[:12]


# ---------------------------------------------------------------- one set of inputs

def fmt_number(dtype, v):
    """A scalar argument as tile-run reads it: integers in decimal, floats as
    the exact hex float of the value the parameter holds (f16 and bf16
    already rounded to nearest even, so tile-run's conversion is exact)."""
    if dtype in ("f32", "f64", "f16"):
        return float.hex(float({"f32": np.float32, "f64": np.float64, "f16": np.float16}[dtype](v)))
    if dtype == "bf16":
        return float.hex(float(refs.bf16_to_f32(np.array([abi.bf16_bits(float(v))], np.uint16))[0]))
    return str(int(v))


class Inputs:
    """What one run needs besides the PTX: args (numbers, or ('npy', array)),
    grid, and check(outputs, stdout) -> (ok, detail)."""


def manifest_inputs(symbol, spec, case, ci, sizes):
    fix = UB_FIX.get(spec["label"], {})
    inst = mcases.Instance(symbol, spec, case, ci, SEED, sizes=sizes, guard=fix.get("guard", 0),
                           want_ref=not fix)
    if fix.get("nonzero"):
        a = next(a for a in inst.arrays if a.name == fix["nonzero"])
        v = a.view(inst.init[a.name])
        v[v == 0] = 1
        logical = {a.name: a.view(inst.init[a.name]).copy() for a in inst.arrays}
        inst.ref = refs.REFS[spec["ref"]](logical, dict(inst.scalars))
    flat = abi.expand(spec["params"])
    vals = inst.values({a.name: None for a in inst.arrays})
    args, pos = [], {}
    for f in flat:
        src = f["src"]
        if src[0] == "ptr":
            pos[src[1]] = len(args)
            args.append(("npy", inst.init[src[1]]))
        elif src[0] == "scalar":
            args.append(fmt_number(f["ctype"], vals[src]))
        else:
            args.append(str(int(vals[src])))
    inp = Inputs()
    inp.args, inp.grid = args, inst.grid

    def check(outs, stdout):
        if spec["check"]["metric"] == "printf":
            r = mcases.check_printf(inst, stdout)
        else:
            r = mcases.compare(inst, {a.name: outs[pos[a.name]].view(a.np_dtype) for a in inst.arrays
                                      if a.role != "in"})
        detail = "; ".join(r.get("problems", []))
        if r["ok"] and "err" in r:
            detail = "relnorm %.2g (tol %g)" % (r["err"], spec["check"]["tol"])
        return r["ok"], detail
    inp.check = check
    return inp


def manifest_variants(spec, sizes_mode="small"):
    """[(case index, sizes, description)]: every untimed case at its own sizes
    when small, else at the manifest's selftest sizes (ragged for every
    kernel: no size is a multiple of its tile); sizes_mode "selftest": always
    the selftest sizes, "full": always the case's own; duplicates dropped."""
    out, seen = [], set()
    for ci, c in enumerate(spec["cases"]):
        if c.get("time"):
            continue
        sizes = c.get("sizes", {})
        if sizes_mode == "selftest":
            sizes = spec["selftest"]
        elif sizes_mode == "small":
            env = dict(sizes)
            big = any(np.prod([mcases.ev(x, env) for x in p["shape"]]) > SMALL
                      for p in spec["params"] if "array" in p)
            if big:
                sizes = spec["selftest"]
        key = (tuple(sorted(sizes.items())), repr(c.get("strides")), repr(c.get("scalars")))
        if key in seen:
            continue
        seen.add(key)
        d = " ".join("%s=%s" % kv for kv in sorted(sizes.items()))
        if c.get("strides"):
            d += " strided"
        out.append((ci, sizes, d))
    return out


def extra_inputs(name):
    x = extra.CASES[name]
    params, grid, want = x.build(np.random.default_rng(1))
    args, pos = [], {}
    for i, (kind, v) in enumerate(params):
        if kind in ("arr", "ptr"):
            pos[i] = len(args)
            args.append(("npy", v))
            if kind == "arr":
                args += [str(s) for s in v.shape] + [str(s // v.itemsize) for s in v.strides]
        else:
            args.append(fmt_number(kind, v))
    inp = Inputs()
    inp.args, inp.grid = args, tuple(grid)

    def check(outs, stdout):
        for i, ref in want.items():
            e = mismatch(outs[pos[i]].view(params[i][1].dtype).reshape(params[i][1].shape), ref, x.tol)
            if e:
                return False, "param %d: %s" % (i, e)
        return True, ""
    inp.check = check
    return inp


def mismatch(got, ref, tol):
    """'' when array got matches an extra.py reference (an array, or
    (decode, array) for stored bits): within tol elementwise (numpy.isclose,
    rtol = atol = tol), bit-equal for tol 0; else what differs, and where
    first. (tests/gpu/extra_launch.py checks GPU results with it too.)"""
    if isinstance(ref, tuple):
        got, ref = ref[0](got), ref[1]
    ref = np.asarray(ref)
    g, w = got.astype(np.float64), ref.astype(np.float64)
    if tol:
        bad = ~np.isclose(g, w, rtol=tol, atol=tol)
    else:
        bad = (got != ref.astype(got.dtype)) & ~(np.isnan(g) & np.isnan(w))
    if not bad.any():
        return ""
    at = tuple(int(j) for j in np.argwhere(bad)[0])
    return "%d of %d elements differ, first at %s: got %r want %r" % (
        int(bad.sum()), bad.size, list(at), got[at].item(), ref[at].item())


# ---------------------------------------------------------------- running

def tile_run_path(bindir):
    return os.path.join(bindir, "tile-run")


def run(tile_run, ptx_path, sm, entry, inp, check_mode="memcheck", tmp=None, extra_opts=(), array_offset=0):
    """(status, detail) of one run on tile-run; array_offset: every array that many
    bytes off its boundary (tile-run's FILE.npy@N)."""
    if not os.access(tile_run, os.X_OK):
        return "skip", "%s not built" % tile_run
    own = tmp is None
    tmp = tmp or tempfile.mkdtemp(prefix="run-corpus.")
    try:
        outd = os.path.join(tmp, "out")
        shutil.rmtree(outd, ignore_errors=True)
        os.makedirs(outd)
        argv = []
        for i, a in enumerate(inp.args):
            if isinstance(a, tuple):
                p = os.path.join(tmp, "arg%d.npy" % i)
                np.save(p, a[1])
                argv.append(p + ("@%d" % array_offset if array_offset else ""))
            else:
                argv.append(a)
        cmd = [tile_run, "--gpu-name", sm, "--entry", entry, "--grid", ",".join(str(g) for g in inp.grid),
               "--check", check_mode, "--out", outd] + list(extra_opts) + [ptx_path] + argv
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            return "FAIL", "tile-run timed out after %ds" % RUN_TIMEOUT
        err = " | ".join(ln for ln in p.stderr.strip().splitlines()[:3])
        if p.returncode == 3:
            return "FAIL", "kernel faulted: " + err
        if p.returncode:
            return "FAIL", "tile-run exit %d: %s" % (p.returncode, err)
        outs = {}
        for i, a in enumerate(inp.args):
            if isinstance(a, tuple):
                f = os.path.join(outd, "%d.npy" % i)
                if not os.path.exists(f):
                    return "FAIL", "tile-run wrote no %d.npy" % i
                outs[i] = np.load(f)
                if outs[i].nbytes != a[1].nbytes:
                    return "FAIL", "%d.npy has %d bytes, the argument %d" % (i, outs[i].nbytes, a[1].nbytes)
        ok, detail = inp.check(outs, p.stdout)
        return ("ok" if ok else "FAIL"), detail
    finally:
        if own:
            shutil.rmtree(tmp, ignore_errors=True)


def classify(label, status, detail, side="ours"):
    """A FAIL of a KNOWN kernel becomes "known"; a pass of one says so."""
    if label in KNOWN and side in KNOWN[label][1]:
        if status == "FAIL":
            return "known", "%s [known: %s]" % (detail, KNOWN[label][0])
        if status == "ok":
            return "ok", (detail + " " if detail else "") + "[listed in runner.KNOWN but passes: drop it]"
    return status, detail


# ---------------------------------------------------------------- what there is to run

class Kernel:
    """One entry with its inputs: family (the module), label, symbol (or
    entry prefix), bytecode per version, targets, and variants: [(tag,
    make_inputs)]."""

    def __init__(self, family, label, symbol, bytecode, targets, variants, exact_symbol=True):
        self.family, self.label, self.symbol = family, label, symbol
        self.bytecode, self.targets, self.variants = bytecode, targets, variants
        self.exact_symbol = exact_symbol

    def entry_in(self, ptx):
        names = entries(ptx)
        if self.exact_symbol:
            return self.symbol if self.symbol in names else None
        hits = [n for n in names if n.startswith(self.symbol)]
        return hits[0] if len(hits) == 1 else None


def kernels(manifest_path=mcases.DEFAULT_MANIFEST, sizes_mode="small"):
    man = mcases.load_manifest(manifest_path)
    out = []
    for sym, spec in man["kernels"].items():
        bc = {v: os.path.join(CORPUS, v, spec["module"] + ".tileirbc") for v in VERSIONS}
        variants = []
        for ci, sizes, d in manifest_variants(spec, sizes_mode):
            variants.append(("case%d %s" % (ci, d),
                             (lambda sym=sym, spec=spec, ci=ci, sizes=sizes:
                              manifest_inputs(sym, spec, spec["cases"][ci], ci, sizes))))
        out.append(Kernel(spec["module"], spec["label"], sym, bc, None, variants))
    for name, x in extra.CASES.items():
        d = os.path.dirname(x.bytecode)
        mod = os.path.splitext(os.path.basename(x.bytecode))[0]
        if os.path.dirname(d) == CORPUS:            # a corpus module with hand-made inputs: every version
            fam, bc = mod, {v: os.path.join(CORPUS, v, mod + ".tileirbc") for v in VERSIONS}
        else:
            fam = {"reduce": "reduce", "ops": "ops", "pipeline": "pipeline", "mma": "mma", "mma2": "mma2",
                   "tilegym": "tilegym", "fmha": "fmha", "big": "big"}[
                os.path.relpath(d, os.path.join(ROOT, "tests")).split("/")[0]]
            bc = {"": x.bytecode}
        out.append(Kernel(fam, name, x.prefix, bc, x.targets,
                          [("fixed", lambda name=name: extra_inputs(name))], exact_symbol=False))
    return out


def families(ks):
    seen = []
    for k in ks:
        if k.family not in seen:
            seen.append(k.family)
    return seen


def select(ks, names):
    """Kernels whose family, label or label prefix (before '/') is in names."""
    if not names:
        return ks
    return [k for k in ks if k.family in names or k.label in names or k.label.split("/")[0] in names]


# ---------------------------------------------------------------- NVIDIA's PTX

# A ptxas that keeps the PTX it is given, first in NVIDIA's tileiras's
# directory (it runs the ptxas beside itself), as scripts/gpu-check --prepare.
FAKE_PTXAS = """#!/bin/sh
for a in "$@"; do case "$a" in *.ptx) cp "$a" "$RUN_CORPUS_PTX_OUT";; --nv-host=*) cp "${a#--nv-host=}" "$RUN_CORPUS_PTX_OUT.host.o";; esac; done
exec "$RUN_CORPUS_REAL_PTXAS" "$@"
"""


class NvidiaPtx:
    """NVIDIA's tileiras (pip nvidia-cuda-tileiras in .venv), run with
    CUDA_HOME unset, with its PTX captured: get(bytecode, sm) -> (ptx, None)
    or (None, why)."""

    def __init__(self, nvbin, cache_dir):
        import nvtools
        self.nvtools, self.nvbin, self.cache = nvtools, nvbin, cache_dir
        self.tw = tempfile.mkdtemp(prefix="nvptx.")
        os.makedirs(os.path.join(self.tw, "bin"))
        real = os.path.dirname(nvbin)
        try:
            os.link(os.path.join(nvbin, "tileiras"), os.path.join(self.tw, "bin", "tileiras"))
        except OSError:
            shutil.copy2(os.path.join(nvbin, "tileiras"), os.path.join(self.tw, "bin", "tileiras"))
        for d in ("lib", "nvvm"):
            if os.path.exists(os.path.join(real, d)):
                os.symlink(os.path.join(real, d), os.path.join(self.tw, d))
        w = os.path.join(self.tw, "bin", "ptxas")
        with open(w, "w") as f:
            f.write(FAKE_PTXAS)
        os.chmod(w, 0o755)
        os.makedirs(cache_dir, exist_ok=True)

    def close(self):
        shutil.rmtree(self.tw, ignore_errors=True)

    def get(self, bytecode, sm):
        with open(bytecode, "rb") as f:
            h = hashlib.sha1(f.read()).hexdigest()[:16]
        ptx = os.path.join(self.cache, "%s.%s.%s.ptx" % (os.path.basename(bytecode), h, sm))
        why = ptx + ".err"
        if not os.path.exists(ptx) and not os.path.exists(why):
            env = self.nvtools.nvidia_env()
            tmp = ptx + ".part"
            env.update(RUN_CORPUS_PTX_OUT=tmp, RUN_CORPUS_REAL_PTXAS=os.path.join(self.nvbin, "ptxas"))
            r = self.nvtools.run([os.path.join(self.tw, "bin", "tileiras"), "--gpu-name", sm, bytecode,
                                  "-o", os.path.join(self.tw, "k.cubin")], env=env)
            if r.rc == 0 and os.path.exists(tmp):
                if os.path.exists(tmp + ".host.o"):
                    os.rename(tmp + ".host.o", ptx + ".host.o")
                os.rename(tmp, ptx)
            else:
                with open(why, "w") as f:
                    f.write("NVIDIA's tileiras rc %d: %s" % (r.rc, r.first_error()))
        if os.path.exists(ptx):
            with open(ptx) as f:
                return f.read(), None
        with open(why) as f:
            return None, f.read()

    def host_object(self, bytecode, sm):
        """The x86-64 host object NVIDIA's tileiras handed ptxas (--nv-host=)
        with the PTX get() returned, or None (a cache from before it was kept)."""
        with open(bytecode, "rb") as f:
            h = hashlib.sha1(f.read()).hexdigest()[:16]
        o = os.path.join(self.cache, "%s.%s.%s.ptx.host.o" % (os.path.basename(bytecode), h, sm))
        return o if os.path.exists(o) else None


def tensor_map_params(ptx, entry):
    """How many 128-byte .param arrays (TMA tensor maps its host callback
    fills at launch) an entry of NVIDIA's PTX takes."""
    m = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(entry), ptx, re.S)
    return len(re.findall(r"\.param\s+\.align\s+\d+\s+\.b8\s+\w+\[128\]", m.group(1))) if m else 0
