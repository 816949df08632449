import os
HERE = os.path.dirname(os.path.abspath(__file__))
cases = [l.rstrip("\n").split("\t") for l in open(os.path.join(HERE, "cases.tsv"))]
def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'
head = r'''#!/usr/bin/env bats
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
	[[ "$stderr" == *"located.json: k.py:7:3: error: 'cuda_tile.addi' op requires attribute 'overflow'"* ]]
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
build_unit() {
	local lib="$BIN/../lib/libcommon.a"
	[ -f "$lib" ] || skip "libcommon.a not built"
	UNIT="$BATS_TEST_TMPDIR/unit"
	cc -std=c11 -I"$ROOT/libcommon" "$VDIR/unit.c" "$lib" -ljansson -lm -o "$UNIT" 2>/dev/null ||
		cc -std=c11 -fsanitize=address,undefined -I"$ROOT/libcommon" "$VDIR/unit.c" "$lib" \
			-ljansson -lm -o "$UNIT" || skip "cannot link against $lib"
}

@test "verify: a module built through the IR API verifies" {
	build_unit
	run "$UNIT" ok
	assert_success
	assert_output ""
}

@test "verify: an empty dictionary key is rejected (IR API)" {
	build_unit
	run "$UNIT" empty
	assert_failure 1
	assert_output --partial "invalid empty attribute name for DictionaryAttr element 0"
}

@test "verify: a duplicated dictionary key is rejected (IR API)" {
	build_unit
	run "$UNIT" dup
	assert_failure 1
	assert_output --partial "attribute 'optimization_hints': duplicate key 'sm_90'"
}

@test "verify: an op without a location is reported at its bytecode offset" {
	build_unit
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
'''
body = []
for name, exp, desc in cases:
    many = " many" if name in ("view_too_new",) else ""
    body.append('@test %s { verify_fails %s %s%s; }' % (q("verify rejects " + desc + " (" + name + ")"), name, q(exp), many))
open(os.path.join(HERE, "..", "..", "verify.bats"), "w").write(head + "\n".join(body) + "\n")
