#!/usr/bin/env bats
# Tensor cores, warp level (issue 15, first slice; docs/lowering.md "MMA"):
# cuda_tile.mmaf with f16 / bf16 operands and an f32 accumulator through
# mma.sync.aligned.m16n8k16 on sm_80 and newer. The corpus matmul
# (tests/kernels/matmul.py: 64x64x32 tiles in a K loop) to PTX and a cubin
# for every target, the fragment layouts tile-sched gives, the atom count,
# tile-run's mma.sync; the other operand types (tests/mma, made by
# tests/mma/gen-mma): f16 accumulator, tf32, i8, f64, f32 (FMA), sm_75.
# Values against numpy: tests/run.bats ("run-corpus: matmul", "... mma");
# NVIDIA's PTX of the same kernels on tile-run: scripts/check-emulator
# matmul mma (needs .venv).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

MM="$CORPUS/13.4/matmul.tileirbc"

@test "mma: the corpus matmul compiles for sm_80/89/90/100/120: mma.sync f16 and bf16 fed by ldmatrix (.trans for B; wgmma on sm_90), no local memory, ptxas accepts, no spills" {
	require_ptxas
	for sm in sm_80 sm_89 sm_90 sm_100 sm_120; do
		tileiras "$MM" --gpu-name "$sm" --emit=ptx -o "$SCRATCH/m.$sm.ptx" 2>"$SCRATCH/err" || fail "$sm: $(head -3 "$SCRATCH/err")"
		# with TMA (sm_90+, the driver's --tma: ptxas 13.2+) each K loop is there twice,
		# versioned on alignment (tests/tma.bats)
		arms=1
		grep -q '^// tileiras.tensormap ' "$SCRATCH/m.$sm.ptx" && arms=2
		if [ $sm = sm_90 ]; then
			# warpgroup MMA (tests/wgmma.bats): 64x64x32 = one m64n64 per K step of 16, two
			# kernels
			[ "$(grep -c 'wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16' "$SCRATCH/m.$sm.ptx")" -eq $((2 * arms)) ] || fail "sm_90: f16 wgmma"
			[ "$(grep -c 'wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16' "$SCRATCH/m.$sm.ptx")" -eq $((2 * arms)) ] || fail "sm_90: bf16 wgmma"
			if grep -q 'mma.sync\|ldmatrix' "$SCRATCH/m.$sm.ptx"; then fail "sm_90: mma.sync or ldmatrix beside wgmma"; fi
			ptx_ok "$SCRATCH/m.$sm.ptx" "$sm" "$sm"
			continue
		fi
		grep -q 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' "$SCRATCH/m.$sm.ptx" || fail "$sm: no f16 mma.sync"
		grep -q 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32' "$SCRATCH/m.$sm.ptx" || fail "$sm: no bf16 mma.sync"
		# per kernel and K step: A 4 x ldmatrix.x4, B 4 x ldmatrix.x4.trans (2 kernels)
		[ "$(grep -c 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' "$SCRATCH/m.$sm.ptx")" -eq $((8 * arms)) ] || fail "$sm: A ldmatrix count"
		[ "$(grep -c 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' "$SCRATCH/m.$sm.ptx")" -eq $((8 * arms)) ] || fail "$sm: B ldmatrix.trans count"
		ptx_ok "$SCRATCH/m.$sm.ptx" "$sm" "$sm"
		tileiras "$MM" --gpu-name "$sm" -o "$SCRATCH/m.$sm.cubin" || fail "$sm: driver"
	done
}

@test "mma: one mma.sync per m16n8k16 atom of each warp (64x64x32: 64 atoms over 4 warps = 16, over 8 warps = 8)" {
	pipe "$MM" sm_80 --num-warps=4 >"$SCRATCH/w4.ptx"
	pipe "$MM" sm_80 --num-warps=8 >"$SCRATCH/w8.ptx"
	# two kernels (f16, bf16) in the module
	[ "$(grep -c 'mma.sync' "$SCRATCH/w4.ptx")" -eq 32 ] || fail "4 warps: $(grep -c 'mma.sync' "$SCRATCH/w4.ptx") mma.sync"
	[ "$(grep -c 'mma.sync' "$SCRATCH/w8.ptx")" -eq 16 ] || fail "8 warps: $(grep -c 'mma.sync' "$SCRATCH/w8.ptx") mma.sync"
}

