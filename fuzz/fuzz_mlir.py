"""fuzz_mlir.py: scripts/fuzz-read --mlir: tile-read on mutated cuda_tile
text (issue 43; docs/robustness.md has the runs).

usage: scripts/fuzz-read --mlir SECONDS [--random-seed N] [--bin DIR] [--out DIR]

Seeds: `build/bin/tile-read --emit=asm` (and --emit=asm-debug, the -g text)
of tests/read/allops-13.5.tileirbc and a sample of test kernels. Each run
mutates one seed (fuzz/mutate_mlir.py) and gives it to DIR/tile-read
(default build-asan/bin, the ASan/UBSan build) with --emit=asm. Outcomes,
with scripts/fuzz-stages' classification: clean (exit 1, every line a
tile-read error or note), valid (exit 0: then the text it printed must read
back to the same text, else "unstable"), or a defect (asan, ubsan, leak,
abort, signal, hang, dump, exit, unstable). The first three of each
distinct defect are kept in OUT/defects (NAME.mlir and NAME.txt). Exit 1
when there was a defect.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "fuzz"))
import mutate_mlir  # noqa: E402

# scripts/fuzz-stages' running and classification, shared
_loader = importlib.machinery.SourceFileLoader("fuzz_stages", os.path.join(ROOT, "scripts", "fuzz-stages"))
_spec = importlib.util.spec_from_loader("fuzz_stages", _loader)
fs = importlib.util.module_from_spec(_spec)
_loader.exec_module(fs)

SEED_FILES = ["tests/read/allops-13.5.tileirbc", "tests/read/allops-13.1.tileirbc",
              "tests/read/argattrs-13.5.tileirbc", "tests/mma/mm_f32.tileirbc",
              "tests/reduce/corpus/argmax_rows.tileirbc", "tests/pipeline/corpus/loops.tileirbc",
              "tests/ops/view_shape.tileirbc", "tests/tilegym/softmax_fwd.tileirbc",
              "tests/recursion/recursive_109.tileirbc", "tests/ops/f8_const.tileirbc"]
NOTE_OR_ERROR = re.compile(r"^tile-read: .*\b(error|note): ")


def make_seeds():
    seeds = []
    reader = os.path.join(ROOT, "build", "bin", "tile-read")
    for rel in SEED_FILES:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        for emit in ("asm", "asm-debug") if "allops-13.5" in rel else ("asm",):
            r = subprocess.run([reader, "--emit=" + emit, path], capture_output=True)
            if r.returncode == 0 and r.stdout:
                seeds.append((os.path.basename(rel) + "." + emit, r.stdout))
    if not seeds:
        fs.die("no seeds: build/bin/tile-read --emit=asm made none (make all first)")
    return seeds


def one(exe, work, text, env, timeout):
    """(class, message)"""
    inp, out, out2 = (os.path.join(work, n) for n in ("in.mlir", "out.mlir", "out2.mlir"))
    with open(inp, "wb") as f:
        f.write(text)
    for p in (out, out2):
        if os.path.exists(p):
            os.unlink(p)
    rc, err, hung = fs.run([exe, "--emit=asm", inp, "-o", out], env, timeout)
    cls, msg = fs.classify("tile-read", rc, err, hung)
    if cls == "dump" and rc == 1:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if lines and all(NOTE_OR_ERROR.match(ln) for ln in lines) and " error: " in lines[0]:
            return "clean", lines[0]
    if cls != "valid":
        return cls, msg
    rc, err, hung = fs.run([exe, "--emit=asm", out, "-o", out2], env, timeout)
    cls, msg = fs.classify("tile-read", rc, err, hung)
    if cls != "valid":
        return ("unstable", "its own text is refused: " + msg) if cls == "clean" else (cls, msg)
    if open(out, "rb").read() != open(out2, "rb").read():
        return "unstable", "its text reads back to other text"
    return "valid", ""


def main():
    ap = argparse.ArgumentParser(prog="scripts/fuzz-read --mlir")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--random-seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-asan", "bin"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz-mlir"))
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    exe = os.path.join(a.bin, "tile-read")
    if not os.access(exe, os.X_OK):
        fs.die("no %s: build it (docs/robustness.md, 'tile-read's text')" % exe)
    work = os.path.join(a.out, "work")
    ddir = os.path.join(a.out, "defects")
    os.makedirs(work, exist_ok=True)
    os.makedirs(ddir, exist_ok=True)
    seeds = make_seeds()
    rng = random.Random(a.random_seed)
    env = fs.sanitizer_env()
    counts, kept, distinct = {}, {}, {}
    t0 = time.time()
    runs = 0
    while time.time() - t0 < a.seconds:
        name, data = rng.choice(seeds)
        other = rng.choice(seeds)[1]
        text, classes = mutate_mlir.mutate(data, rng, other)
        cls, msg = one(exe, work, text, env, a.timeout)
        runs += 1
        counts[cls] = counts.get(cls, 0) + 1
        if cls in ("clean", "valid"):
            continue
        sig = fs.signature("tile-read", cls, msg)
        distinct.setdefault(sig, (cls, msg))
        k = kept.get(sig, 0)
        if k < 3:
            kept[sig] = k + 1
            base = os.path.join(ddir, "%s-%s-%d" % (cls, sig, k))
            with open(base + ".mlir", "wb") as f:
                f.write(text)
            with open(base + ".txt", "w") as f:
                f.write("%s: %s\nseed %s, mutations %s\n" % (cls, msg, name, " ".join(classes)))
            print("defect %s: %s (%s)" % (cls, msg[:200], base + ".mlir"), flush=True)
    secs = time.time() - t0
    ndef = sum(v for c, v in counts.items() if c not in ("clean", "valid"))
    print("| seconds | runs | clean: exit 1 | valid (exit 0, reads back) | defects |")
    print("|---|---|---|---|---|")
    kinds = {}
    for cls, _ in distinct.values():
        kinds[cls] = kinds.get(cls, 0) + 1
    what = ", ".join("%s %d (%d distinct)" % (c, counts[c], kinds[c]) for c in sorted(kinds))
    print("| %d | %d | %d | %d | %s |" % (secs, runs, counts.get("clean", 0), counts.get("valid", 0),
                                          "**%d**: %s" % (ndef, what) if ndef else "0"))
    return 1 if ndef else 0


if __name__ == "__main__":
    sys.exit(main())
