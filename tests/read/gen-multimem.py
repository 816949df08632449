import struct, sys
import cuda.tile._bytecode as bc
from cuda.tile._bytecode import BytecodeVersion as BV, SimpleType as ST, PaddingValue as PV, PtrAttr
MO = bc.MemoryOrderingSemantics; MS = bc.MemoryScope; MR = bc.MultimemReductionKind
v135 = BV.V_13_5
def build(which):
    buf = bytearray()
    with bc.write_bytecode(num_functions=1, buf=buf, version=v135) as w:
        tt = w.type_table
        I32, F32 = tt.simple(ST.I32), tt.simple(ST.F32)
        TOK = tt.Token
        PF32 = tt.pointer(F32, PtrAttr.Missing)
        sI32, sPF32 = tt.tile(I32, []), tt.tile(PF32, [])
        MPF32 = tt.pointer(F32, PtrAttr.Default)
        sMPF32 = tt.tile(MPF32, [])
        vF32 = tt.tile(F32, [128])
        TV = tt.tensor_view(F32, [bc.DYNAMIC_SHAPE], [1], PtrAttr.Missing)
        MTV = tt.tensor_view(F32, [bc.DYNAMIC_SHAPE], [1], PtrAttr.Default)
        MPVIEW = tt.partition_view([128], MTV, [0], PV.Missing)
        PVIEW = tt.partition_view([128], TV, [0], PV.Missing)
        dt = w.debug_attr_table
        fil = dt.file("mm.py", "t"); cu = dt.compile_unit(fil)
        sp = dt.subprogram(fil, 1, "mm", "mm_kernel", cu, 1)
        L = lambda line: dt.loc(sp, "t/mm.py", line, 1)
        with w.function("mm_kernel", [sMPF32 if which == "load_reduce" else sPF32, sI32, sPF32 if which == "load_reduce" else sMPF32], [], True, {}, L(1)) as fb:
            cb = fb.code_builder
            a, n, o = fb.parameters
            with cb.debug_attr(L(2)):
                bx, by, bz = bc.encode_GetTileBlockIdOp(cb, sI32, sI32, sI32)
                tv = bc.encode_MakeTensorViewOp(cb, MTV if which == 'load_reduce' else TV, a, [n], [])
                pv = bc.encode_MakePartitionViewOp(cb, MPVIEW if which == 'load_reduce' else PVIEW, tv)
                tv2 = bc.encode_MakeTensorViewOp(cb, TV if which == 'load_reduce' else MTV, o, [n], [])
                pv2 = bc.encode_MakePartitionViewOp(cb, PVIEW if which == 'load_reduce' else MPVIEW, tv2)
            with cb.debug_attr(L(3)):
                if which == "load_reduce":
                    x, t = bc.encode_MultimemLoadReduceViewTkoOp(cb, vF32, TOK, pv, [bx], None, MO.WEAK, None, MR.ADD, [False])
                    bc.encode_StoreViewTkoOp(cb, TOK, x, pv2, [bx], t, MO.WEAK, None, None, [False])
                elif which == "reduce":
                    x, t = bc.encode_LoadViewTkoOp(cb, vF32, TOK, pv, [bx], None, MO.WEAK, None, None, [False])
                    bc.encode_MultimemReduceViewTkoOp(cb, TOK, pv2, x, [bx], t, MO.RELAXED, MS.SYS, MR.ADD, [False])
                else:
                    x, t = bc.encode_LoadViewTkoOp(cb, vF32, TOK, pv, [bx], None, MO.WEAK, None, None, [False])
                    bc.encode_MultimemStoreViewTkoOp(cb, TOK, pv2, x, [bx], t, MO.WEAK, None, [False])
            bc.encode_ReturnOp(cb, [])
    return bytes(buf)
for which in ("load_reduce", "reduce", "store"):
    b = bytearray(build(which))
    import re
    ms = [m.start() for m in re.finditer(rb"\x0e\x01", b)]
    print(which, ms)
    # tensor_view: 0e 01 elem(1) arr shape: n(1) 8 bytes; arr strides: n(1) 8 bytes; ptrAttr
    for p in ms:
        q = p + 3 + 1 + 8 + 1 + 8
        if b[q] == 0:
            b[q] = int(sys.argv[1])
    ps = [m.start() for m in re.finditer(rb"\x0c\x01.\x00", b, re.S)]
    print("ptr", ps)
    for p in ps:
        b[p + 3] = int(sys.argv[1])
    open(f"mm_{which}.tileirbc", "wb").write(b)
