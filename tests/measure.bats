#!/usr/bin/env bats
# Measuring ourselves: scripts/gpu-check (its --self-test runs without a GPU),
# scripts/compare-nvidia and scripts/bench-compile. The numpy tests use .venv's
# numpy or Debian's (helpers.bash require_numpy); the tests that use NVIDIA's
# tileiras skip without .venv (`make venv` creates it).
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
	export PYTHONDONTWRITEBYTECODE=1
}
teardown() { teardown_scratch; }


# --- gpu-check -----------------------------------------------------------------

@test "gpu-check --self-test passes with the standard library alone (manifest, ABI layouts, packing)" {
	run python3 "$ROOT/scripts/gpu-check" --self-test
	assert_success
	assert_output --partial "ok      manifest: valid, covers the 13.4 corpus"
	assert_output --partial "ok      layout of scalar_params matches docs/abi.md"
	assert_output --partial "ok      pack/unpack round trip, every kernel"
	assert_line --regexp '^self-test: [0-9]+ passed, 0 failed, [0-9]+ skipped$'
}

@test "gpu-check --self-test with numpy and NVIDIA's cubins: references, emulated device, workers" {
	require_numpy
	args=(--require-numpy)
	[ -n "$NVBIN" ] && args+=(--compile)
	run "$NUMPY_PY" "$ROOT/scripts/gpu-check" --self-test "${args[@]}"
	assert_success
	assert_output --partial "ok      numpy reference = naive loops: matmul/bf16"
	assert_output --partial "ok      emulated device, launch=buffer: every kernel passes and is timed"
	assert_output --partial "ok      workers: a hang is killed, a sticky error restarts the worker"
	refute_output --partial "FAILED"
}

@test "gpu-check refuses a manifest whose parameters disagree with the symbol" {
	python3 - "$ROOT/scripts/gpu-manifest.json" "$SCRATCH/bad.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["kernels"]["vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128"]["params"][0]["index"] = "i64"
json.dump(m, open(sys.argv[2], "w"))
PY
	run python3 "$ROOT/scripts/gpu-check" --manifest "$SCRATCH/bad.json" --cubins fake:// --fake
	assert_failure 2
	assert_output --partial "index i64, symbol i32"
}

@test "gpu-check with no cubin directories is a usage error" {
	run python3 "$ROOT/scripts/gpu-check" --out "$SCRATCH/o"
	assert_failure 2
	assert_output --partial "no cubin directories"
}

@test "gpu-check runs end to end on the emulated device and writes its report files" {
	require_numpy
	run "$NUMPY_PY" "$ROOT/scripts/gpu-check" --fake --cubins fake:// --small --only 'vector_add|softmax|scalar' \
		--no-triton --out "$SCRATCH/o" --seed 7
	assert_success
	assert_output --partial "correctness (b1 = block (1,1,1)"
	assert_output --partial "blocks used: nvidia=(1,1,1), nvidia=(128,1,1), ours=(1,1,1), ours=(128,1,1)"
	assert_line --regexp '^  ours b1 +4/4 ok'
	assert_line --regexp '^  nv b1 +4/4 ok'
	assert_output --partial "summary: 4 kernels timed for nvidia, 4 for ours"
	assert_file_exists "$SCRATCH/o/gpu-check.json"
	assert_file_exists "$SCRATCH/o/gpu-check.txt"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["config"]["seed"] == 7 and len(d["results"]) == 16' \
		"$SCRATCH/o/gpu-check.json"
}

@test "gpu-check --prepare makes the four cubin kinds and the PTX" {
	require_nvidia
	run python3 "$ROOT/scripts/gpu-check" --prepare "$SCRATCH/c" --only '^vector_add$' --ours-tileiras /nonexistent
	assert_success
	for k in nvidia nvidia-nohost nvidia-ptx; do assert_file_exists "$SCRATCH/c/$k/vector_add.cubin"; done
	assert_file_exists "$SCRATCH/c/ptx/vector_add.ptx"
	assert_file_exists "$SCRATCH/c/prepare.json"
	run python3 - "$SCRATCH/c" <<PY
import sys; sys.path.insert(0, "$ROOT/tests/gpu"); import cubin
d = sys.argv[1]
for kind, host, lang in (("nvidia", True, "TILEIR"), ("nvidia-nohost", False, "TILEIR"), ("nvidia-ptx", False, "PTX")):
    c = cubin.load("%s/%s/vector_add.cubin" % (d, kind))
    e = c.entries["vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128"]
    print(kind, c.has_nv_host == host, e.language == lang, e.reqntid, e.param_bytes)
PY
	assert_output "nvidia True True (128, 1, 1) 48
nvidia-nohost True True (128, 1, 1) 48
nvidia-ptx True True (128, 1, 1) 48"
}

