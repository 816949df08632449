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
load nvcapture

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

@test "fmha: the launch-facts kernels (16-byte aligned, sizes divisible by 16; tm 64 and 128): ours on tile-run, NVIDIA's sm_90a PTX (K and V by TMA) on tile-run with the maps its host callback builds" {
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_80,sm_90 fmha_f16_aligned fmha_f16_aligned_128 \
		fmha_launch_64 fmha_launch_128 fmha_f16_causal_aligned fmha_bf16_aligned
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 36 ] || fail "not 36 runs"
	nvidia_tools
	cd "$SCRATCH"
	# [1, 2, 144, 64] queries, 208 keys: ragged against both tiles
	"$PY" -c 'import numpy as np
r = np.random.default_rng(5)
q, k, v = (r.uniform(-1, 1, (1, 2, n, 64)).astype(np.float16) for n in (144, 208, 208))
s = np.einsum("bhmd,bhnd->bhmn", q.astype(np.float64), k.astype(np.float64)) / 8
p = np.exp(s - s.max(-1, keepdims=True))
np.save("q.npy", q); np.save("k.npy", k); np.save("v.npy", v); np.save("o.npy", np.zeros_like(q))
np.save("ref.npy", np.einsum("bhmn,bhnd->bhmd", p / p.sum(-1, keepdims=True), v.astype(np.float64)))'
	for k in fmha_f16_aligned:64 fmha_f16_aligned_128:128; do
		rm -f nv.o nv.ptx
		env -u CUDA_HOME -u CUDA_PATH "$SCRATCH/tw/bin/tileiras" --gpu-name sm_90 "$F/${k%:*}.tileirbc" -o nv.cubin ||
			fail "$k: NVIDIA's tileiras"
		[ "$(grep -c 'cp.async.bulk.tensor' nv.ptx)" -ge 2 ] || fail "$k: NVIDIA's PTX has no TMA"
		harness nv.o cbnv || fail "harness"
		maps=$(./cbnv --print-maps nv.ptx "$(entry_of nv.ptx)" 90) || fail "$k: NVIDIA's callback"
		echo "$k: $maps"
		rm -rf out
		# shellcheck disable=SC2086
		run tile-run --grid $(((144 + ${k#*:} - 1) / ${k#*:})),2 --check racecheck --out out nv.ptx \
			q.npy 1 2 144 64 18432 9216 64 1 k.npy 1 2 208 64 26624 13312 64 1 v.npy 1 2 208 64 26624 13312 64 1 \
			o.npy 1 2 144 64 18432 9216 64 1 0.125 $maps
		assert_success
		run "$PY" -c 'import numpy as np
o = np.load("out/27.npy").astype(np.float64); ref = np.load("ref.npy"); d = np.abs(o - ref).max()
print(d); assert d <= 4e-3'
		assert_success
	done
}

@test "fmha: with launch facts on sm_90 K, read through its transposed view, comes in 16-byte column chunks staged K-major (ld.global.v4 / st.shared.v4 only; S = Q K^T's wgmma takes B K-major); TILE_NO_KMAJOR_B=1 keeps the element loads; ptxas accepts, no spills at 64 rows" {
	require_ptxas
	# the threads' copies (without TMA: a ptxas older than 13.2 makes no TILEIR cubins to fill maps)
	export TILEIRAS_NO_TMA=1
	for k in fmha_f16_aligned fmha_f16_aligned_128 launch/fmha.kernels.ln13.karzz69l launch/fmha.kernels.ln13.teualzs7 \
		fmha_f16_causal_aligned fmha_bf16_aligned; do
		tileiras "$F/$k.tileirbc" --gpu-name sm_90 --emit=ptx -o "$SCRATCH/k.ptx" || fail "$k"
		# Q, K and V: one 16-byte load per chunk (K's down its columns), no 2-byte ones
		if grep -q 'ld.global.b16\|ld.global.u16' "$SCRATCH/k.ptx"; then fail "$k: element loads of K"; fi
		[ "$(grep -c 'ld.global.v4.b32' "$SCRATCH/k.ptx")" -ge 12 ] || fail "$k: $(grep -c 'ld.global.v4' "$SCRATCH/k.ptx") vector loads"
		if grep -q 'st.shared.b16\|st.shared.u16' "$SCRATCH/k.ptx"; then fail "$k: element staging stores"; fi
		# S's B from a K-major descriptor (trans-b 0); P V's from the MN-major V (trans-b 1)
		grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.[bf]*16.[bf]*16 {[^}]*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;' "$SCRATCH/k.ptx" ||
			fail "$k: no K-major B"
		grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.[bf]*16.[bf]*16 {[^}]*}, {[^}]*}, %rd[0-9]*, p, 1, 1, 1;' "$SCRATCH/k.ptx" ||
			fail "$k: P V's B not MN-major"
		# 128 query rows at 4 warps spill a little (16 bytes of stack; 144 with K element by element,
		# and 8 warps ran slower on the H200: docs/benchmarks.md)
		if [ $k = fmha_f16_aligned ] || [ $k = launch/fmha.kernels.ln13.karzz69l ] || [ $k = fmha_bf16_aligned ] ||
			[ $k = fmha_f16_causal_aligned ]; then
			ptx_ok "$SCRATCH/k.ptx" sm_90 "$k"
		else
			ptxas -arch=sm_90 "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" || fail "$k: ptxas"
		fi
	done
	# the same on the mma.sync targets: B K-major is read by plain ldmatrix (not .trans)
	for sm in sm_80 sm_120; do
		tileiras "$F/fmha_f16_aligned.tileirbc" --gpu-name $sm --emit=ptx -o "$SCRATCH/k.ptx" || fail "$sm"
		if grep -q 'ld.global.b16\|st.shared.b16' "$SCRATCH/k.ptx"; then fail "$sm: element loads or stores of K"; fi
		[ "$(grep -c 'ld.global.v4.b32' "$SCRATCH/k.ptx")" -ge 12 ] || fail "$sm: vector loads"
		ptx_ok "$SCRATCH/k.ptx" $sm "fmha_f16_aligned $sm"
	done
	TILE_NO_KMAJOR_B=1 tileiras "$F/fmha_f16_aligned.tileirbc" --gpu-name sm_90 --emit=ptx -o "$SCRATCH/old.ptx"
	[ "$(grep -c 'ld.global.b16' "$SCRATCH/old.ptx")" -eq 32 ] || fail "TILE_NO_KMAJOR_B: $(grep -c 'ld.global.b16' "$SCRATCH/old.ptx") element loads"
}

# fmha_tma K OUT [tile-sched options]: K's PTX for sm_90 through the stages, tile-sched --tma
fmha_tma() {
	local k=$1 out=$2
	shift 2
	tile-read "$F/$k.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --tma "$@" | tile-ptx --gpu-name=sm_90 >"$out"
}

@test "fmha by TMA (sm_90, launch facts): K and V by cp.async.bulk.tensor.4d through rank-4 maps (K's own layout, landing K-major), both products pipelined (2 stages, regions of their own, each product's barriers), Q staged once before the loop; no loads or staging stores in the loop; ptxas accepts, no spills; our callback writes the maps libcommon encodes" {
	for k in fmha_f16_aligned fmha_f16_aligned_128 launch/fmha.kernels.ln13.karzz69l launch/fmha.kernels.ln13.teualzs7 \
		fmha_f16_causal_aligned fmha_bf16_aligned; do
		fmha_tma $k "$SCRATCH/k.ptx" || fail "$k"
		# two maps of [B, H, S, D] views in NVIDIA's dims order (D, S, B, H), 64 x 64 boxes, 128-byte swizzle
		[ "$(grep -c '^// tileiras.tensormap .* dims=p[0-9]*,p[0-9]*,p[0-9]*,p[0-9]* stride=p[0-9]*,p[0-9]*,p[0-9]* box=64,64,1,1 swizzle=128$' "$SCRATCH/k.ptx")" -eq 2 ] ||
			fail "$k: $(grep tensormap "$SCRATCH/k.ptx")"
		# K and V: step 0 before the loop, the next step's in it
		[ "$(grep -c 'cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes' "$SCRATCH/k.ptx")" -eq 4 ] ||
			fail "$k: $(grep -c cp.async.bulk.tensor "$SCRATCH/k.ptx") copies"
		# 2 stages x 2 products: 4 full barriers, 4 empty; one wait per product
		[ "$(grep -c 'mbarrier.init.shared::cta.b64' "$SCRATCH/k.ptx")" -eq 8 ] || fail "$k: barriers"
		[ "$(grep -c 'mbarrier.try_wait.parity' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$k: waits"
		# Q: its 16-byte loads and stores into its region, once; nothing else goes through registers
		q=$(grep -c 'ld.global.v4.b32' "$SCRATCH/k.ptx")
		[ "$q" -le 8 ] && [ "$(grep -c 'st.shared.v4.b32' "$SCRATCH/k.ptx")" -eq "$q" ] || fail "$k: $q loads"
		if grep -q 'ld.global.b16\|st.shared.b16\|ld.global.nc' "$SCRATCH/k.ptx"; then fail "$k: element copies"; fi
		# S's B K-major from K's box, A (Q) from its resident region; P V's B MN-major
		grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.[bf]*16.[bf]*16 {[^}]*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;' "$SCRATCH/k.ptx" ||
			fail "$k: no K-major B"
		grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.[bf]*16.[bf]*16 {[^}]*}, {[^}]*}, %rd[0-9]*, p, 1, 1, 1;' "$SCRATCH/k.ptx" ||
			fail "$k: P V's B not MN-major"
		if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
			require_ptxas
			ptx_ok "$SCRATCH/k.ptx" sm_90 "$k"
		fi
	done
	# the host callback builds the rank-4 maps as libcommon's tmap_encode does
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	fmha_tma fmha_f16_aligned "$SCRATCH/k.ptx"
	tile-pack --emit=nv-host "$SCRATCH/k.ptx" -o "$SCRATCH/host.o" || fail "nv-host"
	harness "$SCRATCH/host.o" "$SCRATCH/cb" || fail "harness"
	run "$SCRATCH/cb" "$SCRATCH/k.ptx" "$(entry_of "$SCRATCH/k.ptx")" 90 40
	assert_success
	assert_output "ok 2 maps x 40 rounds"
	# one product pipelined alone would share its staging: TILE_SCHED_NO_MULTI_PIPELINE=1 copies each step's own
	tile-read "$F/fmha_f16_aligned.tileirbc" | tile-lower --gpu-name=sm_90 |
		env TILE_SCHED_NO_MULTI_PIPELINE=1 "$BIN/tile-sched" --tma | tile-ptx --gpu-name=sm_90 >"$SCRATCH/one.ptx"
	[ "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/one.ptx")" -eq 2 ] || fail "TILE_SCHED_NO_MULTI_PIPELINE"
}

