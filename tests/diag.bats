#!/usr/bin/env bats
# Diagnostics cuTile can place: our stderr for bad kernels, fed to the same
# patterns cuTile uses (_parse_tileir_stderr in cuda-tile's _compile.py; the
# wheel's own function when .venv has it, else tests/diag/cutile-parse's copy),
# gives the op's file, line and column and our message.
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

# placed INPUT SM EXIT FILE:LINE:COL MESSAGE: tileiras fails with EXIT, and
# cuTile's parser finds FILE:LINE:COL and a message starting with MESSAGE.
placed() {
	run --separate-stderr tileiras --gpu-name "$2" "$1" -o "$SCRATCH/out.cubin"
	[ "$status" -eq "$3" ] || fail "exit $status, not $3: $stderr"
	printf '%s\n' "$stderr" >"$SCRATCH/stderr"
	run "$PY" "$D/cutile-parse" <"$SCRATCH/stderr"
	assert_success
	assert_line --index 0 "$4"
	[[ "${lines[1]}" == "$5"* ]] || fail "message '${lines[1]}', not '$5...'; stderr: $(cat "$SCRATCH/stderr")"
}

@test "diag: a located verifier error in bytecode is loc(\"FILE\":LINE:COL): error: (cuTile places it)" {
	placed "$D/badtype.tileirbc" sm_90 3 /src/bad.py:7:3 "'cuda_tile.addi' op requires all operands and results to have the same type"
	grep -qF 'tile-read: '"$D"'/badtype.tileirbc: loc("/src/bad.py":7:3): error: '"'cuda_tile.addi'" "$SCRATCH/stderr"
}

@test "diag: an error at an inlined op is the fused form, placed at the op (innermost)" {
	placed "$D/badtype-inlined.tileirbc" sm_90 3 /src/bad.py:41:5 "'cuda_tile.addi' op requires"
	grep -qF 'loc(fused<"helper" called from "/src/bad.py":30:7 in "k">["/src/bad.py":41:5]): error: ' "$SCRATCH/stderr"
}

@test "diag: a two-level call chain is one fused location" {
	placed "$D/badtype-inlined2.tileirbc" sm_90 3 /src/bad.py:41:5 "'cuda_tile.addi' op requires"
	grep -qF 'loc(fused<"helper" called from "/src/bad.py":22:9 in "outer_helper", called from "/src/bad.py":30:7 in "k">["/src/bad.py":41:5]): error: ' "$SCRATCH/stderr"
}

@test "diag: a target error from tile-lower (f8 on sm_80) is placed, plain, inlined and two-level" {
	placed "$D/f8.tileirbc" sm_80 5 /src/bad.py:7:3 "'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	placed "$D/f8-inlined.tileirbc" sm_80 5 /src/bad.py:41:5 "'cuda_tile.ftof' op: 8-bit floats"
	placed "$D/f8-inlined2.tileirbc" sm_80 5 /src/bad.py:41:5 "'cuda_tile.ftof' op: 8-bit floats"
	# and the same kernel is fine where f8 exists: the test can fail only on the diagnostic
	run tileiras --gpu-name sm_90 "$D/f8.tileirbc" -o "$SCRATCH/ok.cubin"
	assert_success
}

@test "diag: file names with '\"' and ')' keep cuTile's patterns matching (MLIR's \\22 escape)" {
	placed "$D/oddname.tileirbc" sm_80 5 '/src/my \22k\22 (copy).py:7:3' "'cuda_tile.ftof' op"
	placed "$D/oddname-inlined.tileirbc" sm_80 5 '/src/my \22k\22 (copy).py:41:5' "'cuda_tile.ftof' op"
}

@test "diag: an element type the target lacks (corpus matmul's bf16 on sm_75) is placed at its Python line" {
	placed "$CORPUS/13.4/matmul.tileirbc" sm_75 5 tests/kernels/matmul.py:12:13 "'nv_tileaa.tiled_load' op: bf16 is not supported on sm_75"
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
	grep -qF 'loc(fused<"add" called from "user.py":30:4 in "kern">["user.py":12:9]): error: ' "$SCRATCH/stderr"
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
