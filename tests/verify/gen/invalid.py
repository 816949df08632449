import os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dsl import *
import struct, sys
OUT = os.path.join(HERE, "..", "invalid") + "/"
I32 = "tile<i32>"; F32 = "tile<f32>"; TOK = "token"
CASES = []   # (name, expected substring, description)

def cst(f, t, hexv, splat=True):
    v = {"dense": hexv, "type": t}
    if splat: v["splat"] = True
    return f.op("constant", [t], [], {"value": v})
def ci(f, v=0, t=I32): return cst(f, t, struct.pack("<i", v).hex())
def cf(f, v=0.0, t=F32): return cst(f, t, struct.pack("<f", v).hex())

def empty_entry(name="k"):
    f = Fn([], name=name); f.op("return"); return f.entry()

def case(name, expect, desc, params=(), ver="13.3", ret=True, tops_before=(), mattrs=None, raw=None):
    def deco(body):
        if raw is not None:
            mod = raw
        else:
            f = Fn(list(params))
            body(f)
            if ret:
                f.op("return")
            mod = module(list(tops_before) + [f.entry()], ver=ver, mattrs=mattrs)
        write(OUT + name + ".json", mod)
        CASES.append((name, expect, desc))
        return body
    return deco

T = "tile<128xi32>"
# ---------------------------------------------------------------- structure / attributes
@case("unknown_attr", "has unknown attribute 'rounding' (it takes: overflow)", "an attribute the op does not take")
def _(f): a = ci(f); f.op("addi", [I32], [a, a], {"overflow": "none", "rounding": "zero"})
@case("below_attr", "has unknown attribute 'via_shared' (it takes: none)", "an attribute only the lower stages put on an op (via_shared), at stage cuda_tile")
def _(f): f.op("extract", ["tile<4xi32>"], [ci(f, 0, "tile<16xi32>"), ci(f)], {"via_shared": True})
@case("missing_attr", "requires attribute 'overflow'", "a required attribute is missing")
def _(f): a = ci(f); f.op("addi", [I32], [a, a])
@case("enum_unknown", "attribute 'comparison_predicate' has unknown value 'lt'", "an enum value spelled wrong")
def _(f): a = ci(f); f.op("cmpi", ["tile<i1>"], [a, a], {"comparison_predicate": "lt", "signedness": "signed"})
@case("enum_not_allowed", "rounding_mode 'approx' is not supported by this op", "an enum value the op does not accept")
def _(f): a = cf(f); f.op("addf", [F32], [a, a], {"rounding_mode": "approx"})
@case("attr_kind", "attribute 'dim' must be an integer", "an attribute of the wrong kind")
def _(f): a = ci(f, 0, "tile<4xi32>"); f.op("cat", ["tile<8xi32>"], [a, a], {"dim": "0"})
@case("operand_count", "expects 2 operands, got 1", "too few operands")
def _(f): a = ci(f); f.op("addi", [I32], [a], {"overflow": "none"})
@case("result_count", "expects 3 results, got 2", "too few results")
def _(f): f.op("get_tile_block_id", [I32, I32])
@case("segments_missing", "requires attribute 'operand_segment_sizes'", "an AttrSizedOperandSegments op without operand_segment_sizes")
def _(f): f.op("print_tko", [TOK], [], {"str": "hi"})
@case("segments_sum", "operand_segment_sizes add up to 2, but the op has 1 operands", "segment sizes that do not add up")
def _(f): f.op("print_tko", [TOK], [ci(f)], {"str": "%d", "operand_segment_sizes": [1, 1]})
@case("segments_optional", "operand_segment_sizes[1] is 2, but operand group 1 is optional (0 or 1)", "an optional group with two operands")
def _(f):
    t = f.op("make_token", [TOK]); f.op("print_tko", [TOK], [t, t], {"str": "", "operand_segment_sizes": [0, 2]})
@case("segments_length", "must have 2 entries (one per operand group), got 3", "segment sizes with the wrong length")
def _(f): f.op("print_tko", [TOK], [], {"str": "", "operand_segment_sizes": [0, 0, 0]})
@case("segments_not_allowed", "attribute 'operand_segment_sizes' is not allowed", "operand_segment_sizes on an op with fixed operands")
def _(f): a = ci(f); f.op("addi", [I32], [a, a], {"overflow": "none", "operand_segment_sizes": [1, 1]})
@case("region_count", "expects 1 region, got 0", "a for without its body")
def _(f): a = ci(f); f.op("for", [], [a, a, a])
@case("block_count", "region #0 must have exactly one block, got 2", "a loop body with two blocks")
def _(f):
    with f.block() as b1: f.op("continue")
    with f.block() as b2: f.op("continue")
    f.op("loop", [], [], None, [[b1.blk, b2.blk]])
@case("no_terminator", "ends a block but is not a terminator", "a block that does not end with a terminator", ret=False)
def _(f): ci(f)
@case("terminator_not_last", "is a terminator and must be the last op of its block", "ops after a terminator")
def _(f): f.op("return")
@case("empty_block", "has an empty block", "an empty then block")
def _(f):
    c = cst(f, "tile<i1>", "01")
    with f.block() as th: pass
    f.op("if", [], [c], None, [[th.blk], []])
@case("yield_parent", "must be inside cuda_tile.if, cuda_tile.reduce or cuda_tile.scan, not 'cuda_tile.for'", "yield ending a for body")
def _(f):
    a = ci(f)
    with f.block([I32]) as b: f.op("yield")
    f.op("for", [], [a, a, a], None, [[b.blk]])
@case("continue_parent", "must be inside cuda_tile.for or cuda_tile.loop", "continue ending an entry", ret=False)
def _(f): f.op("continue")
@case("break_parent", "must be inside cuda_tile.loop", "break in a for")
def _(f):
    a = ci(f)
    with f.block([I32]) as b: f.op("break")
    f.op("for", [], [a, a, a], None, [[b.blk]])
@case("return_parent", "must be inside cuda_tile.entry", "return in a loop body")
def _(f):
    with f.block() as b: f.op("return")
    f.op("loop", [], [], None, [[b.blk]])
@case("return_operands", "an entry returns nothing, but return has 1 operand", "return with a value", ret=False)
def _(f): f.op("return", [], [ci(f)])
@case("yield_types", "operand #0 has type tile<f32>, but the enclosing 'cuda_tile.if' expects tile<i32>", "if yielding the wrong type")
def _(f):
    c = cst(f, "tile<i1>", "01"); x = cf(f); y = ci(f)
    with f.block() as th: f.op("yield", [], [x])
    with f.block() as el: f.op("yield", [], [y])
    f.op("if", [I32], [c], None, [[th.blk], [el.blk]])
@case("yield_count", "expects 1 operand (the results of the enclosing 'cuda_tile.if'), got 0", "if yielding nothing for a result")
def _(f):
    c = cst(f, "tile<i1>", "01"); y = ci(f)
    with f.block() as th: f.op("yield")
    with f.block() as el: f.op("yield", [], [y])
    f.op("if", [I32], [c], None, [[th.blk], [el.blk]])
