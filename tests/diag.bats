#!/usr/bin/env bats
# Diagnostics a user reads: tileiras' stderr for bad kernels is
# FILE:LINE:COL: error: MSG (the op's own place), one note line per call site,
# never MLIR's loc(...) form and never a stage's name: cuTile 1.7.0 parses a
# loc(...) into a location its CompilerExecutionError cannot print (str()
# fails: the user sees "<exception str() failed>"), so the place is in the
# message text (docs/driver.md, "Messages"). Checked with cuTile's own code
# (_parse_tileir_stderr, CompilerExecutionError: tests/diag/cutile-str) when
# .venv has cuda-tile, else with tests/diag/cutile-parse's copy of its patterns.
# Kernels: tests/diag/*.tileirbc (written by tests/diag/gen-bad with cuTile's
# bytecode writer) and corpus JSON IR corrupted here.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	D="$ROOT/tests/diag"
	PY=python3
	[ -x "$ROOT/.venv/bin/python" ] && PY="$ROOT/.venv/bin/python"
	return 0
}
teardown() { teardown_scratch; }

have_cutile() { "$PY" -c 'import cuda.tile._compile' 2>/dev/null; }

# placed INPUT SM EXIT FILE:LINE:COL MESSAGE: tileiras fails with EXIT; its
# first line is "FILE:LINE:COL: error: MESSAGE..."; cuTile's parser finds no
# location in it (so it can print the error) and keeps that line as the
# message's first; with cuda-tile, the uncaught CompilerExecutionError shows it.
placed() {
	run --separate-stderr tileiras --gpu-name "$2" "$1" -o "$SCRATCH/out.cubin"
	[ "$status" -eq "$3" ] || fail "exit $status, not $3: $stderr"
	printf '%s\n' "$stderr" >"$SCRATCH/stderr"
	[[ "${stderr%%$'\n'*}" == "$4: error: $5"* ]] || fail "first line is not '$4: error: $5...': $stderr"
	run "$PY" "$D/cutile-parse" <"$SCRATCH/stderr"
	assert_success
	assert_line --index 0 unknown
	[[ "${lines[1]}" == "$4: error: $5"* ]] || fail "cuTile's message '${lines[1]}', not '$4: error: $5...'"
	if have_cutile; then
		run "$PY" "$D/cutile-str" "$3" <"$SCRATCH/stderr"
		assert_success
		refute_output --partial "str() failed"
		assert_line --index 1 --partial "$4: error: $5"
	fi
}

@test "diag: cuTile 1.7.0 prints our located error, Python file and line included (its own exception class)" {
	have_cutile || skip "cuda-tile not installed: run 'make venv'"
	run --separate-stderr tileiras --gpu-name sm_80 "$D/f8-inlined.tileirbc" -o "$SCRATCH/out.cubin"
	[ "$status" -eq 5 ]
	printf '%s\n' "$stderr" >"$SCRATCH/stderr"
	run "$PY" "$D/cutile-str" 5 <"$SCRATCH/stderr"
	assert_success
	assert_line --index 0 "cuda.tile._exception.CompilerExecutionError: Return code 5"
	assert_line --index 1 "/src/bad.py:41:5: error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	assert_line --index 2 "/src/bad.py:30:7: note: 'helper' called from here, in 'k'"
	refute_output --partial "str() failed"
	# MLIR's loc(...) form, which cuTile parses, is what made str() fail
	printf '%s\n' 'loc("/src/bad.py":41:5): error: x' >"$SCRATCH/mlir"
	run "$PY" "$D/cutile-str" 5 <"$SCRATCH/mlir"
	assert_output --partial "<exception str() failed>"
}

@test "diag: cuTile 1.7.0, end to end: an uncaught compile error of a Python kernel shows our message at its Python line" {
	have_cutile || skip "cuda-tile not installed: run 'make venv'"
	run --separate-stderr timeout 300 "$PY" "$D/cutile-uncaught" "$BIN/tileiras"
	assert_failure 1
	local line
	line=$(grep -n MMA_LINE "$D/kern_bad.py" | cut -d: -f1)
	printf '%s\n' "$stderr" | tail -4 >"$SCRATCH/tail"
	run cat "$SCRATCH/tail"
	assert_line --index 0 "cuda.tile._exception.CompilerExecutionError: Return code 5"
	assert_line --index 1 "$D/kern_bad.py:$line:10: error: 'cuda_tile.mmai' op: a i8 x i8 -> i32 product on sm_75 is not supported"
	assert_line --index 2 "failed to compile Tile IR program"
	refute_output --partial "str() failed"
}

