#!/usr/bin/env bats
# MMA operands straight from global to shared memory (issue 15: cp.async
# staging; docs/lowering.md "MMA"): on sm_80+ a tiled_load whose only use is
# a staged product (plan path ldmatrix, wgmma), staged as it is (A; 16-bit B),
# moving aligned 16-byte runs, is copied (the product's plan: a/b = cp_async,
# tile-sched mma.c, libcommon mma_plan.def); tile-ptx
# copies it with cp.async.cg 16 bytes a chunk (zero fill out of bounds) into
# the swizzled staging, a barrier before the first copy, cp.async.wait_all
# before the product. In a K loop (the loop's one product, operands depending
# on it only through the induction variable) two stages: the first step's
# copies before the loop, each step the next step's into the other half
# while this one's product runs (cp.async.wait_group 1). Kernels: cuTile's
# launch bytecode with alignment facts
# (tests/mma/launch: ickz6ktd / xz3hjq93 128x128x32 f16 / bf16, z9tdbcda /
# yd8nx2s3 64x64x32 f16 / bf16).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

L="$BATS_TEST_DIRNAME/mma/launch"
ALIGNED="matmul.matmul.ln6.ickz6ktd matmul.matmul.ln6.xz3hjq93 matmul.matmul.ln6.z9tdbcda matmul.matmul.ln6.yd8nx2s3"

@test "cp.async: aligned launch matmuls copy both operands into a 2- or 4-stage staging on sm_80/90/120 (cp.async.cg 16, prologue, steps ahead in flight, no operand st.shared), ptxas accepts, no spills" {
	require_ptxas
	for f in $ALIGNED; do
		for sm in sm_80 sm_90 sm_120; do
			tile-read "$L/$f.tileirbc" | tile-lower --gpu-name=$sm | tile-sched --emit=text >"$SCRATCH/s.txt"
			grep -q 'cuda_tile.mmaf .*plan = {a = "cp_async", .*b = "cp_async",' "$SCRATCH/s.txt" || fail "$f $sm: not both operands copied"
			# (TMA, where tileiras would use it on sm_90, is tests/tma.bats)
			TILEIRAS_NO_TMA=1 tileiras "$L/$f.tileirbc" --gpu-name $sm --emit=ptx -o "$SCRATCH/k.ptx" || fail "$f $sm"
			grep -q 'cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16, %r[0-9]*;' "$SCRATCH/k.ptx" || fail "$f $sm: no cp.async"
			grep -q 'cp.async.commit_group' "$SCRATCH/k.ptx" || fail "$f $sm: no commit"
			# n stages (2 for the 32 KiB 128x128x32 staging, 4 for 64x64x32: what fits 40 KiB):
			# n-1 prologue groups + one a step, wait for all but the n-1 newest
			# (sm_90's budget is 160 KiB: 4 stages for both; copies a = n-1 steps ahead, n-2 where
			# the product leaves a step's wgmma in flight: sm_90 with 3+ stages)
			n=2; case $f in *z9tdbcda | *yd8nx2s3) n=4 ;; esac
			[ $sm = sm_90 ] && n=4
			a=$((n - 1))
			[ $sm = sm_90 ] && a=$((n - 2))
			grep -q "cuda_tile.mmaf .*stages = $n," "$SCRATCH/s.txt" || fail "$f $sm: not $n stages"
			grep -q 'cuda_tile.mmaf .*a_prefetch = true, .*b_prefetch = true,' "$SCRATCH/s.txt" || fail "$f $sm: prefetch"
			[ "$(grep -c 'cp.async.commit_group' "$SCRATCH/k.ptx")" -eq $((a + 1)) ] || fail "$f $sm: commits"
			grep -q "cp.async.wait_group $a;" "$SCRATCH/k.ptx" || fail "$f $sm: no wait_group $a"
			if grep -q 'cp.async.wait_all' "$SCRATCH/k.ptx"; then fail "$f $sm: waits for all"; fi
			if grep -q 'st.shared' "$SCRATCH/k.ptx"; then fail "$f $sm: operands through registers"; fi
			ptx_ok "$SCRATCH/k.ptx" $sm "$f $sm"
		done
	done
}

