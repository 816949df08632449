#!/usr/bin/env bats
# Optimization remarks (docs/driver.md "Remarks"): NVIDIA's YAML document
# shape (tests/remarks/parse_remarks.py checks it line by line and prints
# each document as a JSON line), and remarks a kernel author can act on:
# per global load/store the vector width and why not wider, masked or not;
# layout conversions and their shared memory; ptxas's registers, spills and
# occupancy.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	cd "$SCRATCH"
	PARSE="$ROOT/tests/remarks/parse_remarks.py"
	# vector_add exports two kernels: the first with dynamic strides, the
	# second (`1t1`: cuTile's stride_constant 1) with a unit stride but no
	# alignment or size facts; vadd_v4 declares 16-byte bases and sizes
	# divisible by 4 (tests/pipeline/kernels/aligned.py)
	VA="$CORPUS/13.5/vector_add.tileirbc"
	V4="$ROOT/tests/pipeline/corpus/vadd_v4.tileirbc"
}
teardown() { teardown_scratch; }

# remarks as JSON lines in docs.jsonl; the PTX in k.ptx
remarks_of() {
	run tileiras --gpu-name=sm_90 --emit=ptx -o k.ptx --remarks=all --remark-format=yaml \
		--remarks-output-file=r.yaml "$@"
	assert_success
	python3 "$PARSE" r.yaml >docs.jsonl
}
# the documents whose JSON has every one of the given fragments
docs_with() {
	local out
	out=$(cat docs.jsonl)
	for frag; do out=$(grep -F -- "$frag" <<<"$out" || true); done
	printf '%s' "$out"
}