@test "diag: a located verifier error in bytecode is FILE:LINE:COL: error: (the whole message cuTile shows)" {
	placed "$D/badtype.tileirbc" sm_90 3 /src/bad.py:7:3 "'cuda_tile.addi' op requires all operands and results to have the same type"
	assert_equal "$(sed -n 2p "$SCRATCH/stderr")" "error: input does not correspond to Tile IR bytecode"
	refute grep -qE 'loc\(|tile-read|stage' "$SCRATCH/stderr"
}

@test "diag: an error at an inlined op is placed at the op, then one note per call site" {
	placed "$D/badtype-inlined.tileirbc" sm_90 3 /src/bad.py:41:5 "'cuda_tile.addi' op requires"
	assert_equal "$(sed -n 2p "$SCRATCH/stderr")" "/src/bad.py:30:7: note: 'helper' called from here, in 'k'"
}

@test "diag: a two-level call chain is two notes, innermost first" {
	placed "$D/badtype-inlined2.tileirbc" sm_90 3 /src/bad.py:41:5 "'cuda_tile.addi' op requires"
	assert_equal "$(sed -n 2p "$SCRATCH/stderr")" "/src/bad.py:22:9: note: 'helper' called from here, in 'outer_helper'"
	assert_equal "$(sed -n 3p "$SCRATCH/stderr")" "/src/bad.py:30:7: note: 'outer_helper' called from here, in 'k'"
}

@test "diag: a target error (f8 on sm_80) is placed, plain, inlined and two-level; no stage named" {
	placed "$D/f8.tileirbc" sm_80 5 /src/bad.py:7:3 "'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	refute grep -qE 'tile-lower|stage|loc\(' "$SCRATCH/stderr"
	assert_equal "$(tail -1 "$SCRATCH/stderr")" "error: failed to compile Tile IR program"
	placed "$D/f8-inlined.tileirbc" sm_80 5 /src/bad.py:41:5 "'cuda_tile.ftof' op: 8-bit floats"
	placed "$D/f8-inlined2.tileirbc" sm_80 5 /src/bad.py:41:5 "'cuda_tile.ftof' op: 8-bit floats"
	# and the same kernel is fine where f8 exists: the test can fail only on the diagnostic
	run tileiras --gpu-name sm_90 "$D/f8.tileirbc" -o "$SCRATCH/ok.cubin"
	assert_success
}

@test "diag: -v names the stage that failed; without it, no stage bookkeeping" {
	run --separate-stderr tileiras --gpu-name sm_80 "$D/f8.tileirbc" -o "$SCRATCH/out.cubin" -v
	[ "$status" -eq 5 ]
	[[ "$stderr" == *"tileiras: stage tile-lower failed (exit status 1)"* ]]
	[[ "$stderr" == *"/src/bad.py:7:3: error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"* ]]
}

@test "diag: file names with '\"', ')' and \"loc(\" keep cuTile from taking the line for a location" {
	placed "$D/oddname.tileirbc" sm_80 5 '/src/my "k" (copy).py:7:3' "'cuda_tile.ftof' op"
	placed "$D/oddname-inlined.tileirbc" sm_80 5 '/src/my "k" (copy).py:41:5' "'cuda_tile.ftof' op"
	# a name with loc( in it: its '"' written \22, or cuTile's pattern would match
	tile-read "$D/f8.tileirbc" | sed 's|/src/bad.py|/src/loc(\\"x\\"):  error: .py|g' >"$SCRATCH/odd.json"
	placed "$SCRATCH/odd.json" sm_80 5 '/src/loc(\22x\22):  error: .py:7:3' "'cuda_tile.ftof' op"
}

@test "diag: an element type the target lacks (corpus matmul's bf16 on sm_75) is named by the user's op, not nv_tileaa's" {
	placed "$CORPUS/13.4/matmul.tileirbc" sm_75 5 tests/kernels/matmul.py:12:13 "'cuda_tile.load_view_tko' op: bf16 is not supported on sm_75"
	refute grep -q nv_tile "$SCRATCH/stderr"
	# the stage run on its own keeps its own form and names
	tile-read "$CORPUS/13.4/matmul.tileirbc" >"$SCRATCH/m.json"
	run --separate-stderr tile-lower --gpu-name=sm_75 "$SCRATCH/m.json"
	assert_failure 1
	[[ "$stderr" == "tile-lower: $SCRATCH/m.json: loc(\"tests/kernels/matmul.py\":12:13): error: 'nv_tileaa.tiled_load' op: bf16 is not supported on sm_75"* ]]
}

