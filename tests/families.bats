#!/usr/bin/env bats
# Real-workload kernel families written in cuTile (tests/kernels/rms_norm.py,
# topk.py, fft.py, loop_break.py; corpus tests/corpus/<version>/<name>):
# RMS norm, top-k by rounds of max + argmax, a Stockham FFT and a
# bit-reversal permutation made of reshape / extract / cat / permute, and a
# while loop with break. Every bytecode version to a cubin for four targets;
# check-lines on the PTX (warp-shuffle reductions, shared-memory rounds, no
# local memory, no spills); NVIDIA's parameter ABI; the values on tile-run
# (tests/run/run-corpus) against numpy.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

FAMILIES="rms_norm topk fft bit_reverse loop_break"

# cubins NAME: bytecode 13.1-13.4 through the driver for every target
cubins() {
	[ -x "$BIN/tileiras" ] && [ -x "$BIN/tile-pack" ] || skip "driver or tile-pack not built"
	require_ptxas
	local k=$1 v sm
	for v in 13.1 13.2 13.3 13.4; do
		for sm in $TARGETS; do
			tileiras "$CORPUS/$v/$k.tileirbc" -o "$SCRATCH/$k.cubin" --gpu-name "$sm" -O3 --lineinfo \
				2>"$SCRATCH/err" || fail "$k $v $sm: $(head -3 "$SCRATCH/err")"
			[ -s "$SCRATCH/$k.cubin" ] || fail "$k $v $sm: empty cubin"
		done
	done
}

# per_entry PATTERN FILE: how often PATTERN occurs in each entry of a PTX
# file, in the order of the entries, on one line
per_entry() {
	awk -v p="$1" '/^\.visible \.entry/ { if (n++) printf "%d ", c; c = 0 } $0 ~ p { c++ }
		END { if (n) printf "%d\n", c }' "$2"
}