@test "mma: tile-sched gives the accumulator its fragment layout; f16/bf16/tf32/i8 operands go via_ldmatrix (no conversion), f64 ones are converted into their fragments" {
	tile-read "$MM" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 --emit=text >"$SCRATCH/s.txt"
	# 2x2 warps of 32x32, 2x4 atoms of 16x8 each (libcommon/mma.h)
	grep -q 'cuda_tile.mmaf .* {plan = {.*path = "ldmatrix", .*}} : tile<64x64xf32> layout(%[0-9]* = "((2,2,4,2),(4,8),(2,2)):((1,512,8,1024),(2,64),(2048,32))")' "$SCRATCH/s.txt" ||
		fail "accumulator: $(grep mmaf "$SCRATCH/s.txt" | head -1)"
	# A and B stay in their load layouts (tile-ptx stages them for ldmatrix); the epilogue
	# (ftof, store) keeps the accumulator's layout: no conversion anywhere
	[ "$(grep -c convert_layout "$SCRATCH/s.txt")" -eq 0 ] || fail "$(grep -c convert_layout "$SCRATCH/s.txt") conversions, not 0"
	for k in mm_tf32 mm_i8; do
		tile-read "$BATS_TEST_DIRNAME/mma/$k.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 --emit=text >"$SCRATCH/t.txt"
		grep -q 'cuda_tile.mma[fi] .*path = "ldmatrix"' "$SCRATCH/t.txt" || fail "$k: not via ldmatrix"
		[ "$(grep -c convert_layout "$SCRATCH/t.txt")" -eq 0 ] || fail "$k: conversions"
	done
	# f64 (m8n8k4) has no ldmatrix path: its operands are converted into the fragments
	tile-read "$BATS_TEST_DIRNAME/mma/mm_f64.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 --emit=text >"$SCRATCH/t.txt"
	grep -q 'cuda_tile.mmaf .*path = "registers"' "$SCRATCH/t.txt" || fail "f64: not in registers"
	if grep -q 'path = "ldmatrix"' "$SCRATCH/t.txt"; then fail "f64 via ldmatrix"; fi
	[ "$(grep -c convert_layout "$SCRATCH/t.txt")" -eq 2 ] || fail "f64: $(grep -c convert_layout "$SCRATCH/t.txt") conversions, not 2"
}

@test "mma: every operand type to its instruction (tests/mma: f16 acc, tf32, i8, f64; f32 by FMA as NVIDIA), ptxas accepts" {
	require_ptxas
	check() {     # FILE SM PATTERN COUNT: COUNT lines of PATTERN (one kernel, 4 warps)
		pipe "$BATS_TEST_DIRNAME/mma/$1.tileirbc" "$2" --num-warps=4 >"$SCRATCH/k.ptx" || fail "$1 $2"
		[ "$(grep -c -- "$3" "$SCRATCH/k.ptx")" -eq "$4" ] || fail "$1 $2: $(grep -c -- "$3" "$SCRATCH/k.ptx") x '$3', not $4"
		ptx_ok "$SCRATCH/k.ptx" "$2" "$1 $2"
	}
	# 64x64 tiles: 32 m16n8 atoms over 4 warps = 8 per warp, times K atoms
	check mm_f16_f16 sm_80 'mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16' 16
	check mm_f16_f16 sm_75 'mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16' 32
	# f16 operands through ldmatrix on sm_75 too (4 .x4 for A, 4 .x4.trans for B)
	check mm_f16_f16 sm_75 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' 4
	check mm_f16_f16 sm_80 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 4
	check mm_tf32 sm_80 'mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32' 16
	check mm_i8 sm_80 'mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32' 16
	check mm_i8 sm_120 'mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32' 16
	check mm_u8 sm_80 'mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32' 16
	# i8 and tf32 through ldmatrix too: A from the row-major tile, B from its transpose (no .trans)
	check mm_i8 sm_80 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 8
	check mm_i8 sm_89 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 8
	check mm_tf32 sm_80 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 8
	check mm_tf32 sm_90 'wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32' 2
	check mm_tf32 sm_100 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 8
	check mm_f16_f16 sm_120 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' 4
	# 32x32x8 f64: 16 m8n8 atoms over 4 warps = 4, times 2 K atoms
	check mm_f64 sm_80 'mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64' 8
	# 64x64x16 f32: 4096x16 FMAs over 128 threads, no tensor core (NVIDIA's choice too)
	check mm_f32 sm_80 'fma.rn.f32' 512
	check mm_f32 sm_75 'fma.rn.f32' 512
	if grep -q mma.sync "$SCRATCH/k.ptx"; then fail "f32 through mma.sync"; fi
	# 8-bit floats (sm_89+): m16n8k32 with the i8 fragments, 64x64x64 = 8 atoms per warp x 2 K atoms
	check mm_e4m3 sm_89 'mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32' 16
	check mm_e5m2 sm_89 'mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32' 16
	check mm_e5m2 sm_90 'wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2' 2
	check mm_e4m3_f16 sm_120 'mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16' 16
	check mm_e4m3 sm_89 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 8
	# batched (tile-lower: one rank-2 product per batch): 2 x (32x32x32 f16: 8 atoms x 2 K atoms / 4 warps)
	check bmm_f16 sm_80 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' 8
	check bmm_i8 sm_90 'mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32' 8
}