@test "fmha by TMA (sm_90, launch facts) against numpy on tile-run: 1, 4 and 8 warps (1: mma.sync, V by TMA into ldmatrix's staging), causal, bf16, 64 and 128 query rows, ragged sequences; racecheck; without multi-product pipelining too" {
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck \
		fmha_f16_aligned fmha_f16_aligned_128 fmha_launch_64 fmha_launch_128 fmha_f16_causal_aligned fmha_bf16_aligned
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 18 ] || fail "not 18 runs"
	run env TILE_SCHED_NO_MULTI_PIPELINE=1 "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --warps 4 \
		--sched-flags=--tma fmha_f16_aligned fmha_f16_causal_aligned
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 2 ] || fail "not 2 runs"
}

@test "fmha without launch facts, sm_90 --tma: the K loop versioned on alignment (K and V by TMA in its aligned arm, rank-4 maps; through registers in the other); both arms against numpy on tile-run (arrays aligned, and 2 bytes off), 4 and 8 warps, racecheck; ptxas accepts, no spills" {
	need_run
	for k in fmha_f16 fmha_f16_causal fmha_bf16; do
		tile-read "$F/$k.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --tma >"$SCRATCH/s.json"
		grep -q '"versioned_for_tma"' "$SCRATCH/s.json" || fail "$k: not versioned"
		tile-ptx --gpu-name=sm_90 "$SCRATCH/s.json" >"$SCRATCH/k.ptx"
		[ "$(grep -c '^// tileiras.tensormap ' "$SCRATCH/k.ptx")" -eq 2 ] || fail "$k: not K and V maps"
		grep -q 'cp.async.bulk.tensor.4d' "$SCRATCH/k.ptx" || fail "$k: no rank-4 copies"
		if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
			require_ptxas
			ptx_ok "$SCRATCH/k.ptx" sm_90 "$k"
		fi
	done
	for off in 0 2; do
		tma_racecheck 6 $off sm_90 4,8 fmha_f16 fmha_f16_causal fmha_bf16
	done
}

