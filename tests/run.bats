#!/usr/bin/env bats
# The values our compiled kernels compute, on tile-run (the PTX emulator)
# against numpy: tests/run/run-corpus for every corpus kernel with a
# reference (scripts/gpu-manifest.json with tests/gpu/refs.py, and
# tests/run/extra.py), one test per kernel family. Each family runs every
# bytecode version (13.1-13.4), sm_80 and sm_90, num-warps 1, 4 and 8, every
# manifest case (ragged sizes, non-unit strides) under memcheck; the
# tolerances are the manifest's (docs/tile-run-validation.md). Needs
# Debian's numpy (/usr/bin/python3, scripts/install-deps) and tile-run.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

RC="$ROOT/tests/run/run-corpus"

# family NAME [options]: every kernel of the family passes; at least one ran
family() {
	need_run
	run "$PY" "$RC" --bin "$BIN" "$@"
	echo "$output" | grep -v '^ok' || true
	assert_success
	echo "$output" | grep -q '^ok ' || fail "nothing ran: $output"
	if echo "$output" | grep -q '^FAIL'; then fail "a run failed"; fi
}

@test "run-corpus: vector_add" { family vector_add; }
@test "run-corpus: saxpy" { family saxpy; }
@test "run-corpus: casts (f16, bf16, int)" { family cast_f16 cast_bf16 cast_int; }
@test "run-corpus: debug_print (printf lines, assert)" { family debug_print; }
@test "run-corpus: elementwise_float" { family elementwise_float; }
@test "run-corpus: elementwise_int" { family elementwise_int; }
@test "run-corpus: gather_scatter and indirect_gather" { family gather_scatter indirect_gather; }
@test "run-corpus: histogram (atomics)" { family histogram; }
@test "run-corpus: layer_norm" { family layer_norm; }
@test "run-corpus: loop_accum" { family loop_accum; }
@test "run-corpus: prefix_sum" { family prefix_sum; }
@test "run-corpus: reduce_sum and reduce_max" { family reduce_sum reduce_max; }
@test "run-corpus: scalar_params" { family scalar_params; }
@test "run-corpus: softmax" { family softmax; }
@test "run-corpus: transpose and permute3d" { family transpose permute3d; }
@test "run-corpus: rms_norm" { family rms_norm; }
@test "run-corpus: topk (with ties)" { family topk; }
@test "run-corpus: fft and bit_reverse" { family fft bit_reverse; }
@test "run-corpus: loop_break (three trip counts)" { family loop_break; }
@test "run-corpus: tests/reduce/corpus (reductions, scans, shape ops)" { family reduce; }
@test "run-corpus: tests/ops float formats (f4, e8m0, tf32, f8) and tests/pipeline kernels" { family ops pipeline; }

@test "run-corpus: every kernel for sm_100 and sm_120 (13.4, 4 warps)" {
	family --targets sm_100,sm_120 --versions 13.4 --warps 4
}

@test "run-corpus: tile-run compiles the bytecode itself (every kernel, 13.4, sm_90, 4 warps; the versions are the other families')" {
	family --input bytecode --targets sm_90 --warps 4 --versions 13.4
}

@test "run-corpus: realistic sizes (the manifest's own: 1M-element vectors, 1003-row norms; 13.4, sm_90, 4 warps)" {
	family --sizes full --versions 13.4 --targets sm_90 --warps 4
}

@test "run-corpus: racecheck finds no shared-memory race, randomized schedule (13.4, sm_80 and sm_90, 1/4/8 warps)" {
	family --check racecheck --seed 7 --versions 13.4
}

