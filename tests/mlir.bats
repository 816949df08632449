#!/usr/bin/env bats
# tile-read reads the cuda_tile dialect's text (issue 43): what
# tile-read --emit=asm and NVIDIA's tileirdisasm print reads back into the
# same module (asm -> text -> asm byte-identical, the same JSON but for
# locations), tileiras compiles a .mlir, and bad text is one located line,
# exit 1, no output. scripts/mlir-roundtrip does every test bytecode file.
load helpers
bats_require_minimum_version 1.5.0

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

# bad TEXT LINE:COL MESSAGE: exit 1, no output, and exactly one line: the
# user's form "FILE:LINE:COL: error: MESSAGE" (TILEIRAS_USER_DIAG=1, as
# tileiras runs it)
bad() {
	printf '%s' "$1" >"$SCRATCH/bad.mlir"
	rm -f "$SCRATCH/out.json"
	TILEIRAS_USER_DIAG=1 run --separate-stderr tile-read "$SCRATCH/bad.mlir" -o "$SCRATCH/out.json"
	[ "$status" -eq 1 ] || { echo "status $status: $stderr"; false; }
	[ "$stderr" = "$SCRATCH/bad.mlir:$2: error: $3" ] || { echo "got:  $stderr"; echo "want: $SCRATCH/bad.mlir:$2: error: $3"; false; }
	[ ! -e "$SCRATCH/out.json" ]
}

NL=$'\n'
K='entry @k(%a: tile<i32>) {
  %0 = addi %a, %a : tile<i32>
  return
}
'

@test "mlir: bad text is one located error line, exit 1, no output" {
	bad "${K:0:40}" 2:15 "expected ',', found end of input"                # truncated
	bad "${K/addi/adi}" 2:8 "unknown op 'adi' (did you mean 'addi'?)"
	bad "${K/entry/enty}" 1:1 "unknown op 'enty' (did you mean 'entry'?)"
	bad "${K}garbage" 5:1 "unknown op 'garbage'"
	bad "${K/\%0 = addi %a, %a : tile<i32>/%0 = addi %a, %a : tile<i7>}" 2:27 "unknown type 'i7'"
	bad "${K/\%0 = addi %a, %a/%0 = addi %a}" 2:16 "expected ',', found ':'"  # an operand short
	bad "${K/\%0 = addi %a, %a/%0 = addi %a, %a, %a}" 2:19 "expected ':', found ','"
	bad "${K/\%0 =/%0, %1 =}" 2:3 "'cuda_tile.addi' has 1 result, not 2"
	bad "${K/\%0 = addi %a, %a/%0 = addi %a, %b}" 2:17 "use of undefined value '%b'"
	bad "${K/\%0 = addi %a, %a/%0 = addi %a, %0}" 2:17 "use of undefined value '%0'"
	bad "${K/\%0 = addi %a, %a/%a = addi %a, %a}" 2:3 "redefinition of SSA value '%a'"
	bad "${K/tile<i32>) /tile<3xi32>) }" 1:19 "tile dimension 0 is 3; tile dimensions must be positive powers of two"
	bad "${K/: tile<i32>$NL/: tile<f32>$NL}" 2:3 "'cuda_tile.addi' op requires all operands and results to have the same type, got tile<i32> and tile<f32>"
	bad "${K/\%0 = addi %a, %a : tile<i32>/%0 = constant <i8: 300> : tile<i8>}" 2:22 "300 does not fit in i8"
	bad "${K/\%0 = addi %a, %a : tile<i32>/%0 = constant <i32: 99999999999999999999999> : tile<i32>}" 2:23 \
		"integer 99999999999999999999999 does not fit in 64 bits"
	bad "${K/  return$NL\}/}" 1:25 "unterminated region: no '}' for this '{'"
	bad 'entry @k() { %x = constant <f32: "abc> : tile<f32> }' 1:34 "unterminated string"
	bad "${K/\%0 = addi %a, %a : tile<i32>/%0 = \"cuda_tile.addi\"(%a, %a) : (tile<i32>, tile<i32>) -> tile<i32>}" 2:8 \
		"MLIR's generic op form (\"cuda_tile.op\"(...)) is not read; write the op as tileirdisasm prints it"
	bad "$(printf '\x7fELF\x01\x02garbage')" 1:1 "expected an op, found byte 0x7f"  # binary garbage named .mlir
	bad "entry @k() { $(head -c 1048576 /dev/zero | tr '\0' ' ') %x = }" 1:1048596 "expected an op, found '}'"  # a 1 MB line
	bad "entry @k() { $(for i in $(seq 80); do printf 'if %%c { '; done)" 1:17 "use of undefined value '%c'"
}

