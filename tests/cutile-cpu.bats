#!/usr/bin/env bats
# cuTile Python on the CPU (issue 40; python/tileiras_cpu, docs/cutile-cpu.md):
# cuTile 1.7's ordinary ct.launch with numpy arrays, run by the CPU driver
# (build/lib/tileiras_cpu/libcuda.so.1 on libtilerun) and checked against
# numpy by the programs in tests/cutile_cpu (each prints "ok NAME" per
# check). Needs .venv's cuTile and numpy (`make venv`): skipped without
# them, failed without them when $CI is set.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	PY="$ROOT/.venv/bin/python"
	if ! [ -x "$PY" ] || ! "$PY" -c 'import cuda.tile, numpy' 2>/dev/null; then
		[ -z "${CI:-}" ] || fail "cuTile Python (cuda-tile) or numpy missing from .venv under CI: make venv installs them"
		skip "cuTile Python (cuda-tile) or numpy not in .venv: run 'make venv'"
	fi
	[ -f "$BIN/../lib/libtilerun.so" ] && [ -f "$BIN/../lib/tileiras_cpu/libcuda.so.1" ] ||
		fail "libtilerun.so or tileiras_cpu/libcuda.so.1 not built: make all"
	export TILEIRAS_CPU_BUILD="$BIN/.." CUDA_TILE_CACHE_DIR="$SCRATCH/cache" PYTHONPATH="$ROOT/python"
}
teardown() { teardown_scratch; }

P="$BATS_TEST_DIRNAME/cutile_cpu"

# run_program NAME MIN_OKS: tests/cutile_cpu/NAME.py passes with at least MIN_OKS checks
run_program() {
	run "$PY" "$P/$1.py"
	[ "$status" -eq 0 ] || fail "$1.py failed: $output"
	local oks
	oks=$(grep -c '^ok ' <<<"$output")
	[ "$oks" -ge "$2" ] || fail "$1.py: $oks checks passed, wanted $2: $output"
}

@test "cutile-cpu: elementwise 1-D over every integer and float dtype, bool, bf16/f8 (ml_dtypes), 2-D, 3-D, a strided view" {
	run_program elementwise 12
	if "$PY" -c 'import ml_dtypes' 2>/dev/null; then
		assert_line "ok narrow float8_e4m3fn"
		assert_line "ok widen float8_e8m0fnu"
	fi
}

@test "cutile-cpu: math functions (sqrt, log, exp2, sin, tanh, pow, ...) on f32, integer and bitwise operators on i32/i64" {
	run_program math_bits 30
}

@test "cutile-cpu: reductions and scans (sum, max, 3-D sum, cumsum, argmax, softmax)" {
	run_program reductions 7
}

@test "cutile-cpu: gather/scatter (masked, indirect, 2-D) and atomics (add, max, cas)" {
	run_program gather_atomics 6
}

@test "cutile-cpu: control flow, shapes, casts and scalars (loops, break, topk, layer norm, transpose, permute)" {
	run_program control_shapes 11
}

@test "cutile-cpu: matmul by ct.mma: f16, f32, i8, bf16, batched 3-D" {
	run_program matmul 4
}

@test "cutile-cpu: attention (tests/fmha's fmha kernel), plain and causal" {
	run_program attention 2
}

@test "cutile-cpu: cuTile's export path takes CPU arrays (KernelSignature.from_kernel_args), the launch after it runs; cuTile's messages name the user's array type" {
	run_program export_sig 6
}

@test "cutile-cpu: cuTile's autotuner (cuda.tile.tune.exhaustive_search) times each config through a CUDA graph the CPU driver runs" {
	run_program tune 6
}

@test "cutile-cpu: device printf reaches sys.stdout in order; a failed assert is a KernelFault at the assert's file:line" {
	run_program printf_assert 7
	[ "${lines[0]}" = "before launch" ] || fail "first line: ${lines[0]}"
	[ "$(sed -n 2,3p <<<"$output" | sort | tr '\n' ' ')" = "block 0 sum 496 block 1 sum 1520 " ] ||
		fail "printf lines: $output"
	[ "${lines[3]}" = "after launch" ] || fail "fourth line: ${lines[3]}"
	assert_output --regexp "KernelFault: $P/printf_assert.py:[0-9]+"
	# the failed assert's own line is on stderr, as a GPU's driver prints it; printf's text on stdout
	run --separate-stderr "$PY" "$P/printf_assert.py"
	assert_success
	[[ "$stderr" == *"Assertion \`negative input\` failed."* ]] || fail "no assert line on stderr: $stderr"
	[[ "$output" != *"Assertion"* ]] || fail "the assert line on stdout: $output"
	[[ "$output" == *"block 0 sum 496"* ]] || fail "printf text not on stdout: $output"
}

@test "cutile-cpu: an out-of-bounds write is a KernelFault naming the file and line, and writes nothing" {
	run_program oob 6
	assert_output --regexp "KernelFault: $P/oob.py:[0-9]+"
}

@test "cutile-cpu: four Python threads launch at once, each on its own arrays; a fault in one is that thread's" {
	run_program threads 8
}