@test "fmha by TMA: our rank-4 K and V maps are what NVIDIA's host callback writes for the same kernel (its maps 38, 39: after its Q map), for random parameter blocks" {
	nvidia_tools
	cd "$SCRATCH"
	for k in fmha_f16_aligned fmha_f16_aligned_128 fmha_bf16_aligned; do
		rm -f nv.o nv.ptx
		env -u CUDA_HOME -u CUDA_PATH "$SCRATCH/tw/bin/tileiras" --gpu-name sm_90 "$F/$k.tileirbc" -o nv.cubin ||
			fail "$k: NVIDIA's tileiras"
		harness nv.o cbnv || fail "harness"
		fmha_tma $k ours.ptx || fail "$k"
		# NVIDIA's parameter list (Q, K, V, O maps at 37..40) with our two notes moved past its Q map
		{ cat nv.ptx; grep '^// tileiras.tensormap' ours.ptx | awk '{ $4 = $4 + 1; print }'; } >mixed.ptx
		run ./cbnv mixed.ptx "$(entry_of nv.ptx)" 90 40
		assert_success
		assert_output "ok 2 maps x 40 rounds"
	done
}

@test "fmha, head dim 128 (launch facts): compiles for sm_80/90/120 within each target's static shared memory (sm_80 once went 1 KiB over 48 KiB: Q resident only where the staging budget holds it), ptxas accepts; on sm_90 by TMA (two boxes a tile) without spills; against numpy on tile-run with and without TMA" {
	require_ptxas
	for sm in sm_80 sm_90 sm_120; do
		TILEIRAS_NO_TMA=1 tileiras "$F/fmha_f16_d128_aligned.tileirbc" --gpu-name $sm --emit=ptx -o "$SCRATCH/k.ptx" || fail "$sm"
		ptxas -arch=$sm "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" || fail "$sm: ptxas"
	done
	fmha_tma fmha_f16_d128_aligned "$SCRATCH/t.ptx"
	[ "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/t.ptx")" -eq 8 ] || fail "not 2 boxes x 2 operands x 2"
	ptx_ok "$SCRATCH/t.ptx" sm_90 "fmha_f16_d128_aligned by TMA"
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_80,sm_90,sm_120 --warps 4 fmha_f16_d128_aligned
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 3 ] || fail "not 3 runs"
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck fmha_f16_d128_aligned
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 3 ] || fail "not 3 TMA runs"
}

