#!/usr/bin/env bats
# Issue 14: every stage verifies what it reads. One malformed input per defect
# class scripts/fuzz-stages found (docs/robustness.md; the inputs are made by
# tests/robust/make-inputs): each is a user error (exit 1, every stderr line a
# located "STAGE: INPUT: WHERE: error: ..." diagnostic), never an internal
# error, a signal, a sanitizer report or LLVM's dump. Before the checks each of
# these aborted, crashed, was compiled or (signed overflow) tripped UBSan.
load helpers
bats_require_minimum_version 1.5.0

R="$ROOT/tests/robust"

# rejects STAGE NAME MESSAGE: STAGE refuses $R/NAME.json cleanly, saying MESSAGE
rejects() {
	local stage=$1 name=$2 msg=$3 args=()
	[ "$stage" = tile-sched ] || args=(--gpu-name=sm_90)
	run --separate-stderr "$BIN/$stage" "${args[@]}" "$R/$name.json" -o /dev/null
	[ "$status" -eq 1 ] || { echo "exit $status: $stderr"; return 1; }
	[ -n "$stderr" ] || { echo "no diagnostic"; return 1; }
	local line where="^$stage: $R/$name\.json: (loc\(\"[^\"]*\":[0-9]+:[0-9]+\)|at /module[^:]*|error: '[a-z_.]+' op)"
	while IFS= read -r line; do
		[[ "$line" =~ $where ]] || { echo "not a located diagnostic: $line"; return 1; }
	done <<<"$stderr"
	[[ "$stderr" == *"$msg"* ]] || { echo "expected '$msg' in: $stderr"; return 1; }
	[[ "$stderr" != *"internal error"* ]]
}

@test "robust: tile-lower: a huge operand_segment_sizes entry (was: signed overflow in check_segments)" {
	rejects tile-lower lower-segment-overflow "'nv_tileaa.tiled_load' op has a bad size 2147483647 for operand group 1"
}

@test "robust: tile-sched: a huge operand_segment_sizes entry (was: signed overflow in check_segments)" {
	rejects tile-sched sched-segment-overflow "'nv_tileas.tiled_load' op has a bad size 2147483647 for operand group 1"
}

@test "robust: tile-sched: a kept cuda_tile op with an inconsistent result type (was: compiled)" {
	rejects tile-sched sched-kept-result-type "'cuda_tile.negi' op requires all operands and results to have the same type, got tile<2xi32> and tile<2xi16>"
}

@test "robust: tile-ptx: a layout that does not cover its tile (checked before this issue too)" {
	rejects tile-ptx ptx-layout-not-covering "bad layout '(4,32,4):(1,0,0)' of %1 (tile<2xi32>): the layout maps a register outside the tile"
}

@test "robust: tile-ptx: a tile value without a layout (checked before this issue too)" {
	rejects tile-ptx ptx-no-layout "'cuda_tile.negi' op: tile value %1 has no layout"
}

@test "robust: tile-ptx: an elementwise operand in another layout (was: operand has N registers, result M)" {
	rejects tile-ptx ptx-elementwise-layout "'cuda_tile.negi' op: operand 0 has layout '(1,(2,16),4):(0,(1,0),0)', the result '(2,32,4):(1,0,0)'"
}

@test "robust: tile-ptx: a reduce combiner without its yield (was: combiner without a yield)" {
	rejects tile-ptx ptx-combiner-no-yield "'cuda_tile.addf' op ends a block but is not a terminator"
}

@test "robust: tile-ptx: continue outside a loop (was: continue outside a loop)" {
	rejects tile-ptx ptx-continue-outside-loop "'cuda_tile.continue' op must be inside cuda_tile.for or cuda_tile.loop"
}

@test "robust: tile-ptx: an entry without its region (was: malformed entry)" {
	rejects tile-ptx ptx-entry-no-region "'cuda_tile.entry' op expects 1 region, got 0"
}

@test "robust: tile-ptx: a float op on integers (was: built invalid LLVM IR, LLVM's dump)" {
	rejects tile-ptx ptx-int-as-float "'cuda_tile.subf' op requires attribute 'rounding_mode'"
}

@test "robust: tile-ptx: via_shared that is not a boolean (was: extract ... not marked via_shared)" {
	rejects tile-ptx ptx-via-shared-kind "'cuda_tile.extract' op attribute 'via_shared' must be a boolean"
}

@test "robust: tile-ptx: an undefined operand" {
	rejects tile-ptx ptx-undefined-operand "value %99 is not defined here"
}

@test "robust: the unmutated intermediates of these cases compile" {
	# the cases differ from valid IR only by their mutation: the same modules compile
	for m in tests/read/nvidia/valid/negi-op-13.1.tileirbc tests/corpus/13.2/debug_print.tileirbc \
		 tests/corpus/13.2/loop_accum.tileirbc tests/reduce/corpus/extract_dyn.tileirbc \
		 tests/corpus/13.5/permute3d.tileirbc; do
		run bash -c "'$BIN/tile-read' '$ROOT/$m' | '$BIN/tile-lower' --gpu-name=sm_90 | '$BIN/tile-sched' | '$BIN/tile-ptx' --gpu-name=sm_90 >/dev/null"
		[ "$status" -eq 0 ] || { echo "$m: $output"; return 1; }
	done
}

@test "robust: tile-ptx: a shape op whose layouts move elements between threads (was: internal error 'not thread-local for its layouts'; scripts/fuzz-stages, session 16)" {
	rejects tile-ptx ptx-permute-not-local "'cuda_tile.permute' op: its operand's and result's layouts move elements between threads"
}

@test "robust: tile-ptx: a tile whose element count overflows 64 bits (was: UBSan signed overflow in type_num_elements; scripts/fuzz-stages, session 16)" {
	rejects tile-ptx ptx-huge-tile "a tile may have at most 16777216 elements"
}

@test "robust: tile-ptx: a layout whose size overflows 64 bits (was: UBSan signed overflow in layout_size; scripts/fuzz-stages, session 17)" {
	rejects tile-ptx ptx-huge-layout "the layout is larger than any tile"
}

@test "robust: tile-ptx: a loop-carried value whose init has another layout than the loop's result (was: compiled to wrong values when the register counts agreed, an internal error 'loop init N has N registers' when not; scripts/fuzz-stages, session 16)" {
	rejects tile-ptx ptx-carried-layout "'cuda_tile.for' op: init operand 0 has layout '(4,32,4):(1,4,128)', the value it becomes '(4,32,4):(128,1,32)'"
}