@test "mlir: bad types, constants, names, locations and regions: one located line each" {
	bad 'entry @k(%a: ptr<tile<i32>>) { return }' 1:18 "pointer to 'tile<i32>': the pointee must be a number type"
	bad 'entry @k(%a: tile<?xi32>) { return }' 1:19 "a tile has no dynamic dimensions"
	bad 'entry @k(%a: tile<token>) { return }' 1:19 "tile of 'token': the element must be a scalar or pointer type"
	bad 'entry @k(%a: tensor_view<4xtoken, strides=[1]>) { return }' 1:28 "tensor_view of 'token': the element must be a number type"
	bad 'entry @k(%a: tensor_view<4x4xi32, strides=[1]>) { return }' 1:35 "tensor_view has 2 dimensions but 1 strides"
	bad 'entry @k(%a: tensor_view<4xi32, strides=[0]>) { return }' 1:33 "tensor_view strides[0] = 0 must be positive (or dynamic)"
	bad 'entry @k(%a: tile<ptr<i32, foo>>) { return }' 1:28 "expected a pointer attribute, found 'foo'"
	bad 'entry @k(%a) { return }' 1:12 "expected ':', found ')'"
	bad 'entry @k() { %c = constant <i1: 2> : tile<i1> return }' 1:33 "an i1 is true or false, not 2"
	bad 'entry @k() { %c = constant <f32: 1.0> : tile<i32> return }' 1:41 "the constant's type must be a tile of f32, not 'tile<i32>'"
	bad 'entry @k() { %c = constant <i32: [1, 2]> : tile<4xi32> return }' 1:34 "2 elements for 'tile<4xi32>' (4 elements)"
	bad 'entry @k() { %c = constant <f8E4M3FN: inf> : tile<f8E4M3FN> return }' 1:39 "'f8E4M3FN' has no inf"
	bad 'entry @k() { %c = constant <i32: "0xZZ"> : tile<i32> return }' 1:34 'dense bytes must be "0x" and pairs of hex digits'
	bad 'entry @k() { %c = constant <i32: 1> : tile<i32> loc(#zz) return }' 1:53 "unknown alias '#zz'"
	bad 'entry @k() { %c = constant <i32: 1> : tile<i32> return } loc("a.py":99999999999:1)' 1:82 "line or column out of range"
	bad 'entry @k() { %c = constant <i32: 1> : tile<i32> %d = addi %c#3, %c : tile<i32> return }' 1:59 "'%c' has 1 value, no #3"
	bad 'entry @k() { %0 = get_tile_block_id : tile<i32> return }' 1:14 "'cuda_tile.get_tile_block_id' has 3 results, not 1"
	bad 'entry @k() { % = constant <i32: 1> : tile<i32> return }' 1:14 "expected a result name after '%'"
	bad 'return' 1:1 "'cuda_tile.return' cannot be at the top level; only entry and global can"
	bad 'entry @k() { }' 1:14 "empty block: a region ends with a terminator"
	bad 'entry @k() { %c = constant <i32: 1> : tile<i32> }' 1:49 "a region ends with 'cuda_tile.constant', not a terminator"
	bad 'entry @k() { %c = constant <i32: 1> : tile<i32> {a = 1, a = 2} return }' 1:57 "duplicate attribute 'a'"
	bad 'entry @k(%a: tile<i32>) { %0 = cmpi foo %a, %a : tile<i32> -> tile<i1> return }' 1:37 \
		"unknown comparison predicate 'foo' for 'comparison_predicate' (one of: equal, not_equal, less_than, less_than_or_equal, greater_than, greater_than_or_equal)"
	bad 'entry @k(%a: tile<i32>) { %0 = assume foo<1>, %a : tile<i32> return }' 1:39 \
		"expected an assume predicate (div_by, same_elements, bounded), found 'foo'"
	bad 'module { cuda_tile.module @m { module { } } }' 1:32 "modules nested more than 2 deep"
}