@test "cutile-cpu: python -m tileiras_cpu runs an unmodified cuTile script on the CPU" {
	cat >"$SCRATCH/plain.py" <<-'PYEOF'
	import sys
	import numpy as np
	import cuda.tile as ct

	@ct.kernel
	def inc(x, tile: ct.Constant[int]):
	    t = ct.load(x, index=(ct.bid(0),), shape=(tile,))
	    ct.store(x, index=(ct.bid(0),), tile=t + 1)

	x = np.arange(64, dtype=np.float32)
	ct.launch(None, (2,), inc, (x, 32))
	print(sys.argv[1:], "sum", int(x.sum()))
	PYEOF
	run "$PY" -m tileiras_cpu "$SCRATCH/plain.py" a b
	assert_success
	assert_output "['a', 'b'] sum 2080"
	run "$PY" -m tileiras_cpu "$SCRATCH/none.py"
	assert_failure 2
	assert_output "tileiras_cpu: error: no script $SCRATCH/none.py"
	run "$PY" -m tileiras_cpu
	assert_failure 2
}

@test "cutile-cpu: importing tileiras_cpu after cuda.tile is one clear ImportError; the installed cuTile is a known version" {
	run "$PY" -c 'import cuda.tile, tileiras_cpu'
	assert_failure
	assert_line --partial "ImportError: tileiras_cpu: import tileiras_cpu before cuda.tile"
	run "$PY" -c 'import tileiras_cpu; print(tileiras_cpu.cutile_version in tileiras_cpu.KNOWN_CUTILE_VERSIONS)'
	assert_success
	assert_output "True"
}

@test "cutile-cpu: compiled kernels are cached under CUDA_TILE_CACHE_DIR/tileiras_cpu, apart from real cubins" {
	cat >"$SCRATCH/k.py" <<-'PYEOF'
	import tileiras_cpu
	import numpy as np
	import cuda.tile as ct

	@ct.kernel
	def neg(x, tile: ct.Constant[int]):
	    ct.store(x, index=(ct.bid(0),), tile=-ct.load(x, index=(ct.bid(0),), shape=(tile,)))

	x = np.ones(32, np.float32)
	ct.launch(None, (1,), neg, (x, 32))
	print(x.sum())
	PYEOF
	run "$PY" "$SCRATCH/k.py"
	assert_success
	assert_output "-32.0"
	[ -n "$(ls -A "$CUDA_TILE_CACHE_DIR/tileiras_cpu")" ] || fail "nothing cached"
	[ "$(ls -A "$CUDA_TILE_CACHE_DIR")" = tileiras_cpu ] || fail "cached outside tileiras_cpu/: $(ls -A "$CUDA_TILE_CACHE_DIR")"
	run "$PY" "$SCRATCH/k.py"
	assert_success
	assert_output "-32.0"
}

@test "cutile-cpu: the driver's entry points called directly: lookup, device, load errors read back, memory" {
	run_program driver_calls 13
}

@test "cutile-cpu: a cuTile version it does not know is named once, with the ones it knows" {
	run "$PY" -W always -c '
import importlib.metadata as m
real = m.version
m.version = lambda name: "9.9.9" if name == "cuda-tile" else real(name)
import tileiras_cpu'
	assert_success
	assert_output --partial "UserWarning: tileiras_cpu knows cuTile 1.7.0; this is cuTile 9.9.9"
	[ "$(grep -c 'tileiras_cpu knows' <<<"$output")" -eq 1 ] || fail "said more than once: $output"
}

@test "cutile-cpu: found through the tileiras on PATH when outside the checkout; cuTile's installed files unchanged" {
	cp -r "$ROOT/python/tileiras_cpu" "$SCRATCH/"
	unset TILEIRAS_CPU_BUILD
	PYTHONPATH="$SCRATCH" PATH="$BIN:$PATH" run "$PY" -c 'import tileiras_cpu, os; print(os.path.realpath(tileiras_cpu.build_dir))'
	assert_success
	assert_output "$(realpath "$BIN/..")"
	PYTHONPATH="$SCRATCH" PATH=/usr/bin:/bin run "$PY" -c 'import tileiras_cpu'
	assert_failure
	assert_output --partial "ImportError: tileiras_cpu: no build with bin/tileiras"
	# pip's RECORD hashes of cuda-tile's files still hold
	run "$PY" -c '
import base64, hashlib, importlib.metadata as m
bad = [f for f in m.files("cuda-tile") if f.hash and f.hash.mode == "sha256" and
       base64.urlsafe_b64encode(hashlib.sha256(f.read_binary()).digest()).rstrip(b"=").decode() != f.hash.value]
print(len(bad), bad[:3])'
	assert_success
	assert_output "0 []"
}

@test "cutile-cpu: TILEIRAS_CPU_CHECK=racecheck finds no race in the matmul and attention programs; a bad check is one error" {
	TILEIRAS_CPU_CHECK=racecheck run_program matmul 4
	TILEIRAS_CPU_CHECK=racecheck run_program attention 2
	TILEIRAS_CPU_CHECK=bogus run "$PY" -c 'import tileiras_cpu'
	assert_failure
	assert_line --partial "ValueError: tileiras_cpu: check must be one of none, memcheck, racecheck"
}