# per_target NAME PATTERN WANT NOUN...: for every target, per_entry PATTERN
# in $SCRATCH/NAME.SM.ptx is WANT (one triple a pattern); a failure names the
# target, the counts and NOUN
per_target() {
	local name=$1 sm got i
	shift
	local t=("$@")
	for sm in $TARGETS; do
		for ((i = 0; i < ${#t[@]}; i += 3)); do
			got=$(per_entry "${t[i]}" "$SCRATCH/$name.$sm.ptx")
			[ "$got" = "${t[i + 1]}" ] || fail "$sm: $got ${t[i + 2]}"
		done
	done
}

# sched BYTECODE: the scheduled IR as text
sched() { tile-read "$1" | tile-lower --gpu-name=sm_80 | tile-sched --emit=text; }

@test "rms_norm: bytecode 13.1-13.4 to cubins for sm_80 sm_90 sm_100 sm_120 (-O3 --lineinfo)" { cubins rms_norm; }
@test "topk: bytecode 13.1-13.4 to cubins for sm_80 sm_90 sm_100 sm_120 (-O3 --lineinfo)" { cubins topk; }
@test "fft: bytecode 13.1-13.4 to cubins for sm_80 sm_90 sm_100 sm_120 (-O3 --lineinfo)" { cubins fft; }
@test "bit_reverse: bytecode 13.1-13.4 to cubins for sm_80 sm_90 sm_100 sm_120 (-O3 --lineinfo)" { cubins bit_reverse; }
@test "loop_break: bytecode 13.1-13.4 to cubins for sm_80 sm_90 sm_100 sm_120 (-O3 --lineinfo)" { cubins loop_break; }

@test "every family kernel (13.1 and 13.4) through the stages for four targets: no local memory, no spills" {
	for k in $FAMILIES; do
		for v in 13.1 13.4; do
			assemble_named "$CORPUS/$v/$k.tileirbc" "$k"
		done
	done
}

@test "rms_norm: the sum of squares is 4 butterfly shuffles in a warp, no barrier; the weights broadcast without a conversion" {
	sched "$CORPUS/13.3/rms_norm.tileirbc" >"$SCRATCH/s.txt"
	if grep -q 'convert_layout' "$SCRATCH/s.txt"; then fail "a convert_layout"; fi
	[ "$(grep -c 'cuda_tile.reduce' "$SCRATCH/s.txt")" -eq 2 ]
	assemble_named "$CORPUS/13.3/rms_norm.tileirbc" rn
	# 8 elements of a row a thread, 16 lanes a row: 4 shuffles; the loaded
	# weights take the layout of their broadcast (8 a thread)
	per_target rn 'shfl\.sync\.bfly' "4 4" shuffles 'bar\.sync' "0 0" barriers
	# the bf16 entry converts in f32 and rounds once to bf16 on the way out
	grep -q 'cvt\.rn\.bf16\.f32\|cvt\.rn\.bf16x2\.f32' "$SCRATCH/rn.sm_90.ptx"
}

@test "topk: max and argmax in a for loop are warp butterflies (the argmax carries value and index)" {
	assemble_named "$CORPUS/13.3/topk.tileirbc" tk
	# per round: max 4 shuffles, argmax 2 x 4 (value and index): 8 elements
	# of a row a thread, 16 lanes a row
	per_target tk 'shfl\.sync\.bfly' "12 12" shuffles
	f=$SCRATCH/tk.sm_90.ptx
	# the k rounds stay a loop (not unrolled: one set of shuffles), and the
	# row results reach the (8, 4) tiles without another shared-memory round
	grep -q 'bra' "$f"
	[ "$(per_entry 'bar\.sync' "$f")" = "2 2" ] || fail "$(per_entry 'bar\.sync' "$f") barriers"
	sched "$CORPUS/13.3/topk.tileirbc" >"$SCRATCH/s.txt"
	grep -q 'cuda_tile.for' "$SCRATCH/s.txt"
}

@test "fft and bit_reverse: butterflies through reshape/extract/cat/permute; halves exchanged by warp shuffles where they can be" {
	assemble_named "$CORPUS/13.3/fft.tileirbc" fft
	sched "$CORPUS/13.3/fft.tileirbc" >"$SCRATCH/s.txt"
	# 6 and 7 stages; each stage splits re and im into halves
	[ "$(grep -c 'cuda_tile.cat' "$SCRATCH/s.txt")" -eq $((2 * (6 + 7))) ]
	[ "$(grep -c 'cuda_tile.permute' "$SCRATCH/s.txt")" -eq $((2 * (6 + 7))) ]
	# the two halves of a stage come from one conversion of the source (so
	# both extracts are register picks), not from one shared-memory round each
	[ "$(grep -c 'nv_tileas.convert_layout' "$SCRATCH/s.txt")" -eq $((2 * (6 + 7))) ]
	# the twiddles of every stage after the first: a column of the table
	[ "$(grep -c 'cuda_tile.extract.*via_shared' "$SCRATCH/s.txt")" -eq $((2 * (5 + 6))) ]
	for sm in $TARGETS; do
		f=$SCRATCH/fft.$sm.ptx
		if grep -q 'shfl.sync.bfly' "$f"; then fail "$sm: butterfly shuffles in the fft"; fi
		# 4x64, 4 warps: every stage but the first and the last stays inside
		# warps (shfl.sync.idx: conversions and twiddle picks); 2x128: a warp
		# holds a column bit, so all 7 stages cross warps, once for re and
		# once for im, and so does one stage's twiddle pick (re and im)
		[ "$(per_entry 'bar\.sync' "$f")" = "4 16" ] || fail "$sm: $(per_entry 'bar\.sync' "$f") barriers"
		[ "$(per_entry 'shfl\.sync\.idx' "$f")" = "42 10" ] || fail "$sm: $(per_entry 'shfl\.sync\.idx' "$f") shuffles"
	done
	# the bit reversal: one padded conversion for the permute of the 7-D tile
	assemble_named "$CORPUS/13.3/bit_reverse.tileirbc" br
	sched "$CORPUS/13.3/bit_reverse.tileirbc" >"$SCRATCH/b.txt"
	[ "$(grep -c 'nv_tileas.convert_layout' "$SCRATCH/b.txt")" -eq 2 ] || fail "not one conversion per entry"
	[ "$(per_entry 'bar\.sync' "$SCRATCH/br.sm_90.ptx")" = "1 1" ]
	if grep -q 'shfl' "$SCRATCH/br.sm_90.ptx"; then fail "shuffles in the bit reversal"; fi
}

@test "loop_break: a while loop with break, a whole-tile max per iteration, two barriers in the body" {
	sched "$CORPUS/13.3/loop_break.tileirbc" >"$SCRATCH/s.txt"
	grep -q 'cuda_tile.loop' "$SCRATCH/s.txt"
	[ "$(grep -c 'cuda_tile.break' "$SCRATCH/s.txt")" -eq 4 ]      # 2 per entry: the condition and the limit
	assemble_named "$CORPUS/13.3/loop_break.tileirbc" lb
	# two reductions in the body, one round each; the body's uses
	# alternate buffer halves, so none waits before its first write
	per_target lb 'shfl\.sync\.bfly' "5 5" shuffles 'bar\.sync' "2 2" barriers
}

@test "parameter layout and block size equal NVIDIA's cubins (when NVIDIA's tileiras is installed)" {
	require_nvidia
	require_ptxas
	for k in $FAMILIES; do
		env -u CUDA_HOME -u CUDA_PATH "$NVBIN/tileiras" --gpu-name=sm_90 "$CORPUS/13.4/$k.tileirbc" -o "$SCRATCH/nv.cubin"
		pipe "$CORPUS/13.4/$k.tileirbc" sm_90 >"$SCRATCH/ours.ptx"
		ptxas -arch=sm_90 "$SCRATCH/ours.ptx" -o "$SCRATCH/ours.cubin"
		same_abi "$k"
	done
}

@test "the values: every family kernel on tile-run against numpy (1, 4 and 8 warps)" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	/usr/bin/python3 -c 'import numpy' 2>/dev/null || skip "no numpy for /usr/bin/python3"
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/run/run-corpus" --bin "$BIN" --versions 13.3 --targets sm_90 \
		--warps 1,4,8 rms_norm topk fft bit_reverse loop_break
	echo "$output" | grep -v '^ok' || true
	assert_success
	echo "$output" | grep -q '^ok ' || fail "nothing ran"
}