@case("continue_types", "operand #0 has type tile<i64>, but the enclosing 'cuda_tile.for' expects tile<i32>", "continue with the wrong type")
def _(f):
    a = ci(f); w = cst(f, "tile<i64>", "0000000000000000")
    with f.block([I32, I32]) as b: f.op("continue", [], [w])
    f.op("for", [I32], [a, a, a, a], None, [[b.blk]])
@case("break_types", "operand #0 has type tile<f32>, but the enclosing 'cuda_tile.loop' expects tile<i32>", "break with the wrong type")
def _(f):
    x = cf(f)
    with f.block() as b: f.op("break", [], [x])
    f.op("loop", [I32], [], None, [[b.blk]])
@case("if_no_else", "has results, so it needs an else region", "an if with results and no else")
def _(f):
    c = cst(f, "tile<i1>", "01"); y = ci(f)
    with f.block() as th: f.op("yield", [], [y])
    f.op("if", [I32], [c], None, [[th.blk], []])
@case("if_condition", "condition must be tile<i1>, got tile<4xi1>", "an if on a non-scalar condition")
def _(f):
    c = cst(f, "tile<4xi1>", "01")
    with f.block() as th: f.op("yield")
    f.op("if", [], [c], None, [[th.blk], []])
@case("for_bounds", "lower bound, upper bound and step must have one type", "for bounds of different types")
def _(f):
    a = ci(f); w = cst(f, "tile<i64>", "0000000000000000")
    with f.block([I32]) as b: f.op("continue")
    f.op("for", [], [a, w, a], None, [[b.blk]])
@case("for_induction", "body block argument #0 (the induction variable) must have type tile<i32>", "a for whose induction variable has the wrong type")
def _(f):
    a = ci(f)
    with f.block(["tile<i64>"]) as b: f.op("continue")
    f.op("for", [], [a, a, a], None, [[b.blk]])