@test "mlir: nesting too deep (types, dense constants) is one located line" {
	bad "entry @k(%a: $(printf '%.0stile<' $(seq 40))i32$(printf '%.0s>' $(seq 40))) { return }" 1:59 "types nested more than 8 deep"
	bad "entry @k() { %x = constant <i32: $(printf '%.0s[' $(seq 40))1$(printf '%.0s]' $(seq 40))> : tile<i32> return }" 1:51 \
		"dense elements nested more than 16 deep"
}

# tileiras BAD.mlir: exit 3 (as bad bytecode), the one located line in the
# user's form and nothing else (no stage named, no bytecode line), no cubin
tileiras_bad() {
	printf '%s' "${K/addi/adi}" >"$SCRATCH/bad.mlir"
	run --separate-stderr tileiras "$SCRATCH/bad.mlir" --gpu-name=sm_90 -o "$SCRATCH/x.cubin"
	[ "$status" -eq 3 ] || { echo "status $status: $stderr"; false; }
	[ "$stderr" = "$SCRATCH/bad.mlir:2:8: error: unknown op 'adi' (did you mean 'addi'?)" ] || { echo "$stderr"; false; }
	[ ! -e "$SCRATCH/x.cubin" ]
}

@test "mlir: tileiras bad.mlir: one line FILE:LINE:COL: error, exit 3, no cubin" {
	tileiras_bad
}

@test "mlir: tileiras bad.mlir through the stages (TILEIRAS_NO_INPROC=1): the same line, exit 3" {
	TILEIRAS_NO_INPROC=1 tileiras_bad
}

@test "mlir: --bytecode-version names the versions it takes (exit 2)" {
	run --separate-stderr tile-read --bytecode-version=9.9 "$SCRATCH/none.mlir"
	[ "$status" -eq 2 ]
	[ "$stderr" = "tile-read: error: unknown bytecode version '9.9' (one of 13.1, 13.2, 13.3, 13.4, 13.5)" ] || { echo "$stderr"; false; }
}

@test "mlir: regions nested too deep are refused, not a crash" {
	{ echo 'entry @k(%c: tile<i1>) {'; for i in $(seq 100); do echo 'if %c {'; done; for i in $(seq 100); do echo '}'; done; echo 'return'; echo '}'; } >"$SCRATCH/deep.mlir"
	run tile-read "$SCRATCH/deep.mlir"
	[ "$status" -eq 1 ]
	[[ "$output" == *"regions nested more than 64 deep"* ]]
}

@test "mlir: scripts/fuzz-read --mlir runs mutants and sees no defect (3 s of the tile-read under test; make check-asan runs it under ASan/UBSan)" {
	run "$ROOT/scripts/fuzz-read" --mlir 3 --random-seed 9 --bin "$BIN" --out "$SCRATCH/fz"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "${lines[-1]}" =~ ^\|\ [0-9]+\ \|\ [1-9][0-9]*\ \|\ [0-9]+\ \|\ [0-9]+\ \|\ 0\ \|$ ]] || { echo "$output"; false; }
}
