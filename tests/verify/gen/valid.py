import os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dsl import *
OUT = os.path.join(HERE, "..", "valid") + "/"
I32 = "tile<i32>"; F32 = "tile<f32>"; TOK = "token"
def c_i32(f, v, t=I32):
    import struct
    return f.op("constant", [t], [], {"value": {"dense": struct.pack("<i", v).hex(), "type": t, "splat": True}})
def c_f32(f, v, t=F32):
    import struct
    return f.op("constant", [t], [], {"value": {"dense": struct.pack("<f", v).hex(), "type": t, "splat": True}})
LOC = {"file": "k.py", "line": 3, "col": 5, "func": "k"}

def elementwise_int():
    f = Fn([I32])
    T = "tile<128xi32>"
    a = f.op("iota", [T])
    b = c_i32(f, 3, T)
    x = f.op("addi", [T], [a, b], {"overflow": "none"}, loc=LOC)
    x = f.op("subi", [T], [x, b], {"overflow": "nsw"})
    x = f.op("muli", [T], [x, b], {"overflow": "nuw"})
    x = f.op("shli", [T], [x, b], {"overflow": "nw"})
    x = f.op("shri", [T], [x, b], {"signedness": "unsigned"})
    x = f.op("andi", [T], [x, b]); x = f.op("ori", [T], [x, b]); x = f.op("xori", [T], [x, b])
    x = f.op("divi", [T], [x, b], {"signedness": "signed", "rounding": "negative_inf"})
    x = f.op("divi", [T], [x, b], {"signedness": "unsigned", "rounding": "zero"})
    x = f.op("remi", [T], [x, b], {"signedness": "signed"})
    x = f.op("maxi", [T], [x, b], {"signedness": "signed"})
    x = f.op("mini", [T], [x, b], {"signedness": "unsigned"})
    x = f.op("mulhii", [T], [x, b])
    x = f.op("negi", [T], [x], {"overflow": "none"})
    x = f.op("absi", [T], [x])
    c = f.op("cmpi", ["tile<128xi1>"], [x, b], {"comparison_predicate": "less_than", "signedness": "signed"})
    x = f.op("select", [T], [c, x, b])
    s = f.op("addi", [I32], [f.args[0], f.args[0]], {"overflow": "none"})
    f.op("return")
    write(OUT + "elementwise_int.json", module([f.entry()]))

def elementwise_float():
    f = Fn([F32, "tile<f16>"])
    T = "tile<4x32xf32>"
    a = c_f32(f, 1.0, T)
    x = f.op("addf", [T], [a, a], {"rounding_mode": "nearest_even", "flush_to_zero": True})
    x = f.op("subf", [T], [x, a], {"rounding_mode": "zero"})
    x = f.op("mulf", [T], [x, a], {"rounding_mode": "positive_inf"})
    x = f.op("divf", [T], [x, a], {"rounding_mode": "approx", "flush_to_zero": True})
    x = f.op("divf", [T], [x, a], {"rounding_mode": "full"})
    x = f.op("fma", [T], [x, a, a], {"rounding_mode": "negative_inf"})
    x = f.op("maxf", [T], [x, a], {"propagate_nan": True})
    x = f.op("minf", [T], [x, a])
    x = f.op("exp", [T], [x], {"rounding_mode": "approx"})
    x = f.op("exp2", [T], [x], {"flush_to_zero": True})
    for n in ["log", "log2", "sin", "cos", "tan", "sinh", "cosh", "absf", "negf", "ceil", "floor"]:
        x = f.op(n, [T], [x])
    x = f.op("tanh", [T], [x], {"rounding_mode": "full"})
    x = f.op("sqrt", [T], [x], {"rounding_mode": "approx"})
    x = f.op("rsqrt", [T], [x], {"flush_to_zero": True})
    x = f.op("pow", [T], [x, a]); x = f.op("remf", [T], [x, a]); x = f.op("atan2", [T], [x, a])
    c = f.op("cmpf", ["tile<4x32xi1>"], [x, a], {"comparison_predicate": "equal", "comparison_ordering": "ordered"})
    x = f.op("select", [T], [c, x, a])
    h = f.op("addf", ["tile<f16>"], [f.args[1], f.args[1]], {"rounding_mode": "nearest_even"})
    h = f.op("exp", ["tile<f16>"], [h], {"rounding_mode": "full"})
    f.op("return")
    write(OUT + "elementwise_float.json", module([f.entry()]))