@test "mma: mmaf_scaled on sm_120/sm_121 is mma.sync kind::mxf8f6f4.block_scale (as NVIDIA's), on sm_100 decoded f32 operands by FMA in a loop over K chunks of one scale block; no spills; refused below as NVIDIA's (exit 5)" {
	require_ptxas
	M="$BATS_TEST_DIRNAME/mma/mm_scaled_e4m3.tileirbc"
	for g in sm_120 sm_121; do
		tileiras --gpu-name $g --emit=ptx -o "$SCRATCH/s.ptx" "$M"
		grep -q "^\.target ${g}a" "$SCRATCH/s.ptx" || fail "$g: $(grep '^.target' "$SCRATCH/s.ptx")"
		# 32x32x64 tiles at 4 warps: one 16x8 atom a warp x two K atoms (one ue8m0 scale per row/column each)
		[ "$(grep -c 'mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0' "$SCRATCH/s.ptx")" -eq 4 ] ||
			fail "$g: not 4 block-scaled mma.sync"
		if grep -q "fma.rn.f32" "$SCRATCH/s.ptx"; then fail "$g: decoded FMA product"; fi
		[ "$(tile-read "$M" | tile-lower --gpu-name=$g --emit=text | grep -c 'cuda_tile.mmaf_scaled ')" -eq 1 ] ||
			fail "$g: mmaf_scaled not kept"
		ptxas -arch=${g}a -v "$SCRATCH/s.ptx" -o "$SCRATCH/s.o" 2>"$SCRATCH/v" || fail "$g: ptxas"
		if grep -E '[1-9][0-9]* bytes spill' "$SCRATCH/v"; then fail "$g: spills"; fi
		tileiras --gpu-name $g -o "$SCRATCH/s.cubin" "$BATS_TEST_DIRNAME/mma/mm_scaled_e5m2.tileirbc"
	done
	tileiras --gpu-name sm_100 --emit=ptx -o "$SCRATCH/s.ptx" "$M"
	grep -q "fma.rn.f32" "$SCRATCH/s.ptx"
	if grep -q "block_scale" "$SCRATCH/s.ptx"; then fail "sm_100: block_scale"; fi
	# the f32 product over K = 64 in a loop over K chunks of one scale block (32; tile-lower
	# k_chunks.c), each two FMA chunks of 16: no spills at 4 warps, one chunk's code
	tile-read "$M" | tile-lower --gpu-name=sm_100 --emit=text >"$SCRATCH/l100.txt"
	[ "$(grep -c 'cuda_tile.mmaf ' "$SCRATCH/l100.txt")" -eq 2 ] || fail "sm_100: not 2 chunked products"
	[ "$(grep -c 'cuda_tile.for ' "$SCRATCH/l100.txt")" -eq 2 ] || fail "sm_100: no loop over the K chunks"
	grep -q 'tiled_load .*: tile<32x32xf8E4M3FN>' "$SCRATCH/l100.txt" || fail "sm_100: x not loaded a chunk at a time"
	ptxas -arch=sm_100a -v "$SCRATCH/s.ptx" -o "$SCRATCH/s.o" 2>"$SCRATCH/v" || fail "sm_100: ptxas"
	if grep -E '[1-9][0-9]* bytes spill' "$SCRATCH/v"; then fail "sm_100: spills"; fi
	for g in sm_80 sm_90; do
		run tileiras --gpu-name $g -o "$SCRATCH/x.cubin" "$M"
		assert_failure 5
		assert_output --partial "is not supported on $g"
	done
}

