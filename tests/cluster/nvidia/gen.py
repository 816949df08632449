"""Writes tests/cluster/nvidia/*.tileirbc: cuTile kernels with
@ct.kernel(num_ctas=2), for which NVIDIA's tileiras writes cluster PTX
(.reqnctapercluster 2, .blocksareclusters; each CTA of the cluster computes
its half of the tile block):
  vadd2, matmul2      from kernels.py
  <corpus name>       the corpus kernels of DSMEM (tests/kernels/, every
                      signature), made num_ctas=2: NVIDIA's PTX for them
                      reduces and exchanges through distributed shared memory
                      (mapa, ld/st.shared::cluster, barrier.cluster); matmul's
                      sm_100 PTX (tcgen05) arrives on another CTA's mbarriers
Bytecode 13.4, the same bytes for every target. Modules are loaded by their
paths relative to the repository root (as scripts/gen-corpus does), so the
debug info's file names do not depend on the checkout. Run with cuTile:
    .venv/bin/python tests/cluster/nvidia/gen.py
tests/cluster.bats compiles them with NVIDIA's tileiras and runs its PTX
(check-dsmem for the corpus ones, with tests/run/runner.py's inputs)."""
import io
import os
import sys
import types

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
REL = os.path.join("tests", "cluster", "nvidia")
DSMEM = {"reduce_sum": "reduce.py", "prefix_sum": "prefix_sum.py", "fft": "fft.py", "loop_break": "loop_break.py",
         "histogram": "histogram.py", "matmul": "matmul.py"}


def load(path, name):
    """The module at path (relative), its code's file name that path."""
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)
    return mod


def write(name, kern, sigs):
    from cuda.tile.compilation import export_kernel
    buf = io.BytesIO()
    export_kernel(kern, sigs, buf, gpu_code="sm_90", output_format="tileir_bytecode", bytecode_version="13.4")
    with open(os.path.join(REL, name + ".tileirbc"), "wb") as f:
        f.write(buf.getvalue())
    print("wrote", name, len(buf.getvalue()), "bytes")


if __name__ == "__main__":
    os.chdir(REPO)
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join("tests", "kernels"))
    import cuda.tile as ct
    from cuda.tile.compilation import KernelSignature, CallingConvention
    cconv = CallingConvention.cutile_python_v1()
    mod = load(os.path.join(REL, "kernels.py"), "kernels")
    for name, kern, params in mod.KERNELS:
        write(name, kern, [KernelSignature(params, cconv).with_mangled_symbol(kern._annotated_function.pyfunc.__name__)])
    for name, fn in sorted(DSMEM.items()):
        m = load(os.path.join("tests", "kernels", fn), fn[:-3])
        for cname, kern, desc, sig_params in m.CORPUS:
            if cname != name:
                continue
            py = kern._annotated_function.pyfunc
            sigs = [KernelSignature(p, cconv).with_mangled_symbol(py.__name__) for p in sig_params]
            write(name, ct.kernel(num_ctas=2)(py), sigs)
