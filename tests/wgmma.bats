#!/usr/bin/env bats
# Tensor cores II, first slice (issue 16; docs/lowering.md "MMA", wgmma):
# on sm_90 an mmaf / mmai whose shape fits a warpgroup tiling (libcommon's
# mma_choose: M a multiple of 64 per warpgroup row, warps a multiple of 4)
# goes through wgmma.mma_async m64nNk* with A and B staged by their owners
# in wgmma's K-major swizzled shared layout (util_wgmma.c), the PTX target
# sm_90a. Other products (f64, f32 FMA, small batched ones, 1 warp) keep
# the warp-level path. Values: every tests/mma and tests/mma2 kernel on
# tile-run against numpy at 1, 4 and 8 warps (tile-run's wgmma was checked
# on an H100 and against NVIDIA's wgmma PTX: tests/run-hopper.bats,
# mma2.bats).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

RC="$ROOT/tests/run/run-corpus"
MMA="$BATS_TEST_DIRNAME/mma"

# wg FILE WARPS PATTERN COUNT: the PTX (stages, tile-sched --num-warps) has
# COUNT wgmma lines matching PATTERN, the wgmma protocol around them, no
# mma.sync, no local memory; ptxas accepts it with no spills
wg() {
	pipe "$1" sm_90 --num-warps="$2" >"$SCRATCH/k.ptx" || fail "$1: stages"
	grep -q '^\.target sm_90a' "$SCRATCH/k.ptx" || fail "$1: not .target sm_90a"
	[ "$(grep -c -- "wgmma.mma_async.sync.aligned.$3" "$SCRATCH/k.ptx")" -eq "$4" ] ||
		fail "$1 w$2: $(grep -c -- "wgmma.mma_async.sync.aligned.$3" "$SCRATCH/k.ptx") x '$3', not $4: $(grep -o 'wgmma.mma_async[^ ]*' "$SCRATCH/k.ptx" | sort -u)"
	for p in 'fence.proxy.async.shared::cta' 'wgmma.fence.sync.aligned' 'wgmma.commit_group.sync.aligned' 'wgmma.wait_group.sync.aligned 0'; do
		grep -q -- "$p" "$SCRATCH/k.ptx" || fail "$1: no $p"
	done
	if grep -q 'mma.sync\|ldmatrix' "$SCRATCH/k.ptx"; then fail "$1: mma.sync or ldmatrix"; fi
	ptx_ok "$SCRATCH/k.ptx" sm_90 "$1 w$2"
}

@test "wgmma: every operand type on sm_90 to its wgmma (f16 -> f16/f32, bf16, tf32, s8/u8 and mixed, e4m3/e5m2 -> f32/f16), sm_90a, fenced, committed, waited; ptxas accepts, no spills" {
	require_ptxas
	# 64x64 tiles, 4 warps: one warpgroup, one m64n64 per K step (K 32 / 16, 16 / 8, 64 / 32)
	wg "$MMA/mm_f16_f16.tileirbc" 4 'm64n64k16.f16.f16.f16' 2
	wg "$MMA/mm_tf32.tileirbc" 4 'm64n64k8.f32.tf32.tf32' 2
	wg "$MMA/mm_i8.tileirbc" 4 'm64n64k32.satfinite.s32.s8.s8' 2
	wg "$MMA/mm_u8.tileirbc" 4 'm64n64k32.satfinite.s32.u8.u8' 2
	wg "$MMA/mm_e4m3.tileirbc" 4 'm64n64k32.f32.e4m3.e4m3' 2
	wg "$MMA/mm_e4m3_f16.tileirbc" 4 'm64n64k32.f16.e4m3.e4m3' 2
	wg "$MMA/mm_e5m2.tileirbc" 4 'm64n64k32.f32.e5m2.e5m2' 2
	wg "$BATS_TEST_DIRNAME/mma2/mm_mixed_i8u8.tileirbc" 4 'm64n[0-9]*k32.satfinite.s32.s8.u8' 2
	# 8 warps = 2 warpgroups; 64 rows are one m64 block, so they split N: m64n32
	wg "$MMA/mm_f16_f16.tileirbc" 8 'm64n32k16.f16.f16.f16' 2
	# the corpus matmul (f16 and bf16 kernels)
	wg "$CORPUS/13.4/matmul.tileirbc" 4 'm64n64k16.f32.bf16.bf16' 2
	# cuTile's 128x128x32 launch: 8 warps (accumulator), 2 warpgroups over M, n128
	wg "$MMA/launch/matmul.matmul.ln6.5si_mkgq.tileirbc" 8 'm64n128k16.f32.f16.f16' 2
	# the driver makes a cubin of it (ptxas -arch sm_90a)
	tileiras "$MMA/mm_i8.tileirbc" --gpu-name sm_90 -o "$SCRATCH/k.cubin" || fail "driver"
}