@test "mma: a hand-written block-scaled product on a target without one is the input's error (tile-ptx exit 1, located), not an internal one" {
	tile-read "$BATS_TEST_DIRNAME/mma/mm_scaled_e4m3.tileirbc" | tile-lower --gpu-name=sm_120 | tile-sched >"$SCRATCH/s.json"
	sed 's/"sm_120"/"sm_100"/' "$SCRATCH/s.json" >"$SCRATCH/s100.json"
	run tile-ptx --gpu-name=sm_100 "$SCRATCH/s100.json"
	assert_failure 1
	assert_output --partial "no block-scaled MMA for this product on sm_100"
	assert_output --partial 'loc("'
}

@test "mma: an accumulator of more than 64 registers a thread at 4 warps gets 8 warps: 128x128 f16/bf16 launch matmuls without spills, right on tile-run" {
	require_ptxas
	for f in matmul.matmul.ln6.5si_mkgq matmul.matmul.ln6.uz_q1cik; do
		for g in sm_80 sm_90; do
			tileiras --gpu-name $g --emit=ptx -o "$SCRATCH/k.ptx" "$BATS_TEST_DIRNAME/mma/launch/$f.tileirbc"
			grep -q '^\.reqntid 256' "$SCRATCH/k.ptx" || fail "$f $g: $(grep reqntid "$SCRATCH/k.ptx")"
			a=$g; [ $g = sm_90 ] && a=sm_90a
			ptxas -arch=$a -v "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" 2>"$SCRATCH/v" || fail "$f $g: ptxas"
			if grep -E '[1-9][0-9]* bytes spill' "$SCRATCH/v"; then fail "$f $g: spills"; fi
		done
	done
	# the corpus matmul (64x64 tiles: 32 a thread) keeps 4 warps
	tileiras --gpu-name sm_80 --emit=ptx -o "$SCRATCH/m.ptx" "$ROOT/tests/corpus/13.4/matmul.tileirbc"
	grep -q '^\.reqntid 128' "$SCRATCH/m.ptx"
	[ -x "$BIN/tile-run" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null || skip "tile-run or numpy missing"
	cd "$SCRATCH"
	int_matmul_inputs 5 256 64 256
	for g in sm_80 sm_90; do
		rm -rf out
		run tile-run --gpu-name $g --grid 2,2 --out out "$BATS_TEST_DIRNAME/mma/launch/matmul.matmul.ln6.5si_mkgq.tileirbc" \
			a.npy 256 64 64 1 b.npy 64 256 256 1 c.npy 256 256 256 1
		assert_success
		/usr/bin/python3 -c 'import numpy as np, sys
a, b, c = np.load("a.npy").astype(np.float64), np.load("b.npy").astype(np.float64), np.load("out/10.npy")
sys.exit(0 if np.array_equal(c, (a @ b).astype(np.float32)) else "wrong product")'
	done
}

@test "mma: 8-bit float products below sm_89 are rejected like NVIDIA's (exit 5)" {
	run tileiras --gpu-name sm_80 -o "$SCRATCH/k.cubin" "$BATS_TEST_DIRNAME/mma/mm_e4m3.tileirbc"
	assert_failure 5
	assert_output --partial "8-bit floats are not supported on sm_80"
	[ ! -e "$SCRATCH/k.cubin" ]
}

@test "mma: a product the target has no instruction for is a located 'not supported' error (f64 on sm_75)" {
	run tileiras "$BATS_TEST_DIRNAME/mma/mm_f64.tileirbc" --gpu-name sm_75 -o "$SCRATCH/k.cubin"
	assert_failure 5
	assert_output --partial "tests/mma/kernels.py:16:14: error: 'cuda_tile.mmaf' op: a f64 x f64 -> f64 product on sm_75 is not supported"
	refute_output --partial 'internal error'
}

@test "mma: tile-run executes mma.sync m16n8k16 and rejects shapes it does not have" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	# one warp, A and B all 1.0 (f16x2 0x3c003c00), C = (1, 2, 1, 2): D = C + 16
	cat >"$SCRATCH/k.ptx" <<-'EOF'
		.version 8.0
		.target sm_80
		.address_size 64
		.visible .entry k(.param .u64 out)
		{
			.reg .b32 %r<20>;
			.reg .f32 %f<12>;
			.reg .b64 %rd<4>;
			ld.param.u64 %rd1, [out];
			mov.u32 %r1, %tid.x;
			mov.b32 %r2, 0x3c003c00;
			mov.f32 %f1, 0f3F800000;
			mov.f32 %f2, 0f40000000;
			mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r2,%r2,%r2,%r2}, {%r2,%r2}, {%f1,%f2,%f1,%f2};
			mul.wide.u32 %rd2, %r1, 16;
			add.s64 %rd3, %rd1, %rd2;
			st.global.v4.f32 [%rd3], {%f5,%f6,%f7,%f8};
			ret;
		}
	EOF
	/usr/bin/python3 -c 'import numpy; numpy.save("'"$SCRATCH"'/o.npy", numpy.zeros(128, numpy.float32))'
	run tile-run --gpu-name sm_80 --entry k --grid 1,1,1 --block 32,1,1 --out "$SCRATCH/res" "$SCRATCH/k.ptx" "$SCRATCH/o.npy"
	assert_success
	run /usr/bin/python3 -c 'import numpy,glob,sys; a=numpy.load(sorted(glob.glob("'"$SCRATCH"'/res/*.npy"))[0]); print(sorted(set(a.tolist())))'
	assert_output "[17.0, 18.0]"
	sed -i 's/m16n8k16/m16n8k32/' "$SCRATCH/k.ptx"
	run tile-run --gpu-name sm_80 --entry k --grid 1,1,1 --block 32,1,1 --out "$SCRATCH/res2" "$SCRATCH/k.ptx" "$SCRATCH/o.npy"
	assert_failure 1
	assert_output --partial "m16n8k32"
}

