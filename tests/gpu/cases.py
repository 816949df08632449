"""The kernel manifest (scripts/gpu-manifest.json) made concrete, for every
harness that runs corpus kernels and checks them against numpy:
scripts/gpu-check (on a GPU) and tests/run/run-corpus (on tile-run).

* ev(): the manifest's size expressions; validate_manifest(): every problem
  of a manifest (stdlib only).
* Instance: one case of one kernel on the host: its arrays (poisoned, with a
  guard zone of `guard` elements after each, strided as the case says),
  scalars, grid, and the reference result (tests/gpu/refs.py).
* compare() / check_printf(): a run's outputs against the reference, per the
  manifest's check metric: exact (bit-equal; NaN equals NaN) or relnorm
  (||got - want|| / ||want|| <= tol, float64, no non-finite where the
  reference is finite), printf (the per-block sums ct.printf prints).

numpy is imported on first use, so validation runs with the stdlib alone.
"""
import ast
import json
import operator
import os
import re
import zlib

import abi

GPU_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(GPU_DIR))
DEFAULT_MANIFEST = os.path.join(ROOT, "scripts", "gpu-manifest.json")
CORPUS = os.path.join(ROOT, "tests", "corpus")
GUARD = 256                  # poisoned elements after every array

np = None                    # numpy, imported when needed


def need_numpy():
    global np
    if np is None:
        import numpy
        np = numpy
    return np

class ManifestError(Exception):
    pass


