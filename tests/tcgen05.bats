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
	sed 's/cta_group::1.kind::f16/cta_group::1.kind::mxf4/' "$T/mma_f16.ptx" >"$SCRATCH/bad2.ptx"
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

@test "tcgen05: NVIDIA's sm_100a matmuls and attention under racecheck (TMEM read only after the commit's mbarrier phase); with its epilogue's wait removed, a race" {
	need_run
	require_nvidia
	run "$PY" "$ROOT/scripts/check-emulator" --bin "$BIN" --cache "$SCRATCH/nv" --check racecheck --targets sm_100 \
		launch/mm_i8 launch/mm_tf32 fmha_launch_128 large_scaled_e4m3
	echo "$output"
	assert_success
	assert_output --partial "NVIDIA ok 4; ours ok 4"
	# the i8 matmul's epilogue: the wait for the accumulator's mbarrier just before its tcgen05.ld, made a no-op
	f=$(ls "$SCRATCH"/nv/mm.kernels.ln8.4gsfbzaa.*.sm_100.ptx)
	w=$(grep -n 'tcgen05.ld' "$f" | head -1 | cut -d: -f1)
	t=$(head -n "$w" "$f" | grep -n 'mbarrier.try_wait.parity' | tail -1 | cut -d: -f1)
	p=$(sed -n "${t}p" "$f" | sed 's/.*try_wait.parity.shared.b64 *\(%p[0-9]*\),.*/\1/')
	sed "${t}s/.*/\tmov.pred $p, 1;/" "$f" >"$SCRATCH/nowait.ptx"
	BIN="$BIN" run "$PY" - "$ROOT" "$SCRATCH/nowait.ptx" "$f.host.o" <<'PY'
import os, sys, tempfile
root, ptx, host = sys.argv[1:]
sys.path[:0] = [os.path.join(root, "tests", "run"), os.path.join(root, "tests", "gpu")]
import runner
k = runner.select(runner.kernels(sizes_mode="small"), ["launch/mm_i8"])[0]
text = open(ptx).read()
tmp = tempfile.mkdtemp()
for tag, make in k.variants:
    print(runner.run(os.path.join(os.environ["BIN"], "tile-run"), ptx, "sm_100", k.entry_in(text), make(), "racecheck", tmp,
                     ("--nv-host", host)))
PY
	echo "$output"
	assert_output --partial "tensor-memory race"
}

# tcgen05_ptx SM BYTECODE OUT: our PTX through the stages with TMA, TILE_TCGEN05=1
tcgen05_ptx() {
	TILE_TCGEN05=1 "$BIN/tile-read" "$2" | TILE_TCGEN05=1 "$BIN/tile-lower" --gpu-name="$1" |
		TILE_TCGEN05=1 "$BIN/tile-sched" --tma | TILE_TCGEN05=1 "$BIN/tile-ptx" --gpu-name="$1" >"$3"
}

@test "tcgen05, ours (TILE_TCGEN05=1, sm_100/103/110): the warpgroup path's products by tcgen05.mma into tensor memory; no mma.sync or wgmma; ptxas accepts, no stack or spill" {
	require_ptxas
	for sm in sm_100 sm_103 sm_110; do
		for f in "$ROOT"/tests/mma/launch/matmul.matmul.ln6.ickz6ktd.tileirbc "$ROOT"/tests/mma/launch/mm.kernels.ln8.wca6jnu0.tileirbc \
			"$ROOT"/tests/fmha/fmha_f16.tileirbc; do
			tcgen05_ptx $sm "$f" "$SCRATCH/k.ptx" || fail "$sm $(basename "$f"): stages"
			for p in 'tcgen05.alloc.cta_group::1' 'tcgen05.mma.cta_group::1.kind::f16' 'tcgen05.commit' \
				'tcgen05.ld.sync.aligned' 'tcgen05.st.sync.aligned' 'tcgen05.dealloc'; do
				grep -q "$p" "$SCRATCH/k.ptx" || fail "$sm $(basename "$f"): no $p"
			done
			if grep -q 'mma.sync\|wgmma\|\.local' "$SCRATCH/k.ptx"; then fail "$sm $(basename "$f"): mma.sync, wgmma or local"; fi
			ptxas -arch=${sm}a -v "$SCRATCH/k.ptx" -o "$SCRATCH/k.o" 2>"$SCRATCH/v" || fail "$sm $(basename "$f"): ptxas: $(head -3 "$SCRATCH/v")"
			if grep 'stack frame' "$SCRATCH/v" | grep -qv ' 0 bytes stack frame, 0 bytes spill stores'; then
				fail "$sm $(basename "$f"): $(grep 'stack frame' "$SCRATCH/v")"
			fi
		done
	done
	# without the knob: the default path (mma.sync), unchanged
	"$BIN/tile-read" "$ROOT"/tests/mma/launch/matmul.matmul.ln6.ickz6ktd.tileirbc | "$BIN/tile-lower" --gpu-name=sm_100 |
		"$BIN/tile-sched" --tma | "$BIN/tile-ptx" --gpu-name=sm_100 >"$SCRATCH/d.ptx"
	grep -q 'mma.sync' "$SCRATCH/d.ptx" && ! grep -q tcgen05 "$SCRATCH/d.ptx"
}

@test "tcgen05, ours (TILE_TCGEN05=1): matmuls (f16, bf16, tf32, i8, u8, f16 out, TN, epilogue) and attention equal numpy on tile-run with TMA, 4 and 8 warps, under racecheck" {
	need_run
	export TILE_TCGEN05=1
	run "$PY" "$ROOT/tests/run/run-corpus" --bin "$BIN" --targets sm_100 --warps 4,8 --sched-flags=--tma \
		--check racecheck launch matmul mm_bt_f16 mm_epilogue_f16 fmha_f16 fmha_launch_64
	echo "$output" | grep -v '^ok' || true
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -eq 26 ]
	echo "$output" | grep -q '^ok   fmha_f16 ' || fail "no attention run"
}
