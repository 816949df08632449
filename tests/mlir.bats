#!/usr/bin/env bats
# tile-read reads the cuda_tile dialect's text (issue 43): what
# tile-read --emit=asm and NVIDIA's tileirdisasm print reads back into the
# same module (asm -> text -> asm byte-identical, the same JSON but for
# locations), tileiras compiles a .mlir, and bad text is one located line,
# exit 1, no output. scripts/mlir-roundtrip does every test bytecode file.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

RT="$BATS_TEST_DIRNAME/../scripts/mlir-roundtrip"

@test "mlir: every op (the all-ops files 13.1-13.5) reads back to the same text and JSON" {
	BIN="$BIN" run "$RT" "$ROOT"/tests/read/allops-13.*.tileirbc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"5 passed, 0 failed"* ]]
}

@test "mlir: a sample of kernels (loops, reductions, mma, views, tilegym) reads back" {
	BIN="$BIN" run "$RT" "$ROOT"/tests/reduce/corpus/argmax_rows.tileirbc "$ROOT"/tests/mma/mm_f32.tileirbc \
		"$ROOT"/tests/pipeline/corpus/loops.tileirbc "$ROOT"/tests/ops/view_shape.tileirbc \
		"$ROOT"/tests/tilegym/softmax_fwd.tileirbc "$ROOT"/tests/recursion/recursive_109.tileirbc \
		"$ROOT"/tests/ops/f8_const.tileirbc "$ROOT"/tests/read/argattrs-13.5.tileirbc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"8 passed, 0 failed"* ]]
}

@test "mlir: -g text carries the Python locations back into the JSON" {
	tile-read --emit=asm-debug "$ROOT/tests/read/allops-13.5.tileirbc" -o "$SCRATCH/g.mlir"
	tile-read "$ROOT/tests/read/allops-13.5.tileirbc" -o "$SCRATCH/a.json"
	tile-read "$SCRATCH/g.mlir" -o "$SCRATCH/b.json"
	# the same but for the implicit terminators the text leaves out (an empty
	# else's yield), which take their place in the .mlir
	n=$(diff <(jq -S 'del(.module.attrs.producer) | del(.. | .splat? // empty)' "$SCRATCH/a.json" | grep -v '"dense"') \
		 <(jq -S 'del(.module.attrs.producer) | del(.. | .splat? // empty)' "$SCRATCH/b.json" | grep -v '"dense"') |
	    grep -c '^>') || true
	[ "$n" -le 3 ]
	[ "$(grep -c '"tests/read/allops.py"' "$SCRATCH/b.json")" -gt 100 ]
}

@test "mlir: text is found by content too (no .mlir name), and from stdin" {
	tile-read --emit=asm "$ROOT/tests/mma/mm_f32.tileirbc" -o "$SCRATCH/k.txt"
	tile-read "$SCRATCH/k.txt" -o "$SCRATCH/a.json"
	tile-read - <"$SCRATCH/k.txt" -o "$SCRATCH/b.json"
	cmp "$SCRATCH/a.json" <(sed 's#"'"$SCRATCH"'/k.txt"#"<stdin>"#' "$SCRATCH/b.json") ||
		[ "$(jq -S 'del(.. | .loc? // empty)' "$SCRATCH/a.json")" = "$(jq -S 'del(.. | .loc? // empty)' "$SCRATCH/b.json")" ]
	# a cuda_tile.module wrapper, the prefix on op names and a comment
	{ echo '// a kernel'; echo 'cuda_tile.module @kernels {'; echo 'cuda_tile.entry @k() {'; echo '  cuda_tile.return'; echo '}'; echo '}'; } >"$SCRATCH/w.mlir"
	run tile-read --emit=asm "$SCRATCH/w.mlir"
	[ "$status" -eq 0 ]
	[ "$output" = $'entry @k() {\n  return\n}' ]
}

@test "mlir: tileiras compiles a .mlir kernel to a cubin (sm_90)" {
	tile-read --emit=asm "$ROOT/tests/mma/mm_f32.tileirbc" -o "$SCRATCH/mm.mlir"
	run tileiras "$SCRATCH/mm.mlir" --gpu-name=sm_90 -o "$SCRATCH/mm.cubin"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -s "$SCRATCH/mm.cubin" ]
}

# bad TEXT MESSAGE: exit 1, one line "FILE:LINE:COL...error: MESSAGE", no output
bad() {
	printf '%s' "$1" >"$SCRATCH/bad.mlir"
	run tile-read "$SCRATCH/bad.mlir" -o "$SCRATCH/out.json"
	[ "$status" -eq 1 ] || { echo "status $status: $output"; false; }
	[ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
	[[ "$output" == *"bad.mlir\":"[0-9]*:[0-9]*")"*"error: $2"* ]] || { echo "$output"; false; }
	[ ! -e "$SCRATCH/out.json" ]
}

K='entry @k(%a: tile<i32>) {
  %0 = addi %a, %a : tile<i32>
  return
}
'

@test "mlir: bad text is one located error line, exit 1, no output" {
	bad "${K:0:40}" "expected"                                              # truncated
	bad "${K/addi/adi}" "unknown op 'adi' (did you mean 'addi'?)"
	bad "${K/\%0 = addi %a, %a : tile<i32>/%0 = addi %a, %a : tile<i7>}" "unknown type 'i7'"
	bad "${K/\%0 = addi %a, %a/%0 = addi %a}" "expected ','"                 # wrong operand count
	bad "${K/\%0 = addi %a, %a/%0 = addi %a, %b}" "use of undefined value '%b'"
	bad "${K/tile<i32>) /tile<3xi32>) }" "tile dimension 0 is 3"
	bad "$(printf '\x7fELF\x01\x02garbage\x00\x00')" "expected an op"       # binary garbage named .mlir
	bad "entry @k() { $(head -c 1048576 /dev/zero | tr '\0' ' ') %x = }" "expected an op"   # a 1 MB line
	bad "entry @k() { $(for i in $(seq 80); do printf 'if %%c { '; done)" "use of undefined value '%c'"
}

@test "mlir: regions nested too deep are refused, not a crash" {
	{ echo 'entry @k(%c: tile<i1>) {'; for i in $(seq 100); do echo 'if %c {'; done; for i in $(seq 100); do echo '}'; done; echo 'return'; echo '}'; } >"$SCRATCH/deep.mlir"
	run tile-read "$SCRATCH/deep.mlir"
	[ "$status" -eq 1 ]
	[[ "$output" == *"regions nested more than 64 deep"* ]]
}
