#!/usr/bin/env bats
# tile-run on Blackwell's tensor memory and tcgen05 (docs/tile-run.md
# "Blackwell"): tests/tcgen05/mma_f16.ptx, one hand-written tcgen05.mma
# (alloc, shared-memory descriptors, commit to an mbarrier, 32x32b loads,
# dealloc) against numpy; one hand-written variant per fault class, each of
# which must stop with exit 3 and name the PTX line; and NVIDIA's own
# sm_100a PTX of the tests' matmuls (warp-specialized tcgen05 kernels fed by
# TMA, their maps filled by NVIDIA's host callback) against numpy, when
# .venv has NVIDIA's tileiras.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

T="$ROOT/tests/tcgen05"

inputs() {
	"$PY" -c "
import numpy as np
r = np.random.default_rng(1)
A = r.integers(-4, 5, (128, 16)).astype(np.float16); B = r.integers(-4, 5, (16, 16)).astype(np.float16)
np.save('$SCRATCH/A.npy', A); np.save('$SCRATCH/B.npy', B); np.save('$SCRATCH/D.npy', np.zeros((128, 16), np.float32))
np.save('$SCRATCH/want.npy', A.astype(np.float32) @ B.astype(np.float32).T)"
}

same() {
	"$PY" -c "
import numpy as np, sys
g, w = np.load('$SCRATCH/o/2.npy'), np.load('$SCRATCH/want.npy')
sys.exit(0 if np.array_equal(g, w) else 'D differs from numpy: %d of %d' % ((g != w).sum(), g.size))"
}

@test "tcgen05: a hand-written tcgen05.mma equals numpy (memcheck, racecheck, shuffled)" {
	need_run
	inputs
	for opts in "--check memcheck" "--check racecheck" "--check racecheck --seed 5"; do
		rm -rf "$SCRATCH/o"
		run "$BIN/tile-run" "$T/mma_f16.ptx" --grid 2 $opts --out "$SCRATCH/o" "$SCRATCH/A.npy" "$SCRATCH/B.npy" "$SCRATCH/D.npy"
		echo "$opts: $output"
		assert_success
		run same
		echo "$output"
		assert_success
	done
}

# fault FILE CHECK 'LINE PATTERN' 'MESSAGE': exit 3, the message, the PTX line
# of the first line matching the pattern
fault() {
	inputs
	local line
	line=$(grep -n -F -- "$3" "$T/$1" | head -1 | cut -d: -f1)
	[ -n "$line" ]
	run "$BIN/tile-run" "$T/$1" --grid 1 --check "$2" --out "$SCRATCH/o" "$SCRATCH/A.npy" "$SCRATCH/B.npy" "$SCRATCH/D.npy"
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	assert_output --partial "$4"
	assert_output --partial "(PTX line $line)"
	[ ! -e "$SCRATCH/o" ]
}

@test "tcgen05 fault: tensor memory never freed" {
	need_run
	fault tmem_leak.ptx memcheck "tcgen05.alloc" "tensor memory leaked: 32 columns at column 0 allocated by warp 0"
}

@test "tcgen05 fault: tensor memory freed twice" {
	need_run
	fault tmem_double_free.ptx memcheck "// again" "which is not an allocated block (double free or wrong size)"
}

@test "tcgen05 fault: a warp reaching lanes outside its quarter" {
	need_run
	fault tmem_quarter.ptx memcheck "tcgen05.ld" "tcgen05.ld by warp 1 reaches tensor-memory lane 0: warp 1 may access lanes 32 to 63 only"
}

@test "tcgen05 fault: columns that are not allocated" {
	need_run
	fault tmem_unallocated.ptx memcheck "tcgen05.ld" "tensor-memory lane 0 column 32 is not allocated"
}

@test "tcgen05 fault: more columns than the 512 a CTA has" {
	need_run
	fault tmem_over_alloc.ptx memcheck "smem+6164" "tcgen05.alloc of 32 columns cannot be satisfied: 512 of 512 are allocated"
}

@test "tcgen05 fault: allocation after relinquishing the permit" {
	need_run
	fault tmem_relinquished.ptx memcheck "smem+6164" "tcgen05.alloc after the CTA gave up its allocation permit"
}

@test "tcgen05 fault: the accumulator read before its product was committed (memcheck)" {
	need_run
	fault commit_missing.ptx memcheck "tcgen05.ld" "is read before the tcgen05.mma of thread 0 that writes it was committed (tcgen05.commit)"
}

@test "tcgen05 fault: the commit's mbarrier not awaited (racecheck)" {
	need_run
	fault commit_not_awaited.ptx racecheck "tcgen05.mma" "tensor-memory race:"
}

@test "tcgen05: malformed forms are one clear error (exit 1)" {
	need_run
	inputs
	sed 's/tcgen05.ld.sync.aligned.32x32b.x16.b32/tcgen05.ld.sync.aligned.32x32b.x8.b32/' "$T/mma_f16.ptx" >"$SCRATCH/bad1.ptx"
	run "$BIN/tile-run" "$SCRATCH/bad1.ptx" --grid 1 "$SCRATCH/A.npy" "$SCRATCH/B.npy" "$SCRATCH/D.npy"
	echo "$output"
	[ "$status" -eq 1 ]
	assert_output --partial "takes a vector of 8 registers"
	sed 's/cta_group::1.kind::f16/cta_group::2.kind::f16/' "$T/mma_f16.ptx" >"$SCRATCH/bad2.ptx"
	run "$BIN/tile-run" "$SCRATCH/bad2.ptx" --grid 1 "$SCRATCH/A.npy" "$SCRATCH/B.npy" "$SCRATCH/D.npy"
	echo "$output"
	[ "$status" -eq 1 ]
	assert_output --partial "unsupported"
}

@test "tcgen05: NVIDIA's sm_100a PTX of the tests' matmuls (tcgen05, TMA, warp-specialized; block-scaled e4m3 through tcgen05.cp) equals numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_100 launch large_scaled_e4m3
	echo "$output"
	assert_success
	assert_output --partial "NVIDIA ok 6; ours ok 6"
	grep -l 'tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale' "$SCRATCH"/nv/*sm_100.ptx >/dev/null ||
		fail "NVIDIA's sm_100 block-scaled matmul is no tcgen05 block_scale kernel any more"
	grep -l 'tcgen05.cp' "$SCRATCH"/nv/*sm_100.ptx >/dev/null || fail "no tcgen05.cp"
}

@test "tcgen05: NVIDIA's sm_100a attention (tcgen05 products, P V with P read from tensor memory, TMA) equals numpy" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --targets sm_100 \
		fmha_launch_128 fmha_f16_aligned_128 fmha_bf16_aligned
	echo "$output"
	assert_success
	assert_output --partial "NVIDIA ok 3; ours ok 3"
	grep -l 'tcgen05.mma' "$SCRATCH"/nv/*sm_100.ptx >/dev/null || fail "NVIDIA's sm_100 attention has no tcgen05.mma any more"
}