@test "tests/gpu/cubin.py reads the parameter table cuobjdump prints" {
	require_nvidia
	env -u CUDA_HOME -u CUDA_PATH "$NVBIN/tileiras" --gpu-name sm_90 "$CORPUS/13.4/scalar_params.tileirbc" -o "$SCRATCH/s.cubin"
	want=$("$NVBIN/cuobjdump" -elf "$SCRATCH/s.cubin" |
		sed -n 's/.*Ordinal : \(0x[0-9a-f]*\).*Offset  : \(0x[0-9a-f]*\).*Size    : \(0x[0-9a-f]*\).*/\1 \2 \3/p' |
		while read -r o f s; do printf '%d %d %d\n' "$o" "$f" "$s"; done | sort -n)
	got=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cubin
for e in cubin.load(sys.argv[2]).entries.values():
    for p in e.params: print(*p)' "$ROOT/tests/gpu" "$SCRATCH/s.cubin")
	[ -n "$want" ]
	assert_equal "$got" "$want"
}

# --- compare-nvidia ----------------------------------------------------------------

@test "compare-nvidia without NVIDIA's tileiras says how to get it" {
	run python3 "$ROOT/scripts/compare-nvidia" --nvidia-tileiras /nonexistent/tileiras
	assert_failure 2
	assert_output --partial "pip install nvidia-cuda-tileiras"
}

@test "compare-nvidia compares one module, table and JSON" {
	require_nvidia
	mkdir "$SCRATCH/in"
	cp "$CORPUS/13.4/saxpy.tileirbc" "$SCRATCH/in/"
	run python3 "$ROOT/scripts/compare-nvidia" "$SCRATCH/in" --ours "$BIN/tileiras" --json "$SCRATCH/r.json"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	assert_output --partial "saxpy"
	assert_line --regexp '^summary: 1 modules; accepted NVIDIA 1, ours [01]'
	python3 - "$SCRATCH/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["modules"][0]
nv = {e["entry"]: e["nvidia"] for e in m["entries"]}
e = nv["saxpy_Kt1_Sf32_A1f32_1l0_A1f32_1l0_A1f32_1l0_I256"]
assert e["params"][:3] == [[0, 0, 4], [1, 8, 8], [2, 16, 4]] and e["param_bytes"] == 56, e
assert e["reqntid"] == [128, 1, 1] and e["regs"] > 0 and e["sass"] > 0, e
assert d["summary"]["nvidia_accepted"] == 1
v = d["summary"]["rule_violations"]
assert isinstance(v, list) and all(x.startswith("saxpy ") for x in v), v
PY
	assert_line --regexp "^summary: above NVIDIA's \(registers > 1.2x with lower occupancy, or more stack; values NVIDIA/ours\): [01] of 2 entries"
}

@test "compare-nvidia reports a compiler that rejects everything, and exits 1" {
	require_nvidia
	mkdir "$SCRATCH/in"
	cp "$CORPUS/13.4/vector_add.tileirbc" "$SCRATCH/in/"
	printf '#!/bin/sh\necho "error: nothing works yet" >&2\nexit 5\n' >"$SCRATCH/no"
	chmod +x "$SCRATCH/no"
	run python3 "$ROOT/scripts/compare-nvidia" "$SCRATCH/in" --ours "$SCRATCH/no"
	assert_failure 1
	assert_output --partial "why ours rejected modules NVIDIA accepts:"
	assert_output --partial "error: nothing works yet"
	assert_output --partial "ours rejects 1 that NVIDIA accepts"
}

# --- bench-compile --------------------------------------------------------------------

@test "bench-compile reports stages that do not exist as absent" {
	mkdir "$SCRATCH/in" "$SCRATCH/nobin"
	cp "$CORPUS/13.4/vector_add.tileirbc" "$SCRATCH/in/"
	run python3 "$ROOT/scripts/bench-compile" "$SCRATCH/in" --bin "$SCRATCH/nobin" --no-nvidia
	assert_success
	assert_line --regexp '^read +0 +0 +0 +1 '
	assert_line --regexp '^pack +0 +0 +0 +1 '
}