@test "diag: corrupted JSON IR with a call-site loc, through the driver, is placed" {
	tile-read "$CORPUS/13.4/vector_add.tileirbc" >"$SCRATCH/v.json"
	"$PY" - "$SCRATCH/v.json" "$SCRATCH/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def ops(block):
    for op in block["ops"]:
        yield op
        for r in op.get("regions", []):
            for b in r:
                yield from ops(b)
entry = d["module"]["ops"][0]
op = next(o for o in ops(entry["regions"][0][0]) if o["op"] == "cuda_tile.addf")
op["results"][0]["type"] = op["results"][0]["type"].replace("f32", "f16")   # result type made inconsistent
op["loc"] = {"file": "user.py", "line": 12, "col": 9, "func": "add",
             "caller": {"file": "user.py", "line": 30, "col": 4, "func": "kern"}}
json.dump(d, open(sys.argv[2], "w"))
PY
	placed "$SCRATCH/bad.json" sm_90 5 user.py:12:9 "'cuda_tile.addf' op"
	assert_equal "$(sed -n 2p "$SCRATCH/stderr")" "user.py:30:4: note: 'add' called from here, in 'kern'"
}

@test "diag: errors without a source location keep their offset or JSON pointer (cuTile: no location)" {
	run --separate-stderr tile-ir --verify "$ROOT/tests/verify/invalid/block_count.json"
	assert_failure 1
	[[ "$stderr" == *"at /module/"*"error: "* ]]
	printf '%s\n' "$stderr" >"$SCRATCH/stderr"
	run "$PY" "$D/cutile-parse" <"$SCRATCH/stderr"
	assert_line --index 0 unknown
}

@test "diag: the copy of cuTile's patterns is the wheel's (when .venv has cuda-tile)" {
	"$PY" -c 'import cuda.tile._compile' 2>/dev/null || skip "cuda-tile not installed: run 'make venv' (creates .venv with NVIDIA's pip wheels, ~550 MB, needs the network)"
	run "$PY" "$D/cutile-parse" --same-regexes
	assert_output same
	run "$PY" "$D/cutile-parse" --which </dev/null
	assert_line --index 0 cuda-tile
}

@test "diag: a stage without --gpu-name, on a module that names no target, is an error (no silent sm_80)" {
	tile-read "$D/f8.tileirbc" >"$SCRATCH/ct.json"
	# a module lowered for a target names it: the later stages need no --gpu-name
	tile-lower --gpu-name=sm_90 "$SCRATCH/ct.json" >"$SCRATCH/as.json"
	tile-sched "$SCRATCH/as.json" >"$SCRATCH/s.json"
	run tile-ptx "$SCRATCH/s.json"
	assert_success
	assert_output --partial ".target sm_90"
	# the same scheduled module with its target taken out
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["module"]["attrs"]["target"]; json.dump(d, sys.stdout)' \
		"$SCRATCH/s.json" >"$SCRATCH/s-none.json"
	for s in "tile-lower ct" "tile-ptx s-none"; do
		run --separate-stderr ${s% *} "$SCRATCH/${s#* }.json"
		assert_failure 1
		[[ "$stderr" == "${s% *}: error: no GPU to compile for: give --gpu-name (sm_75, "*"); the module names no target" ]] ||
			fail "$s: $stderr"
	done
}

@test "diag: the list of diagnostics (tests/diag/messages): every one of the covered sources listed once, with the test that makes it; none names nv_tile, says 'yet' or names a stage" {
	run "$PY" "$D/diagnostics" check "$D/messages"
	echo "$output"
	assert_success
	assert_line --regexp '^[0-9]+ listed, [0-9]+ with a test, [0-9]+ without; 0 problems$'
}

@test "diag: no diagnostic of any stage, libtileiras or the driver names an internal dialect, says 'yet', is MLIR's loc(...) or names a stage" {
	run "$PY" "$D/diagnostics" scan
	# tile-lower's own --stop-at option takes the dialect names
	assert_output "an internal dialect | tools/tile-lower/main.c | --stop-at takes nv_tileaa or nv_tileas, not '%s'"
}

