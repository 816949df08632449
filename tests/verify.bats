#!/usr/bin/env bats
# The cuda_tile verifier (libcommon/verify.h), run through `tile-ir --verify`.
#   tests/verify/valid/*.json    one valid kernel per op family: must verify
#   tests/verify/invalid/*.json  one broken rule each; the test names the rule
#                                and checks the message
# Every invalid input must fail with exit status 1, write nothing to stdout,
# and report exactly the expected problem (no cascade of other errors).
# The inputs and the "one rule each" section at the end are generated:
# edit tests/verify/gen/{valid,invalid}.py, then run
#   python3 tests/verify/gen/valid.py && python3 tests/verify/gen/invalid.py &&
#   python3 tests/verify/gen/genbats.py
load helpers
bats_require_minimum_version 1.5.0

VDIR="$ROOT/tests/verify"

verify_ok() {
	run --separate-stderr tile-ir --verify "$VDIR/valid/$1.json"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	[ -z "$stderr" ] || { echo "unexpected diagnostics: $stderr"; return 1; }
}

# verify_fails NAME MESSAGE: fails with MESSAGE, and with no other error
verify_fails() {
	run --separate-stderr tile-ir --verify "$VDIR/invalid/$1.json"
	[ "$status" -eq 1 ] || { echo "status $status, stderr: $stderr"; return 1; }
	[ -z "$output" ] || { echo "wrote output on failure"; return 1; }
	[[ "$stderr" == *"$2"* ]] || { printf 'expected: %s\ngot: %s\n' "$2" "$stderr"; return 1; }
	local n
	n=$(grep -c 'error:' <<<"$stderr")
	[ "$n" -eq 1 ] || [ "${3:-}" = many ] || { printf 'expected one error, got %s:\n%s\n' "$n" "$stderr"; return 1; }
}

# ---------------------------------------------------------------- valid kernels

