#!/usr/bin/env bats
# tile-run on Hopper's async machinery (docs/tile-run.md "Hopper"):
# mbarrier, cp.async.bulk.tensor (TMA) with tile-run tensor maps, wgmma with
# shared-memory descriptors in every swizzle mode, warp specialization.
#  - tests/run/hopper/tma_wgmma.ptx (committed, hand-written through
#    gen-tma-wgmma.py; the same PTX and inputs gave the same D on an H100):
#    a producer warp TMA-loads A and B, a consumer warpgroup waits on the
#    mbarrier and multiplies with wgmma; checked exactly against numpy for
#    no swizzle, 32B, 64B and 128B, under memcheck and racecheck, and a
#    control with the wrong swizzle in the descriptors must fail.
#  - tests/run/hopper/tma3d.ptx: a 3-D TMA load, its map's dims reordered (dims=)
#  - tests/run/hopper/bulk.ptx: cp.async.bulk global->shared->global with
#    mbarrier transaction counts and alternating phase parities.
#  - NVIDIA's sm_90 PTX of the corpus matmul, tests/mma and softmax_v4 (when
#    .venv has NVIDIA's tileiras; skipped otherwise).
# Needs Debian's numpy (/usr/bin/python3) and tile-run.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

H="$ROOT/tests/run/hopper"

@test "hopper: TMA + mbarrier + wgmma, every swizzle mode, equals numpy (memcheck)" {
	need_run
	run "$PY" "$H/check-tma-wgmma" "$BIN/tile-run"
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 8 ]
}

@test "hopper: the same under racecheck (mbarrier phases order the TMA writes and the wgmma reads)" {
	need_run
	run "$PY" "$H/check-tma-wgmma" "$BIN/tile-run" --check racecheck
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 8 ]
}

@test "hopper: control: descriptors naming another swizzle than the TMA's give a wrong D" {
	need_run
	run "$PY" "$H/check-tma-wgmma" "$BIN/tile-run" --wrong-swizzle
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c "^ok ")" -eq 6 ]
}

@test "hopper: cp.async.bulk both ways through an mbarrier's phases (bulk.ptx), memcheck catches a copy past the end" {
	need_run
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/in.npy", np.arange(1024, dtype=np.float32) * 3 - 7); np.save("'"$SCRATCH"'/out.npy", np.zeros(1024, np.float32))'
	for seed in 0 1 2; do
		run tile-run "$H/bulk.ptx" --grid 1 --check racecheck --seed $seed --out "$SCRATCH/o" "$SCRATCH/in.npy" "$SCRATCH/out.npy" 4096
		assert_success
		"$PY" -c 'import numpy as np, sys; sys.exit(not (np.load("'"$SCRATCH"'/o/1.npy") == np.arange(1024, dtype=np.float32) * 3 - 7).all())'
	done
	run tile-run "$H/bulk.ptx" --grid 1 "$SCRATCH/in.npy" "$SCRATCH/out.npy" 5120
	assert_failure 3
	assert_output --partial "out-of-bounds global read"
}

@test "hopper: an mbarrier phase nobody completes is a deadlock, not a hang" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	cat > "$SCRATCH/k.ptx" <<'PTX'
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
.reqntid 64
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.shared .align 8 .b64 bar;
	mov.u32 %r0, %tid.x;
	setp.ne.u32 %p0, %r0, 0;
	@%p0 bra W;
	mov.u32 %r1, 65;
	mbarrier.init.shared.b64 [bar], %r1;
W:
	bar.sync 0;
	mbarrier.arrive.shared.b64 %rd0, [bar];
	mov.u32 %r2, 0;
L:
	mbarrier.try_wait.parity.shared.b64 %p1, [bar], %r2;
	@!%p1 bra L;
	ret;
}
PTX
	run tile-run "$SCRATCH/k.ptx" --grid 1
	assert_failure 3
	assert_output --partial "deadlock: 64 threads wait"
	assert_output --partial "mbarrier"
	# 64 expected arrivals: the same kernel completes the phase and exits
	sed -i 's/mov.u32 %r1, 65;/mov.u32 %r1, 64;/' "$SCRATCH/k.ptx"
	run tile-run "$SCRATCH/k.ptx" --grid 1
	assert_success
}