@test "diag: the list's check fails on what it is there to catch" {
	sed 's/^\(user | libcommon\/verify_cuda_tile.c | .*\) | .*/\1 | verify.bats: no such test/' "$D/messages" >"$SCRATCH/m1"
	run "$PY" "$D/diagnostics" check "$SCRATCH/m1"
	assert_failure
	assert_output --partial "no @test in verify.bats named like 'no such test'"
	grep -v "^user | scripts/tileiras | error: no input file provided" "$D/messages" >"$SCRATCH/m2"
	printf '%s\n' "user | scripts/tileiras | error: stage tile-lower is not supported yet | -" >>"$SCRATCH/m2"
	run "$PY" "$D/diagnostics" check "$SCRATCH/m2"
	assert_failure
	assert_output --partial "not listed: scripts/tileiras | error: no input file provided"
	assert_output --partial "names 'yet'"
	assert_output --partial "names a stage name"
	assert_output --partial "no longer made in scripts/tileiras"
}

@test "diag: tileirdisasm says why the input is not bytecode, in the user's form" {
	head -c 64 /dev/zero | tr '\0' 'x' >"$SCRATCH/x.bin"
	run --separate-stderr tileirdisasm "$SCRATCH/x.bin"
	assert_failure 3
	assert_equal "$stderr" "$(printf '%s\n' "error: invalid magic number: byte 0 is 0x78, expected 0x7f (not a Tile IR bytecode file)" \
		"error: input does not correspond to Tile IR bytecode")"
	run --separate-stderr tileirdisasm "$D/badtype.tileirbc"
	assert_failure 3
	[[ "$stderr" == "/src/bad.py:7:3: error: 'cuda_tile.addi' op requires "* ]]
}

@test "diag: a deep call chain is its 14 innermost call sites, a count, and the kernel's line" {
	tile-read "$D/f8.tileirbc" >"$SCRATCH/f8.json"
	"$PY" - "$SCRATCH/f8.json" "$SCRATCH/deep.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def ops(block):
    for op in block["ops"]:
        yield op
        for r in op.get("regions", []):
            for b in r:
                yield from ops(b)
op = next(o for o in ops(d["module"]["ops"][0]["regions"][0][0]) if o["op"] == "cuda_tile.ftof")
l = {"file": "k.py", "line": 1, "col": 1, "func": "kern"}
for i in range(100):
    l = {"file": "k.py", "line": i + 2, "col": 5, "func": "f%d" % i, "caller": l}
op["loc"] = l
json.dump(d, open(sys.argv[2], "w"))
PY
	run --separate-stderr tileiras --gpu-name sm_80 "$SCRATCH/deep.json" -o "$SCRATCH/out.cubin"
	assert_failure 5
	printf '%s\n' "$stderr" >"$SCRATCH/err"
	run cat "$SCRATCH/err"
	assert_line --index 0 "k.py:101:5: error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	assert_line --index 1 "k.py:100:5: note: 'f99' called from here, in 'f98'"
	assert_line --index 14 "k.py:87:5: note: 'f86' called from here, in 'f85'"
	assert_line --index 15 "note: (85 more call sites)"
	assert_line --index 16 "k.py:1:1: note: 'f0' called from here, in 'kern'"
	assert_line --index 17 "error: failed to compile Tile IR program"
	[ "${#lines[@]}" -eq 18 ]
}

@test "diag: the issue's example: f8E8M0FNU scales on sm_90 are named by the user's op at the kernel's line, no stage, no nv_tileaa" {
	run --separate-stderr tileiras --gpu-name sm_90 "$ROOT/tests/mma/mm_scaled_e4m3.tileirbc" -o "$SCRATCH/k.cubin"
	assert_failure 5
	assert_equal "${stderr%%$'\n'*}" "tests/mma/kernels.py:55:14: error: 'cuda_tile.load_view_tko' op: f8E8M0FNU is not supported on sm_90"
	[[ "$stderr" != *nv_tile* && "$stderr" != *tile-lower* && "$stderr" != *"stage "* && "$stderr" != *yet* ]]
	assert_equal "${stderr##*$'\n'}" "error: failed to compile Tile IR program"
}
