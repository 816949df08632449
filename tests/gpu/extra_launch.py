#!/usr/bin/env python3
"""extra_launch.py (GPU machine): launch kernels of tests/run/extra.py (the
value cases tile-run checks: TileGym-style row kernels, FMHA, ...) from
cubins, as cuTile does (kernelParams, block (1,1,1)); check them against
the case's numpy reference; time them (CUDA events, median).

usage: python3 tests/gpu/extra_launch.py --kind NAME=DIR [--kind ...]
           [--rows N] [--fmha B,S] [--out FILE] CASE [CASE ...]
  DIR holds <module>.cubin (module = the case's bytecode file name).
  --rows N: the TileGym row kernels run on N rows (extra.TG_ROWS) and are
            timed there; the reference is the case's own (numpy, f32).
  --fmha B,S: fmha* cases are also timed on [B, H, S, D] inputs (S keys;
            D, H, the tiles, causal and f16/bf16 read from the entry's name),
            where no float64 reference is affordable: every kind's output
            must agree with the first kind's (and with torch's
            scaled_dot_product_attention when torch is there).
  --check-abi: no GPU: pack every case's parameters and compare them with
            each cubin's EIATTR_KPARAM_INFO (count and sizes), as each
            launch also does first.
Prints one JSON line per (case, kind) and a table; exit 1 if a result is
wrong. Needs numpy; libcuda through ctypes (scripts/gpu-check's Driver)."""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import struct
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "run")]
import numpy as np  # noqa: E402

import abi  # noqa: E402
import runner  # noqa: E402
import cubin as cubinmod  # noqa: E402
import extra  # noqa: E402