@test "mma: tile-run's ldmatrix .x1/.x2/.x4 and .trans give each lane the PTX ISA's fragment (row t/4, columns 2(t%4), +1)" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	# 32 rows of 16 bytes (four 8x8 b16 matrices) copied to shared memory; lane l gives row l's address
	cat >"$SCRATCH/k.ptx" <<-'EOF2'
		.version 8.0
		.target sm_80
		.address_size 64
		.visible .entry k(.param .u64 in, .param .u64 out)
		{
			.shared .align 16 .b8 sm[512];
			.reg .b32 %r<12>;
			.reg .b64 %rd<10>;
			ld.param.u64 %rd1, [in];
			ld.param.u64 %rd2, [out];
			mov.u32 %r1, %tid.x;
			mul.wide.u32 %rd3, %r1, 16;
			add.s64 %rd4, %rd1, %rd3;
			ld.global.v4.b32 {%r2,%r3,%r4,%r5}, [%rd4];
			mov.u64 %rd5, sm;
			add.s64 %rd6, %rd5, %rd3;
			st.shared.v4.b32 [%rd6], {%r2,%r3,%r4,%r5};
			bar.sync 0;
			mov.b32 %r6, 0; mov.b32 %r7, 0; mov.b32 %r8, 0; mov.b32 %r9, 0;
			ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6,%r7,%r8,%r9}, [%rd6];
			add.s64 %rd8, %rd2, %rd3;
			st.global.v4.b32 [%rd8], {%r6,%r7,%r8,%r9};
			ret;
		}
	EOF2
	/usr/bin/python3 -c 'import numpy; numpy.save("'"$SCRATCH"'/in.npy", numpy.arange(256, dtype=numpy.uint16) * 7 + 3); numpy.save("'"$SCRATCH"'/o.npy", numpy.zeros(128, numpy.uint32))'
	expect() {    # NMAT TRANS OUTDIR: every lane's registers against numpy
		/usr/bin/python3 - "$1" "$2" "$3" "$SCRATCH/in.npy" <<-'EOF2'
			import numpy, sys
			nm, tr, out = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3]
			M = numpy.load(sys.argv[4]).astype(numpy.uint32).reshape(4, 8, 8)
			got = numpy.load(out + "/1.npy").reshape(32, 4)
			for t in range(32):
			    for i in range(4):
			        r, c = t // 4, 2 * (t % 4)
			        lo, hi = (M[i][c][r], M[i][c + 1][r]) if tr else (M[i][r][c], M[i][r][c + 1])
			        want = int(lo | hi << 16) if i < nm else 0
			        if int(got[t][i]) != want:
			            sys.exit("lane %d matrix %d: %#x, not %#x" % (t, i, int(got[t][i]), want))
		EOF2
	}
	check() {     # NAME NMAT TRANS [SED]: k.ptx (edited by SED) run on tile-run into NAME, against expect
		if [ $# -gt 3 ]; then sed "$4" "$SCRATCH/k.ptx" >"$SCRATCH/$1.ptx"; else cp "$SCRATCH/k.ptx" "$SCRATCH/$1.ptx"; fi
		run tile-run --gpu-name sm_80 --entry k --grid 1,1,1 --block 32,1,1 --out "$SCRATCH/$1" "$SCRATCH/$1.ptx" "$SCRATCH/in.npy" "$SCRATCH/o.npy"
		assert_success
		run expect "$2" "$3" "$SCRATCH/$1"
		assert_success
	}
	check r4 4 0
	check t4 4 1 's/x4.shared.b16/x4.trans.shared.b16/'
	check t2 2 1 's/x4.shared.b16 {%r6,%r7,%r8,%r9}/x2.trans.shared.b16 {%r6,%r7}/'
	check n1 1 0 's/x4.shared.b16 {%r6,%r7,%r8,%r9}/x1.shared.b16 {%r6}/'
}

