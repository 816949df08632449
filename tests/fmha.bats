#!/usr/bin/env bats
# Attention forward (issues 15 and 16: "FMHA forward with online softmax,
# causal and not"): tests/fmha/kernels.py, exported by tests/fmha/gen-fmha
# (cuTile 1.7.0: 4-D [batch, heads, seq, 64] f16/bf16, K read through a
# transposed view, two products per K/V step with the running row maximum
# and sum between them, ragged sequence lengths). Compiled for sm_80, sm_90
# (wgmma) and sm_120, run on tile-run against a float64 numpy reference;
# NVIDIA's PTX of the same bytecode too. On sm_90 both compilers feed the
# second product (P V) to wgmma with A in registers (tile-run runs that as a
# warp collective): P, the first product's accumulator, is already in
# wgmma's A fragment, so it never goes through shared memory.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

F="$BATS_TEST_DIRNAME/fmha"

@test "fmha: f16 (causal and not) and bf16 compile for sm_80/90/120: two products a step (mma.sync; wgmma on sm_90), exp2, no local memory, ptxas accepts, no spills" {
	require_ptxas
	for k in fmha_f16 fmha_f16_causal fmha_bf16; do
		for sm in sm_80 sm_90 sm_120; do
			tileiras "$F/$k.tileirbc" --gpu-name $sm --emit=ptx -o "$SCRATCH/k.ptx" || fail "$k $sm"
			if [ $sm = sm_90 ]; then
				[ "$(grep -c 'wgmma.mma_async' "$SCRATCH/k.ptx")" -ge 2 ] || fail "$k $sm: not wgmma"
				# P (the first product's accumulator, already wgmma's A fragment) feeds P V from registers
				grep -q 'wgmma.mma_async.sync.aligned.m64n[0-9]*k16.f32.[bf]*16.[bf]*16 {[^}]*}, {%r[0-9]*, %r[0-9]*, %r[0-9]*, %r[0-9]*}, %rd' "$SCRATCH/k.ptx" ||
					fail "$k $sm: P V not from registers"
			else
				grep -q 'mma.sync.aligned.m16n8k16' "$SCRATCH/k.ptx" || fail "$k $sm: no mma.sync"
			fi
			grep -q 'ex2.approx' "$SCRATCH/k.ptx" || fail "$k $sm: no exp2"
			ptx_ok "$SCRATCH/k.ptx" $sm "$k $sm"
			# ptxas neither serializes the wgmma nor injects a warpgroup.arrive of its own
			# (C7519: a register a wgmma reads written after the wgmma.fence)
			if grep -q 'C751' "$SCRATCH/k.ptx.log"; then fail "$k $sm: $(grep -m1 C751 "$SCRATCH/k.ptx.log")"; fi
		done
	done
}

@test "fmha: values against numpy on tile-run (f16 causal and not, bf16, ragged 100/150 rows, sm_80/90/120, 1/4/8 warps)" {
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_80,sm_90,sm_120 fmha_f16 fmha_f16_causal fmha_bf16
	echo "$output" | grep -v '^ok' || true
	assert_success
	if echo "$output" | grep -q '^FAIL'; then fail "a run failed"; fi
	[ "$(echo "$output" | grep -c "^ok ")" -eq 27 ] || fail "not 27 runs"
	# and race-free: the second product's staging waits for the first's reads
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --check racecheck --seed 3 --targets sm_80,sm_90 fmha_f16_causal
	assert_success
	if echo "$output" | grep -q '^FAIL'; then fail "a race"; fi
}

@test "fmha: NVIDIA's PTX of the same kernels on tile-run against numpy (sm_90: wgmma with A in registers)" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_80,sm_90,sm_120 \
		fmha_f16 fmha_f16_causal fmha_bf16
	echo "$output" | tail -12
	assert_success
	assert_output --partial "NVIDIA ok 9; ours ok 9"
	grep -l 'wgmma.mma_async.sync.aligned.m64n[0-9]*k16.f32.f16.f16 {[^}]*}, {' "$SCRATCH"/nv/*sm_90.ptx >/dev/null ||
		fail "NVIDIA's sm_90 PTX has no register-A wgmma any more"
}