@test "hopper: tensor-map arguments: errors name the argument" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	"$PY" -c 'import numpy' 2>/dev/null || skip "no numpy"
	"$PY" -c 'import numpy as np; np.save("'"$SCRATCH"'/a.npy", np.zeros((64, 64), np.float16))'
	A="$SCRATCH/a.npy"
	# a number where a map belongs: the copy that reads it faults, naming the fix
	run tile-run "$H/tma_wgmma.ptx" --entry tma_wgmma --grid 1 "$A" "$A" "$A" 0 "tmap:1,64x64" 64 1 16 1024
	assert_failure 3
	assert_output --partial "no 2d tile-run tensor map"
	run tile-run "$H/tma_wgmma.ptx" --entry tma_wgmma --grid 1 "$A" "$A" "$A" "tmap:0,64x64,swizzle=64" "tmap:1,64x64" 64 1 16 1024
	assert_failure 1
	assert_output --partial "at most the swizzle span"
	run tile-run "$H/tma_wgmma.ptx" --entry tma_wgmma --grid 1 "$A" "$A" "$A" "tmap:7,64x64" "tmap:1,64x64" 64 1 16 1024
	assert_failure 1
	assert_output --partial "expected tmap:N,BOX"
}

@test "hopper: a 3-D TMA load through a map with reordered dims (tmap:...,dims=) and an mbarrier at [symbol+offset] (tma3d.ptx)" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	"$PY" -c 'import numpy' 2>/dev/null || skip "no numpy"
	cd "$SCRATCH"
	"$PY" -c 'import numpy as np; np.save("x.npy", np.arange(192, dtype=np.float32).reshape(4, 3, 16)); np.save("z.npy", np.zeros(192, np.float32))'
	run tile-run "$H/tma3d.ptx" --grid 1 --check racecheck --out o x.npy z.npy tmap:0,16x4x3,dims=0.2.1
	assert_success
	run "$PY" -c 'import numpy as np; o = np.load("o/1.npy"); x = np.load("x.npy"); assert (o.reshape(3, 4, 16) == x.transpose(1, 0, 2)).all()'
	assert_success
	# the array's own order is another result (the check can fail)
	run tile-run "$H/tma3d.ptx" --grid 1 --out o2 x.npy z.npy tmap:0,16x3x4
	assert_success
	run "$PY" -c 'import numpy as np; o = np.load("o2/1.npy"); x = np.load("x.npy"); assert (o == x.reshape(-1)).all()'
	assert_success
	run tile-run "$H/tma3d.ptx" --grid 1 --out o3 x.npy z.npy tmap:0,16x4x3,dims=0.1.1
	assert_failure 1
	assert_output --partial "dims= names each of the 3 array dims once"
}

@test "hopper: NVIDIA's sm_90 PTX (matmul and tests/mma: wgmma, mbarrier; softmax_v4: warp-specialized TMA store) equals numpy" {
	need_run
	run "$PY" "$H/nvidia-sm90" --bin "$BIN"
	[ "$status" -eq 77 ] && skip "NVIDIA's tileiras not in .venv"
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c '^ok ')" -ge 11 ]
}

@test "hopper: setmaxnreg hands registers from a producer warpgroup to consumers; a raise nobody can pay for, or a .dec upwards, is a fault at its line" {
	need_run
	S="$ROOT/tests/run/setmaxnreg"
	"$PY" -c "import numpy as np; np.save('$SCRATCH/out.npy', np.zeros(384, np.uint32))"
	run "$BIN/tile-run" "$S/handover.ptx" --grid 2 --check racecheck --out "$SCRATCH/o" "$SCRATCH/out.npy"
	echo "$output"
	assert_success
	"$PY" -c "import numpy as np, sys; sys.exit(0 if (np.load('$SCRATCH/o/0.npy') == np.arange(384)).all() else 1)"
	line=$(grep -n "^\s*setmaxnreg.inc" "$S/raise_too_far.ptx" | cut -d: -f1)
	run "$BIN/tile-run" "$S/raise_too_far.ptx" --grid 1 "$SCRATCH/out.npy"
	echo "$output"
	[ "$status" -eq 3 ]
	assert_output --partial "setmaxnreg.inc, for registers no warp gives back"
	assert_output --partial "(PTX line $line)"
	line=$(grep -n "^\s*setmaxnreg.dec" "$S/dec_up.ptx" | cut -d: -f1)
	run "$BIN/tile-run" "$S/dec_up.ptx" --grid 1 "$SCRATCH/out.npy"
	echo "$output"
	[ "$status" -eq 3 ]
	assert_output --partial "setmaxnreg.dec to 200 registers: warp 8 has 168"
	assert_output --partial "(PTX line $line)"
	sed 's/setmaxnreg.dec.sync.aligned.u32 24;/setmaxnreg.dec.sync.aligned.u32 20;/' "$S/handover.ptx" >"$SCRATCH/bad.ptx"
	run "$BIN/tile-run" "$SCRATCH/bad.ptx" --grid 1 "$SCRATCH/out.npy"
	[ "$status" -eq 1 ]
	assert_output --partial "takes a register count from 24 to 256, a multiple of 8"
}