@test "mma: a plan that says ldmatrix for a product ldmatrix cannot feed (hand-written IR: f64) is a located error of the input, not an internal one" {
	tile-read "$BATS_TEST_DIRNAME/mma/mm_f64.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --num-warps=4 >"$SCRATCH/s.json"
	/usr/bin/python3 - "$SCRATCH/s.json" >"$SCRATCH/m.json" <<-'EOF2'
		import json, sys
		d = json.load(open(sys.argv[1]))
		def walk(x):
		    if isinstance(x, dict):
		        if x.get("op") == "cuda_tile.mmaf":
		            x["attrs"]["plan"]["dict"]["path"] = "ldmatrix"
		        for v in x.values(): walk(v)
		    elif isinstance(x, list):
		        for v in x: walk(v)
		walk(d)
		json.dump(d, sys.stdout)
	EOF2
	run tile-ptx --gpu-name=sm_80 <"$SCRATCH/s.json"
	assert_success
	run tile-ptx --gpu-name=sm_80 <"$SCRATCH/m.json"
	assert_failure 1
	assert_output --partial "loc(\"tests/mma/kernels.py\":16:14): error: 'cuda_tile.mmaf' op: its plan says ldmatrix, which cannot feed a f64 product on sm_80"
	refute_output --partial 'internal error'
}