def load_gpu_check():
    path = os.path.join(ROOT, "scripts", "gpu-check")
    loader = importlib.machinery.SourceFileLoader("gpu_check", path)
    spec = importlib.util.spec_from_loader("gpu_check", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.need_numpy()
    return mod


def entry_of(cubin, prefix):
    """The cubin's entry named prefix...: its name and its record (tests/gpu/cubin.py)."""
    entries = cubinmod.load(cubin).entries
    names = [n for n in entries if n.startswith(prefix)]
    if not names:
        raise SystemExit("extra_launch: no entry %s* in %s" % (prefix, cubin))
    name = min(names, key=len)
    return name, entries[name]


def scalar_part(kind, v):
    return struct.pack({"f32": "<f", "i32": "<i", "i64": "<q", "f64": "<d"}[kind], v)


class Launch:
    """One case's parameters on the device, packed for kernelParams."""

    def __init__(self, drv, entry, params):
        try:
            _, sig = abi.decode_symbol(entry)
            arrays = [p for p in sig if p["kind"] == "array"]
        except abi.AbiError:        # launch facts' tokens (7v8l0, ci16, p16): i32 unless a 'w' follows
            arrays = [{"index": "i64" if re.match(r"[^A]*_w(_|$)", t) else "i32"}
                      for t in re.split(r"_(?=A\d)", entry)[1:]]
        self.drv, self.parts, self.bufs, self.dev = drv, [], [], {}
        ai = 0
        for i, (kind, v) in enumerate(params):
            if kind in ("arr", "ptr"):
                p = drv.alloc(v.nbytes)
                self.bufs.append(p)
                self.dev[i] = (p, v)
                drv.htod(p, v)
                self.parts.append(struct.pack("<Q", p))
                if kind == "arr":
                    code = "<q" if ai < len(arrays) and arrays[ai]["index"] == "i64" else "<i"
                    self.parts += [struct.pack(code, s) for s in v.shape]
                    self.parts += [struct.pack(code, s // v.itemsize) for s in v.strides]
                    ai += 1
            else:
                self.parts.append(scalar_part(kind, v))

    def poison(self, outs):
        for i in outs:
            p, v = self.dev[i]
            self.drv.htod(p, np.full(v.nbytes, 0xFF, np.uint8))

    def fetch(self, i):
        p, v = self.dev[i]
        return self.drv.dtoh(p, v)

    def free(self):
        for p in self.bufs:
            self.drv.free(p)


class NoDevice:
    """What Launch needs of a driver when only the packing is checked."""

    def __init__(self):
        self.next = 0x10000

    def alloc(self, n):
        self.next += (n + 0xFFFF) & ~0xFFFF
        return self.next

    def htod(self, p, arr):
        pass


def abi_problem(e, parts):
    """'' if the packed parts agree with the parameter list of entry record e."""
    sizes = [size for _, _, size in e.params]
    got = [len(b) for b in parts]
    if sizes != got:
        return "packed %d parameters of sizes %s, the cubin has %d of sizes %s" % (len(got), got, len(sizes), sizes)
    return ""


def run_case(gc, drv, kinds, name, params, grid, want, tol, flops=None, nbytes=None):
    rows = []
    x = extra.CASES[name]
    module = os.path.basename(x.bytecode)[:-len(".tileirbc")]
    for kind, d in kinds:
        cubin = os.path.join(d, module + ".cubin")
        rec = {"case": name, "kind": kind, "grid": list(grid)}
        if not os.path.exists(cubin):
            rec["error"] = "no cubin"
            rows.append(rec)
            continue
        mod = drv.load(cubin)
        try:
            entry, rec_e = entry_of(cubin, x.prefix)
            fn = drv.function(mod, entry)
            rec["regs"] = drv.func_attrs(fn).get("regs")
            la = Launch(drv, entry, params)
            try:
                e = abi_problem(rec_e, la.parts)
                if e:
                    raise RuntimeError("abi: " + e)
                la.poison(want)
                go = (lambda: drv.launch(fn, grid, (1, 1, 1), parts=la.parts))
                go()
                drv.sync()
                errs = []
                outs = {}
                for i, ref in want.items():
                    outs[i] = la.fetch(i)
                    if ref is not None:
                        e = runner.mismatch(outs[i], ref, tol)
                        if e:
                            errs.append("param %d: %s" % (i, e))
                rec["outs"] = outs
                rec["error"] = "; ".join(errs)
                t = gc.timed(drv, go)
                rec["ms"] = round(t["median_ms"], 4)
                if flops:
                    rec["tflops"] = round(flops / t["median_ms"] / 1e9, 1)
                if nbytes:
                    rec["gbs"] = round(nbytes / t["median_ms"] / 1e6, 1)
            finally:
                la.free()
        except Exception as e:   # report and go on with the next kind
            rec["error"] = "%s: %s" % (type(e).__name__, e)
        finally:
            drv.unload(mod)
        rows.append(rec)
    return rows


def fmha_params(B, H, S, D=64, bf16=False):
    """[B, H, S, D] q, k, v (f16, or bf16 bits) and a zeroed o, as the
    kernel's arguments (scale 1/sqrt(D), torch's sdpa's), and the inputs as
    float32 for the reference."""
    import refs
    rng = np.random.default_rng(7)
    shape = (B, H, S, D)
    xs = [rng.uniform(-1, 1, size=shape).astype(np.float32) for _ in range(3)]
    if bf16:
        qkv = [refs.f32_to_bf16(x) for x in xs]
        o = np.zeros(shape, np.uint16)
    else:
        qkv = [x.astype(np.float16) for x in xs]
        o = np.zeros(shape, np.float16)
    A = extra.A
    return [A(qkv[0]), A(qkv[1]), A(qkv[2]), A(o), extra.F32(1 / np.sqrt(D))], qkv


def fmha_consts(entry):
    """(D, H, tm, tn, causal) from the entry's name (tests/fmha/kernels.py's constants)."""
    m = re.search(r"_Sf32_I(\d+)_I(\d+)_I(\d+)_I(\d+)_B(\d)$", entry)
    if not m:
        raise SystemExit("extra_launch: %s is not tests/fmha/kernels.py's fmha" % entry)
    return tuple(int(g) for g in m.groups())


def check_abi(kinds, cases):
    bad = 0
    for name in cases:
        x = extra.CASES[name]
        params, _, _ = x.build(np.random.default_rng(1))
        module = os.path.basename(x.bytecode)[:-len(".tileirbc")]
        for kind, d in kinds:
            cubin = os.path.join(d, module + ".cubin")
            entry, rec_e = entry_of(cubin, x.prefix)
            e = abi_problem(rec_e, Launch(NoDevice(), entry, params).parts)
            bad += bool(e)
            print("%-28s %-10s %s" % (name, kind, e or "ok"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", action="append", required=True, help="NAME=DIR")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--fmha")
    ap.add_argument("--out")
    ap.add_argument("--check-abi", action="store_true")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    kinds = [tuple(k.split("=", 1)) for k in a.kind]
    if a.check_abi:
        return check_abi(kinds, a.cases)
    gc = load_gpu_check()
    drv = gc.Driver()
    if a.rows:
        extra.TG_ROWS = a.rows
    results, bad = [], 0
    for name in a.cases:
        x = extra.CASES[name]
        params, grid, want = x.build(np.random.default_rng(1))
        io_bytes = sum(v.nbytes for k, v in params if k in ("arr", "ptr"))
        tag = name + ("/%d rows" % extra.TG_ROWS if name.startswith("tilegym/") else "/check")
        rs = run_case(gc, drv, kinds, name, params, grid, want, x.tol, nbytes=io_bytes)
        for r in rs:
            r["case"] = tag
        results += rs
        if name.startswith("fmha") and a.fmha:
            B, S = map(int, a.fmha.split(","))
            module = os.path.basename(x.bytecode)[:-len(".tileirbc")]
            entry, _ = entry_of(os.path.join(kinds[0][1], module + ".cubin"), x.prefix)
            D, H, tm_rows, tn, causal = fmha_consts(entry)
            bf16 = "bf16" in entry
            p2, qkv = fmha_params(B, H, S, D, bf16)
            grid2 = (-(-S // tm_rows), B * H, 1)
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            rs = run_case(gc, drv, kinds, name, p2, grid2, {3: None}, x.tol, flops=flops)
            first = next((r for r in rs if "outs" in r), None)
            ref = None
            try:
                import torch
                if bf16:
                    qt, kt, vt = (torch.from_numpy(t.view(np.int16)).cuda().view(torch.bfloat16) for t in qkv)
                else:
                    qt, kt, vt = (torch.from_numpy(t).cuda() for t in qkv)

                def sdpa():
                    return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal))
                ref = sdpa().float().cpu().numpy()
                torch.cuda.synchronize()
                s_, e_ = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                for _ in range(3):
                    sdpa()
                ts = []
                for _ in range(10):
                    s_.record()
                    sdpa()
                    e_.record()
                    torch.cuda.synchronize()
                    ts.append(s_.elapsed_time(e_))
                ts.sort()
                rs.append({"case": name, "kind": "torch-sdpa", "ms": round(ts[5], 4),
                           "tflops": round(flops / ts[5] / 1e9, 1), "error": ""})
            except Exception as e:
                print("extra_launch: no torch reference (%s)" % e, file=sys.stderr)
            import refs
            for r in rs:
                r["case"] = "%s/B%d H%d S%d%s" % (name, B, H, S, " causal" if causal else "")
                if "outs" in r:
                    got = refs.bf16_to_f32(r["outs"][3]) if bf16 else r["outs"][3]
                    against = ref if ref is not None else (
                        (refs.bf16_to_f32(first["outs"][3]) if bf16 else first["outs"][3]) if first else None)
                    if against is not None:
                        e = runner.mismatch(got, against, 3e-2 if bf16 else 1e-2)
                        r["error"] = (r.get("error") or "") + (("vs %s: %s" % (
                            "torch" if ref is not None else first["kind"], e)) if e else "")
            results += rs
    print("%-34s %-14s %5s %9s %8s %8s  %s" % ("case", "kind", "regs", "ms", "TFLOP/s", "GB/s", "result"))
    for r in results:
        r.pop("outs", None)
        bad += bool(r.get("error")) and r["kind"].startswith("ours")
        print("%-34s %-14s %5s %9s %8s %8s  %s" % (r["case"], r["kind"], r.get("regs", "-"), r.get("ms", "-"),
                                                 r.get("tflops", "-"), r.get("gbs", "-"), r.get("error") or "ok"))
    if a.out:
        with open(a.out, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