@test "cp.async: the copied products against numpy on tile-run (sm_80, sm_90, sm_120), also under racecheck (it flags the race when the barrier before a copy is left out: checked by hand 2026-11-26)" {
	need_run
	cd "$SCRATCH"
	int_matmul_inputs 7 256 128 256
	for f in matmul.matmul.ln6.ickz6ktd matmul.matmul.ln6.z9tdbcda; do
		grid=2,2; [ $f = matmul.matmul.ln6.z9tdbcda ] && grid=4,4
		for g in sm_80 sm_90 sm_120; do
			for chk in memcheck racecheck; do
				rm -rf out
				run tile-run --gpu-name $g --grid $grid --check $chk --out out "$L/$f.tileirbc" \
					a.npy 256 128 128 1 b.npy 128 256 256 1 c.npy 256 256 256 1
				assert_success
				run /usr/bin/python3 -c 'import numpy as np
a = np.load("a.npy").astype(np.float32); b = np.load("b.npy").astype(np.float32)
d = np.abs(np.load("out/10.npy") - a @ b).max()
print(d); assert d == 0'
				assert_success
			done
		done
	done
}

@test "cp.async: what stays on registers: unaligned loads, transposed 8-bit/tf32 B, sm_75, TILE_SCHED_NO_CP_ASYNC" {
	# the corpus matmul has no alignment facts: 2-byte accesses
	tile-read "$CORPUS/13.4/matmul.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --emit=text >"$SCRATCH/a.txt"
	if grep -q '= "cp_async"\|= "tma"' "$SCRATCH/a.txt"; then fail "unaligned load copied"; fi
	# sm_75 has no cp.async
	tile-read "$L/matmul.matmul.ln6.ickz6ktd.tileirbc" | tile-lower --gpu-name=sm_75 | tile-sched --emit=text >"$SCRATCH/b.txt"
	if grep -q '= "cp_async"' "$SCRATCH/b.txt"; then fail "sm_75 copied"; fi
	# the switch that turns it off (to compare both)
	TILE_SCHED_NO_CP_ASYNC=1 tile-read "$L/matmul.matmul.ln6.ickz6ktd.tileirbc" | tile-lower --gpu-name=sm_80 |
		TILE_SCHED_NO_CP_ASYNC=1 tile-sched --emit=text >"$SCRATCH/c.txt"
	if grep -q '= "cp_async"' "$SCRATCH/c.txt"; then fail "TILE_SCHED_NO_CP_ASYNC ignored"; fi
	# one stage: copies, then wait_all before the product
	tile-read "$L/matmul.matmul.ln6.ickz6ktd.tileirbc" | tile-lower --gpu-name=sm_80 |
		TILE_SCHED_NO_PIPELINE=1 tile-sched >"$SCRATCH/one.json"
	grep -q '"a": "cp_async"' "$SCRATCH/one.json" || fail "no copies without the pipeline"
	grep -q '"stages": 1,' "$SCRATCH/one.json" || fail "TILE_SCHED_NO_PIPELINE ignored"
	if grep -q '_prefetch": true' "$SCRATCH/one.json"; then fail "TILE_SCHED_NO_PIPELINE ignored"; fi
	tile-ptx --gpu-name=sm_80 "$SCRATCH/one.json" >"$SCRATCH/one.ptx"
	grep -q 'cp.async.wait_all' "$SCRATCH/one.ptx" || fail "one stage: no wait_all"
	# an aligned 16-byte f8 product (tests/mma2) on sm_90: A is copied, its transposed B is not
	tile-read "$BATS_TEST_DIRNAME/mma2/mm_bt_e4m3_a16.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --emit=text >"$SCRATCH/d.txt"
	grep -q 'cuda_tile.mmaf .*plan = {a = "cp_async", .*b = "registers",' "$SCRATCH/d.txt" || fail "transposed B copied (or A not)"
	# a plan written by hand that copies a load cp.async cannot (2-byte accesses) is the input's error
	planted_copy_rejected cp_async "its product's plan copies it into staging, which this load cannot be"
	# prefetch without a pipelined product (stages edited away) likewise, stagecheck's on entry
	tile-read "$L/matmul.matmul.ln6.ickz6ktd.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched |
		sed 's/"stages": 2/"stages": 1/' >"$SCRATCH/bad2.json"
	run tile-ptx --gpu-name=sm_80 "$SCRATCH/bad2.json"
	assert_failure
	assert_output --partial "its plan prefetches an operand that is not a copy of a pipelined product"
	refute_output --partial "internal"
}
