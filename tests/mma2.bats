#!/usr/bin/env bats
# Tensor-core usage patterns (issue 15; kernels in tests/mma2/kernels.py,
# exported by tests/mma2/gen-mma2): B given as [N, K] and transposed in the
# kernel (f16, and e4m3 on sm_89+), split-K with atomic adds of the partial
# products, a fused epilogue (bias + ReLU + cast to f16), int8 x uint8 (mixed
# signedness); ragged M, N, K (100 x 72 x 100: zero-padded loads, masked
# stores); batched products are tests/mma's bmm_f16 / bmm_i8. Each compiled
# for sm_80 and sm_90 (f8: sm_89 and sm_90), its values against numpy on
# tile-run (tests/run/extra.py references, every product exact), and
# NVIDIA's PTX of the same kernels on tile-run too (needs .venv).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

K="$BATS_TEST_DIRNAME/mma2"
RC="$ROOT/tests/run/run-corpus"

@test "mma2: every kernel to PTX on its targets, its product instruction there (mma.sync or wgmma), ptxas accepts, no local memory, no spills" {
	require_ptxas
	check() {     # FILE SM PATTERN: at least one line of PATTERN; no local memory, no spills
		tileiras --gpu-name "$2" --emit=ptx -o "$SCRATCH/k.ptx" "$K/$1.tileirbc" || fail "$1 $2"
		grep -qE -- "$3" "$SCRATCH/k.ptx" || fail "$1 $2: no '$3'"
		ptx_ok "$SCRATCH/k.ptx" "$2" "$1 $2"
	}
	for g in sm_80 sm_90; do
		check mm_bt_f16 $g '(mma.sync.aligned.m16n8k16.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k16).f32.f16.f16'
		check mm_epilogue_f16 $g '(mma.sync.aligned.m16n8k16.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k16).f32.f16.f16'
		check mm_epilogue_f16 $g 'max(\.ftz)?(\.NaN)?\.f32|max\.f16'
		check mm_epilogue_f16 $g 'cvt\.rn\.f16\.f32|cvt\.rn\.f16x2\.f32'
		check mm_splitk_f16 $g '(mma.sync.aligned.m16n8k16.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k16).f32.f16.f16'
		check mm_splitk_f16 $g '(atom|red)\..*add\.f32'
		check mm_mixed_i8u8 $g '(mma.sync.aligned.m16n8k32.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k32)\.satfinite\.s32\.s8\.u8'
	done
	for g in sm_89 sm_90; do
		# 16-byte aligned f8 operands (base, row stride, sizes): v4 loads, no spills
		check mm_bt_e4m3_a16 $g '(mma.sync.aligned.m16n8k32.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k32).f32.e4m3.e4m3'
		check mm_bt_e4m3_a16 $g 'ld.global(.nc)?.v4.b32'
		# with nothing known of their alignment the f8 operands are loaded a byte at a time; they
		# spilled (~430 bytes) until each thread got row runs of them (tile-sched mma_prefer_rows)
		check mm_bt_e4m3 $g '(mma.sync.aligned.m16n8k32.row.col|wgmma.mma_async.sync.aligned.m64n[0-9]+k32).f32.e4m3.e4m3'
	done
	# f16 B^T with 16-byte facts on sm_90: its rows run along K, so B (their transpose) is staged
	# K-major (MmaTiling.bk; wgmma trans-b 0) and written in 16-byte stores, none of 2 bytes
	check mm_bt_f16_a16 sm_90 'wgmma.mma_async.sync.aligned.m64n[0-9]+k16.f32.f16.f16 \{[^}]*\}, %rd[0-9]+, %rd[0-9]+, p, 1, 1, 0, 0;'
	if grep -q 'st.shared.b16' "$SCRATCH/k.ptx"; then fail "mm_bt_f16_a16: 2-byte staging stores"; fi
	check mm_bt_f16_a16 sm_80 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16'
	if grep -q 'st.shared.b16' "$SCRATCH/k.ptx"; then fail "mm_bt_f16_a16 sm_80: 2-byte staging stores"; fi
}

@test "mma2: one zero tile as the accumulator of an HMMA and an FMA product (different C layouts) compiles everywhere, the read test module's mmaf_scaled too (was an internal error), and is right on tile-run" {
	require_ptxas
	for g in sm_80 sm_90 sm_100 sm_120; do
		run tileiras --gpu-name $g -o "$SCRATCH/k.cubin" "$K/mm_shared_acc.tileirbc"
		assert_success
		refute_output --partial "internal error"
	done
	for g in sm_100 sm_120; do
		run tileiras --gpu-name $g -o "$SCRATCH/a.cubin" "$ROOT/tests/read/allops-13.4.tileirbc"
		assert_success
	done
	# the FMA product's accumulator and result go through convert_layout (tile-sched mma.c fix_acc)
	[ "$(tile-read "$K/mm_shared_acc.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --emit=text | grep -c convert_layout)" -ge 2 ]
	need_run
	run "$PY" "$RC" --bin "$BIN" --targets sm_80,sm_90,sm_100,sm_120 mm_shared_acc
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 12 ] || fail "not 12 runs"
}

@test "mma2: the transposed f8 kernel on sm_80 fails with exit 5 and no cubin, as NVIDIA's tileiras does" {
	run tileiras --gpu-name sm_80 -o "$SCRATCH/k.cubin" "$K/mm_bt_e4m3.tileirbc"
	assert_failure 5
	assert_output --partial "8-bit floats are not supported on sm_80"
	[ ! -e "$SCRATCH/k.cubin" ]
	[ -n "$NVBIN" ] && [ -x "$NVBIN/tileiras" ] || skip "NVIDIA's tileiras not installed (make venv): our half checked"
	run env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name sm_80 -o "$SCRATCH/n.cubin" "$K/mm_bt_e4m3.tileirbc"
	assert_failure 5
	assert_output --partial "unsupported type 'f8E4M3FN'"
}

@test "mma2: values against numpy on tile-run (transposed B, split-K atomics, bias+ReLU+f16 epilogue, i8 x u8; ragged; sm_80, sm_90, 1/4/8 warps)" {
	need_run
	run "$PY" "$RC" --bin "$BIN" --targets sm_80,sm_90 mm_bt_f16 mm_bt_f16_a16 mm_splitk_f16 mm_epilogue_f16 mm_mixed_i8u8 \
		bmm_f16 bmm_i8
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 42 ] || fail "not 42 runs: $output"
}

@test "mma2: f8 with B transposed against numpy on tile-run (unaligned and 16-byte aligned; sm_89, sm_90, 1/4/8 warps)" {
	need_run
	run "$PY" "$RC" --bin "$BIN" --targets sm_89,sm_90 mm_bt_e4m3 mm_bt_e4m3_a16
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 12 ] || fail "not 12 runs: $output"
}

@test "mma2: NVIDIA's PTX of the kernels (mma.sync on sm_80, wgmma on sm_90) on tile-run against numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_80,sm_90 \
		mm_bt_f16 mm_splitk_f16 mm_epilogue_f16 mm_mixed_i8u8
	echo "$output" | tail -12
	assert_success
	assert_output --partial "NVIDIA ok 8; ours ok 8"
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_89,sm_90 mm_bt_e4m3
	echo "$output" | tail -6
	assert_success
	assert_output --partial "NVIDIA ok 2; ours ok 2"
	# the aligned one: on sm_90 NVIDIA loads it by TMA (tensor maps its host fills), which tile-run cannot run
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_89 mm_bt_e4m3_a16
	echo "$output" | tail -6
	assert_success
	assert_output --partial "NVIDIA ok 1; ours ok 1"
}
