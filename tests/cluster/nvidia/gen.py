"""Writes tests/cluster/nvidia/{vadd2,matmul2}.tileirbc from kernels.py:
cuTile kernels with @ct.kernel(num_ctas=2), for which NVIDIA's tileiras
writes cluster PTX (.reqnctapercluster 2, .blocksareclusters; each CTA of
the cluster computes its half of the tile block). Bytecode 13.4, the same
bytes for every target. kernels.py is loaded by its path relative to the
repository root (as scripts/gen-corpus does), so the debug info's file name
does not depend on the checkout. Run with cuTile installed:
    .venv/bin/python tests/cluster/nvidia/gen.py
tests/cluster.bats compiles them with NVIDIA's tileiras and runs its PTX."""
import io
import os
import sys
import types

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
REL = os.path.join("tests", "cluster", "nvidia")

if __name__ == "__main__":
    os.chdir(REPO)
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join("tests", "kernels"))
    from cuda.tile.compilation import KernelSignature, CallingConvention, export_kernel
    path = os.path.join(REL, "kernels.py")
    mod = types.ModuleType("kernels")
    mod.__file__ = path
    sys.modules["kernels"] = mod
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)
    cconv = CallingConvention.cutile_python_v1()
    for name, kern, params in mod.KERNELS:
        sig = KernelSignature(params, cconv).with_mangled_symbol(kern._annotated_function.pyfunc.__name__)
        buf = io.BytesIO()
        export_kernel(kern, [sig], buf, gpu_code="sm_90", output_format="tileir_bytecode", bytecode_version="13.4")
        with open(os.path.join(REL, name + ".tileirbc"), "wb") as f:
            f.write(buf.getvalue())
        print("wrote", name, len(buf.getvalue()), "bytes")