@case("for_view_carried", "loop-carried value #0 cannot be a tensor_view or view", "a for carrying a tensor_view", params=["tile<ptr<f32>>"])
def _(f):
    a = ci(f)
    tv = f.op("make_tensor_view", ["tensor_view<f32>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
    with f.block([I32, "tensor_view<f32>"]) as b: f.op("continue", [], [b.args[1]])
    f.op("for", ["tensor_view<f32>"], [a, a, a, tv], None, [[b.blk]])
@case("loop_args", "body block argument #0 has type tile<i64>, but initial value #0 has type tile<i32>", "loop block arguments not matching its initial values")
def _(f):
    a = ci(f)
    with f.block(["tile<i64>"]) as b: f.op("break")
    f.op("loop", [], [a], None, [[b.blk]])
@case("nested_entry", "can only be at the top level of a module", "an entry inside an entry")
def _(f):
    with f.block() as b: f.op("return")
    f.op("entry", [], [], {"sym_name": "inner", "function_type": {"type": "() -> ()"}}, [[b.blk]])
@case("top_level_op", "cannot be at the top level of a module", "a body op at the top level",
      raw=module([{"op": "cuda_tile.make_token", "results": [{"id": "%0", "type": "token"}]}]))
def _(f): pass
@case("module_op", "cannot appear in the IR", "a cuda_tile.module op", raw=module([{"op": "cuda_tile.module"}]))
def _(f): pass
@case("other_dialect", "belongs to dialect 'nv_tileaa'", "an nv_tileaa op in cuda_tile IR")
def _(f): f.op("make_token", [TOK]); f.stack[-1][-1]["op"] = "nv_tileaa.create_mem_token"
@case("duplicate_symbol", "redefines symbol 'k'", "two entries with one name",
      raw=module([empty_entry(), empty_entry()]))
def _(f): pass
# the raw entries above have empty bodies: give them returns
for name in ["duplicate_symbol"]:
    pass

# ---------------------------------------------------------------- elementwise
@case("same_type", "requires all operands and results to have the same type, got tile<i64> and tile<i32>", "addi of i32 and i64")
def _(f): a = ci(f); w = cst(f, "tile<i64>", "0000000000000000"); f.op("addi", [I32], [a, w], {"overflow": "none"})
@case("int_op_on_float", "result must be a tile of i1, i8, i16, i32 or i64, got tile<f32>", "an integer op on floats")
def _(f): a = cf(f); f.op("addi", [F32], [a, a], {"overflow": "none"})
@case("float_op_on_int", "result must be a tile of f16, bf16, f32 or f64, got tile<i32>", "a float op on integers")
def _(f): a = ci(f); f.op("addf", [I32], [a, a], {"rounding_mode": "nearest_even"})
@case("math_on_f8", "result must be a tile of f16, bf16, f32 or f64, got tile<f8E4M3FN>", "exp on f8")
def _(f): a = cst(f, "tile<f8E4M3FN>", "00"); f.op("exp", ["tile<f8E4M3FN>"], [a], {"rounding_mode": "full"})
@case("cmp_result", "result must be a tile of i1 with the operands' shape, got tile<4xi32>", "cmpi producing i32")
def _(f): a = ci(f, 0, "tile<4xi32>"); f.op("cmpi", ["tile<4xi32>"], [a, a], {"comparison_predicate": "equal", "signedness": "signed"})
@case("cmp_shape", "result must be a tile of i1 with the operands' shape, got tile<8xi1>", "cmpf with a result of another shape")
def _(f): a = cf(f, 0, "tile<4xf32>"); f.op("cmpf", ["tile<8xi1>"], [a, a], {"comparison_predicate": "equal", "comparison_ordering": "unordered"})
@case("select_condition", "condition must be a tile of i1, got tile<4xi32>", "select on an i32 condition")
def _(f): a = ci(f, 0, "tile<4xi32>"); f.op("select", ["tile<4xi32>"], [a, a, a])
@case("select_shape", "condition (tile<8xi1>) must have the same shape as tile<4xi32>", "select with a condition of another shape")
def _(f): c = cst(f, "tile<8xi1>", "01"); a = ci(f, 0, "tile<4xi32>"); f.op("select", ["tile<4xi32>"], [c, a, a])
@case("select_f4", "result must be a tile of", "select on f4E2M1FN")
def _(f): c = cst(f, "tile<2xi1>", "01"); a = cst(f, "tile<2xf4E2M1FN>", "00"); f.op("select", ["tile<2xf4E2M1FN>"], [c, a, a])
@case("ftz_not_f32", "flush_to_zero is only supported for f32, got f16", "flush_to_zero on f16")
def _(f): a = cst(f, "tile<f16>", "0000"); f.op("addf", ["tile<f16>"], [a, a], {"rounding_mode": "nearest_even", "flush_to_zero": True})
@case("approx_not_f32", "rounding_mode 'approx' is only supported for f32, got f64", "divf approx on f64")
def _(f): a = cst(f, "tile<f64>", "0000000000000000"); f.op("divf", ["tile<f64>"], [a, a], {"rounding_mode": "approx"})
@case("divi_unsigned_neg_inf", "rounding 'negative_inf' is not supported for unsigned division", "unsigned floor division")
def _(f): a = ci(f); f.op("divi", [I32], [a, a], {"signedness": "unsigned", "rounding": "negative_inf"})
@case("divi_rounding", "rounding 'nearest_even' is not supported by this op (expected one of: zero, negative_inf, positive_inf)", "divi rounding to nearest")
def _(f): a = ci(f); f.op("divi", [I32], [a, a], {"signedness": "signed", "rounding": "nearest_even"})
@case("negi_nuw", "overflow 'nuw' is not supported by this op", "negi with nuw")
def _(f): a = ci(f); f.op("negi", [I32], [a], {"overflow": "nuw"})
@case("offset_types", "offset operand must be a tile of i8, i16, i32 or i64, got tile<4xf32>", "offset by floats", params=["tile<ptr<f32>>"])
def _(f):
    p = f.op("broadcast", ["tile<4xptr<f32>>"], [f.op("reshape", ["tile<1xptr<f32>>"], [f.args[0]])])
    f.op("offset", ["tile<4xptr<f32>>"], [p, cf(f, 0, "tile<4xf32>")])

# ---------------------------------------------------------------- conversions
@case("exti_not_wider", "result element type i16 must be wider than the source's i32", "exti narrowing")
def _(f): f.op("exti", ["tile<i16>"], [ci(f)], {"signedness": "signed"})
@case("trunci_not_narrower", "result element type i64 must be narrower than the source's i32", "trunci widening")
def _(f): f.op("trunci", ["tile<i64>"], [ci(f)], {"overflow": "none"})
@case("ftof_same_type", "source and result have the same element type f32 (not a conversion)", "ftof f32 to f32")
def _(f): f.op("ftof", [F32], [cf(f)], {"rounding_mode": "nearest_even"})
@case("ftof_rounding", "rounding_mode must be nearest_even, got 'zero'", "ftof with round-to-zero")
def _(f): f.op("ftof", ["tile<f16>"], [cf(f)], {"rounding_mode": "zero"})
@case("ftof_e8m0_rounding", "conversion to f8E8M0FNU needs rounding_mode zero or positive_inf, got 'nearest_even'", "ftof to f8E8M0FNU rounding to nearest")
def _(f): f.op("ftof", ["tile<f8E8M0FNU>"], [cf(f)], {"rounding_mode": "nearest_even"})
@case("itof_e8m0", "cannot convert an integer to f8E8M0FNU", "itof to f8E8M0FNU")
def _(f): f.op("itof", ["tile<f8E8M0FNU>"], [ci(f)], {"signedness": "signed", "rounding_mode": "nearest_even"})
@case("itof_direction", "source must be a tile of i1, i8, i16, i32 or i64, got tile<f32>", "itof from a float")
def _(f): f.op("itof", ["tile<f16>"], [cf(f)], {"signedness": "signed", "rounding_mode": "nearest_even"})
@case("ftoi_rounding", "rounding_mode 'nearest_even' is not supported by this op (expected one of: nearest_int_to_zero)", "ftoi rounding to nearest")
def _(f): f.op("ftoi", [I32], [cf(f)], {"signedness": "signed", "rounding_mode": "nearest_even"})
@case("bitcast_width", "source element i32 and result element f16 must have the same bit width", "bitcast between widths")
def _(f): f.op("bitcast", ["tile<f16>"], [ci(f)])
@case("conversion_shape", "source tile<4xi32> and result tile<8xi64> must have the same shape", "exti changing the shape")
def _(f): f.op("exti", ["tile<8xi64>"], [ci(f, 0, "tile<4xi32>")], {"signedness": "signed"})
@case("int_to_ptr_source", "source must be a tile of i64, got tile<i32>", "int_to_ptr from i32")
def _(f): f.op("int_to_ptr", ["tile<ptr<f32>>"], [ci(f)])
@case("pack_size", "source tile<8xf32> and result tile<16xi8> must have the same size in bytes", "pack to the wrong size")
def _(f): f.op("pack", ["tile<16xi8>"], [cf(f, 0, "tile<8xf32>")])

# ---------------------------------------------------------------- types
@case("tile_not_pow2", "type tile<3xf32>: tile dimensions must be positive powers of two, got 3", "a tile dimension of 3")
def _(f): cf(f, 0, "tile<3xf32>")
@case("tile_too_big", "type tile<8192x4096xf32>: a tile may have at most 16777216 elements", "a tile over the element cap")
def _(f): cf(f, 0, "tile<8192x4096xf32>")
@case("f4_odd", "a tile of f4E2M1FN needs an even dimension", "a scalar f4E2M1FN tile")
def _(f): cst(f, "tile<f4E2M1FN>", "00")
@case("ptr_f4_tile", "type tile<1xptr<f4E2M1FN>>: tiles of ptr<f4E2M1FN> must have rank 0; use an f4 tile view", "a tile of f4 pointers (f4 has no per-element address)", params=["tile<ptr<f4E2M1FN>>"])
def _(f): f.op("reshape", ["tile<1xptr<f4E2M1FN>>"], [f.args[0]])
@case("value_type", "result #0 has type f32, which is not a value type", "a bare element type as a value type")
def _(f): f.op("constant", ["f32"], [], {"value": {"dense": "00000000", "type": "tile<f32>", "splat": True}})
@case("ptr_i4", "type ptr<i4>: a pointer's element must be a number type", "a pointer to i4", params=["tile<ptr<i4>>"])
def _(f): pass
@case("view_rank", "the view's tile rank (1) must equal the tensor_view rank (2)", "a 1-d tile over a 2-d tensor_view", params=["tile<ptr<f32>>"])
def _(f):
    tv = f.op("make_tensor_view", ["tensor_view<4x4xf32, strides=[4,1]>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
    f.op("make_partition_view", ["partition_view<tile=(4), tensor_view<4x4xf32, strides=[4,1]>>"], [tv])
@case("dim_map", "dim_map must be a permutation of 0..1", "a dim_map that is not a permutation", params=["tile<ptr<f32>>"])
def _(f):
    tv = f.op("make_tensor_view", ["tensor_view<4x4xf32, strides=[4,1]>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
    f.op("make_partition_view", ["partition_view<tile=(4x4), tensor_view<4x4xf32, strides=[4,1]>, dim_map=[0,0]>"], [tv])
@case("padding_int", "padding_value nan needs a float element type", "a NaN padding on an integer view", params=["tile<ptr<i32>>"])
def _(f):
    tv = f.op("make_tensor_view", ["tensor_view<4xi32, strides=[1]>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
    f.op("make_partition_view", ["partition_view<tile=(4), padding_value=nan, tensor_view<4xi32, strides=[1]>>"], [tv])
@case("tensor_view_stride", "static sizes and strides must be positive", "a zero stride", params=["tile<ptr<f32>>"])
def _(f):
    f.op("make_tensor_view", ["tensor_view<4xf32, strides=[0]>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})

# ---------------------------------------------------------------- version gating
@case("f4_in_13_1", "type 'f4E2M1FN' requires bytecode version 13.3+", "f4E2M1FN in a 13.1 module", ver="13.1")
def _(f): cst(f, "tile<2xf4E2M1FN>", "00")
@case("e8m0_in_13_1", "type 'f8E8M0FNU' requires bytecode version 13.2+", "f8E8M0FNU in a 13.1 module", ver="13.1")
def _(f): f.op("ftof", ["tile<f8E8M0FNU>"], [cf(f)], {"rounding_mode": "zero"})
@case("i4_in_13_2", "type 'i4' requires bytecode version 13.3+", "i4 in a 13.2 module", ver="13.2")
def _(f): f.op("trunci", ["tile<i4>"], [ci(f)], {"overflow": "none"})
@case("op_too_new", "'cuda_tile.atan2' op requires bytecode version 13.2+, but the module is bytecode version 13.1", "atan2 in a 13.1 module", ver="13.1")
def _(f): a = cf(f); f.op("atan2", [F32], [a, a])
@case("op_13_4", "'cuda_tile.fpowi' op requires bytecode version 13.4+", "fpowi in a 13.3 module")
def _(f): f.op("fpowi", [F32], [cf(f), ci(f)])
@case("view_too_new", "type strided_view requires bytecode version 13.3+", "a strided_view in a 13.2 module", params=["tile<ptr<f32>>"], ver="13.2")
def _(f):
    tv = f.op("make_tensor_view", ["tensor_view<4xf32, strides=[1]>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
    f.op("make_strided_view", ["strided_view<tile=(4), traversal_strides=[1], tensor_view<4xf32, strides=[1]>>"], [tv])
@case("attr_too_new", "attribute 'overflow' requires bytecode version 13.2+", "negi nsw in a 13.1 module", ver="13.1")
def _(f): f.op("negi", [I32], [ci(f)], {"overflow": "nsw"})
@case("unit_too_new", "attribute 'fast_acc' requires bytecode version 13.3+", "mmaf fast_acc in a 13.2 module", ver="13.2")
def _(f):
    a = cf(f, 0, "tile<16x16xf32>"); f.op("mmaf", ["tile<16x16xf32>"], [a, a, a], {"fast_acc": True})
@case("print_token_13_1", "a token operand of print_tko requires bytecode version 13.2+", "a print_tko token operand in a 13.1 module", ver="13.1")
def _(f): t = f.op("make_token", [TOK]); f.op("print_tko", [TOK], [t], {"str": "x", "operand_segment_sizes": [0, 1]})
@case("enum_too_new", "rounding_mode 'nearest_away' requires bytecode version 13.4+", "nearest_away in a 13.3 module")
def _(f): a = cf(f); f.op("addf", [F32], [a, a], {"rounding_mode": "nearest_away"})
@case("global_too_new", "attribute 'symbol_visibility' requires bytecode version 13.3+", "a private global in a 13.2 module",
      raw=module([{"op": "cuda_tile.global", "attrs": {"sym_name": "g", "alignment": 0, "symbol_visibility": "private",
                   "value": {"dense": "00000000", "type": "tile<1xi32>"}}}], ver="13.2"))
def _(f): pass
@case("producer_too_new", "module attribute 'producer' requires bytecode version 13.3+", "a producer string in a 13.2 module", ver="13.2", mattrs={"producer": "me"})
def _(f): pass
@case("bad_version", "module attribute 'bytecode_version' must be one of", "an unknown bytecode version", ver="12.9")
def _(f): pass

# ---------------------------------------------------------------- memory, views, tokens
TV2 = "tensor_view<?x?xf32, strides=[?,1]>"
PV2 = "partition_view<tile=(16x32), " + TV2 + ">"
def tv2(f):
    return f.op("make_tensor_view", [TV2], [f.args[0], f.args[1], f.args[1], f.args[1]], {"operand_segment_sizes": [1, 2, 1]})
VP = ["tile<ptr<f32>>", I32]
@case("load_view_indices", "expects 2 indices (the index rank of " + PV2 + "), got 1", "a 2-d view loaded with one index", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("load_view_tko", ["tile<16x32xf32>", TOK], [pv, f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 0]})
@case("load_view_tile", "result #0 must have the view's tile type tile<16x32xf32>, got tile<32x16xf32>", "a load_view_tko result of the wrong tile type", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("load_view_tko", ["tile<32x16xf32>", TOK], [pv, f.args[1], f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
@case("store_view_tile", "the stored tile must have the view's tile type tile<16x32xf32>, got tile<16x32xf16>", "storing a tile of the wrong element type", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    t = cst(f, "tile<16x32xf16>", "0000")
    f.op("store_view_tko", [TOK], [t, pv, f.args[1], f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 2, 0]})
@case("load_view_index_type", "index #1 must be a scalar integer (a rank-0 tile of an integer type), got tile<f32>", "a float view index", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("load_view_tko", ["tile<16x32xf32>", TOK], [pv, f.args[1], cf(f)], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
@case("load_tensor_view", "view must be a partition_view, strided_view or gather_scatter_view, got " + TV2, "load_view_tko on a tensor_view", params=VP)
def _(f):
    tv = tv2(f)
    f.op("load_view_tko", ["tile<16x32xf32>", TOK], [tv, f.args[1], f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
@case("gather_sparse_index", "index #0 (the sparse dimension) must be a rank-1 integer tile of 8 elements, got tile<i32>", "a gather with a scalar sparse index", params=VP)
def _(f):
    gv = f.op("make_gather_scatter_view", ["gather_scatter_view<tile=(8x32), " + TV2 + ", sparse_dim=0>"], [tv2(f)])
    f.op("load_view_tko", ["tile<8x32xf32>", TOK], [gv, f.args[1], f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 0]})
@case("token_operand", "token operand must be a token, got tile<i32>", "a tile passed as the token operand", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("load_view_tko", ["tile<16x32xf32>", TOK], [pv, f.args[1], f.args[1], f.args[1]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 2, 1]})
@case("token_result", "result #1 must be a token, got tile<i32>", "a load whose second result is not a token", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, I32], [f.args[0]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 0, 0]})
@case("join_one_token", "joins at least 2 tokens, got 1", "join_tokens of one token")
def _(f): t = f.op("make_token", [TOK]); f.op("join_tokens", [TOK], [t])
@case("join_non_token", "operand #1 must be a token, got tile<i32>", "join_tokens of a tile")
def _(f): t = f.op("make_token", [TOK]); f.op("join_tokens", [TOK], [t, ci(f)])
@case("weak_with_scope", "memory_scope is not allowed with weak ordering", "a weak load with a scope", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0]], {"memory_ordering_semantics": "weak", "memory_scope": "device", "operand_segment_sizes": [1, 0, 0, 0]})
@case("acquire_no_scope", "memory_ordering_semantics 'acquire' requires a memory_scope", "an acquire load without a scope", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0]], {"memory_ordering_semantics": "acquire", "operand_segment_sizes": [1, 0, 0, 0]})
@case("store_acquire", "memory_ordering_semantics 'acquire' is not supported by this op (expected one of: weak, relaxed, release)", "a store with acquire ordering", params=["tile<ptr<f32>>"])
def _(f): f.op("store_ptr_tko", [TOK], [f.args[0], cf(f)], {"memory_ordering_semantics": "acquire", "memory_scope": "device", "operand_segment_sizes": [1, 1, 0, 0]})
@case("atomic_weak", "memory_ordering_semantics 'weak' is not supported by this op", "a weak atomic", params=["tile<ptr<i32>>"])
def _(f): f.op("atomic_rmw_tko", [I32, TOK], [f.args[0], ci(f)], {"memory_ordering_semantics": "weak", "memory_scope": "device", "mode": "add", "operand_segment_sizes": [1, 1, 0, 0]})
@case("atomic_no_scope", "requires attribute 'memory_scope'", "an atomic without a scope", params=["tile<ptr<i32>>"])
def _(f): f.op("atomic_rmw_tko", [I32, TOK], [f.args[0], ci(f)], {"memory_ordering_semantics": "relaxed", "mode": "add", "operand_segment_sizes": [1, 1, 0, 0]})
@case("atomic_mode_type", "mode 'addf' needs f16, bf16, f32 or f64 elements, got i32", "atomic addf on integers", params=["tile<ptr<i32>>"])
def _(f): f.op("atomic_rmw_tko", [I32, TOK], [f.args[0], ci(f)], {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": "addf", "operand_segment_sizes": [1, 1, 0, 0]})
@case("atomic_cas_width", "compare-and-swap needs 32- or 64-bit integer or float elements, got i16", "a 16-bit compare-and-swap", params=["tile<ptr<i16>>"])
def _(f):
    a = cst(f, "tile<i16>", "0000")
    f.op("atomic_cas_tko", ["tile<i16>", TOK], [f.args[0], a, a], {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "operand_segment_sizes": [1, 1, 1, 0, 0]})
@case("load_ptr_pointee", "result tile<i32> must have the shape of tile<ptr<f32>> and its pointee type", "a load of the wrong element type", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [I32, TOK], [f.args[0]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 0, 0]})
@case("load_ptr_mask", "mask must be a tile of i1, got tile<i32>", "a load masked by an i32 tile", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0], ci(f)], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 0, 0]})
@case("load_ptr_padding", "padding value must have type tile<f32>, got tile<i32>", "a padding value of the wrong type", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0], ci(f)], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 1, 0]})
@case("make_tensor_view_dynamic", "has 2 dynamic sizes and 1 dynamic strides, but the op gives 1 and 1", "too few dynamic sizes", params=VP)
def _(f): f.op("make_tensor_view", [TV2], [f.args[0], f.args[1], f.args[1]], {"operand_segment_sizes": [1, 1, 1]})
@case("make_tensor_view_base", "base tile<ptr<f32>> must point to the tensor_view's element type f16", "a tensor_view of another element type", params=["tile<ptr<f32>>"])
def _(f): f.op("make_tensor_view", ["tensor_view<f16>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
@case("make_view_operand", "operand must have type tensor_view<?x?xf32, strides=[?,?]>, got " + TV2, "a partition_view over another tensor_view type", params=VP)
def _(f): f.op("make_partition_view", ["partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,?]>>"], [tv2(f)])
@case("atomic_red_xchg", "mode 'xchg' is not supported by this op", "an atomic reduction by exchange", params=VP)
def _(f):
    sv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("atomic_red_view_tko", [TOK], [sv, f.args[1], f.args[1], cf(f, 0, "tile<16x32xf32>")],
         {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": "xchg", "operand_segment_sizes": [1, 2, 1, 0]})
@case("atomic_red_padding", "must not have a padding_value", "an atomic reduction into a padded view", params=VP)
def _(f):
    sv = f.op("make_partition_view", ["partition_view<tile=(16x32), padding_value=zero, " + TV2 + ">"], [tv2(f)])
    f.op("atomic_red_view_tko", [TOK], [sv, f.args[1], f.args[1], cf(f, 0, "tile<16x32xf32>")],
         {"memory_ordering_semantics": "relaxed", "memory_scope": "device", "mode": "addf", "operand_segment_sizes": [1, 2, 1, 0]})
@case("get_tensor_shape_count", "expects 2 results (one per dimension of " + TV2 + "), got 1", "get_tensor_shape with too few results", params=VP)
def _(f): f.op("get_tensor_shape", [I32], [tv2(f)])
@case("alloca_alignment", "alignment must be a power of two of at least 8 (the size of f64), got 4", "an under-aligned alloca")
def _(f): f.op("alloca", ["tile<ptr<f64>>"], [], {"num_elem": 4, "alignment": 4})

# ---------------------------------------------------------------- entry, hints, attributes
@case("entry_results", "an entry has no results, but its function_type is () -> (tile<i32>)", "an entry with a result",
      raw=module([{"op": "cuda_tile.entry", "attrs": {"sym_name": "k", "function_type": {"type": "() -> (tile<i32>)"}},
                   "regions": [[{"ops": [{"op": "cuda_tile.return"}]}]]}]))
def _(f): pass
@case("entry_param_rank", "parameter #0 has type tile<4xf32>: entry parameters are scalars (rank-0 tiles)", "a tile parameter", params=["tile<4xf32>"])
def _(f): pass
@case("entry_signature", "body block argument #0 has type tile<i64>, but function_type says tile<i32>", "block arguments not matching function_type",
      raw=module([{"op": "cuda_tile.entry", "attrs": {"sym_name": "k", "function_type": {"type": "(tile<i32>) -> ()"}},
                   "regions": [[{"args": [{"id": "%0", "type": "tile<i64>"}], "ops": [{"op": "cuda_tile.return"}]}]]}]))
def _(f): pass
@case("hints_not_dict", "optimization_hints: the value for 'sm_90' must be a dictionary", "an optimization hint that is not a dictionary",
      raw=module([{"op": "cuda_tile.entry", "attrs": {"sym_name": "k", "function_type": {"type": "() -> ()"},
                                                        "optimization_hints": {"dict": {"sm_90": 4}}},
                   "regions": [[{"ops": [{"op": "cuda_tile.return"}]}]]}]))
def _(f): pass
@case("array_int32_min", "array contains unsupported value -2147483648", "a permutation holding INT32_MIN")
def _(f): f.op("permute", ["tile<4x4xf32>"], [cf(f, 0, "tile<4x4xf32>")], {"permutation": [0, -2147483648]})
@case("array_int32_max", "array contains unsupported value 2147483647", "a permutation holding INT32_MAX")
def _(f): f.op("permute", ["tile<4x4xf32>"], [cf(f, 0, "tile<4x4xf32>")], {"permutation": [2147483647, 0]})
@case("div_by_not_pow2", "div_by divisor must be a power of two no larger than 2^62, got 12", "div_by 12")
def _(f): f.op("assume", [I32], [ci(f)], {"predicate": {"div_by": 12}})
@case("div_by_every_tensor_view", "div_by on a tensor_view cannot have 'every'/'along'", "div_by every/along on a tensor_view", params=VP)
def _(f): f.op("assume", [TV2], [tv2(f)], {"predicate": {"div_by": 16, "every": 1, "along": 0}})
@case("div_by_along", "div_by 'along' 1 is out of range for tile<8xi32>", "div_by along a dimension that does not exist")
def _(f): f.op("assume", ["tile<8xi32>"], [ci(f, 0, "tile<8xi32>")], {"predicate": {"div_by": 4, "every": 2, "along": 1}})
@case("div_by_float", "div_by applies to a tensor_view or a tile of integers or pointers, got tile<f32>", "div_by on a float")
def _(f): f.op("assume", [F32], [cf(f)], {"predicate": {"div_by": 4}})
@case("bounded_float", "bounded applies to a tile of integers, got tile<f32>", "bounded on a float")
def _(f): f.op("assume", [F32], [cf(f)], {"predicate": {"bounded": [0, None]}})
@case("bounded_order", "bounded lower bound 5 is greater than the upper bound 1", "bounded with lb > ub")
def _(f): f.op("assume", [I32], [ci(f)], {"predicate": {"bounded": [5, 1]}})
@case("bounded_range", "bounded bounds must be within the signed range of i8 [-128, 127]", "bounded beyond the element range")
def _(f): f.op("assume", ["tile<i8>"], [cst(f, "tile<i8>", "00")], {"predicate": {"bounded": [0, 300]}})
@case("same_elements_count", "same_elements needs one value per dimension (2), got 1", "same_elements with too few values")
def _(f): f.op("assume", ["tile<4x4xi32>"], [ci(f, 0, "tile<4x4xi32>")], {"predicate": {"same_elements": [4]}})
@case("same_elements_range", "same_elements value 8 for dimension 0 must be within [0, 4]", "same_elements larger than the dimension")
def _(f): f.op("assume", ["tile<4xi32>"], [ci(f, 0, "tile<4xi32>")], {"predicate": {"same_elements": [8]}})
@case("assume_type", "result must have type tile<i32>, got tile<i64>", "assume changing the type")
def _(f): f.op("assume", ["tile<i64>"], [ci(f)], {"predicate": {"div_by": 4}})
@case("constant_type", "value has type tile<4xi32>, but the result has type tile<8xi32>", "a constant of another type")
def _(f): f.op("constant", ["tile<8xi32>"], [], {"value": {"dense": "00000000", "type": "tile<4xi32>", "splat": True}})
@case("dense_size", "dense data for tile<2xi32> must be 8 bytes, got 4", "dense data too short")
def _(f): f.op("constant", ["tile<2xi32>"], [], {"value": {"dense": "00000000", "type": "tile<2xi32>"}})
@case("dense_i1", "i1 elements are stored as bytes 00 or 01", "an i1 constant byte of 02")
def _(f): f.op("constant", ["tile<2xi1>"], [], {"value": {"dense": "0002", "type": "tile<2xi1>"}})
@case("typed_int_range", "attribute 'identities': 300 does not fit in i8", "an i8 identity of 300")
def _(f):
    with f.block(["tile<i8>", "tile<i8>"]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", ["tile<i8>"], [cst(f, "tile<4xi8>", "00")], {"dim": 0, "identities": [{"int": 300, "type": "i8"}]}, [[b.blk]])
@case("global_rank", "value must be a rank-1 tile, got tile<2x2xi32>", "a 2-d global",
      raw=module([{"op": "cuda_tile.global", "attrs": {"sym_name": "g", "alignment": 0,
                   "value": {"dense": "00000000", "type": "tile<2x2xi32>", "splat": True}}}]))
def _(f): pass
@case("get_global_unknown", "'nope' does not name a cuda_tile.global", "get_global of an unknown symbol")
def _(f): f.op("get_global", ["tile<ptr<i32>>"], [], {"name": "nope"})
@case("get_global_type", "result tile<ptr<f32>> must point to the global's element type i32", "get_global with the wrong pointee",
      tops_before=[{"op": "cuda_tile.global", "attrs": {"sym_name": "g", "alignment": 0, "value": {"dense": "00000000", "type": "tile<1xi32>"}}}])
def _(f): f.op("get_global", ["tile<ptr<f32>>"], [], {"name": "g"})

# ---------------------------------------------------------------- shape ops, reduce/scan, mma, print
@case("broadcast_dims", "cannot broadcast tile<2x4xi32> to tile<4x4xi32>", "broadcast of a dimension that is not 1")
def _(f): f.op("broadcast", ["tile<4x4xi32>"], [ci(f, 0, "tile<2x4xi32>")])
@case("reshape_count", "must have the same number of elements", "reshape changing the element count")
def _(f): f.op("reshape", ["tile<4x4xi32>"], [ci(f, 0, "tile<8xi32>")])
@case("permute_not_permutation", "permutation must be a permutation of 0..1", "permute with a repeated dimension")
def _(f): f.op("permute", ["tile<4x4xf32>"], [cf(f, 0, "tile<4x4xf32>")], {"permutation": [1, 1]})
@case("permute_shape", "result dimension 0 must be source dimension 1 (8), got 4", "permute with the wrong result shape")
def _(f): f.op("permute", ["tile<4x8xf32>"], [cf(f, 0, "tile<4x8xf32>")], {"permutation": [1, 0]})
@case("cat_dim", "dim 1 is out of range for rank 1", "cat along a dimension that does not exist")
def _(f): a = ci(f, 0, "tile<4xi32>"); f.op("cat", ["tile<8xi32>"], [a, a], {"dim": 1})
@case("extract_index", "index #0 must be tile<i32>, got tile<i64>", "extract with an i64 index")
def _(f): f.op("extract", ["tile<4xi32>"], [ci(f, 0, "tile<16xi32>"), cst(f, "tile<i64>", "0000000000000000")])
@case("extract_blocks", "dimension 0 of tile<16xi32> is not a multiple of that of tile<32xi32>", "extract of a block larger than the source")
def _(f): f.op("extract", ["tile<32xi32>"], [ci(f, 0, "tile<16xi32>"), ci(f)])
@case("iota_rank", "result must be a rank-1 tile, got tile<4x4xi32>", "a 2-d iota")
def _(f): f.op("iota", ["tile<4x4xi32>"])
@case("iota_range", "256 elements do not fit the range of i1", "an iota of i1 values")
def _(f): f.op("iota", ["tile<256xi1>"])
@case("reduce_dim", "dim 1 is out of range for tile<8xf32>", "reduce along a dimension that does not exist")
def _(f):
    with f.block([F32, F32]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 1, "identities": [{"float": "0x0", "type": "f32"}]}, [[b.blk]])
@case("reduce_result", "result #0 has type tile<8xf32>, expected the operand shape without dim of tile<8xf32>", "reduce keeping the reduced dimension")
def _(f):
    with f.block([F32, F32]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", ["tile<8xf32>"], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": [{"float": "0x0", "type": "f32"}]}, [[b.blk]])
@case("reduce_identity", "identity #0 must be a typed f32 value", "a reduce identity of another type")
def _(f):
    with f.block([F32, F32]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": [{"int": 0, "type": "i32"}]}, [[b.blk]])
@case("reduce_block_args", "body block argument #1 must be tile<f32>, got tile<i32>", "a reduce body with the wrong argument type")
def _(f):
    with f.block([F32, I32]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": [{"float": "0x0", "type": "f32"}]}, [[b.blk]])
@case("reduce_yield", "operand #0 must be a rank-0 tile of the element type of tile<8xf32>, got tile<i32>", "a reduce body yielding the wrong type")
def _(f):
    z = ci(f)
    with f.block([F32, F32]) as b: f.op("yield", [], [z])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": [{"float": "0x0", "type": "f32"}]}, [[b.blk]])
@case("reduce_impure", "is not pure and cannot be in the body of 'cuda_tile.reduce'", "a reduce body with a memory op", params=["tile<ptr<f32>>"])
def _(f):
    with f.block([F32, F32]) as b:
        f.op("load_ptr_tko", [F32, TOK], [f.args[0]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 0, 0]})
        f.op("yield", [], [b.args[0]])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": [{"float": "0x0", "type": "f32"}]}, [[b.blk]])
@case("scan_divi", "'cuda_tile.divi' op is not pure and cannot be in the body of 'cuda_tile.scan'", "a scan body with an integer division")
def _(f):
    with f.block([I32, I32]) as b:
        q = f.op("divi", [I32], [b.args[0], b.args[1]], {"signedness": "signed", "rounding": "zero"})
        f.op("yield", [], [q])
    f.op("scan", ["tile<8xi32>"], [ci(f, 0, "tile<8xi32>")], {"dim": 0, "reverse": False, "identities": [{"int": 1, "type": "i32"}]}, [[b.blk]])
@case("scan_reverse_missing", "requires attribute 'reverse'", "a scan without reverse")
def _(f):
    with f.block([I32, I32]) as b: f.op("yield", [], [b.args[0]])
    f.op("scan", ["tile<8xi32>"], [ci(f, 0, "tile<8xi32>")], {"dim": 0, "identities": [{"int": 1, "type": "i32"}]}, [[b.blk]])
@case("mma_shapes", "shapes tile<16x8xf16> x tile<16x8xf16> + tile<16x8xf32> do not form [M,K] x [K,N] + [M,N]", "mmaf with mismatched K")
def _(f):
    a = cst(f, "tile<16x8xf16>", "0000"); c = cf(f, 0, "tile<16x8xf32>")
    f.op("mmaf", ["tile<16x8xf32>"], [a, a, c])
@case("mma_acc", "bf16 inputs need a f32 accumulator, got f16", "bf16 mmaf accumulating in f16")
def _(f):
    a = cst(f, "tile<16x16xbf16>", "0000"); c = cst(f, "tile<16x16xf16>", "0000")
    f.op("mmaf", ["tile<16x16xf16>"], [a, a, c])
@case("mmai_types", "needs i8 x i8 inputs and an i32 accumulator", "mmai on i16")
def _(f):
    a = cst(f, "tile<16x16xi16>", "0000"); c = ci(f, 0, "tile<16x16xi32>")
    f.op("mmai", ["tile<16x16xi32>"], [a, a, c], {"signedness_lhs": "signed", "signedness_rhs": "signed"})
@case("mma_scaled_block", "scale block size 16 is not supported for f8E4M3FN inputs with f8E8M0FNU scales", "mmaf_scaled with a block of 16 for f8")
def _(f):
    a = cst(f, "tile<16x32xf8E4M3FN>", "00"); b = cst(f, "tile<32x16xf8E4M3FN>", "00")
    sa = cst(f, "tile<16x2xf8E8M0FNU>", "00"); sb = cst(f, "tile<2x16xf8E8M0FNU>", "00")
    f.op("mmaf_scaled", ["tile<16x16xf32>"], [a, b, cf(f, 0, "tile<16x16xf32>"), sa, sb])
@case("print_count", "format string has 2 conversions but the op has 1 argument", "print with too few arguments")
def _(f): f.op("print_tko", [TOK], [ci(f)], {"str": "%d and %f", "operand_segment_sizes": [1, 0]})
@case("print_unterminated", "format string has an unterminated or unknown % conversion", "print with a dangling %")
def _(f): f.op("print_tko", [TOK], [ci(f)], {"str": "%d %", "operand_segment_sizes": [1, 0]})
@case("assert_condition", "condition must be a tile of i1, got tile<i32>", "assert on an i32")
def _(f): f.op("assert", [], [ci(f)], {"message": "no"})

def extra():
    # located: an op with a source location
    f = Fn([I32])
    f.op("addi", [I32], [f.args[0], f.args[0]], {}, loc={"file": "k.py", "line": 7, "col": 3, "func": "k"})
    f.op("return")
    write(OUT + "located.json", module([f.entry()]))
    # several independent errors
    f = Fn([I32])
    a = f.args[0]
    f.op("addi", [I32], [a, a])
    f.op("cmpi", ["tile<i1>"], [a, a], {"comparison_predicate": "lt", "signedness": "signed"})
    f.op("exti", ["tile<i8>"], [a], {"signedness": "signed"})
    f.op("return")
    write(OUT + "several.json", module([f.entry()]))
    # an empty key in a dictionary attribute
    with open(OUT + "empty_dict_key.json", "w") as fh:
        fh.write('''{"format": "tile-ir", "version": 1, "stage": "cuda_tile",
 "module": {"name": "kernels", "attrs": {"bytecode_version": "13.3"}, "ops": [
  {"op": "cuda_tile.entry", "attrs": {"sym_name": "k", "function_type": {"type": "() -> ()"},
   "optimization_hints": {"dict": {"": {"dict": {}}}}},
   "regions": [[{"ops": [{"op": "cuda_tile.return"}]}]]}
 ]}}
''')
extra()

# ---------------------------------------------------------------- more rules
@case("segments_single", "operand_segment_sizes[0] is 0, but operand group 0 is exactly one operand", "a load without its source in the segments", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [0, 1, 0, 0]})
@case("unit_kind", "attribute 'flush_to_zero' must be a boolean", "a flag given as an integer")
def _(f): a = cf(f); f.op("addf", [F32], [a, a], {"rounding_mode": "nearest_even", "flush_to_zero": 1})
@case("hints_on_load", "optimization_hints: the value for 'sm_100' must be a dictionary", "load hints that are not a dictionary", params=["tile<ptr<f32>>"])
def _(f): f.op("load_ptr_tko", [F32, TOK], [f.args[0]], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 0, 0], "optimization_hints": {"dict": {"sm_100": [1, 2]}}})
@case("get_index_space_shape_count", "expects 2 results (one per dimension of " + PV2 + "), got 3", "get_index_space_shape with too many results", params=VP)
def _(f):
    pv = f.op("make_partition_view", [PV2], [tv2(f)])
    f.op("get_index_space_shape", [I32, I32, I32], [pv])
@case("make_view_kind", "result must be a strided_view, got " + PV2, "make_strided_view producing a partition_view", params=VP)
def _(f): f.op("make_strided_view", [PV2], [tv2(f)])
@case("load_ptr_mask_shape", "mask (tile<8xi1>) must have the same shape as tile<4xptr<f32>>", "a mask of another shape", params=["tile<ptr<f32>>"])
def _(f):
    p = f.op("broadcast", ["tile<4xptr<f32>>"], [f.op("reshape", ["tile<1xptr<f32>>"], [f.args[0]])])
    f.op("load_ptr_tko", ["tile<4xf32>", TOK], [p, cst(f, "tile<8xi1>", "01")], {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 0, 0]})
@case("alloca_result", "result must be a scalar pointer tile<ptr<T>>, got tile<4xptr<f32>>", "an alloca of a pointer tile")
def _(f): f.op("alloca", ["tile<4xptr<f32>>"], [], {"num_elem": 4, "alignment": 4})
@case("insert_result", "result must have type tile<16xi32>, got tile<4xi32>", "insert returning the inserted block", ver="13.4")
def _(f):
    d = ci(f, 0, "tile<16xi32>"); s = ci(f, 0, "tile<4xi32>")
    f.op("insert", ["tile<4xi32>"], [s, d, ci(f)])
@case("traversal_stride", "traversal_strides must be positive 32-bit integers", "a zero traversal stride", params=VP)
def _(f): f.op("make_strided_view", ["strided_view<tile=(16x32), traversal_strides=[0,1], " + TV2 + ">"], [tv2(f)])
@case("tensor_view_i4", "a tensor_view's element must be a number type", "a tensor_view of i4", params=["tile<ptr<i8>>"])
def _(f): f.op("make_tensor_view", ["tensor_view<i4>"], [f.args[0]], {"operand_segment_sizes": [1, 0, 0]})
@case("entry_token_param", "parameter #0 cannot be a token", "a token parameter", params=["token"])
def _(f): pass
@case("cmpf_on_int", "operand #0 must be a tile of f16, bf16, f32 or f64, got tile<i32>", "cmpf on integers")
def _(f): a = ci(f); f.op("cmpf", ["tile<i1>"], [a, a], {"comparison_predicate": "equal", "comparison_ordering": "ordered"})
@case("if_block_args", "region #0 block must have no arguments", "an if branch with block arguments")
def _(f):
    c = cst(f, "tile<i1>", "01")
    with f.block([I32]) as th: f.op("yield")
    f.op("if", [], [c], None, [[th.blk], []])
@case("value_type_func", "result #0 has type () -> (), which is not a value type", "a function type as a value type")
def _(f): f.op("make_token", ["() -> ()"])
@case("i4_arith", "result must be a tile of i1, i8, i16, i32 or i64, got tile<2xi4>", "arithmetic on i4")
def _(f):
    a = f.op("trunci", ["tile<2xi4>"], [cst(f, "tile<2xi8>", "00")], {"overflow": "none"})
    f.op("addi", ["tile<2xi4>"], [a, a], {"overflow": "none"})
@case("make_tensor_view_dyn_type", "dynamic sizes and strides must all have one type, got tile<i32> and tile<i64>", "dynamic sizes of mixed types", params=["tile<ptr<f32>>", I32, "tile<i64>"])
def _(f): f.op("make_tensor_view", ["tensor_view<?xf32, strides=[?]>"], [f.args[0], f.args[1], f.args[2]], {"operand_segment_sizes": [1, 1, 1]})
@case("pack_rank", "source must be a rank-1 tile, got tile<2x4xf32>", "pack of a 2-d tile")
def _(f): f.op("pack", ["tile<32xi8>"], [cf(f, 0, "tile<2x4xf32>")])
@case("print_arg_type", "argument #0 must be a tile, got token", "printing a token")
def _(f): t = f.op("make_token", [TOK]); f.op("print_tko", [TOK], [t], {"str": "%d", "operand_segment_sizes": [1, 0]})
@case("scan_result", "result #0 has type tile<4xi32>, expected the type of tile<8xi32>", "scan changing the shape")
def _(f):
    with f.block([I32, I32]) as b: f.op("yield", [], [b.args[0]])
    f.op("scan", ["tile<4xi32>"], [ci(f, 0, "tile<8xi32>")], {"dim": 0, "reverse": False, "identities": [{"int": 0, "type": "i32"}]}, [[b.blk]])
@case("reduce_identity_count", "identities must have one entry per operand (1), got 0", "reduce without identities")
def _(f):
    with f.block([F32, F32]) as b: f.op("yield", [], [b.args[0]])
    f.op("reduce", [F32], [cf(f, 0, "tile<8xf32>")], {"dim": 0, "identities": []}, [[b.blk]])
@case("empty_sym_name", "sym_name must not be empty", "an entry with an empty name",
      raw=module([{"op": "cuda_tile.entry", "attrs": {"sym_name": "", "function_type": {"type": "() -> ()"}},
                   "regions": [[{"ops": [{"op": "cuda_tile.return"}]}]]}]))
def _(f): pass

@case("global_loc", "a global has no source location", "a global with a location",
      raw=module([{"op": "cuda_tile.global", "attrs": {"sym_name": "g", "alignment": 0,
                   "value": {"dense": "00000000", "type": "tile<1xi32>"}}, "loc": {"file": "k.py", "line": 1, "col": 1}}]))
def _(f): pass
@case("entry_callsite_loc", "an entry's location cannot be a call site", "an entry located at a call site",
      raw=module([{"op": "cuda_tile.entry", "attrs": {"sym_name": "k", "function_type": {"type": "() -> ()"}},
                   "regions": [[{"ops": [{"op": "cuda_tile.return"}]}]],
                   "loc": {"file": "k.py", "line": 2, "col": 1, "caller": {"file": "main.py", "line": 9, "col": 4}}}]))
def _(f): pass

if __name__ == "__main__":
    with open(os.path.join(HERE, "cases.tsv"), "w") as out:
        for n, e, d in CASES:
            out.write("%s\t%s\t%s\n" % (n, e, d))
    print(len(CASES))