@test "fmha, head dim 128 with 128 query rows (8 warps, sm_90): both products pipelined by TMA (Q resident counts once, not in every stage: the rings fit the staging budget), no spills; against numpy on tile-run (1/4/8 warps, racecheck; sm_80/120 too)" {
	fmha_tma fmha_f16_d128_aligned_128 "$SCRATCH/t.ptx"
	grep -q '.reqntid 256' "$SCRATCH/t.ptx" || fail "not 8 warps"
	[ "$(grep -c 'mbarrier.init.shared' "$SCRATCH/t.ptx")" -ge 4 ] || fail "not two 2-stage rings"
	# the next step's K and V copies inside the loop: 2 boxes each
	[ "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/t.ptx")" -eq 8 ] || fail "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/t.ptx") copies"
	TILE_SCHED_NO_MULTI_PIPELINE=1 fmha_tma fmha_f16_d128_aligned_128 "$SCRATCH/n.ptx"
	[ "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/n.ptx")" -eq 4 ] || fail "unpipelined: $(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/n.ptx") copies"
	if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
		require_ptxas
		ptx_ok "$SCRATCH/t.ptx" sm_90 "d128, 128 rows"
	fi
	need_run
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck fmha_f16_d128_aligned_128
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 3 ] || fail "not 3 TMA runs"
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_80,sm_120 fmha_f16_d128_aligned_128
	assert_success
}