def conversions():
    f = Fn([I32, F32, "tile<ptr<f32>>"])
    i, x, p = f.args
    T = "tile<64x"
    a = f.op("exti", ["tile<i64>"], [i], {"signedness": "signed"})
    b = f.op("trunci", ["tile<i8>"], [i], {"overflow": "none"})
    q = f.op("trunci", ["tile<i4>"], [b], {"overflow": "none"})
    q = f.op("exti", ["tile<i16>"], [q], {"signedness": "unsigned"})
    c = f.op("ftof", ["tile<bf16>"], [x], {"rounding_mode": "nearest_even"})
    c = f.op("ftof", ["tile<f8E8M0FNU>"], [x], {"rounding_mode": "positive_inf"})
    d = f.op("itof", [F32], [i], {"signedness": "signed", "rounding_mode": "nearest_even"})
    e = f.op("ftoi", [I32], [x], {"signedness": "unsigned", "rounding_mode": "nearest_int_to_zero"})
    g = f.op("bitcast", [I32], [x])
    g = f.op("bitcast", ["tile<f16>"], [f.op("trunci", ["tile<i16>"], [i], {"overflow": "none"})])
    n = f.op("ptr_to_int", ["tile<i64>"], [p])
    p2 = f.op("int_to_ptr", ["tile<ptr<i8>>"], [n])
    p3 = f.op("ptr_to_ptr", ["tile<ptr<f16>>"], [p2])
    v = c_f32(f, 1.0, "tile<8xf32>")
    pk = f.op("pack", ["tile<32xi8>"], [v])
    up = f.op("unpack", ["tile<64xf4E2M1FN>"], [pk])
    f.op("return")
    write(OUT + "conversions.json", module([f.entry()]))

def shape():
    f = Fn([I32, "tile<ptr<f32>>"], hints={"dict": {"sm_90": {"dict": {"num_cta_in_cga": 2}}, "default": {"dict": {}}}})
    bx, by, bz = f.op("get_tile_block_id", [I32] * 3)
    nx, ny, nz = f.op("get_num_tile_blocks", [I32] * 3)
    r = f.op("reshape", ["tile<1x1xi32>"], [bx])
    b = f.op("broadcast", ["tile<4x8xi32>"], [r])
    p = f.op("permute", ["tile<8x4xi32>"], [b], {"permutation": [1, 0]})
    c = f.op("cat", ["tile<16x4xi32>"], [p, p], {"dim": 0})
    z = c_i32(f, 0)
    e = f.op("extract", ["tile<4x4xi32>"], [c, bx, z])
    i = f.op("insert", ["tile<16x4xi32>"], [e, c, bx, z])
    io = f.op("iota", ["tile<16xi8>"])
    k = f.op("constant", ["tile<4xi16>"], [], {"value": {"dense": "0100020003000400", "type": "tile<4xi16>"}})
    m = f.op("constant", ["tile<2xi1>"], [], {"value": {"dense": "0100", "type": "tile<2xi1>"}})
    pp = f.op("reshape", ["tile<1xptr<f32>>"], [f.args[1]])
    pb = f.op("broadcast", ["tile<16xptr<f32>>"], [pp])
    off = f.op("offset", ["tile<16xptr<f32>>"], [pb, f.op("exti", ["tile<16xi64>"], [f.op("iota", ["tile<16xi32>"])], {"signedness": "signed"})])
    f.op("return")
    write(OUT + "shape.json", module([f.entry()], ver="13.4"))