# Products of any shape (issue 41; docs/lowering.md section 10 "Products of any
# shape", "Shared memory past 48 KiB"). Values against numpy: tests/run.bats
# ("run-corpus: mma ...": tests/run/extra.py small_* and large_f16).
@test "mma: products smaller than the atom by FMA as NVIDIA's (tests/mma small_*: every type, 2x2x2 up), sm_80/89/90/100/120, ptxas accepts, no spills; at the atom still mma.sync" {
	require_ptxas
	for f in "$BATS_TEST_DIRNAME"/mma/small_*.tileirbc; do
		name=$(basename "$f" .tileirbc)
		for sm in sm_80 sm_89 sm_90 sm_100 sm_120; do
			case $name in *e4m3*|*e5m2*) [ $sm = sm_80 ] && continue ;; esac
			pipe "$f" $sm --num-warps=4 >"$SCRATCH/k.ptx" 2>"$SCRATCH/err" || fail "$name $sm: $(head -3 "$SCRATCH/err")"
			ptx_ok "$SCRATCH/k.ptx" $sm "$name $sm"
		done
	done
	# small_f16: seven of its eight entries below m16n8k16 by f32 FMA, 16x16x16 by mma.sync
	pipe "$BATS_TEST_DIRNAME/mma/small_f16.tileirbc" sm_80 --num-warps=4 >"$SCRATCH/f16.ptx"
	grep -q 'fma.rn.f32' "$SCRATCH/f16.ptx" || fail "small_f16: no fma.rn.f32"
	[ "$(grep -c 'mma.sync.aligned.m16n8k16' "$SCRATCH/f16.ptx")" -ge 1 ] || fail "small_f16 16x16x16: no mma.sync"
	awk '/^\.visible \.entry/{e=$3} /mma.sync/{print e}' "$SCRATCH/f16.ptx" | sort -u >"$SCRATCH/mma_entries"
	[ "$(wc -l <"$SCRATCH/mma_entries")" -eq 1 ] && grep -q 'I16_I16_I16' "$SCRATCH/mma_entries" || fail "mma.sync in: $(cat "$SCRATCH/mma_entries")"
	# i8 below m16n8k32: integer multiply-adds, no mma.sync; f8 (16x16x16 is below k32): f32 FMA
	pipe "$BATS_TEST_DIRNAME/mma/small_i8u8.tileirbc" sm_80 --num-warps=4 >"$SCRATCH/i8.ptx"
	if grep -q 'mma.sync' "$SCRATCH/i8.ptx"; then fail "small_i8u8: mma.sync"; fi
	grep -q 'mad.lo.s32\|mul.lo.s32' "$SCRATCH/i8.ptx" || fail "small_i8u8: no integer multiply"
	pipe "$BATS_TEST_DIRNAME/mma/small_e4m3.tileirbc" sm_90 --num-warps=4 >"$SCRATCH/f8.ptx"
	grep -q 'cvt.rn.f16x2.e4m3x2' "$SCRATCH/f8.ptx" && grep -q 'fma.rn.f32' "$SCRATCH/f8.ptx" || fail "small_e4m3: not decoded to f32 FMA"
}