@test "wgmma: what keeps the warp-level path on sm_90: f64, f32 (FMA), one warp, products under 64 rows" {
	pipe "$MMA/mm_f64.tileirbc" sm_90 --num-warps=4 >"$SCRATCH/a.ptx"
	grep -q 'mma.sync.aligned.m8n8k4' "$SCRATCH/a.ptx"
	pipe "$MMA/mm_f16_f16.tileirbc" sm_90 --num-warps=1 >"$SCRATCH/b.ptx"
	grep -q 'mma.sync.aligned.m16n8k16' "$SCRATCH/b.ptx"
	# batched 2 x 32x32: rank-2 products of 32 rows
	pipe "$MMA/bmm_f16.tileirbc" sm_90 --num-warps=4 >"$SCRATCH/c.ptx"
	grep -q 'mma.sync.aligned.m16n8k16' "$SCRATCH/c.ptx"
	for f in a b c; do
		if grep -q 'wgmma\|sm_90a' "$SCRATCH/$f.ptx"; then fail "$f: wgmma"; fi
	done
	# sm_80, sm_100, sm_120 never get it (sm_100's tcgen05 is another issue)
	for sm in sm_80 sm_100 sm_120; do
		pipe "$MMA/mm_f16_f16.tileirbc" $sm --num-warps=4 >"$SCRATCH/d.ptx"
		if grep -q wgmma "$SCRATCH/d.ptx"; then fail "$sm: wgmma"; fi
	done
}

@test "wgmma: tile-sched plans the product on the wgmma path and gives the accumulator the warpgroup fragment layout" {
	tile-read "$MMA/mm_f16_f16.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --num-warps=4 --emit=text >"$SCRATCH/s.txt"
	# warp w: rows 16w..16w+15; per 8 columns the m16n8 C fragment (libcommon/mma.h)
	grep -q 'cuda_tile.mmaf .* {plan = {.*path = "wgmma", .*}} : tile<64x64xf16> layout(%[0-9]* = "((2,2,8),(4,8),4):((1,512,8),(2,64),1024)")' "$SCRATCH/s.txt" ||
		fail "$(grep mmaf "$SCRATCH/s.txt")"
	[ "$(grep -c convert_layout "$SCRATCH/s.txt")" -eq 0 ] || fail "conversions"
	# 128x128 over 2 warpgroups (rows 0-63, 64-127)
	tile-read "$MMA/launch/matmul.matmul.ln6.5si_mkgq.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --emit=text >"$SCRATCH/t.txt"
	grep -q 'cuda_tile.mmaf .* {plan = {.*path = "wgmma", .*}} : tile<128x128xf32> layout(%[0-9]* = "((2,2,16),(4,8),(4,2)):((1,1024,8),(2,128),(2048,8192))")' "$SCRATCH/t.txt" ||
		fail "$(grep mmaf "$SCRATCH/t.txt")"
	# a hand-edited plan that says wgmma where the tiling is mma.sync's is the input's error
	tile-read "$MMA/mm_f16_f16.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 |
		sed 's/"path": "ldmatrix"/"path": "wgmma"/' >"$SCRATCH/bad.json"
	grep -q '"path": "wgmma"' "$SCRATCH/bad.json" || fail "could not plant the path"
	plan_rejected sm_80 "its plan's tiling is not the product's on sm_80 (mma.sync's)"
}

@test "wgmma: values against numpy on tile-run, every type, ragged sizes, 1/4/8 warps (sm_90)" {
	need_run
	run "$PY" "$RC" --bin "$BIN" --targets sm_90 mma mm_e4m3 mm_e5m2 mm_e4m3_f16 matmul \
		mm_bt_f16 mm_splitk_f16 mm_epilogue_f16 mm_mixed_i8u8 mm_bt_e4m3_a16
	echo "$output" | grep -v '^ok' || true
	assert_success
	if echo "$output" | grep -q '^FAIL'; then fail "a run failed"; fi
	[ "$(echo "$output" | grep -c '^ok ')" -ge 45 ] || fail "too few runs: $(echo "$output" | tail -1)"
}