@test "fmha, head dim 128 on sm_90: Q loaded straight into wgmma's A register fragment where its resident region would hold the CTAs an SM to 2 (64 KiB of rings + 16 KiB of Q: every wgmma with A in registers, 64 KiB of staging); head dim 64 and 128 rows keep Q resident; TILE_SCHED_NO_A_IN_REGS=1 too; ptxas accepts, no spills; against numpy on tile-run either way, racecheck" {
	fmha_tma fmha_f16_d128_aligned "$SCRATCH/r.ptx"
	n=$(grep -c 'wgmma.mma_async' "$SCRATCH/r.ptx")
	[ "$(grep 'wgmma.mma_async' "$SCRATCH/r.ptx" | grep -c '}, {')" -eq "$n" ] || fail "d128: not every wgmma with A in registers"
	grep -q '__tile_mma_[A-Za-z0-9_]*\[65536\]' "$SCRATCH/r.ptx" || fail "d128: staging $(grep -o '__tile_mma_[A-Za-z0-9_]*\[[0-9]*\]' "$SCRATCH/r.ptx")"
	TILE_SCHED_NO_A_IN_REGS=1 fmha_tma fmha_f16_d128_aligned "$SCRATCH/q.ptx"
	[ "$(grep 'wgmma.mma_async' "$SCRATCH/q.ptx" | grep -c '}, {')" -eq 4 ] || fail "NO_A_IN_REGS: Q not resident"
	grep -q '__tile_mma_[A-Za-z0-9_]*\[81920\]' "$SCRATCH/q.ptx" || fail "NO_A_IN_REGS: staging"
	for k in fmha_f16_aligned fmha_f16_aligned_128; do     # Q resident: the same PTX either way
		fmha_tma $k "$SCRATCH/k.ptx"
		TILE_SCHED_NO_A_IN_REGS=1 fmha_tma $k "$SCRATCH/k0.ptx"
		cmp -s "$SCRATCH/k.ptx" "$SCRATCH/k0.ptx" || fail "$k: Q not resident"
	done
	if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
		require_ptxas
		ptx_ok "$SCRATCH/r.ptx" sm_90 "d128, Q in registers"
	fi
	need_run
	for v in 0 1; do
		if [ $v = 1 ]; then export TILE_SCHED_NO_A_IN_REGS=1; fi
		run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --sched-flags=--tma --check racecheck fmha_f16_d128_aligned
		assert_success
		[ "$(echo "$output" | grep -c "^ok ")" -eq 3 ] || fail "not 3 runs ($v)"
	done
}

@test "fmha by TMA, opt-in TILE_SCHED_ASYNC_LAST=1: P V's wgmma stays in flight into the next step (wait_group 1; S's wait_group 0 retires it before its accumulator is read or its stage refilled; the loop's exit waits for it); ptxas keeps it asynchronous (no serialization warning), no spills; against numpy on tile-run" {
	tile-read "$F/fmha_f16_aligned.tileirbc" | tile-lower --gpu-name=sm_90 |
		env TILE_SCHED_ASYNC_LAST=1 "$BIN/tile-sched" --tma | tile-ptx --gpu-name=sm_90 >"$SCRATCH/a.ptx"
	[ "$(grep -c 'wgmma.wait_group.sync.aligned 1;' "$SCRATCH/a.ptx")" -eq 1 ] || fail "P V not left in flight"
	[ "$(grep -c 'cp.async.bulk.tensor.4d' "$SCRATCH/a.ptx")" -eq 4 ] || fail "copies not a step ahead"
	# without the switch nothing is left in flight
	fmha_tma fmha_f16_aligned "$SCRATCH/d.ptx"
	if grep -q 'wgmma.wait_group.sync.aligned 1;' "$SCRATCH/d.ptx"; then fail "in flight by default"; fi
	if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
		require_ptxas
		ptx_ok "$SCRATCH/a.ptx" sm_90 "async P V"
		if grep -q 'C751[0-9]\|serializ' "$SCRATCH/a.ptx.log"; then fail "ptxas serialized: $(cat "$SCRATCH/a.ptx.log")"; fi
	fi
	need_run
	run env TILE_SCHED_ASYNC_LAST=1 "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_90 --warps 4 \
		--sched-flags=--tma fmha_f16_aligned fmha_f16_causal_aligned fmha_f16_aligned_128 fmha_f16_d128_aligned
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 4 ] || fail "not 4 runs"
}