@test "bench-compile times the stages we have and writes JSON" {
	mkdir "$SCRATCH/in"
	cp "$CORPUS/13.4/vector_add.tileirbc" "$CORPUS/13.4/softmax.tileirbc" "$SCRATCH/in/"
	run python3 "$ROOT/scripts/bench-compile" "$SCRATCH/in" --bin "$BIN" --no-nvidia --per-kernel --json "$SCRATCH/b.json"
	assert_success
	assert_output --partial "median ms"
	python3 - "$SCRATCH/b.json" "$BIN" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["meta"]["modules"] == 2
for m in d["modules"]:
    for s, x in m["stages"].items():
        assert x["status"] in ("ok", "fail", "blocked", "absent"), (s, x)
        if x["status"] == "ok":
            assert x["ms"] > 0 and x["out_bytes"] > 0, (s, x)
    if os.access(os.path.join(sys.argv[2], "tile-read"), os.X_OK):
        assert m["stages"]["read"]["status"] in ("ok", "fail")
PY
}

# --- bench-ab -------------------------------------------------------------------------

@test "bench-ab: two builds timed on the same modules, ratios to the first; bad usage exits 2" {
	require_ptxas
	run python3 "$ROOT/scripts/bench-ab" "$BIN/tileiras-inproc"
	assert_failure 2
	assert_output --partial "need two or more executable tileiras-inproc builds"
	run python3 "$ROOT/scripts/bench-ab" "$BIN/tileiras-inproc" "$SCRATCH/none"
	assert_failure 2
	cp "$BIN/tileiras-inproc" "$SCRATCH/copy"
	run python3 "$ROOT/scripts/bench-ab" "$BIN/tileiras-inproc" "$SCRATCH/copy" --repeat 1 "$CORPUS/13.4/vector_add.tileirbc"
	assert_success
	assert_line --index 0 "bench-ab: 1 modules, 1 rounds, --gpu-name sm_90"
	assert_line --index 1 --regexp 'tileiras-inproc +median +[0-9.]+ ms  ratio to the first 1\.000$'
	assert_line --index 2 --regexp 'copy +median +[0-9.]+ ms  ratio to the first [0-9]\.[0-9]{3}$'
}

# --- tests/gpu/extra_launch.py ---------------------------------------------------

@test "extra_launch.py --check-abi: the TileGym and FMHA launches pack what our cubins take; a short packing is refused" {
	require_ptxas
	require_numpy
	mkdir -p "$SCRATCH/k"
	for m in tilegym/layernorm_fwd tilegym/cross_entropy_fwd fmha/fmha_f16_aligned; do
		tileiras --gpu-name sm_90 "$ROOT/tests/$m.tileirbc" -o "$SCRATCH/k/${m#*/}.cubin"
	done
	run "$NUMPY_PY" "$ROOT/tests/gpu/extra_launch.py" --check-abi --kind ours="$SCRATCH/k" \
		tilegym/layernorm tilegym/cross_entropy fmha_f16_aligned
	assert_success
	assert_line --regexp '^fmha_f16_aligned +ours +ok$'
	[ "${#lines[@]}" -eq 3 ]
	# the check itself: one parameter short (what a stale launcher would pack)
	run "$NUMPY_PY" - "$ROOT/tests/gpu" "$SCRATCH/k/layernorm_fwd.cubin" <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import extra_launch as el, numpy as np
x = el.extra.CASES["tilegym/layernorm"]
entry, rec = el.entry_of(sys.argv[2], x.prefix)
parts = el.Launch(el.NoDevice(), entry, x.build(np.random.default_rng(1))[0]).parts
print(el.abi_problem(rec, parts) or "ok")
print(el.abi_problem(rec, parts[:-1]))
PY
	assert_success
	assert_line --index 0 'ok'
	assert_line --index 1 --regexp '^packed [0-9]+ parameters of sizes .*, the cubin has [0-9]+ of sizes'
}

@test "gpu-fmha prepare: attention's cubins for sm_90 in each variant (ours with K/V by TMA and both products pipelined, without multi-product pipelining, without TMA, without alignment versioning; NVIDIA's when .venv has it), their parameters what the launches pack; run refuses without them" {
	require_ptxas
	require_numpy
	run env PYTHON="$NUMPY_PY" "$ROOT/scripts/gpu-fmha" prepare "$SCRATCH/f"
	assert_success
	for v in ours ours-nomulti ours-notma ours-noversion; do
		assert_line --regexp "^fmha_f16_aligned +$v +ok$"
		[ -s "$SCRATCH/f/$v/fmha_f16_aligned_128.cubin" ] || fail "$v"
	done
	run "$ROOT/scripts/gpu-fmha" run "$SCRATCH/none"
	[ "$status" -eq 2 ]
	assert_output --partial "prepare"
	run "$ROOT/scripts/gpu-fmha" frobnicate
	[ "$status" -eq 2 ]
}