# --- expressions in the manifest ----------------------------------------------

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Mod: operator.mod}
_FUNCS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def ev(expr, env):
    """Evaluate a manifest expression: a number, or a string over size names."""
    if isinstance(expr, bool):
        raise ManifestError("boolean where a number was expected")
    if isinstance(expr, (int, float)):
        return expr
    try:
        node = ast.parse(str(expr), mode="eval").body
    except SyntaxError:
        raise ManifestError("bad expression %r" % expr)

    def walk(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in env:
                return env[n.id]
            raise ManifestError("unknown name %r in %r" % (n.id, expr))
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](walk(n.left), walk(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = walk(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS and not n.keywords:
            return _FUNCS[n.func.id](*[walk(a) for a in n.args])
        raise ManifestError("unsupported expression %r" % expr)
    return walk(node)


def names_in(expr):
    if isinstance(expr, (int, float)):
        return set()
    try:
        return {n.id for n in ast.walk(ast.parse(str(expr), mode="eval")) if isinstance(n, ast.Name)} - set(_FUNCS)
    except SyntaxError:
        return set()


# --- the manifest ----------------------------------------------------------------

INIT_KINDS = {"normal", "normal_zeros", "uniform", "randint", "randint_zeros", "randint_nonzero", "zeros", "fill"}
METRICS = {"exact", "relnorm", "printf"}
INT_RANGE = {"i8": (-2**7, 2**7), "i16": (-2**15, 2**15), "i32": (-2**31, 2**31), "i64": (-2**63, 2**63)}


def load_manifest(path=DEFAULT_MANIFEST):
    with open(path) as f:
        return json.load(f)


def top_level_names(path):
    """Names a module defines at top level (functions, assignments, dict keys of RUNNERS/REFS/NAIVE)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    names, keys = set(), {}
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
                    if isinstance(n.value, ast.Dict):
                        keys[t.id] = {k.value for k in n.value.keys if isinstance(k, ast.Constant)}
    return names, keys


def corpus_symbols(version, corpus=CORPUS):
    """{symbol: module} from tests/corpus/MANIFEST.tsv for one version."""
    out = {}
    with open(os.path.join(corpus, "MANIFEST.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for ln in f:
            row = dict(zip(header, ln.rstrip("\n").split("\t")))
            if row.get("version") == version and row.get("symbols"):
                for s in row["symbols"].split(","):
                    out[s] = row["name"]
    return out


def validate_manifest(man, corpus=CORPUS):
    """Every problem found, as strings ([] when the manifest is sound)."""
    probs = []
    ref_names, _ = top_level_names(os.path.join(GPU_DIR, "refs.py"))
    _, tkeys = top_level_names(os.path.join(GPU_DIR, "triton_kernels.py"))
    runners = tkeys.get("RUNNERS", set())
    kernels = man.get("kernels")
    if not isinstance(kernels, dict) or not kernels:
        return ["manifest has no kernels"]
    version = man.get("corpus_version", "13.4")
    try:
        want = corpus_symbols(version, corpus)
    except OSError as e:
        want = None
        probs.append("cannot read the corpus manifest: %s" % e)
    if want is not None:
        for s, m in sorted(want.items()):
            if s not in kernels:
                probs.append("corpus entry %s (%s) has no manifest entry" % (s, m))
            elif kernels[s].get("module") != m:
                probs.append("%s: module %r, corpus says %r" % (s, kernels[s].get("module"), m))
        for s in kernels:
            if s not in want:
                probs.append("%s: not in the %s corpus" % (s, version))
    for sym, k in sorted(kernels.items()):
        def bad(msg):
            probs.append("%s: %s" % (sym, msg))
        params = k.get("params")
        if not isinstance(params, list) or not params:
            bad("no params")
            continue
        seen = set()
        for p in params:
            n = p.get("name")
            if not n or n in seen:
                bad("param name %r missing or repeated" % n)
            seen.add(n)
            if ("array" in p) == ("scalar" in p):
                bad("param %s must be exactly one of array/scalar" % n)
                continue
            dt = p.get("array", p.get("scalar"))
            if dt not in abi.DTYPES:
                bad("param %s: unknown dtype %r" % (n, dt))
            if "array" in p:
                if p.get("role") not in ("in", "out", "inout"):
                    bad("param %s: role must be in, out or inout" % n)
                if p.get("index", "i32") not in abi.INDEX_TYPES:
                    bad("param %s: index must be i32 or i64" % n)
                if not isinstance(p.get("shape"), list) or not p["shape"]:
                    bad("param %s: no shape" % n)
                if p.get("role") in ("in", "inout"):
                    init = p.get("init", "")
                    if init.split(":")[0] not in INIT_KINDS:
                        bad("param %s: init %r is not one of %s" % (n, init, sorted(INIT_KINDS)))
            elif "value" not in p:
                bad("scalar %s has no value" % n)
        for msg in abi.check_against_symbol(sym, params):
            bad("symbol disagrees: " + msg)
        if k.get("ref") not in ref_names:
            bad("reference %r is not defined in tests/gpu/refs.py" % k.get("ref"))
        if k.get("triton") is not None and k["triton"] not in runners:
            bad("triton runner %r is not in tests/gpu/triton_kernels.py RUNNERS" % k["triton"])
        chk = k.get("check", {})
        if chk.get("metric") not in METRICS:
            bad("check.metric must be one of %s" % sorted(METRICS))
        if chk.get("metric") in ("relnorm", "printf") and not isinstance(chk.get("tol"), (int, float)):
            bad("check.tol needed for %s" % chk.get("metric"))
        grid = k.get("grid")
        if not isinstance(grid, list) or not 1 <= len(grid) <= 3:
            bad("grid must list 1 to 3 expressions")
            continue
        cases = k.get("cases")
        if not isinstance(cases, list) or not cases:
            bad("no cases")
            continue
        if sum(1 for c in cases if c.get("time")) > 1:
            bad("more than one timed case")
        if not isinstance(k.get("selftest"), dict):
            bad("no selftest sizes")
        try:
            _, symparams = abi.decode_symbol(sym)
        except abi.AbiError:
            symparams = []
        runtime = [sp for sp in symparams if sp["kind"] != "const"]
        variants = [(ci, c, c.get("sizes", {}), "case %d" % ci) for ci, c in enumerate(cases)]
        variants += [(ci, c, k.get("selftest", {}), "case %d at the selftest sizes" % ci) for ci, c in enumerate(cases)]
        for ci, c, sizes, where in variants:
            try:
                env = dict(sizes)
                for v in env.values():
                    if not isinstance(v, int) or v < 0:
                        raise ManifestError("sizes must be non-negative integers")
                g = [ev(x, env) for x in grid]
                if any(not isinstance(x, int) or x < 1 for x in g):
                    raise ManifestError("grid %s is not positive integers" % g)
                if g[0] >= 2**31 or any(x > 65535 for x in g[1:]):
                    raise ManifestError("grid %s exceeds CUDA's limits" % g)
                for extra in ("bytes", "flops"):
                    if extra in k:
                        ev(k[extra], env)
                for i, p in enumerate(params):
                    if "scalar" in p:
                        v = ev(c.get("scalars", {}).get(p["name"], p["value"]), env)
                        if p["scalar"] in INT_RANGE:
                            lo, hi = INT_RANGE[p["scalar"]]
                            if not isinstance(v, int) or not lo <= v < hi:
                                raise ManifestError("scalar %s = %r does not fit %s" % (p["name"], v, p["scalar"]))
                        continue
                    shape = [ev(x, env) for x in p["shape"]]
                    if any(not isinstance(x, int) or x < 0 for x in shape):
                        raise ManifestError("%s shape %s" % (p["name"], shape))
                    strides = [ev(x, env) for x in c.get("strides", {}).get(p["name"], [])] or None
                    if strides is not None and len(strides) != len(shape):
                        raise ManifestError("%s: %d strides for rank %d" % (p["name"], len(strides), len(shape)))
                    limit = 2**31 if p.get("index", "i32") == "i32" else 2**63
                    for x in shape + (strides or []):
                        if x >= limit:
                            raise ManifestError("%s: %d does not fit the %s index" % (p["name"], x, p.get("index", "i32")))
                    if strides is not None and i < len(runtime) and runtime[i]["kind"] == "array":
                        for d, cval in runtime[i]["stride_const"].items():
                            if strides[int(d)] != cval:
                                raise ManifestError("%s: stride %d must be the constant %d the symbol promises"
                                                    % (p["name"], int(d), cval))
                    init = p.get("init")
                    if init:
                        for a in init.split(":")[1:]:
                            ev(a, env)
            except ManifestError as e:
                bad("%s: %s" % (where, e))
    return probs


# --- one case, materialised on the host ---------------------------------------------

NP_DTYPES = {"f16": "float16", "bf16": "uint16", "f32": "float32", "f64": "float64",
             "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
             "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}
POISON = {1: 0xA5, 2: 0x7E5A, 4: 0x7FC5A5A5, 8: 0x7FF8A5A5A5A5A5A5}
POISON_INT = {1: 0xA5, 2: 0xA5A5, 4: 0xA5A5A5A5, 8: 0xA5A5A5A5A5A5A5A5}
UINT = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


class HostArray:
    def __init__(self, p, env, case, guard=GUARD):
        need_numpy()
        self.name = p["name"]
        self.dtype = p["array"]
        self.role = p["role"]
        self.init = p.get("init")
        self.np_dtype = np.dtype(NP_DTYPES[self.dtype])
        self.item = self.np_dtype.itemsize
        self.shape = [int(ev(x, env)) for x in p["shape"]]
        st = case.get("strides", {}).get(self.name)
        if st:
            self.strides = [int(ev(x, env)) for x in st]
        else:
            self.strides, acc = [], 1
            for s in reversed(self.shape):
                self.strides.insert(0, acc)
                acc *= max(s, 1)
        self.span = 1 + sum((s - 1) * t for s, t in zip(self.shape, self.strides)) if all(self.shape) else 0
        self.total = self.span + guard
        self.nbytes = self.total * self.item
        kind = abi.DTYPES[self.dtype][2]
        pat = (POISON if kind == "float" else POISON_INT)[self.item]
        self.poison_bits = np.array(pat, dtype=UINT[self.item])

    def view(self, back):
        if back.size < self.total:
            raise ValueError("backing of %d elements for %s, need %d" % (back.size, self.name, self.total))
        return np.lib.stride_tricks.as_strided(back, shape=self.shape,
                                               strides=[t * back.itemsize for t in self.strides], writeable=True)

    def empty_backing(self):
        b = np.empty(self.total, dtype=UINT[self.item])
        b[...] = self.poison_bits
        return b.view(self.np_dtype)

    def mask(self):
        if getattr(self, "_mask", None) is None:
            m = np.zeros(self.total, dtype=bool)
            if self.span:
                self.view(m)[...] = True
            self._mask = m
        return self._mask


def generate(init, dtype, shape, rng, env):
    """Random or constant initial contents (host array of the manifest dtype)."""
    need_numpy()
    parts = init.split(":")
    kind, args = parts[0], [ev(a, env) for a in parts[1:]]
    n = 1
    for s in shape:
        n *= s
    if kind in ("normal", "normal_zeros"):
        v = rng.standard_normal(n, dtype=np.float32)
        if args:
            v *= np.float32(args[0])
        if kind == "normal_zeros":
            v[rng.random(n) < 1 / 16] = 0
    elif kind == "uniform":
        v = rng.uniform(args[0], args[1], n).astype(np.float32)
    elif kind in ("randint", "randint_zeros", "randint_nonzero"):
        v = rng.integers(int(args[0]), int(args[1]), n, dtype=np.int64)
        if kind == "randint_zeros":
            v[rng.random(n) < 1 / 16] = 0
        elif kind == "randint_nonzero":     # a divisor: x / 0 is undefined behaviour
            v[v == 0] = 1
    elif kind == "zeros":
        v = np.zeros(n)
    elif kind == "fill":
        v = np.full(n, args[0])
    else:
        raise ManifestError("unknown init %r" % init)
    if dtype == "bf16":
        import refs
        out = refs.f32_to_bf16(v.astype(np.float32))
    else:
        out = v.astype(NP_DTYPES[dtype])
    return out.reshape(shape)


class Instance:
    """One manifest case, with host data and the reference result."""

    def __init__(self, symbol, spec, case, ci, seed, sizes=None, want_ref=True, guard=GUARD):
        need_numpy()
        import refs
        self.symbol, self.spec, self.case, self.ci = symbol, spec, case, ci
        self.env = dict(sizes if sizes is not None else case.get("sizes", {}))
        rng = np.random.default_rng([seed, zlib.crc32(symbol.encode()), ci])
        self.flat = abi.expand(spec["params"])
        self.arrays, self.scalars, self.init = [], {}, {}
        for p in spec["params"]:
            if "scalar" in p:
                v = ev(case.get("scalars", {}).get(p["name"], p["value"]), self.env)
                self.scalars[p["name"]] = v
                continue
            a = HostArray(p, self.env, case, guard)
            back = a.empty_backing()
            if a.role in ("in", "inout"):
                a.view(back)[...] = generate(a.init, a.dtype, a.shape, rng, self.env)
            self.arrays.append(a)
            self.init[a.name] = back
        g = [int(ev(x, self.env)) for x in spec["grid"]]
        self.grid = tuple(g + [1] * (3 - len(g)))
        self.bytes = ev(spec["bytes"], self.env) if "bytes" in spec else None
        self.flops = ev(spec["flops"], self.env) if "flops" in spec else None
        self.ref = None
        if want_ref:
            logical = {a.name: a.view(self.init[a.name]).copy() for a in self.arrays}
            self.ref = refs.REFS[spec["ref"]](logical, dict(self.scalars))

    def values(self, ptrs):
        vals = {}
        for a in self.arrays:
            vals[("ptr", a.name)] = ptrs[a.name]
            for d, (s, t) in enumerate(zip(a.shape, a.strides)):
                vals[("shape", a.name, d)] = s
                vals[("stride", a.name, d)] = t
        for n, v in self.scalars.items():
            vals[("scalar", n)] = v
        return vals


def compare(inst, got_backings):
    """Check outputs against the reference. Returns a dict with 'ok'."""
    import refs
    spec = inst.spec
    chk = spec["check"]
    res = {"ok": True, "metric": chk["metric"]}
    worst = 0.0
    for a in inst.arrays:
        if a.role == "in":
            continue
        back = got_backings[a.name]
        init = inst.init[a.name]
        m = a.mask()
        u = UINT[a.item]
        outside = int(np.count_nonzero((back.view(u) != init.view(u)) & ~m))
        if outside:
            res["ok"] = False
            res.setdefault("problems", []).append("%s: %d elements written outside the array" % (a.name, outside))
        want = inst.ref.get(a.name)
        if want is None:
            continue
        got = a.view(back)
        if chk["metric"] == "exact":
            if a.dtype == "bf16" and want.dtype != np.uint16:
                want = refs.f32_to_bf16(want)
            w = np.asarray(want).astype(a.np_dtype)
            bad = got != w
            if a.np_dtype.kind == "f":
                bad &= ~(np.isnan(got) & np.isnan(w))
            nbad = int(np.count_nonzero(bad))
            res["mismatches"] = res.get("mismatches", 0) + nbad
            if nbad:
                res["ok"] = False
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                res.setdefault("problems", []).append(
                    "%s: %d of %d elements differ, first at %s: got %r want %r"
                    % (a.name, nbad, bad.size, list(idx), got[idx].item(), w[idx].item()))
        else:
            g = refs.as_f64(got, a.dtype)
            w = np.asarray(want, dtype=np.float64)
            nonfinite = int(np.count_nonzero(~np.isfinite(g) & np.isfinite(w)))
            diff = np.where(np.isfinite(g), g - w, 0.0)
            den = float(np.linalg.norm(w)) or 1.0
            err = float(np.linalg.norm(diff)) / den
            res["max_abs"] = max(res.get("max_abs", 0.0), float(np.max(np.abs(diff))) if diff.size else 0.0)
            worst = max(worst, err)
            if nonfinite:
                res["ok"] = False
                res.setdefault("problems", []).append("%s: %d non-finite elements (unwritten or NaN)"
                                                      % (a.name, nonfinite))
            if err > chk["tol"]:
                res["ok"] = False
                res.setdefault("problems", []).append("%s: relative error %.3g > %.3g" % (a.name, err, chk["tol"]))
    if chk["metric"] == "relnorm":
        res["err"] = worst
    return res


def check_printf(inst, text):
    sums = inst.ref["_printf_sums"]
    found = {}
    for m in re.finditer(r"block (\d+) sum ([-+0-9.eEinfa]+)", text):
        found[int(m.group(1))] = float(m.group(2))
    res = {"ok": True, "metric": "printf", "lines": len(text.splitlines()),
           "sample": text[:300]}
    tol = inst.spec["check"]["tol"]
    for b, want in enumerate(sums.tolist()):
        if b not in found:
            res["ok"] = False
            res.setdefault("problems", []).append("no 'block %d sum' line" % b)
        elif abs(found[b] - want) > tol * max(1.0, abs(want)):
            res["ok"] = False
            res.setdefault("problems", []).append("block %d sum %g, want %g" % (b, found[b], want))
    if "tile=" not in text:
        res["ok"] = False
        res.setdefault("problems", []).append("no 'tile=' line from ct.print")
    return res