@test "verify: every valid kernel passes" {
	for f in "$VDIR"/valid/*.json; do
		run --separate-stderr tile-ir --verify "$f"
		[ "$status" -eq 0 ] || { echo "$f: $stderr"; return 1; }
	done
}

@test "verify: valid integer elementwise ops (addi .. select)" { verify_ok elementwise_int; }
@test "verify: valid float elementwise and math ops (addf .. atan2, cmpf)" { verify_ok elementwise_float; }
@test "verify: valid conversions (exti, trunci, ftof, itof, ftoi, bitcast, ptr casts, pack)" { verify_ok conversions; }
@test "verify: valid shape ops (reshape, broadcast, permute, cat, extract, insert, iota, offset)" { verify_ok shape; }
@test "verify: valid pointer memory, atomics, tokens, alloca, assert, print, assume" { verify_ok memory_ptr; }
@test "verify: valid views (tensor, partition, strided, gather/scatter) and view memory ops" { verify_ok views; }
@test "verify: valid control flow (for, loop, if, break, continue, reduce, scan, nested return)" { verify_ok control; }
@test "verify: valid MMA (mmaf, mmai, mmaf_scaled)" { verify_ok mma; }
@test "verify: valid globals, get_global and 13.4 ops (gdc, fpowi, fence, saturating ftoi)" { verify_ok globals_13_4; }
@test "verify: 13.1 accepts newer attributes at their default values" { verify_ok versions_13_1; }
@test "verify: a module without bytecode_version may use every feature" { verify_ok no_version; }

@test "verify: the verified output is the canonical IR" {
	run --separate-stderr tile-ir "$VDIR/valid/control.json"
	assert_success
	local plain="$output"
	run --separate-stderr tile-ir --verify "$VDIR/valid/control.json"
	assert_success
	[ "$output" = "$plain" ]
}

@test "verify: tests/ir/vecadd.cuda_tile.json passes" {
	run tile-ir --verify "$ROOT/tests/ir/vecadd.cuda_tile.json"
	assert_success
}

@test "verify: every corpus module decoded by tile-read passes" {
	command -v tile-read >/dev/null || skip "tile-read not built"
	local n=0
	for f in "$CORPUS"/13.*/*.tileirbc; do
		tile-read --no-verify "$f" >"$BATS_TEST_TMPDIR/m.json" 2>/dev/null || continue
		run --separate-stderr tile-ir --verify "$BATS_TEST_TMPDIR/m.json"
		[ "$status" -eq 0 ] || { echo "$f: $stderr"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "tile-read decoded no corpus file"
}

# ---------------------------------------------------------------- where errors are reported

@test "verify: an error is reported at the op's source location" {
	run --separate-stderr tile-ir --verify "$VDIR/invalid/located.json"
	assert_failure 1
	[[ "$stderr" == *"located.json: loc(\"k.py\":7:3): error: 'cuda_tile.addi' op requires attribute 'overflow'"* ]]
}

@test "verify: an op without a location is reported at its JSON pointer" {
	run --separate-stderr tile-ir --verify "$VDIR/invalid/reduce_yield.json"
	assert_failure 1
	[[ "$stderr" == *"at /module/ops/0/regions/0/0/ops/2/regions/0/0/ops/0: error: 'cuda_tile.yield' op"* ]]
}

@test "verify: several errors are all reported" {
	run --separate-stderr tile-ir --verify "$VDIR/invalid/several.json"
	assert_failure 1
	[ "$(grep -c 'error:' <<<"$stderr")" -eq 3 ]
}

@test "verify: --verify refuses IR of a later stage" {
	sed 's/"stage": "cuda_tile"/"stage": "nv_tileaa"/' "$VDIR/valid/mma.json" >"$BATS_TEST_TMPDIR/aa.json"
	run --separate-stderr tile-ir --verify "$BATS_TEST_TMPDIR/aa.json"
	assert_failure 1
	[[ "$stderr" == *"the cuda_tile verifier takes IR at stage 'cuda_tile', got 'nv_tileaa'"* ]]
}

@test "verify: without --verify, tile-ir only checks the JSON form" {
	run tile-ir "$VDIR/invalid/missing_attr.json"
	assert_success
}

@test "verify: an empty dictionary key is rejected (by the JSON reader)" {
	run --separate-stderr tile-ir --verify "$VDIR/invalid/empty_dict_key.json"
	assert_failure 1
	[[ "$stderr" == *"empty dictionary key"* ]]
}

# unit.c builds modules through the IR API, as tile-read does, for what the
# JSON form cannot express (the JSON reader refuses empty and duplicated keys)
# (built by make as $BIN/../tests/unit-verify)
UNIT="$BIN/../tests/unit-verify"

@test "verify: a module built through the IR API verifies" {
	run "$UNIT" ok
	assert_success
	assert_output ""
}

@test "verify: an empty dictionary key is rejected (IR API)" {
	run "$UNIT" empty
	assert_failure 1
	assert_output --partial "invalid empty attribute name for DictionaryAttr element 0"
}

@test "verify: a duplicated dictionary key is rejected (IR API)" {
	run "$UNIT" dup
	assert_failure 1
	assert_output --partial "attribute 'optimization_hints': duplicate key 'sm_90'"
}

@test "verify: an op without a location is reported at its bytecode offset" {
	run "$UNIT" offset
	assert_failure 1
	assert_output --partial "offset 0x1c4: error: 'cuda_tile.make_token' op result must be a token"
}

@test "verify: --help lists --verify" {
	run tile-ir --help
	assert_success
	assert_output --partial "--verify"
}

# ---------------------------------------------------------------- one rule each
@test "verify rejects an attribute the op does not take (unknown_attr)" { verify_fails unknown_attr "has unknown attribute 'rounding' (it takes: overflow)"; }
@test "verify rejects an attribute only the lower stages put on an op, at stage cuda_tile (below_attr)" { verify_fails below_attr "has unknown attribute 'via_shared' (it takes: none)"; }
@test "verify rejects a required attribute is missing (missing_attr)" { verify_fails missing_attr "requires attribute 'overflow'"; }
@test "verify rejects an enum value spelled wrong (enum_unknown)" { verify_fails enum_unknown "attribute 'comparison_predicate' has unknown value 'lt'"; }
@test "verify rejects an enum value the op does not accept (enum_not_allowed)" { verify_fails enum_not_allowed "rounding_mode 'approx' is not supported by this op"; }
@test "verify rejects an attribute of the wrong kind (attr_kind)" { verify_fails attr_kind "attribute 'dim' must be an integer"; }
@test "verify rejects too few operands (operand_count)" { verify_fails operand_count "expects 2 operands, got 1"; }
@test "verify rejects too few results (result_count)" { verify_fails result_count "expects 3 results, got 2"; }
@test "verify rejects an AttrSizedOperandSegments op without operand_segment_sizes (segments_missing)" { verify_fails segments_missing "requires attribute 'operand_segment_sizes'"; }
@test "verify rejects segment sizes that do not add up (segments_sum)" { verify_fails segments_sum "operand_segment_sizes add up to 2, but the op has 1 operands"; }
@test "verify rejects an optional group with two operands (segments_optional)" { verify_fails segments_optional "operand_segment_sizes[1] is 2, but operand group 1 is optional (0 or 1)"; }
@test "verify rejects segment sizes with the wrong length (segments_length)" { verify_fails segments_length "must have 2 entries (one per operand group), got 3"; }
@test "verify rejects operand_segment_sizes on an op with fixed operands (segments_not_allowed)" { verify_fails segments_not_allowed "attribute 'operand_segment_sizes' is not allowed"; }
@test "verify rejects a for without its body (region_count)" { verify_fails region_count "expects 1 region, got 0"; }
@test "verify rejects a loop body with two blocks (block_count)" { verify_fails block_count "region #0 must have exactly one block, got 2"; }
@test "verify rejects a block that does not end with a terminator (no_terminator)" { verify_fails no_terminator "ends a block but is not a terminator"; }
@test "verify rejects ops after a terminator (terminator_not_last)" { verify_fails terminator_not_last "is a terminator and must be the last op of its block"; }
@test "verify rejects an empty then block (empty_block)" { verify_fails empty_block "has an empty block"; }
@test "verify rejects yield ending a for body (yield_parent)" { verify_fails yield_parent "must be inside cuda_tile.if, cuda_tile.reduce or cuda_tile.scan, not 'cuda_tile.for'"; }
@test "verify rejects continue ending an entry (continue_parent)" { verify_fails continue_parent "must be inside cuda_tile.for or cuda_tile.loop"; }
@test "verify rejects break in a for (break_parent)" { verify_fails break_parent "must be inside cuda_tile.loop"; }
@test "verify rejects return in a loop body (return_parent)" { verify_fails return_parent "must be inside cuda_tile.entry"; }
@test "verify rejects return with a value (return_operands)" { verify_fails return_operands "an entry returns nothing, but return has 1 operand"; }
@test "verify rejects if yielding the wrong type (yield_types)" { verify_fails yield_types "operand #0 has type tile<f32>, but the enclosing 'cuda_tile.if' expects tile<i32>"; }
@test "verify rejects if yielding nothing for a result (yield_count)" { verify_fails yield_count "expects 1 operand (the results of the enclosing 'cuda_tile.if'), got 0"; }
@test "verify rejects continue with the wrong type (continue_types)" { verify_fails continue_types "operand #0 has type tile<i64>, but the enclosing 'cuda_tile.for' expects tile<i32>"; }
@test "verify rejects break with the wrong type (break_types)" { verify_fails break_types "operand #0 has type tile<f32>, but the enclosing 'cuda_tile.loop' expects tile<i32>"; }
@test "verify rejects an if with results and no else (if_no_else)" { verify_fails if_no_else "has results, so it needs an else region"; }
@test "verify rejects an if on a non-scalar condition (if_condition)" { verify_fails if_condition "condition must be tile<i1>, got tile<4xi1>"; }
@test "verify rejects for bounds of different types (for_bounds)" { verify_fails for_bounds "lower bound, upper bound and step must have one type"; }
@test "verify rejects a for whose induction variable has the wrong type (for_induction)" { verify_fails for_induction "body block argument #0 (the induction variable) must have type tile<i32>"; }
@test "verify rejects a for carrying a tensor_view (for_view_carried)" { verify_fails for_view_carried "loop-carried value #0 cannot be a tensor_view or view"; }
@test "verify rejects loop block arguments not matching its initial values (loop_args)" { verify_fails loop_args "body block argument #0 has type tile<i64>, but initial value #0 has type tile<i32>"; }
@test "verify rejects an entry inside an entry (nested_entry)" { verify_fails nested_entry "can only be at the top level of a module"; }
@test "verify rejects a body op at the top level (top_level_op)" { verify_fails top_level_op "cannot be at the top level of a module"; }
@test "verify rejects a cuda_tile.module op (module_op)" { verify_fails module_op "cannot appear in the IR"; }
@test "verify rejects an nv_tileaa op in cuda_tile IR (other_dialect)" { verify_fails other_dialect "belongs to dialect 'nv_tileaa'"; }
@test "verify rejects two entries with one name (duplicate_symbol)" { verify_fails duplicate_symbol "redefines symbol 'k'"; }
@test "verify rejects addi of i32 and i64 (same_type)" { verify_fails same_type "requires all operands and results to have the same type, got tile<i64> and tile<i32>"; }
@test "verify rejects an integer op on floats (int_op_on_float)" { verify_fails int_op_on_float "result must be a tile of i1, i8, i16, i32 or i64, got tile<f32>"; }
@test "verify rejects a float op on integers (float_op_on_int)" { verify_fails float_op_on_int "result must be a tile of f16, bf16, f32 or f64, got tile<i32>"; }
@test "verify rejects exp on f8 (math_on_f8)" { verify_fails math_on_f8 "result must be a tile of f16, bf16, f32 or f64, got tile<f8E4M3FN>"; }
@test "verify rejects cmpi producing i32 (cmp_result)" { verify_fails cmp_result "result must be a tile of i1 with the operands' shape, got tile<4xi32>"; }
@test "verify rejects cmpf with a result of another shape (cmp_shape)" { verify_fails cmp_shape "result must be a tile of i1 with the operands' shape, got tile<8xi1>"; }
@test "verify rejects select on an i32 condition (select_condition)" { verify_fails select_condition "condition must be a tile of i1, got tile<4xi32>"; }
@test "verify rejects select with a condition of another shape (select_shape)" { verify_fails select_shape "condition (tile<8xi1>) must have the same shape as tile<4xi32>"; }
@test "verify rejects select on f4E2M1FN (select_f4)" { verify_fails select_f4 "result must be a tile of"; }
@test "verify rejects flush_to_zero on f16 (ftz_not_f32)" { verify_fails ftz_not_f32 "flush_to_zero is only supported for f32, got f16"; }
@test "verify rejects divf approx on f64 (approx_not_f32)" { verify_fails approx_not_f32 "rounding_mode 'approx' is only supported for f32, got f64"; }
@test "verify rejects unsigned floor division (divi_unsigned_neg_inf)" { verify_fails divi_unsigned_neg_inf "rounding 'negative_inf' is not supported for unsigned division"; }
@test "verify rejects divi rounding to nearest (divi_rounding)" { verify_fails divi_rounding "rounding 'nearest_even' is not supported by this op (expected one of: zero, negative_inf, positive_inf)"; }
@test "verify rejects negi with nuw (negi_nuw)" { verify_fails negi_nuw "overflow 'nuw' is not supported by this op"; }
@test "verify rejects offset by floats (offset_types)" { verify_fails offset_types "offset operand must be a tile of i8, i16, i32 or i64, got tile<4xf32>"; }
@test "verify rejects exti narrowing (exti_not_wider)" { verify_fails exti_not_wider "result element type i16 must be wider than the source's i32"; }
@test "verify rejects trunci widening (trunci_not_narrower)" { verify_fails trunci_not_narrower "result element type i64 must be narrower than the source's i32"; }
@test "verify rejects ftof f32 to f32 (ftof_same_type)" { verify_fails ftof_same_type "source and result have the same element type f32 (not a conversion)"; }
@test "verify rejects ftof with round-to-zero (ftof_rounding)" { verify_fails ftof_rounding "rounding_mode must be nearest_even, got 'zero'"; }
@test "verify rejects ftof to f8E8M0FNU rounding to nearest (ftof_e8m0_rounding)" { verify_fails ftof_e8m0_rounding "conversion to f8E8M0FNU needs rounding_mode zero or positive_inf, got 'nearest_even'"; }
@test "verify rejects itof to f8E8M0FNU (itof_e8m0)" { verify_fails itof_e8m0 "cannot convert an integer to f8E8M0FNU"; }
@test "verify rejects itof from a float (itof_direction)" { verify_fails itof_direction "source must be a tile of i1, i8, i16, i32 or i64, got tile<f32>"; }
@test "verify rejects ftoi rounding to nearest (ftoi_rounding)" { verify_fails ftoi_rounding "rounding_mode 'nearest_even' is not supported by this op (expected one of: nearest_int_to_zero)"; }
@test "verify rejects bitcast between widths (bitcast_width)" { verify_fails bitcast_width "source element i32 and result element f16 must have the same bit width"; }
@test "verify rejects exti changing the shape (conversion_shape)" { verify_fails conversion_shape "source tile<4xi32> and result tile<8xi64> must have the same shape"; }
@test "verify rejects int_to_ptr from i32 (int_to_ptr_source)" { verify_fails int_to_ptr_source "source must be a tile of i64, got tile<i32>"; }
@test "verify rejects pack to the wrong size (pack_size)" { verify_fails pack_size "source tile<8xf32> and result tile<16xi8> must have the same size in bytes"; }
@test "verify rejects a tile dimension of 3 (tile_not_pow2)" { verify_fails tile_not_pow2 "type tile<3xf32>: tile dimensions must be positive powers of two, got 3"; }
@test "verify rejects a tile over the element cap (tile_too_big)" { verify_fails tile_too_big "type tile<8192x4096xf32>: a tile may have at most 16777216 elements"; }
@test "verify rejects a scalar f4E2M1FN tile (f4_odd)" { verify_fails f4_odd "a tile of f4E2M1FN needs an even dimension"; }
@test "verify rejects a tile of f4 pointers (f4 has no per-element address) (ptr_f4_tile)" { verify_fails ptr_f4_tile "type tile<1xptr<f4E2M1FN>>: tiles of ptr<f4E2M1FN> must have rank 0; use an f4 tile view"; }
@test "verify rejects a bare element type as a value type (value_type)" { verify_fails value_type "result #0 has type f32, which is not a value type"; }
@test "verify rejects a pointer to i4 (ptr_i4)" { verify_fails ptr_i4 "type ptr<i4>: a pointer's element must be a number type"; }
@test "verify rejects a 1-d tile over a 2-d tensor_view (view_rank)" { verify_fails view_rank "the view's tile rank (1) must equal the tensor_view rank (2)"; }
@test "verify rejects a dim_map that is not a permutation (dim_map)" { verify_fails dim_map "dim_map must be a permutation of 0..1"; }
@test "verify rejects a NaN padding on an integer view (padding_int)" { verify_fails padding_int "padding_value nan needs a float element type"; }
@test "verify rejects a zero stride (tensor_view_stride)" { verify_fails tensor_view_stride "static sizes and strides must be positive"; }
@test "verify rejects f4E2M1FN in a 13.1 module (f4_in_13_1)" { verify_fails f4_in_13_1 "type 'f4E2M1FN' requires bytecode version 13.3+"; }
@test "verify rejects f8E8M0FNU in a 13.1 module (e8m0_in_13_1)" { verify_fails e8m0_in_13_1 "type 'f8E8M0FNU' requires bytecode version 13.2+"; }
@test "verify rejects i4 in a 13.2 module (i4_in_13_2)" { verify_fails i4_in_13_2 "type 'i4' requires bytecode version 13.3+"; }
@test "verify rejects atan2 in a 13.1 module (op_too_new)" { verify_fails op_too_new "'cuda_tile.atan2' op requires bytecode version 13.2+, but the module is bytecode version 13.1"; }
@test "verify rejects fpowi in a 13.3 module (op_13_4)" { verify_fails op_13_4 "'cuda_tile.fpowi' op requires bytecode version 13.4+"; }
@test "verify rejects a strided_view in a 13.2 module (view_too_new)" { verify_fails view_too_new "type strided_view requires bytecode version 13.3+" many; }
@test "verify rejects negi nsw in a 13.1 module (attr_too_new)" { verify_fails attr_too_new "attribute 'overflow' requires bytecode version 13.2+"; }
@test "verify rejects mmaf fast_acc in a 13.2 module (unit_too_new)" { verify_fails unit_too_new "attribute 'fast_acc' requires bytecode version 13.3+"; }
@test "verify rejects a print_tko token operand in a 13.1 module (print_token_13_1)" { verify_fails print_token_13_1 "a token operand of print_tko requires bytecode version 13.2+"; }
@test "verify rejects nearest_away in a 13.3 module (enum_too_new)" { verify_fails enum_too_new "rounding_mode 'nearest_away' requires bytecode version 13.4+"; }
@test "verify rejects a private global in a 13.2 module (global_too_new)" { verify_fails global_too_new "attribute 'symbol_visibility' requires bytecode version 13.3+"; }
@test "verify rejects a producer string in a 13.2 module (producer_too_new)" { verify_fails producer_too_new "module attribute 'producer' requires bytecode version 13.3+"; }
@test "verify rejects an unknown bytecode version (bad_version)" { verify_fails bad_version "module attribute 'bytecode_version' must be one of"; }
@test "verify rejects a 2-d view loaded with one index (load_view_indices)" { verify_fails load_view_indices "expects 2 indices (the index rank of partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>), got 1"; }
@test "verify rejects a load_view_tko result of the wrong tile type (load_view_tile)" { verify_fails load_view_tile "result #0 must have the view's tile type tile<16x32xf32>, got tile<32x16xf32>"; }
@test "verify rejects storing a tile of the wrong element type (store_view_tile)" { verify_fails store_view_tile "the stored tile must have the view's tile type tile<16x32xf32>, got tile<16x32xf16>"; }
@test "verify rejects a float view index (load_view_index_type)" { verify_fails load_view_index_type "index #1 must be a scalar integer (a rank-0 tile of an integer type), got tile<f32>"; }
@test "verify rejects load_view_tko on a tensor_view (load_tensor_view)" { verify_fails load_tensor_view "view must be a partition_view, strided_view or gather_scatter_view, got tensor_view<?x?xf32, strides=[?,1]>"; }
@test "verify rejects a gather with a scalar sparse index (gather_sparse_index)" { verify_fails gather_sparse_index "index #0 (the sparse dimension) must be a rank-1 integer tile of 8 elements, got tile<i32>"; }
@test "verify rejects a tile passed as the token operand (token_operand)" { verify_fails token_operand "token operand must be a token, got tile<i32>"; }
@test "verify rejects a load whose second result is not a token (token_result)" { verify_fails token_result "result #1 must be a token, got tile<i32>"; }
@test "verify rejects join_tokens of one token (join_one_token)" { verify_fails join_one_token "joins at least 2 tokens, got 1"; }
@test "verify rejects join_tokens of a tile (join_non_token)" { verify_fails join_non_token "operand #1 must be a token, got tile<i32>"; }
@test "verify rejects a weak load with a scope (weak_with_scope)" { verify_fails weak_with_scope "memory_scope is not allowed with weak ordering"; }
@test "verify rejects an acquire load without a scope (acquire_no_scope)" { verify_fails acquire_no_scope "memory_ordering_semantics 'acquire' requires a memory_scope"; }
@test "verify rejects a store with acquire ordering (store_acquire)" { verify_fails store_acquire "memory_ordering_semantics 'acquire' is not supported by this op (expected one of: weak, relaxed, release)"; }
@test "verify rejects a weak atomic (atomic_weak)" { verify_fails atomic_weak "memory_ordering_semantics 'weak' is not supported by this op"; }
@test "verify rejects an atomic without a scope (atomic_no_scope)" { verify_fails atomic_no_scope "requires attribute 'memory_scope'"; }
@test "verify rejects atomic addf on integers (atomic_mode_type)" { verify_fails atomic_mode_type "mode 'addf' needs f16, bf16, f32 or f64 elements, got i32"; }
@test "verify rejects a 16-bit compare-and-swap (atomic_cas_width)" { verify_fails atomic_cas_width "compare-and-swap needs 32- or 64-bit integer or float elements, got i16"; }
@test "verify rejects a load of the wrong element type (load_ptr_pointee)" { verify_fails load_ptr_pointee "result tile<i32> must have the shape of tile<ptr<f32>> and its pointee type"; }
@test "verify rejects a load masked by an i32 tile (load_ptr_mask)" { verify_fails load_ptr_mask "mask must be a tile of i1, got tile<i32>"; }
@test "verify rejects a padding value of the wrong type (load_ptr_padding)" { verify_fails load_ptr_padding "padding value must have type tile<f32>, got tile<i32>"; }
@test "verify rejects too few dynamic sizes (make_tensor_view_dynamic)" { verify_fails make_tensor_view_dynamic "has 2 dynamic sizes and 1 dynamic strides, but the op gives 1 and 1"; }
@test "verify rejects a tensor_view of another element type (make_tensor_view_base)" { verify_fails make_tensor_view_base "base tile<ptr<f32>> must point to the tensor_view's element type f16"; }
@test "verify rejects a partition_view over another tensor_view type (make_view_operand)" { verify_fails make_view_operand "operand must have type tensor_view<?x?xf32, strides=[?,?]>, got tensor_view<?x?xf32, strides=[?,1]>"; }
@test "verify rejects an atomic reduction by exchange (atomic_red_xchg)" { verify_fails atomic_red_xchg "mode 'xchg' is not supported by this op"; }
@test "verify rejects an atomic reduction into a padded view (atomic_red_padding)" { verify_fails atomic_red_padding "must not have a padding_value"; }
@test "verify rejects get_tensor_shape with too few results (get_tensor_shape_count)" { verify_fails get_tensor_shape_count "expects 2 results (one per dimension of tensor_view<?x?xf32, strides=[?,1]>), got 1"; }
@test "verify rejects an under-aligned alloca (alloca_alignment)" { verify_fails alloca_alignment "alignment must be a power of two of at least 8 (the size of f64), got 4"; }
@test "verify rejects an entry with a result (entry_results)" { verify_fails entry_results "an entry has no results, but its function_type is () -> (tile<i32>)"; }
@test "verify rejects a tile parameter (entry_param_rank)" { verify_fails entry_param_rank "parameter #0 has type tile<4xf32>: entry parameters are scalars (rank-0 tiles)"; }
@test "verify rejects block arguments not matching function_type (entry_signature)" { verify_fails entry_signature "body block argument #0 has type tile<i64>, but function_type says tile<i32>"; }
@test "verify rejects an optimization hint that is not a dictionary (hints_not_dict)" { verify_fails hints_not_dict "optimization_hints: the value for 'sm_90' must be a dictionary"; }
@test "verify rejects a permutation holding INT32_MIN (array_int32_min)" { verify_fails array_int32_min "array contains unsupported value -2147483648"; }
@test "verify rejects a permutation holding INT32_MAX (array_int32_max)" { verify_fails array_int32_max "array contains unsupported value 2147483647"; }
@test "verify rejects div_by 12 (div_by_not_pow2)" { verify_fails div_by_not_pow2 "div_by divisor must be a power of two no larger than 2^62, got 12"; }
@test "verify rejects div_by every/along on a tensor_view (div_by_every_tensor_view)" { verify_fails div_by_every_tensor_view "div_by on a tensor_view cannot have 'every'/'along'"; }
@test "verify rejects div_by along a dimension that does not exist (div_by_along)" { verify_fails div_by_along "div_by 'along' 1 is out of range for tile<8xi32>"; }
@test "verify rejects div_by on a float (div_by_float)" { verify_fails div_by_float "div_by applies to a tensor_view or a tile of integers or pointers, got tile<f32>"; }
@test "verify rejects bounded on a float (bounded_float)" { verify_fails bounded_float "bounded applies to a tile of integers, got tile<f32>"; }
@test "verify rejects bounded with lb > ub (bounded_order)" { verify_fails bounded_order "bounded lower bound 5 is greater than the upper bound 1"; }
@test "verify rejects bounded beyond the element range (bounded_range)" { verify_fails bounded_range "bounded bounds must be within the signed range of i8 [-128, 127]"; }
@test "verify rejects same_elements with too few values (same_elements_count)" { verify_fails same_elements_count "same_elements needs one value per dimension (2), got 1"; }
@test "verify rejects same_elements larger than the dimension (same_elements_range)" { verify_fails same_elements_range "same_elements value 8 for dimension 0 must be within [0, 4]"; }
@test "verify rejects assume changing the type (assume_type)" { verify_fails assume_type "result must have type tile<i32>, got tile<i64>"; }
@test "verify rejects a constant of another type (constant_type)" { verify_fails constant_type "value has type tile<4xi32>, but the result has type tile<8xi32>"; }
@test "verify rejects dense data too short (dense_size)" { verify_fails dense_size "dense data for tile<2xi32> must be 8 bytes, got 4"; }
@test "verify rejects an i1 constant byte of 02 (dense_i1)" { verify_fails dense_i1 "i1 elements are stored as bytes 00 or 01"; }
@test "verify rejects an i8 identity of 300 (typed_int_range)" { verify_fails typed_int_range "attribute 'identities': 300 does not fit in i8"; }
@test "verify rejects a 2-d global (global_rank)" { verify_fails global_rank "value must be a rank-1 tile, got tile<2x2xi32>"; }
@test "verify rejects get_global of an unknown symbol (get_global_unknown)" { verify_fails get_global_unknown "'nope' does not name a cuda_tile.global"; }
@test "verify rejects get_global with the wrong pointee (get_global_type)" { verify_fails get_global_type "result tile<ptr<f32>> must point to the global's element type i32"; }
@test "verify rejects broadcast of a dimension that is not 1 (broadcast_dims)" { verify_fails broadcast_dims "cannot broadcast tile<2x4xi32> to tile<4x4xi32>"; }
@test "verify rejects reshape changing the element count (reshape_count)" { verify_fails reshape_count "must have the same number of elements"; }
@test "verify rejects permute with a repeated dimension (permute_not_permutation)" { verify_fails permute_not_permutation "permutation must be a permutation of 0..1"; }
@test "verify rejects permute with the wrong result shape (permute_shape)" { verify_fails permute_shape "result dimension 0 must be source dimension 1 (8), got 4"; }
@test "verify rejects cat along a dimension that does not exist (cat_dim)" { verify_fails cat_dim "dim 1 is out of range for rank 1"; }
@test "verify rejects extract with an i64 index (extract_index)" { verify_fails extract_index "index #0 must be tile<i32>, got tile<i64>"; }
@test "verify rejects extract of a block larger than the source (extract_blocks)" { verify_fails extract_blocks "dimension 0 of tile<16xi32> is not a multiple of that of tile<32xi32>"; }
@test "verify rejects a 2-d iota (iota_rank)" { verify_fails iota_rank "result must be a rank-1 tile, got tile<4x4xi32>"; }
@test "verify rejects an iota of i1 values (iota_range)" { verify_fails iota_range "256 elements do not fit the range of i1"; }
@test "verify rejects reduce along a dimension that does not exist (reduce_dim)" { verify_fails reduce_dim "dim 1 is out of range for tile<8xf32>"; }
@test "verify rejects reduce keeping the reduced dimension (reduce_result)" { verify_fails reduce_result "result #0 has type tile<8xf32>, expected the operand shape without dim of tile<8xf32>"; }
@test "verify rejects a reduce identity of another type (reduce_identity)" { verify_fails reduce_identity "identity #0 must be a typed f32 value"; }
@test "verify rejects a reduce body with the wrong argument type (reduce_block_args)" { verify_fails reduce_block_args "body block argument #1 must be tile<f32>, got tile<i32>"; }
@test "verify rejects a reduce body yielding the wrong type (reduce_yield)" { verify_fails reduce_yield "operand #0 must be a rank-0 tile of the element type of tile<8xf32>, got tile<i32>"; }
@test "verify rejects a reduce body with a memory op (reduce_impure)" { verify_fails reduce_impure "is not pure and cannot be in the body of 'cuda_tile.reduce'"; }
@test "verify rejects a scan body with an integer division (scan_divi)" { verify_fails scan_divi "'cuda_tile.divi' op is not pure and cannot be in the body of 'cuda_tile.scan'"; }
@test "verify rejects a scan without reverse (scan_reverse_missing)" { verify_fails scan_reverse_missing "requires attribute 'reverse'"; }
@test "verify rejects mmaf with mismatched K (mma_shapes)" { verify_fails mma_shapes "shapes tile<16x8xf16> x tile<16x8xf16> + tile<16x8xf32> do not form [M,K] x [K,N] + [M,N]"; }
@test "verify rejects bf16 mmaf accumulating in f16 (mma_acc)" { verify_fails mma_acc "bf16 inputs need a f32 accumulator, got f16"; }
@test "verify rejects mmai on i16 (mmai_types)" { verify_fails mmai_types "needs i8 x i8 inputs and an i32 accumulator"; }
@test "verify rejects mmaf_scaled with a block of 16 for f8 (mma_scaled_block)" { verify_fails mma_scaled_block "scale block size 16 is not supported for f8E4M3FN inputs with f8E8M0FNU scales"; }
@test "verify rejects print with too few arguments (print_count)" { verify_fails print_count "format string has 2 conversions but the op has 1 argument"; }
@test "verify rejects print with a dangling % (print_unterminated)" { verify_fails print_unterminated "format string has an unterminated or unknown % conversion"; }
@test "verify rejects assert on an i32 (assert_condition)" { verify_fails assert_condition "condition must be a tile of i1, got tile<i32>"; }
@test "verify rejects a load without its source in the segments (segments_single)" { verify_fails segments_single "operand_segment_sizes[0] is 0, but operand group 0 is exactly one operand"; }
@test "verify rejects a flag given as an integer (unit_kind)" { verify_fails unit_kind "attribute 'flush_to_zero' must be a boolean"; }
@test "verify rejects load hints that are not a dictionary (hints_on_load)" { verify_fails hints_on_load "optimization_hints: the value for 'sm_100' must be a dictionary"; }
@test "verify rejects get_index_space_shape with too many results (get_index_space_shape_count)" { verify_fails get_index_space_shape_count "expects 2 results (one per dimension of partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>), got 3"; }
@test "verify rejects make_strided_view producing a partition_view (make_view_kind)" { verify_fails make_view_kind "result must be a strided_view, got partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>"; }
@test "verify rejects a mask of another shape (load_ptr_mask_shape)" { verify_fails load_ptr_mask_shape "mask (tile<8xi1>) must have the same shape as tile<4xptr<f32>>"; }
@test "verify rejects an alloca of a pointer tile (alloca_result)" { verify_fails alloca_result "result must be a scalar pointer tile<ptr<T>>, got tile<4xptr<f32>>"; }
@test "verify rejects insert returning the inserted block (insert_result)" { verify_fails insert_result "result must have type tile<16xi32>, got tile<4xi32>"; }
@test "verify rejects a zero traversal stride (traversal_stride)" { verify_fails traversal_stride "traversal_strides must be positive 32-bit integers"; }
@test "verify rejects a tensor_view of i4 (tensor_view_i4)" { verify_fails tensor_view_i4 "a tensor_view's element must be a number type"; }
@test "verify rejects a token parameter (entry_token_param)" { verify_fails entry_token_param "parameter #0 cannot be a token"; }
@test "verify rejects cmpf on integers (cmpf_on_int)" { verify_fails cmpf_on_int "operand #0 must be a tile of f16, bf16, f32 or f64, got tile<i32>"; }
@test "verify rejects an if branch with block arguments (if_block_args)" { verify_fails if_block_args "region #0 block must have no arguments"; }
@test "verify rejects a function type as a value type (value_type_func)" { verify_fails value_type_func "result #0 has type () -> (), which is not a value type"; }
@test "verify rejects arithmetic on i4 (i4_arith)" { verify_fails i4_arith "result must be a tile of i1, i8, i16, i32 or i64, got tile<2xi4>"; }
@test "verify rejects dynamic sizes of mixed types (make_tensor_view_dyn_type)" { verify_fails make_tensor_view_dyn_type "dynamic sizes and strides must all have one type, got tile<i32> and tile<i64>"; }
@test "verify rejects pack of a 2-d tile (pack_rank)" { verify_fails pack_rank "source must be a rank-1 tile, got tile<2x4xf32>"; }
@test "verify rejects printing a token (print_arg_type)" { verify_fails print_arg_type "argument #0 must be a tile, got token"; }
@test "verify rejects scan changing the shape (scan_result)" { verify_fails scan_result "result #0 has type tile<4xi32>, expected the type of tile<8xi32>"; }
@test "verify rejects reduce without identities (reduce_identity_count)" { verify_fails reduce_identity_count "identities must have one entry per operand (1), got 0"; }
@test "verify rejects an entry with an empty name (empty_sym_name)" { verify_fails empty_sym_name "sym_name must not be empty"; }
@test "verify rejects a global with a location (global_loc)" { verify_fails global_loc "a global has no source location"; }
@test "verify rejects an entry located at a call site (entry_callsite_loc)" { verify_fails entry_callsite_loc "an entry's location cannot be a call site"; }
