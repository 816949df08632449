#!/usr/bin/env bats
# tileirdisasm (scripts/tileirdisasm over tile-read --emit=asm): the cuda_tile
# dialect's own assembly syntax, byte for byte what NVIDIA's tileirdisasm
# 13.5 prints, with -g too (location aliases). Golden files
# (tests/read/allops-13.*.asm, tests/disasm/*.asm: NVIDIA's output) hold it
# without NVIDIA's wheel; with the wheel every test bytecode file is
# compared (scripts/disasm-compare).
# UPDATE_GOLDEN=1 rewrites the golden files from the current output.
load helpers
bats_require_minimum_version 1.5.0

setup() { setup_scratch; }
teardown() { teardown_scratch; }

GOLD="$BATS_TEST_DIRNAME/read"

# Files where NVIDIA's output is wrong and ours is not, each with the one
# line NVIDIA's prints differently (docs/bytecode.md, "Negative f64 float
# attributes from cuTile need 65 bits": NVIDIA's reader drops the sign).
KNOWN_DIFF="tests/reduce/corpus/reduce_types.tileirbc"

@test "tileirdisasm: the all-ops modules of 13.1 to 13.5 (and 13.5 with -g), golden (NVIDIA's tileirdisasm output)" {
	for v in 13.1 13.2 13.3 13.4 13.5; do
		tileirdisasm "$GOLD/allops-$v.tileirbc" >"$SCRATCH/got"
		[ -z "${UPDATE_GOLDEN:-}" ] || cp "$SCRATCH/got" "$GOLD/allops-$v.asm"
		diff -u "$GOLD/allops-$v.asm" "$SCRATCH/got"
	done
	tileirdisasm -g "$GOLD/allops-13.5.tileirbc" >"$SCRATCH/got"
	[ -z "${UPDATE_GOLDEN:-}" ] || cp "$SCRATCH/got" "$GOLD/allops-13.5-g.asm"
	diff -u "$GOLD/allops-13.5-g.asm" "$SCRATCH/got"
	# 13.5's multimem ops with their optional parts (tests/disasm/gen-multimem-variants)
	for f in "$BATS_TEST_DIRNAME"/disasm/*.tileirbc; do
		tileirdisasm "$f" >"$SCRATCH/got"
		[ -z "${UPDATE_GOLDEN:-}" ] || cp "$SCRATCH/got" "${f%.tileirbc}.asm"
		diff -u "${f%.tileirbc}.asm" "$SCRATCH/got"
	done
}

compare_all() {  # compare_all [-g]: every test bytecode file but KNOWN_DIFF
	[ -n "${NVBIN:-}" ] && [ -x "$NVBIN/tileirdisasm" ] ||
		skip "no NVIDIA tileirdisasm (.venv's cu13 wheel): run 'make venv'"
	mapfile -t files < <(cd "$ROOT" && find tests -name '*.tileirbc' | sort | grep -vxF "$KNOWN_DIFF")
	[ "${#files[@]}" -gt 300 ]
	run env OURS="$BIN/tileirdisasm" NVBIN="$NVBIN" "$ROOT/scripts/disasm-compare" -v "$@" "${files[@]}"
	assert_success
	assert_output --partial "identical ${#files[@]}/${#files[@]}"
}

@test "tileirdisasm: byte-identical to NVIDIA's tileirdisasm 13.5 on every test bytecode file" {
	compare_all
}

@test "tileirdisasm -g: byte-identical to NVIDIA's (location aliases) on every test bytecode file" {
	compare_all -g
}

@test "tileirdisasm: where NVIDIA's reader is wrong, only that line differs" {
	[ -n "${NVBIN:-}" ] && [ -x "$NVBIN/tileirdisasm" ] ||
		skip "no NVIDIA tileirdisasm (.venv's cu13 wheel): run 'make venv'"
	f="$ROOT/tests/reduce/corpus/reduce_types.tileirbc"
	env -u CUDA_HOME "$NVBIN/tileirdisasm" "$f" >"$SCRATCH/nv.txt"
	tileirdisasm "$f" >"$SCRATCH/ours.txt"
	run diff "$SCRATCH/nv.txt" "$SCRATCH/ours.txt"
	assert_failure
	[ "$(grep -c '^[<>]' <<<"$output")" -eq 2 ]
	assert_line "<   %reduce = reduce %tile dim=1 identities=[0x7FF0000000000000 : f64] : tile<16x64xf64> -> tile<16xf64> "
	assert_line ">   %reduce = reduce %tile dim=1 identities=[0xFFF0000000000000 : f64] : tile<16x64xf64> -> tile<16xf64> "
}

mk() { python3 "$GOLD/mkbc" "$SCRATCH/m.bc" "$@"; }

@test "tileirdisasm: constants as NVIDIA's prints them (hex past 100 elements, E5M3 floats, NaN names)" {
	# %0 = constant : tile<128xi32>, elements 0..127: more than 100, so hex
	mk --types "10 00 00,0d 02 01 8000000000000000,03" \
		--consts "$(python3 -c 'print(b"".join(i.to_bytes(4, "little") for i in range(128)).hex())')" "10 01 00 5c 00 00"
	run tileirdisasm "$SCRATCH/m.bc"
	assert_success
	assert_line --index 1 --regexp '^  %cst_i32 = constant <i32: "0x0000000001000000020000000300000004.*7F000000"> : tile<128xi32>$'
	# 13.4's fnv8E5M3FNU: no sign, bias 15, 0xFF its only NaN
	mk --version 13.4 --types "10 00 00,0d 02 01 0800000000000000,82 01" --consts "00 20 40 60 80 a0 c0 fe" "10 01 00 5c 00 00"
	run tileirdisasm "$SCRATCH/m.bc"
	assert_line --index 1 '  %cst_fnv8E5M3FNU = constant <fnv8E5M3FNU: [0.000000e+00, 4.882810e-04, 7.812500e-03, 1.250000e-01, 2.000000e+00, 3.200000e+01, 5.120000e+02, 1.146880e+05]> : tile<8xfnv8E5M3FNU>'
	mk --version 13.4 --types "10 00 00,0d 02 01 0800000000000000,82 01" --consts "ff" "10 01 00 5c 00 00"
	run tileirdisasm "$SCRATCH/m.bc"
	assert_line --index 1 '  %cst_NaN_fnv8E5M3FNU = constant <fnv8E5M3FNU: 0xFF> : tile<8xfnv8E5M3FNU>'
	# an f32 that six digits do not give back: APFloat's natural precision
	mk --types "10 00 00,0d 02 00,07" --consts "$(python3 -c 'import struct; print(struct.pack("<f", 1e-5).hex())')" "10 01 00 5c 00 00"
	run tileirdisasm "$SCRATCH/m.bc"
	assert_line --index 1 '  %cst_f32 = constant <f32: 9.99999974E-6> : tile<f32>'
}

@test "tileirdisasm: rejects what NVIDIA's rejects, exit 3" {
	for f in "$ROOT"/tests/read/nvidia/invalid/*.tileirbc "$ROOT/tests/read/argattrs-count-13.5.tileirbc"; do
		run --separate-stderr tileirdisasm "$f"
		assert_failure 3
		[ -z "$output" ]
	done
}

@test "tileirdisasm -g: loc(#alias) after each op, the aliases after the module; --emit=text keeps the generic form" {
	V="$CORPUS/13.5/vector_add.tileirbc"
	run --separate-stderr tileirdisasm -g "$V"
	assert_success
	assert_line --index 1 '  %0 = make_token : token loc(#loc7)'
	assert_line '#di_file = #cuda_tile.di_file<"vector_add.py" in "tests/kernels">'
	assert_line '#loc = loc("tests/kernels/vector_add.py":7:0)'
	assert_line '#loc7 = #cuda_tile.di_loc<#loc in #di_subprogram>'
	run tileirdisasm "$V"
	refute_output --partial 'loc('
	run tile-read --emit=text "$V"
	assert_output --partial '= cuda_tile.make_token'
}
