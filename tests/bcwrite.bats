#!/usr/bin/env bats
# tile-read --emit=bytecode (issue 43): the module back as Tile IR bytecode,
# of the input's version or --bytecode-version. What it writes reads back
# to the same JSON (locations included) and --emit=asm text, cuTile's files
# come back byte for byte (219 of the 343 test files, scripts/bytecode-roundtrip),
# NVIDIA's tileirdisasm and tileiras take it, and a feature the version
# lacks is one error line, exit 1, no output file.
# scripts/bytecode-roundtrip does every test bytecode file.
load helpers
bats_require_minimum_version 1.5.0

setup() { setup_scratch; }
teardown() { teardown_scratch; }

RT="$BATS_TEST_DIRNAME/../scripts/bytecode-roundtrip"

@test "bcwrite: every op (the all-ops files 13.1-13.5) writes and reads back to the same JSON and text" {
	BIN="$BIN" run "$RT" --mlir "$ROOT"/tests/read/allops-13.*.tileirbc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"5 passed"*", 0 failed"* ]]
}

@test "bcwrite: a sample of kernels (loops, reductions, mma, views, globals, call sites) reads back" {
	BIN="$BIN" run "$RT" --mlir "$ROOT"/tests/reduce/corpus/argmax_rows.tileirbc "$ROOT"/tests/mma/mm_f32.tileirbc \
		"$ROOT"/tests/pipeline/corpus/loops.tileirbc "$ROOT"/tests/ops/view_shape.tileirbc \
		"$ROOT"/tests/tilegym/softmax_fwd.tileirbc "$ROOT"/tests/recursion/recursive_109.tileirbc \
		"$ROOT"/tests/ops/f8_const.tileirbc "$ROOT"/tests/read/argattrs-13.5.tileirbc \
		"$ROOT"/tests/corpus/13.1/histogram.tileirbc "$ROOT"/tests/corpus/13.5/topk.tileirbc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"10 passed"*", 0 failed"* ]]
}

@test "bcwrite: cuTile's layout: its files come back byte for byte (debug records too, where one subprogram a function)" {
	for f in "$ROOT"/tests/read/argattrs-13.5.tileirbc "$ROOT"/tests/corpus/13.{1,3,5}/saxpy.tileirbc; do
		tile-read --emit=bytecode "$f" -o "$SCRATCH/a.tileirbc"
		cmp "$f" "$SCRATCH/a.tileirbc"
	done
}

@test "bcwrite: another version: a 13.3 kernel as 13.1 reads back as 13.1 with the same ops" {
	f="$ROOT/tests/corpus/13.3/saxpy.tileirbc"
	tile-read --emit=bytecode --bytecode-version=13.1 "$f" -o "$SCRATCH/a.tileirbc"
	run tile-read "$SCRATCH/a.tileirbc"
	assert_success
	assert_output --partial '"bytecode_version": "13.1"'
	[ "$(tile-read --emit=asm "$SCRATCH/a.tileirbc")" = "$(tile-read --emit=asm "$f")" ]
	# and text in, bytecode out
	tile-read --emit=asm "$f" -o "$SCRATCH/s.mlir"
	tile-read --emit=bytecode --bytecode-version=13.2 "$SCRATCH/s.mlir" -o "$SCRATCH/s.tileirbc"
	run tile-read "$SCRATCH/s.tileirbc"
	assert_output --partial '"bytecode_version": "13.2"'
}

@test "bcwrite: an op, attribute or type the version lacks is one error naming it and its first version; no output" {
	f="$ROOT/tests/read/allops-13.5.tileirbc"
	run tile-read --emit=bytecode --bytecode-version=13.1 "$f" -o "$SCRATCH/x.tileirbc"
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ]
	assert_output --partial "error: attribute 'rounding_mode' = approx of cuda_tile.exp needs bytecode version 13.3 or newer; cannot write version 13.1"
	run tile-read --emit=bytecode --bytecode-version=13.3 "$f" -o "$SCRATCH/x.tileirbc"
	assert_failure 1
	assert_output --partial "error: cuda_tile.fpowi needs bytecode version 13.4 or newer; cannot write version 13.3"
	run tile-read --emit=bytecode --bytecode-version=13.4 "$f" -o "$SCRATCH/x.tileirbc"
	assert_output --partial "error: attribute 'inbounds' of cuda_tile.atomic_red_view_tko needs bytecode version 13.5 or newer; cannot write version 13.4"
	run tile-read --emit=bytecode --bytecode-version=13.2 "$ROOT/tests/read/argattrs-13.5.tileirbc" -o "$SCRATCH/x.tileirbc"
	assert_output --partial "error: argument attributes of entry 'k' needs bytecode version 13.5 or newer; cannot write version 13.2"
	[ ! -e "$SCRATCH/x.tileirbc" ]
}

@test "bcwrite: -o to an unwritable path is one error, exit 1" {
	run tile-read --emit=bytecode "$ROOT/tests/corpus/13.3/saxpy.tileirbc" -o "$SCRATCH/no/such/dir/x.tileirbc"
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ]
	assert_output --partial "cannot write"
}

@test "bcwrite: NVIDIA's tileirdisasm reads what we write as it reads the original, and tileiras compiles it (sm_90)" {
	[ -n "$NVBIN" ] && [ -x "$NVBIN/tileirdisasm" ] && [ -x "$NVBIN/tileiras" ] ||
		skip "no NVIDIA tileirdisasm/tileiras (.venv's cu13 wheel): run 'make venv'"
	for f in "$ROOT"/tests/read/allops-13.{1,2,3,4,5}.tileirbc "$ROOT"/tests/corpus/13.3/saxpy.tileirbc \
		 "$ROOT"/tests/recursion/recursive_109.tileirbc; do
		tile-read --emit=bytecode "$f" -o "$SCRATCH/w.tileirbc"
		env -u CUDA_HOME "$NVBIN/tileirdisasm" "$f" >"$SCRATCH/want"
		env -u CUDA_HOME "$NVBIN/tileirdisasm" "$SCRATCH/w.tileirbc" >"$SCRATCH/got"
		diff "$SCRATCH/want" "$SCRATCH/got"
		# and what tile-read --emit=asm prints
		tile-read --emit=asm "$SCRATCH/w.tileirbc" | diff - "$SCRATCH/got"
	done
	for f in "$ROOT"/tests/corpus/13.3/saxpy.tileirbc "$ROOT"/tests/read/allops-13.1.tileirbc; do
		tile-read --emit=bytecode "$f" -o "$SCRATCH/w.tileirbc"
		run env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name=sm_90 "$SCRATCH/w.tileirbc" -o "$SCRATCH/x.cubin"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
		[ -s "$SCRATCH/x.cubin" ]
	done
	# a text kernel, the A/B use: text -> our bytecode -> NVIDIA's tileiras
	tile-read --emit=asm "$ROOT/tests/corpus/13.5/softmax.tileirbc" -o "$SCRATCH/s.mlir"
	tile-read --emit=bytecode "$SCRATCH/s.mlir" -o "$SCRATCH/s.tileirbc"
	run env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name=sm_90 "$SCRATCH/s.tileirbc" -o "$SCRATCH/s.cubin"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -s "$SCRATCH/s.cubin" ]
}