@test "mma: shared memory past 48 KiB up to the target's (128x128x128 f16: 64 KiB of staging on sm_80), through tile-pack's ptxas; 256x256x256 in K chunks loaded a chunk at a time" {
	require_ptxas
	LF="$BATS_TEST_DIRNAME/mma/large_f16.tileirbc"
	for sm in sm_80 sm_86 sm_90 sm_100 sm_120; do
		tileiras --gpu-name $sm "$LF" -o "$SCRATCH/l.$sm.cubin" 2>"$SCRATCH/err" || fail "$sm: $(head -3 "$SCRATCH/err")"
	done
	pipe "$LF" sm_80 --num-warps=4 >"$SCRATCH/l.ptx"
	awk '/\.shared .*\[[0-9]+\]/{match($0, /\[[0-9]+\]/); n = substr($0, RSTART + 1, RLENGTH - 2); if (n + 0 > 49152) big++} END{exit big ? 0 : 1}' "$SCRATCH/l.ptx" ||
		fail "no shared array over 48 KiB on sm_80"
	# 256x256x256 f16 is 256 KiB of operands: a loop over 8 chunks of K = 32 on sm_80 (the 40 KiB
	# budget), 2 of 128 on sm_90 (160 KiB), each operand chunk its own tiled_load at the loop's
	# counter, one product in the loop, no extract through shared memory
	for sm in sm_80:8:32 sm_90:2:128; do
		IFS=: read -r t n kc <<<"$sm"
		tile-read "$LF" | tile-lower --gpu-name=$t | tile-ir --emit=text >"$SCRATCH/lo.txt"
		sed -n '/I256_I256_I256/,/^  }/p' "$SCRATCH/lo.txt" >"$SCRATCH/e256.txt"
		[ "$(grep -c 'cuda_tile.mmaf' "$SCRATCH/e256.txt")" -eq 1 ] || fail "$t: $(grep -c 'cuda_tile.mmaf' "$SCRATCH/e256.txt") products, not 1"
		[ "$(grep -c 'cuda_tile.for ' "$SCRATCH/e256.txt")" -eq 1 ] || fail "$t: no loop over the K chunks"
		hex=$(printf '%02x' "$n")
		grep -q "cuda_tile.constant {value = dense<splat \"0x${hex}000000\"> : tile<i32>}" "$SCRATCH/e256.txt" || fail "$t: no trip count $n"
		[ "$(grep -c "tiled_load .*: tile<256x${kc}xf16>" "$SCRATCH/e256.txt")" -eq 1 ] || fail "$t: A chunk loads"
		[ "$(grep -c "tiled_load .*: tile<${kc}x256xf16>" "$SCRATCH/e256.txt")" -eq 1 ] || fail "$t: B chunk loads"
		if grep -q 'cuda_tile.extract\|tile<256x256xf16>' "$SCRATCH/e256.txt"; then fail "$t: a whole operand or an extract left"; fi
	done
	# tf32 operands (f32 loads rounded by ftof) are cut through the rounding: 128x128x128 on sm_120 (99 KiB)
	# is a loop over 4 chunks of 32, each loaded and rounded, no whole operand; a block-scaled product with its scales
	# (128x256x256 e4m3, 96 KiB of staging on sm_120: a loop over 4 chunks of 64, x and y loaded a chunk at a time)
	tile-read "$BATS_TEST_DIRNAME/mma/large_tf32.tileirbc" | tile-lower --gpu-name=sm_120 | tile-ir --emit=text >"$SCRATCH/t.txt"
	[ "$(grep -c 'cuda_tile.mmaf ' "$SCRATCH/t.txt")" -eq 1 ] || fail "tf32: $(grep -c 'cuda_tile.mmaf ' "$SCRATCH/t.txt") products"
	[ "$(grep -c 'ftof .*: tile<128x32xtf32>' "$SCRATCH/t.txt")" -eq 1 ] || fail "tf32: A chunks not rounded one by one"
	if grep -q 'tile<128x128xtf32>\|cuda_tile.extract' "$SCRATCH/t.txt"; then fail "tf32: a whole operand or an extract left"; fi
	tile-read "$BATS_TEST_DIRNAME/mma/large_scaled_e4m3.tileirbc" | tile-lower --gpu-name=sm_120 | tile-ir --emit=text >"$SCRATCH/s.txt"
	[ "$(grep -c 'cuda_tile.mmaf_scaled' "$SCRATCH/s.txt")" -eq 1 ] || fail "scaled: $(grep -c 'cuda_tile.mmaf_scaled' "$SCRATCH/s.txt") products"
	[ "$(grep -c 'tiled_load .*: tile<128x64xf8E4M3FN>' "$SCRATCH/s.txt")" -eq 1 ] || fail "scaled: x chunk loads"
	[ "$(grep -c 'cuda_tile.for ' "$SCRATCH/s.txt")" -eq 2 ] || fail "scaled: no loop over the K chunks (in the kernel's K loop)"
	tileiras --gpu-name sm_120 "$BATS_TEST_DIRNAME/mma/large_scaled_e4m3.tileirbc" -o "$SCRATCH/s.cubin" 2>"$SCRATCH/err" ||
		fail "scaled sm_120: $(head -2 "$SCRATCH/err")"
}

@test "mma: a kernel needing more shared memory than its target gives a block is a located user error, no output (big_extract: a 256 KiB exchange; NVIDIA's goes through local memory, ours not yet)" {
	for sm in sm_80 sm_90; do
		run tileiras --gpu-name $sm "$BATS_TEST_DIRNAME/mma/big_extract.tileirbc" -o "$SCRATCH/be.cubin"
		assert_failure
		assert_output --partial 'tests/mma/kernels.py:107:37: error: '
		assert_output --regexp "needs [0-9]+ bytes of shared memory; $sm gives a block at most [0-9]+"
		refute_output --partial 'ptxas'
		refute_output --partial 'internal error'
		[ ! -e "$SCRATCH/be.cubin" ] || fail "$sm: output written"
	done
}