# --- gpu-frontier, gpu-precompiled (issue 38) ------------------------------------

@test "gpu-frontier: bad usage and a compiler directory without tileiras exit 2, before any GPU is touched" {
	run python3 "$ROOT/scripts/gpu-frontier"
	assert_failure 2
	assert_output --partial "usage (on the GPU machine"
	run python3 "$ROOT/scripts/gpu-frontier" --compiler ours="$SCRATCH/none"
	assert_failure 2
	assert_output --partial "tileiras is not executable"
	run python3 "$ROOT/scripts/gpu-frontier" --compiler ours
	assert_failure 2
	run python3 "$ROOT/scripts/gpu-frontier" --compiler ours="$BIN" --areas ours=matmul,speed
	assert_failure 2
	run python3 "$ROOT/scripts/gpu-frontier" --compiler ours="$BIN" --env other=TILE_SCHED_NO_SINK=1
	assert_failure 2
	run python3 "$ROOT/scripts/gpu-frontier" --compiler ours="$BIN" --compiler ours="$BIN"
	assert_failure 2
}

@test "gpu-precompiled: cubins by bytecode hash, served on cuTile's command line; cuTile's probes included; unknown input and failed compiles are errors" {
	run "$ROOT/scripts/gpu-precompiled" "$BIN/tileiras"
	assert_failure 2
	mkdir -p "$SCRATCH/t/bc"
	cp "$ROOT/tests/tilegym/gelu_fwd.tileirbc" "$SCRATCH/t/bc/"
	tar -czf "$SCRATCH/t/bc.tar.gz" -C "$SCRATCH/t" bc
	printf 'not bytecode' > "$SCRATCH/t/bad.tileirbc"
	run "$ROOT/scripts/gpu-precompiled" "$BIN/tileiras" "$SCRATCH/pc" "$SCRATCH/t/bc.tar.gz" \
		"$ROOT/tests/tilegym/relu_squared_fwd.tileirbc" "$SCRATCH/t/bad.tileirbc"
	assert_failure 1                        # bad.tileirbc does not compile; the rest do
	assert_output --partial "bad.tileirbc"
	assert_output --partial "7 new cubins"   # 5 version probes, gelu, relu_squared
	# cuTile's line, answered from the cubin of that content
	run "$SCRATCH/pc/tileiras" --gpu-name sm_90 -O3 --lineinfo "$ROOT/tests/tilegym/gelu_fwd.tileirbc" -o "$SCRATCH/g.cubin"
	assert_success
	h=$(sha256sum "$ROOT/tests/tilegym/gelu_fwd.tileirbc" | cut -d' ' -f1)
	cmp "$SCRATCH/g.cubin" "$SCRATCH/pc/$h.cubin"
	"$BIN/tileiras" --gpu-name sm_90 "$ROOT/tests/tilegym/gelu_fwd.tileirbc" -o "$SCRATCH/direct.cubin"
	cmp "$SCRATCH/g.cubin" "$SCRATCH/direct.cubin"
	# cuTile's version probe (an empty module, --gpu-name sm_120) succeeds
	run "$SCRATCH/pc/tileiras" --gpu-name sm_120 "$ROOT/tests/corpus/13.4/empty.tileirbc" -o "$SCRATCH/p.cubin"
	assert_success
	# anything else is refused, naming the input; no output written
	run "$SCRATCH/pc/tileiras" --gpu-name sm_90 "$ROOT/tests/tilegym/softmax_fwd.tileirbc" -o "$SCRATCH/s.cubin"
	assert_failure 1
	assert_output --partial "softmax_fwd.tileirbc was not compiled ahead of time"
	[ ! -e "$SCRATCH/s.cubin" ]
	run "$SCRATCH/pc/tileiras" "$ROOT/tests/tilegym/gelu_fwd.tileirbc"
	assert_failure 2
	# a second run compiles nothing new
	run "$ROOT/scripts/gpu-precompiled" "$BIN/tileiras" "$SCRATCH/pc" "$SCRATCH/t/bc.tar.gz"
	assert_success
	assert_output --partial "0 new cubins"
}