@test "remarks: the YAML has NVIDIA's document shape (the checker also accepts NVIDIA's own file)" {
	remarks_of "$VA"
	[ "$(wc -l <docs.jsonl)" -gt 6 ]
	# every memory remark names its kernel and the Python line
	run docs_with '"Pass": "Memory"' '"DebugLoc": {"File": "tests/kernels/vector_add.py", "Line": '
	[ "$(echo "$output" | grep -c '"Function": "vector_add_')" = "$(wc -l <<<"$output")" ]
	# the checker refuses what is out of shape
	printf -- '--- !Passed\nName:            X\nPass:            Y\nArgs:\n  - Remark: a\n...\n' >bad.yaml
	run python3 "$PARSE" bad.yaml
	assert_failure
	printf -- '--- !Passed\nPass:            Y\nName:            X\nArgs:\n...\n' >bad.yaml
	run python3 "$PARSE" bad.yaml
	assert_failure
	if [ -n "${NVBIN:-}" ] && [ -x "$NVBIN/tileiras" ]; then
		run env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name=sm_90 --remarks=all --remark-format=yaml \
			--remarks-output-file=nv.yaml -o nv.cubin "$VA"
		assert_success
		run python3 "$PARSE" nv.yaml
		assert_success
	else
		echo "# NVIDIA's tileiras not installed: its file not checked" >&3
	fi
}

@test "remarks: an unaligned, unit-stride masked load: 4 bytes, and why not 16" {
	remarks_of "$VA"
	# kernel 2, a = ct.load(...) at vector_add.py:9:9
	at='"DebugLoc": {"File": "tests/kernels/vector_add.py", "Line": 9, "Column": 9}, "Function": "vector_add_Kt1_A1f32_1t1_'
	run docs_with '"kind": "Passed"' RemarkMemoryLoadInstructionSelected "$at"
	assert_output --partial '{"VectorBytes": "4"}, {"VectorElements": "1"}, {"ElementType": "f32"}, {"Masked": "true"}'
	run docs_with '"kind": "Missed"' RemarkMemoryVectorWidthLimited "$at"
	assert_output --partial '"Global load vectorized to 4 bytes, not 16"'
	assert_output --partial '{"Reason": "base pointer is only known to be 4-byte aligned'
	assert_output --partial '{"Reason": "innermost size is only known divisible by 1 element'
	refute_output --partial 'innermost stride'
	run docs_with '"kind": "Analysis"' RemarkMemoryMaskedAccess "$at"
	assert_output --partial '{"Reason": "dim 0: the tensor size is dynamic and not known to be a multiple of the tile (1024)"}'
	# kernel 1: dynamic strides
	run docs_with RemarkMemoryVectorWidthLimited '"Line": 9, "Column": 9}, "Function": "vector_add_Kt1_A1f32_1l0_'
	assert_output --partial 'innermost stride is dynamic, not known to be 1'
	# what the remarks say is what the PTX does: no vector access anywhere
	run grep -cE '(ld|st)\.global\.v[24]' k.ptx
	assert_output 0
	# the store at line 11
	run docs_with RemarkMemoryStoreInstructionSelected '"Line": 11, "Column": 4}, "Function": "vector_add_Kt1_A1f32_1t1_'
	assert_output --partial '"Store instruction selected"'
}

@test "remarks: aligned accesses: 16 bytes, no 'limited' remark; masked only where the size may overhang" {
	remarks_of "$V4"
	run docs_with RemarkMemoryLoadInstructionSelected
	assert_output --partial '{"VectorBytes": "16"}, {"VectorElements": "4"}'
	refute_output --partial '{"VectorBytes": "4"}'
	run docs_with RemarkMemoryVectorWidthLimited
	assert_output ""
	# the kernel whose size is known divisible by its tile (1024) is not masked
	run docs_with '"Function": "vadd_Kt1_A1f32_1i1024t1_' InstructionSelected
	assert_output --partial '{"Masked": "false"}'
	refute_output --partial '{"Masked": "true"}'
	run docs_with '"Function": "vadd_Kt1_A1f32_1i1024t1_' RemarkMemoryMaskedAccess
	assert_output ""
	run docs_with '"Function": "vadd_Kt1_A1f32_1i4t1_' RemarkMemoryMaskedAccess
	[ "$(wc -l <<<"$output")" = 3 ]
	run grep -c 'ld\.global.*\.v4' k.ptx
	refute_output 0
}

@test "remarks: a layout conversion and the shared memory it may take" {
	remarks_of "$CORPUS/13.5/transpose.tileirbc"
	run docs_with '"kind": "Analysis"' '"Pass": "Layout"' RemarkLayoutConversion
	assert_output --partial '{"Type": "tile<32x64xf32>"}'
	assert_output --partial '{"SharedMemoryBytes": "8192"}'
	assert_output --partial '"DebugLoc": {"File": "tests/kernels/transpose.py", "Line": 11'
}

@test "remarks: a K loop versioned on alignment for TMA (tile-sched --tma) says so at the loop, with its loads by TMA; none without --tma" {
	tile-read "$CORPUS/13.5/matmul.tileirbc" | tile-lower --gpu-name=sm_90 >as.json
	tile-sched --tma --remark-format=yaml --remarks-output-file=r.yaml as.json >/dev/null
	python3 "$PARSE" r.yaml >docs.jsonl
	run docs_with '"kind": "Analysis"' '"Pass": "Memory"' RemarkLoopVersionedOnAlignment
	[ "$(grep -c . <<<"$output")" -eq 2 ] || fail "not one per kernel: $output"
	assert_output --partial '{"LoadsByTMA": "2"}'
	assert_output --partial '"DebugLoc": {"File": "tests/kernels/matmul.py", "Line": 11'
	tile-sched --remark-format=yaml --remarks-output-file=n.yaml as.json >/dev/null
	if grep -q RemarkLoopVersionedOnAlignment n.yaml; then fail "versioned without --tma"; fi
}

@test "remarks: --remarks-missed=memory gives only the !Missed ones; command-line form on stdout" {
	run tileiras --gpu-name=sm_90 --emit=ptx -o k.ptx --remarks-missed=memory --remark-format=yaml \
		--remarks-output-file=m.yaml "$VA"
	assert_success
	python3 "$PARSE" m.yaml >docs.jsonl
	[ "$(wc -l <docs.jsonl)" = 6 ]
	run grep -vc '"kind": "Missed"' docs.jsonl
	assert_output 0
	run --separate-stderr tileiras --gpu-name=sm_90 --emit=ptx -o k.ptx --remarks=memory "$VA"
	assert_success
	assert_line "in function: vector_add_Kt1_A1f32_1t1_A1f32_1t1_A1f32_1t1_I1024:"
	assert_line "  category: Memory"
	assert_line "    remark[missed]: Global load vectorized to 4 bytes, not 16"
	assert_line '      --> "tests/kernels/vector_add.py":9:9'
	assert_line "       = name: RemarkMemoryVectorWidthLimited"
	assert_line "       = note: Masked = true"
	[ -z "$stderr" ]
}

@test "remarks: ptxas resources with the CTA size and occupancy" {
	require_ptxas
	run tileiras --gpu-name=sm_90 -o k.cubin --remarks=all --remark-format=yaml --remarks-output-file=r.yaml "$VA"
	assert_success
	python3 "$PARSE" r.yaml >docs.jsonl
	run docs_with KernelResources '"Function": "vector_add_Kt1_A1f32_1t1_'
	assert_output --regexp '\{"Registers": "[0-9]+"\}'
	assert_output --partial '{"SpillStores": "0"}'
	assert_output --partial '{"CTAThreads": "128"}'
	assert_output --regexp '\{"Occupancy": "[0-9]+%"\}'
	assert_output --regexp '\{"OccupancyLimit": "(threads per SM|registers|shared memory|CTAs per SM)"\}'
}

@test "remarks: the longest-live tile values, where they are made and used and what they are live across (issue 17)" {
	# layernorm_fwd: x in f32 (32 registers a thread) is live across the first
	# row reduction, x - mean across the second; the remark names the kernel's
	# own lines (tests/tilegym/kernels.py), not cuTile's astype in _stub.py
	remarks_of "$ROOT/tests/tilegym/layernorm_fwd.tileirbc"
	run docs_with '"kind": "Analysis"' '"Pass": "Registers"' RemarkLongLiveValue '"Function": "layernorm_fwd_Kt1_A2bf16'
	assert_output --partial '{"Type": "tile<1x4096xf32>"}'
	assert_output --partial '{"RegistersPerThread": "32"}'
	assert_output --partial '{"DefinedBy": "subf"}'
	assert_output --partial '{"LastUse": "tests/tilegym/kernels.py:19:10 (mulf)"}'
	assert_output --partial '{"LiveAcross": "reduce at tests/tilegym/kernels.py:18:10"}'
	assert_output --partial '{"LastUse": "tests/tilegym/kernels.py:17:8 (subf)"}'
	assert_output --partial '"DebugLoc": {"File": "tests/tilegym/kernels.py", "Line": 13'
	[ "$(grep -c '"_stub.py' <<<"$output")" = 0 ]
	# a loop-carried accumulator is live across the whole K loop (matmul: 64x64 f32 over 4 warps)
	remarks_of "$CORPUS/13.4/matmul.tileirbc"
	run docs_with RemarkLongLiveValue
	assert_output --partial '{"DefinedBy": "block argument (loop-carried)"}'
	# vector_add holds no tile across a region: none
	remarks_of "$VA"
	[ -z "$(docs_with RemarkLongLiveValue)" ]
}