def memory_ptr():
    f = Fn(["tile<ptr<f32>>", "tile<ptr<i32>>", I32])
    P = "tile<128xptr<f32>>"
    t0 = f.op("make_token", [TOK])
    pp = f.op("broadcast", [P], [f.op("reshape", ["tile<1xptr<f32>>"], [f.args[0]])])
    off = f.op("iota", ["tile<128xi32>"])
    ptrs = f.op("offset", [P], [pp, off])
    mask = f.op("cmpi", ["tile<128xi1>"], [off, f.op("broadcast", ["tile<128xi32>"], [f.op("reshape", ["tile<1xi32>"], [f.args[2]])])],
                {"comparison_predicate": "less_than", "signedness": "signed"})
    pad = c_f32(f, 0.0, "tile<128xf32>")
    v, t1 = f.op("load_ptr_tko", ["tile<128xf32>", TOK], [ptrs, mask, pad, t0],
                 {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 1, 1],
                  "optimization_hints": {"dict": {"sm_100": {"dict": {"latency": {"int": 3, "type": "i32"}}}}}})
    v2, t2 = f.op("load_ptr_tko", ["tile<128xf32>", TOK], [ptrs],
                  {"memory_ordering_semantics": "acquire", "memory_scope": "device", "operand_segment_sizes": [1, 0, 0, 0]})
    t3 = f.op("join_tokens", [TOK], [t1, t2])
    t4 = f.op("store_ptr_tko", [TOK], [ptrs, v, mask, t3],
              {"memory_ordering_semantics": "release", "memory_scope": "sys", "operand_segment_sizes": [1, 1, 1, 1]})
    ip = f.args[1]
    one = c_i32(f, 1)
    old, t5 = f.op("atomic_cas_tko", [I32, TOK], [ip, one, c_i32(f, 0)],
                   {"memory_ordering_semantics": "acq_rel", "memory_scope": "device", "operand_segment_sizes": [1, 1, 1, 0, 0]})
    old, t6 = f.op("atomic_rmw_tko", [I32, TOK], [ip, one, t5],
                   {"memory_ordering_semantics": "relaxed", "memory_scope": "tl_blk", "mode": "add", "operand_segment_sizes": [1, 1, 0, 1]})
    fl, t7 = f.op("atomic_rmw_tko", [F32, TOK], [f.args[0], c_f32(f, 1.0)],
                  {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": "addf", "operand_segment_sizes": [1, 1, 0, 0]})
    a = f.op("alloca", ["tile<ptr<f32>>"], [], {"num_elem": 64, "alignment": 16})
    f.op("assert", [], [mask], {"message": "out of range"})
    t8 = f.op("print_tko", [TOK], [f.args[2], v, t7], {"str": "n=%d v=%5.2f %%\n", "operand_segment_sizes": [2, 1]})
    s = f.op("assume", [I32], [f.args[2]], {"predicate": {"bounded": [0, None]}})
    s = f.op("assume", [I32], [s], {"predicate": {"div_by": 16}})
    q = f.op("assume", [P], [ptrs], {"predicate": {"div_by": 16, "every": 4, "along": 0}})
    q = f.op("assume", [P], [q], {"predicate": {"same_elements": [4]}})
    f.op("return")
    write(OUT + "memory_ptr.json", module([f.entry()]))

def views():
    f = Fn(["tile<ptr<f32>>", I32, I32, "tile<ptr<f16>>"])
    TV = "tensor_view<?x?xf32, strides=[?,1]>"
    tv = f.op("make_tensor_view", [TV], [f.args[0], f.args[1], f.args[2], f.args[1]],
              {"operand_segment_sizes": [1, 2, 1]})
    PV = "partition_view<tile=(16x32), padding_value=zero, " + TV + ">"
    pv = f.op("make_partition_view", [PV], [tv])
    s0, s1 = f.op("get_tensor_shape", [I32, I32], [tv])
    n0, n1 = f.op("get_index_space_shape", [I32, I32], [pv])
    bx, by, bz = f.op("get_tile_block_id", [I32] * 3)
    t0 = f.op("make_token", [TOK])
    tile, t1 = f.op("load_view_tko", ["tile<16x32xf32>", TOK], [pv, bx, by, t0],
                    {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 1],
                     "optimization_hints": {"dict": {"sm_90": {"dict": {"allow_tma": True}}}}})
    PV2 = "partition_view<tile=(32x16), " + TV + ", dim_map=[1,0]>"
    pv2 = f.op("make_partition_view", [PV2], [tv])
    t2 = f.op("store_view_tko", [TOK], [tile, pv, bx, by],
              {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "operand_segment_sizes": [1, 1, 2, 0]})
    SV = "strided_view<tile=(16x32), traversal_strides=[3,1], " + TV + ">"
    sv = f.op("make_strided_view", [SV], [tv])
    tile2, t3 = f.op("load_view_tko", ["tile<16x32xf32>", TOK], [sv, bx, by],
                     {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
    t4 = f.op("atomic_red_view_tko", [TOK], [sv, bx, by, tile2, t3],
              {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": "addf",
               "operand_segment_sizes": [1, 2, 1, 1]})
    GV = "gather_scatter_view<tile=(8x32), padding_value=nan, " + TV + ", sparse_dim=0>"
    gv = f.op("make_gather_scatter_view", [GV], [tv])
    rows = f.op("iota", ["tile<8xi32>"])
    g, t5 = f.op("load_view_tko", ["tile<8x32xf32>", TOK], [gv, rows, by],
                 {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
    TV0 = "tensor_view<f16>"
    tv0 = f.op("make_tensor_view", [TV0], [f.args[3]], {"operand_segment_sizes": [1, 0, 0]})
    f.op("return")
    write(OUT + "views.json", module([f.entry()]))

def control():
    f = Fn([I32, "tile<ptr<f32>>"])
    z = c_i32(f, 0); one = c_i32(f, 1)
    acc0 = c_f32(f, 0.0, "tile<8x16xf32>")
    # for with an iter value
    with f.block([I32, "tile<8x16xf32>"]) as body:
        iv, acc = body.args
        nxt = f.op("addf", ["tile<8x16xf32>"], [acc, acc], {"rounding_mode": "nearest_even"})
        f.op("continue", [], [nxt])
    res = f.op("for", ["tile<8x16xf32>"], [z, f.args[0], one, acc0], None, [[body.blk]])
    # if/else with results
    cond = f.op("cmpi", ["tile<i1>"], [f.args[0], z], {"comparison_predicate": "equal", "signedness": "signed"})
    with f.block() as th:
        f.op("yield", [], [one])
    with f.block() as el:
        f.op("yield", [], [z])
    r = f.op("if", [I32], [cond], None, [[th.blk], [el.blk]])
    # if without else
    with f.block() as th2:
        f.op("yield")
    f.op("if", [], [cond], None, [[th2.blk], []])
    # loop with break and continue through if
    with f.block([I32]) as lb:
        (i,) = lb.args
        c2 = f.op("cmpi", ["tile<i1>"], [i, f.args[0]], {"comparison_predicate": "greater_than", "signedness": "signed"})
        with f.block() as t3:
            f.op("break", [], [i])
        with f.block() as e3:
            f.op("yield")
        f.op("if", [], [c2], None, [[t3.blk], [e3.blk]])
        i2 = f.op("addi", [I32], [i, one], {"overflow": "none"})
        f.op("continue", [], [i2])
    lres = f.op("loop", [I32], [z], None, [[lb.blk]])
    # reduce over two operands and scan
    t = c_f32(f, 1.0, "tile<8x16xf32>")
    ti = f.op("iota", ["tile<16xi32>"])
    tb = f.op("broadcast", ["tile<8x16xi32>"], [f.op("reshape", ["tile<1x16xi32>"], [ti])])
    with f.block([F32, F32, I32, I32]) as rb:
        a0, b0, a1, b1 = rb.args
        s0 = f.op("addf", [F32], [a0, b0], {"rounding_mode": "nearest_even"})
        s1 = f.op("maxi", [I32], [a1, b1], {"signedness": "signed"})
        f.op("yield", [], [s0, s1])
    red = f.op("reduce", ["tile<8xf32>", "tile<8xi32>"], [t, tb],
               {"dim": 1, "identities": [{"float": "0x0", "type": "f32"}, {"int": -2147483648, "type": "i32"}]},
               [[rb.blk]])
    with f.block([F32, F32]) as sb:
        a0, b0 = sb.args
        f.op("yield", [], [f.op("mulf", [F32], [a0, b0], {"rounding_mode": "nearest_even"})])
    sc = f.op("scan", ["tile<8x16xf32>"], [t], {"dim": 0, "reverse": True, "identities": [{"float": "0x3f800000", "type": "f32"}]}, [[sb.blk]])
    # return through if
    with f.block() as t4:
        f.op("return")
    with f.block() as e4:
        f.op("yield")
    f.op("if", [], [cond], None, [[t4.blk], [e4.blk]])
    f.op("return")
    write(OUT + "control.json", module([f.entry()]))

def mma():
    f = Fn([])
    A = c_f32(f, 1.0, "tile<64x32xf32>")
    a16 = f.op("ftof", ["tile<64x32xf16>"], [A], {"rounding_mode": "nearest_even"})
    b16 = f.op("ftof", ["tile<32x64xf16>"], [c_f32(f, 1.0, "tile<32x64xf32>")], {"rounding_mode": "nearest_even"})
    acc = c_f32(f, 0.0, "tile<64x64xf32>")
    r = f.op("mmaf", ["tile<64x64xf32>"], [a16, b16, acc])
    r = f.op("mmaf", ["tile<64x64xf32>"], [a16, b16, r], {"fast_acc": True})
    ai = f.op("constant", ["tile<2x16x32xi8>"], [], {"value": {"dense": "01", "type": "tile<2x16x32xi8>", "splat": True}})
    bi = f.op("constant", ["tile<2x32x8xi8>"], [], {"value": {"dense": "01", "type": "tile<2x32x8xi8>", "splat": True}})
    ci = f.op("constant", ["tile<2x16x8xi32>"], [], {"value": {"dense": "00000000", "type": "tile<2x16x8xi32>", "splat": True}})
    ri = f.op("mmai", ["tile<2x16x8xi32>"], [ai, bi, ci], {"signedness_lhs": "signed", "signedness_rhs": "unsigned"})
    fa = f.op("ftof", ["tile<64x64xf8E4M3FN>"], [c_f32(f, 1.0, "tile<64x64xf32>")], {"rounding_mode": "nearest_even"})
    fb = f.op("ftof", ["tile<64x32xf8E4M3FN>"], [c_f32(f, 1.0, "tile<64x32xf32>")], {"rounding_mode": "nearest_even"})
    sa = f.op("ftof", ["tile<64x2xf8E8M0FNU>"], [c_f32(f, 1.0, "tile<64x2xf32>")], {"rounding_mode": "zero"})
    sb = f.op("ftof", ["tile<2x32xf8E8M0FNU>"], [c_f32(f, 1.0, "tile<2x32xf32>")], {"rounding_mode": "zero"})
    rs = f.op("mmaf_scaled", ["tile<64x32xf32>"], [fa, fb, c_f32(f, 0.0, "tile<64x32xf32>"), sa, sb])
    f.op("return")
    write(OUT + "mma.json", module([f.entry()]))

def globals_():
    g1 = {"op": "cuda_tile.global", "attrs": {"sym_name": "table", "value": {"dense": "0100000002000000", "type": "tile<2xi32>"}, "alignment": 16}}
    g2 = {"op": "cuda_tile.global", "attrs": {"sym_name": "lock", "value": {"dense": "00000000", "type": "tile<1xi32>"}, "alignment": 0, "constant": True, "symbol_visibility": "private"}}
    f = Fn([I32], name="k1")
    p = f.op("get_global", ["tile<ptr<i32>>"], [], {"name": "table"})
    t = f.op("gdc_wait_tko", [TOK], [])
    t = f.op("gdc_launch_dependents_tko", [TOK], [t])
    t = f.op("memory_fence_alias_tko", [TOK], [t])
    x = f.op("fpowi", [F32], [c_f32(f, 2.0), f.args[0]])
    l = f.op("ftoi", [I32], [x], {"signedness": "signed", "rounding_mode": "nearest_int_to_zero", "saturating": True})
    f.op("return")
    f2 = Fn([], name="k2")
    f2.op("get_global", ["tile<ptr<i32>>"], [], {"name": "lock"})
    f2.op("return")
    write(OUT + "globals_13_4.json", module([g1, g2, f.entry(), f2.entry()], ver="13.4", mattrs={"producer": "hand"}))

for fn in [elementwise_int, elementwise_float, conversions, shape, memory_ptr, views, control, mma, globals_]:
    fn()

def versions_13_1():
    """13.1: attributes newer than the op may be present with their default value"""
    f = Fn([I32, F32])
    i, x = f.args
    f.op("negi", [I32], [i], {"overflow": "none"})
    f.op("tanh", [F32], [x], {"rounding_mode": "full"})
    f.op("exp", [F32], [x])
    f.op("exp", [F32], [x], {"rounding_mode": "full"})
    f.op("print_tko", [TOK], [i], {"str": "%d\n", "operand_segment_sizes": [1, 0]})
    a = f.op("constant", ["tile<16x16xf16>"], [], {"value": {"dense": "0000", "type": "tile<16x16xf16>", "splat": True}})
    c = f.op("constant", ["tile<16x16xf32>"], [], {"value": {"dense": "00000000", "type": "tile<16x16xf32>", "splat": True}})
    f.op("mmaf", ["tile<16x16xf32>"], [a, a, c], {"fast_acc": False})
    with f.block([I32]) as b:
        f.op("continue")
    f.op("for", [], [i, i, i], {"unsignedCmp": False}, [[b.blk]])
    f.op("return")
    write(OUT + "versions_13_1.json", module([f.entry()], ver="13.1"))

def no_version():
    """no bytecode_version: every feature is allowed"""
    f = Fn([F32])
    x = f.args[0]
    f.op("fpowi", [F32], [x, c_i32(f, 2)])
    f.op("addf", [F32], [x, x], {"rounding_mode": "nearest_away"})
    f.op("return")
    write(OUT + "no_version.json", module([f.entry()], ver=None))

versions_13_1()
no_version()