@test "run-corpus: matmul (mmaf through mma.sync: f16 and bf16 -> f32, ragged sizes)" { family matmul; }
@test "run-corpus: mma (f16 acc, tf32, i8, f64, f32 by FMA; sm_75 f16 m16n8k8)" { family mma --targets sm_75,sm_80,sm_90; }
@test "run-corpus: mma f8 (e4m3, e5m2 -> f32 and f16 by mma.sync m16n8k32; sm_89, sm_90, sm_120)" { family mm_e4m3 mm_e5m2 mm_e4m3_f16 --targets sm_89,sm_90,sm_120; }
@test "run-corpus: TileGym-style row kernels (layernorm, rms_norm, softmax, relu^2, swiglu, cross_entropy, rope; 4096-wide rows) and TileGym 1.5.1's own (tests/tilegym/v151)" { family tilegym --targets sm_80,sm_90; }
@test "run-corpus: TileGym-style row kernels with opt-in versioned accesses (TILE_PTX_VERSIONING=1; sm_90, 4 warps)" { TILE_PTX_VERSIONING=1 family tilegym shifted_tile --targets sm_90 --warps 4 --versions 13.4; }
@test "run-corpus: batched mma (rank-3 f16 and i8, ragged; sm_75 to sm_120)" { family bmm_f16 bmm_i8 --targets sm_75,sm_80,sm_90,sm_120; }
@test "run-corpus: every MMA kernel on sm_89, sm_100, sm_120 too (matmul, tests/mma with cuTile's launch bytecode, tests/mma2, fmha; issue 15's targets beyond sm_80/sm_90)" { family matmul mma mma2 fmha --targets sm_89,sm_100,sm_120; }
@test "run-corpus: big tiles in chunk loops (tests/big: 16K and 256K-element exp, 64x8192 row reduction, column sums, layer norm and softmax over 8K and 16K rows; issue 42)" { family big; }
@test "run-corpus: block-scaled mma (mmaf_scaled e4m3/e5m2 with f8E8M0FNU scales; sm_100 FMA, sm_120/sm_121 mma.sync block_scale)" { family mm_scaled_e4m3 mm_scaled_e5m2 --targets sm_100,sm_120,sm_121; }

@test "run-corpus fails on a wrong value, a fault and a missing output" {
	need_run
	# a tile-run that computes right, then corrupts one element of output 5 (vector_add's c)
	cat >"$SCRATCH/corrupt" <<-EOF
		#!/bin/sh
		"$BIN/tile-run" "\$@" || exit \$?
		out=""; prev=""
		for a in "\$@"; do [ "\$prev" = --out ] && out=\$a; prev=\$a; done
		$PY -c 'import numpy as np, sys; a = np.load(sys.argv[1]); a.flat[7] += 1; np.save(sys.argv[1], a)' "\$out/6.npy"
	EOF
	printf '#!/bin/sh\necho "tile-run: out of bounds (fake)" >&2\nexit 3\n' >"$SCRATCH/fault"
	printf '#!/bin/sh\nexit 0\n' >"$SCRATCH/nothing"
	chmod +x "$SCRATCH/corrupt" "$SCRATCH/fault" "$SCRATCH/nothing"
	for t in corrupt fault nothing; do
		run "$PY" "$RC" --bin "$BIN" --tile-run "$SCRATCH/$t" --versions 13.4 --targets sm_90 --warps 4 vector_add/128
		assert_failure 1
		echo "$output" | grep -q '^FAIL' || fail "$t: $output"
	done
	[[ "$output" == *"wrote no"* ]]
}

@test "run-corpus: unknown names and bad options are usage errors" {
	"$PY" -c 'import numpy' 2>/dev/null || skip "no numpy for $PY"
	run "$PY" "$RC" --bin "$BIN" no_such_kernel
	assert_failure 2
	assert_output --partial "no kernel or family"
	run "$PY" "$RC" --versions 12.9
	assert_failure 2
}

@test "check-emulator: NVIDIA's PTX on tile-run against numpy (sm_80, sm_90)" {
	need_run
	require_nvidia      # skips naming 'make venv' (NVIDIA's pip wheels in .venv)
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv"
	echo "$output" | tail -40
	assert_success
}

@test "check-emulator: NVIDIA's f8 MMA PTX (sm_89, sm_120: mma.sync m16n8k32 e4m3/e5m2) on tile-run against numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_89,sm_120 \
		mm_e4m3 mm_e5m2 mm_e4m3_f16
	echo "$output" | tail -12
	assert_success
	assert_output --partial "NVIDIA ok 6; ours ok 6"
}

@test "check-emulator: NVIDIA's block-scaled MMA PTX (sm_100: decoded, scaled, FMA; sm_120: mma.sync kind::mxf8f6f4.block_scale) on tile-run against numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_100,sm_120 mm_scaled_e4m3 mm_scaled_e5m2
	echo "$output" | tail -10
	assert_success
	assert_output --partial "NVIDIA ok 4; ours ok 4"
	# sm_120's is the block-scaled tensor-core instruction, not decoded FMA
	grep -q "block_scale" "$SCRATCH"/nv/mm_scaled_e4m3.*.sm_120.ptx ||
		fail "NVIDIA's sm_120 PTX has no block_scale mma"
}

@test "check-emulator: NVIDIA's batched MMA PTX (sm_80, sm_90) on tile-run against numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_80,sm_90 bmm_f16 bmm_i8
	echo "$output" | tail -10
	assert_success
	assert_output --partial "NVIDIA ok 4; ours ok 4"
}
