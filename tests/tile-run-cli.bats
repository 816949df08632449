#!/usr/bin/env bats
# tile-run: command line, robustness and memcheck/racecheck on the hand-written
# PTX fixtures in tests/run-cli/ (no numpy needed: .npy files are written
# with the Python standard library). The numeric corpus checks are in
# tests/run.bats.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	setup_scratch
	F="$ROOT/tests/run-cli"
}
teardown() { teardown_scratch; }

# npy FILE DESCR SHAPE VALUE...: a C-order .npy (DESCR <f4, <u4, <i4)
npy() {
	python3 - "$@" <<'PY'
import struct, sys
path, descr, shape, vals = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
fmt = {'<f4': 'f', '<u4': 'I', '<i4': 'i'}[descr]
h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
data = b''.join(struct.pack('<' + fmt, float(v) if fmt == 'f' else int(v)) for v in vals)
open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data)
PY
}
# values FILE FMT: the data of a .npy as text, one per line
values() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<H', b[8:10])[0]
d = b[10 + n:]
f = sys.argv[2]
for k in range(0, len(d), 4):
    print(struct.unpack('<' + f, d[k:k + 4])[0])
PY
}

@test "tile-run --help prints usage and exits 0" {
	run tile-run --help
	assert_success
	assert_output --partial "usage: tile-run [options] INPUT ARG..."
}

@test "tile-run: usage errors exit 2 (no input, no --grid, bad --grid, unknown option)" {
	run tile-run
	assert_failure 2
	run tile-run "$F/add1.ptx" a.npy b.npy 8
	assert_failure 2
	assert_output --partial "--grid is required"
	run tile-run --grid 1,x "$F/add1.ptx"
	assert_failure 2
	run tile-run --bogus "$F/add1.ptx"
	assert_failure 2
	run tile-run --grid 1 --check everything "$F/add1.ptx"
	assert_failure 2
	run tile-run --grid 1 --gpu-name sm_91 "$F/add1.ptx"
	assert_failure 2
	assert_output --partial "unsupported --gpu-name 'sm_91' (supported: sm_75, sm_80"
}

@test "tile-run runs a hand-written PTX kernel and writes the arrays to --out" {
	npy "$SCRATCH/a.npy" '<f4' '(40,)' $(seq 0 39)
	npy "$SCRATCH/o.npy" '<f4' '(40,)' $(printf '0 %.0s' $(seq 40))
	run tile-run "$F/add1.ptx" --grid 2 --out "$SCRATCH/out" "$SCRATCH/a.npy" "$SCRATCH/o.npy" 40
	assert_success
	assert_file_exists "$SCRATCH/out/0.npy"
	assert_file_exists "$SCRATCH/out/1.npy"
	[ ! -e "$SCRATCH/out/2.npy" ]
	run values "$SCRATCH/out/1.npy" f
	assert_line --index 0 "1.0"
	assert_line --index 39 "40.0"
	# the input array comes back unchanged
	run values "$SCRATCH/out/0.npy" f
	assert_line --index 39 "39.0"
}

@test "tile-run: memcheck catches an out-of-bounds load at its source line; nothing is written" {
	npy "$SCRATCH/a.npy" '<f4' '(8,)' 1 2 3 4 5 6 7 8
	npy "$SCRATCH/o.npy" '<f4' '(32,)' $(printf '0 %.0s' $(seq 32))
	run --separate-stderr tile-run "$F/add1_oob.ptx" --grid 1 --out "$SCRATCH/out" "$SCRATCH/a.npy" "$SCRATCH/o.npy" 32
	assert_failure 3
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"out-of-bounds global read of 4 bytes"* ]]
	[[ $stderr == *"0 bytes past the end of argument 0"* ]]
	[[ $stderr == *"thread (8,0,0) of block (0,0,0)"* ]]
	[[ $stderr == *"kernels/add1.py:7:9"* ]]
	[ ! -e "$SCRATCH/out" ]
}

@test "tile-run: a bytecode kernel given an array smaller than its shape is refused (exit 1)" {
	npy "$SCRATCH/x.npy" '<f4' '(4,)' 1 2 3 4
	npy "$SCRATCH/y.npy" '<f4' '(1000,)' $(printf '1 %.0s' $(seq 1000))
	npy "$SCRATCH/z.npy" '<f4' '(1000,)' $(printf '0 %.0s' $(seq 1000))
	run --separate-stderr tile-run "$CORPUS/13.4/vector_add.tileirbc" --gpu-name sm_90 \
		--entry vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128 --grid 8 \
		"$SCRATCH/x.npy" 1000 1 "$SCRATCH/y.npy" 1000 1 "$SCRATCH/z.npy" 1000 1
	assert_failure 1
	[[ $stderr == *"argument 0"*"16 bytes, but shape [1000] with strides [1] reaches 4000 bytes"* ]]
}

@test "tile-run: a bytecode kernel out of bounds through a lying shape is caught at its Python line" {
	npy "$SCRATCH/x.npy" '<f4' '(1000,)' $(printf '1 %.0s' $(seq 1000))
	npy "$SCRATCH/z.npy" '<f4' '(1000,)' $(printf '0 %.0s' $(seq 1000))
	# strides are not checked when negative: stride -1, which the kernel's
	# assume bounded<0, ?> rules out, reads as 2^32 - 1 (zero-extended, as
	# NVIDIA's PTX reads it: the same address there) and walks far past the end
	run --separate-stderr tile-run "$CORPUS/13.4/vector_add.tileirbc" --gpu-name sm_90 \
		--entry vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128 --grid 8 \
		"$SCRATCH/x.npy" 1000 -1 "$SCRATCH/x.npy" 1000 1 "$SCRATCH/z.npy" 1000 1
	assert_failure 3
	[[ $stderr == *"out-of-bounds global read of 4 bytes at 0x13fffffffc"* ]]
	[[ $stderr == *"tests/kernels/vector_add.py:"* ]]
}

@test "tile-run: bad inputs are one-line errors with exit 1" {
	npy "$SCRATCH/a.npy" '<f4' '(8,)' 1 2 3 4 5 6 7 8
	printf '.version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  frobnicate.b32 %%r1;\n}\n' > "$SCRATCH/bad.ptx"
	run --separate-stderr tile-run "$SCRATCH/bad.ptx" --grid 1
	assert_failure 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"bad.ptx:5: unsupported instruction 'frobnicate.b32'"* ]]
	printf 'hello' > "$SCRATCH/junk.ptx"
	run tile-run "$SCRATCH/junk.ptx" --grid 1
	assert_failure 1
	# wrong argument count, type, grid of 0, missing file, scalar out of range
	run --separate-stderr tile-run "$F/add1.ptx" --grid 1 "$SCRATCH/a.npy"
	assert_failure 1
	[[ $stderr == *"add1 takes 3 parameters, 1 arguments given"* ]]
	run --separate-stderr tile-run "$F/add1.ptx" --grid 1 "$SCRATCH/a.npy" "$SCRATCH/a.npy" "$SCRATCH/a.npy"
	assert_failure 1
	[[ $stderr == *"not a pointer"* ]]
	run --separate-stderr tile-run "$F/add1.ptx" --grid 0 "$SCRATCH/a.npy" "$SCRATCH/a.npy" 8
	assert_failure 1
	[[ $stderr == *"empty"* ]]
	run tile-run "$F/add1.ptx" --grid 1 "$SCRATCH/nope.npy" "$SCRATCH/a.npy" 8
	assert_failure 1
	run --separate-stderr tile-run "$F/add1.ptx" --grid 1 "$SCRATCH/a.npy" "$SCRATCH/a.npy" 0x100000000
	assert_failure 1
	[[ $stderr == *"does not fit"* ]]
	run --separate-stderr tile-run "$F/add1.ptx" --grid 1 --block 64 "$SCRATCH/a.npy" "$SCRATCH/a.npy" 8
	assert_failure 1
	[[ $stderr == *".reqntid"* ]]
}

@test "tile-run: several kernels need --entry, and the error lists them" {
	run --separate-stderr tile-run "$F/race.ptx" --grid 1 x.npy
	assert_failure 1
	[[ $stderr == *"choose one with --entry: race_bad race_ok race_same race_waw"* ]]
}

@test "tile-run: racecheck finds unsynchronized shared-memory accesses; bar.sync separates them" {
	npy "$SCRATCH/o.npy" '<u4' '(64,)' $(printf '0 %.0s' $(seq 64))
	run tile-run "$F/race.ptx" --entry race_bad --grid 1 "$SCRATCH/o.npy"
	assert_success
	run --separate-stderr tile-run "$F/race.ptx" --entry race_bad --check racecheck --grid 1 "$SCRATCH/o.npy"
	assert_failure 3
	[[ $stderr == *"shared-memory race: read of shared offset 0x0 by thread 1 after a write by thread 0"* ]]
	run tile-run "$F/race.ptx" --entry race_ok --check racecheck --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/out/0.npy" I
	assert_line --index 63 "7"
	# stores of the same value from every thread cannot race; different values do
	run tile-run "$F/race.ptx" --entry race_same --check racecheck --grid 1 "$SCRATCH/o.npy"
	assert_success
	run --separate-stderr tile-run "$F/race.ptx" --entry race_waw --check racecheck --grid 1 "$SCRATCH/o.npy"
	assert_failure 3
	[[ $stderr == *"by thread 2 after a different write by another thread"* ]]
	# bar.warp.sync waits for the warp's lanes (it was decoded as a bar.sync whose id
	# is the membermask); racecheck counts it as ordering among them (docs/tile-run.md)
	run tile-run "$F/race.ptx" --entry race_warp --grid 1 --out "$SCRATCH/outw" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/outw/0.npy" I
	assert_line --index 31 "9"
}

@test "tile-run: racecheck orders by mbarriers only where a thread released and another acquired: a bulk copy refilling a stage another warp read is a race unless a bar.sync or the reader's mbarrier arrival (waited for) lies between; an unrelated mbarrier phase orders nothing" {
	"$PY" -c 'import numpy as np, sys
np.save(sys.argv[1] + "/src.npy", np.arange(4, dtype=np.uint32) + 7); np.save(sys.argv[1] + "/flag.npy", np.zeros(1, np.uint32))' "$SCRATCH"
	for s in 0 1 2 3; do
		seed=; [ $s -gt 0 ] && seed="--seed $s"
		run --separate-stderr tile-run "$F/race_async.ptx" --entry refill_unrelated --check racecheck $seed --grid 1 "$SCRATCH/src.npy" "$SCRATCH/flag.npy"
		assert_failure 3
		[[ $stderr == *"shared-memory race: write of shared offset 0x0 by thread 0 after a read by thread 32 with no barrier between"* ]]
		for e in refill_bar refill_mbar; do
			run tile-run "$F/race_async.ptx" --entry $e --check racecheck $seed --grid 1 "$SCRATCH/src.npy" "$SCRATCH/flag.npy"
			assert_success
		done
	done
	# without racecheck the racy one runs
	run tile-run "$F/race_async.ptx" --entry refill_unrelated --grid 1 "$SCRATCH/src.npy" "$SCRATCH/flag.npy"
	assert_success
}

@test "tile-run: warp shuffles, ballot and device printf" {
	npy "$SCRATCH/o.npy" '<u4' '(32,)' $(printf '0 %.0s' $(seq 32))
	run --separate-stderr tile-run "$F/warp.ptx" --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy"
	assert_success
	assert_output "sum 496 ballot aaaaaaaa"
	run values "$SCRATCH/out/0.npy" I
	assert_line --index 0 "496"
	assert_line --index 31 "496"
}

@test "tile-run: --seed changes the schedule, not the result" {
	npy "$SCRATCH/o.npy" '<u4' '(64,)' $(printf '0 %.0s' $(seq 64))
	for s in 1 2 3; do
		run tile-run "$F/race.ptx" --entry race_ok --check racecheck --seed $s --grid 1 --out "$SCRATCH/out$s" "$SCRATCH/o.npy"
		assert_success
		run values "$SCRATCH/out$s/0.npy" I
		assert_line --index 0 "7"
	done
}

@test "tile-run: a failed device assert prints the device's message and exits 3" {
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_assert --grid 1
	assert_failure 3
	[ "${stderr_lines[0]}" = 'k.py:42: k: block: [0,0,0], thread: [5,0,0] Assertion `x > 0` failed.' ]
	[[ ${stderr_lines[1]} == *"device-side assertion failed, thread (5,0,0) of block (0,0,0)"* ]]
}

@test "tile-run: trap and deadlock are faults (exit 3)" {
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_trap --grid 1
	assert_failure 3
	[[ $stderr == *"trap, thread (0,0,0)"* ]]
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_deadlock --grid 1
	assert_failure 3
	[[ $stderr == *"deadlock: 32 threads wait"* ]]
}

@test "tile-run: a thread that runs past a function's last instruction (no ret, or a branch to a label at the end) faults at the closing line (exit 3), never reads past the code" {
	for k in k_noret k_end_label; do
		run --separate-stderr tile-run "$F/faults.ptx" --entry $k --grid 1
		assert_failure 3
		[[ $stderr == *"ran past the end of the function (no ret or exit), thread (0,0,0) of block (0,0,0) (PTX line "* ]] || fail "$k: $stderr"
	done
	line=$(grep -n '^\.visible \.entry k_noret' "$F/faults.ptx" | cut -d: -f1)
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_noret --grid 1
	[[ $stderr == *"(PTX line $((line + 5)))"* ]] || fail "not at the closing brace (line $((line + 5))): $stderr"
}

@test "tile-run: memcheck reports misaligned accesses (--check none lets them through)" {
	npy "$SCRATCH/a.npy" '<u4' '(4,)' 1 2 3 4
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_misaligned --grid 1 "$SCRATCH/a.npy"
	assert_failure 3
	[[ $stderr == *"misaligned global read of 4 bytes"*"at offset 2 of argument 0"* ]]
	run tile-run "$F/faults.ptx" --entry k_misaligned --check none --grid 1 "$SCRATCH/a.npy"
	assert_success
}

@test "tile-run: FILE.npy@N places an array N bytes past its 256-byte boundary (the kernel sees that pointer; memcheck then faults misaligned accesses); N outside 0..255 is an error" {
	npy "$SCRATCH/a.npy" '<f4' '(40,)' $(seq 0 39)
	npy "$SCRATCH/o.npy" '<f4' '(40,)' $(printf '0 %.0s' $(seq 40))
	run tile-run "$F/add1.ptx" --grid 2 --out "$SCRATCH/out" "$SCRATCH/a.npy@4" "$SCRATCH/o.npy@68" 40
	assert_success
	run values "$SCRATCH/out/1.npy" f
	assert_line --index 0 "1.0"
	assert_line --index 39 "40.0"
	run --separate-stderr tile-run "$F/add1.ptx" --grid 2 --out "$SCRATCH/out2" "$SCRATCH/a.npy@2" "$SCRATCH/o.npy" 40
	assert_failure 3
	[[ $stderr == *"misaligned global read of 4 bytes at 0x"*"02: at offset 0 of argument 0"* ]] || fail "$stderr"
	[ ! -e "$SCRATCH/out2" ]
	for bad in 256 -1 4x; do
		run --separate-stderr tile-run "$F/add1.ptx" --grid 2 "$SCRATCH/a.npy@$bad" "$SCRATCH/o.npy" 40
		assert_failure
		[[ $stderr == *"tile-run: error: "* ]] || fail "@$bad: $stderr"
	done
	run --separate-stderr tile-run "$F/add1.ptx" --grid 2 "$SCRATCH/a.npy@256" "$SCRATCH/o.npy" 40
	assert_failure 1
	[[ $stderr == *"the offset after '@' must be 0 to 255 bytes"* ]] || fail "$stderr"
}

@test "tile-run: device malloc/free; a use after free is caught" {
	npy "$SCRATCH/o.npy" '<u4' '(4,)' 0 0 0 0
	run tile-run "$F/faults.ptx" --entry k_heap --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy" 0
	assert_success
	run values "$SCRATCH/out/0.npy" I
	assert_line --index 0 "1234"
	run --separate-stderr tile-run "$F/faults.ptx" --entry k_heap --grid 1 "$SCRATCH/o.npy" 1
	assert_failure 3
	[[ $stderr == *"use after free: global read of 4 bytes"*"device malloc of 64 bytes"* ]]
}

@test "tile-run takes JSON IR of any stage (compiled through the stages) and needs --gpu-name for it" {
	tile-read "$CORPUS/13.4/vector_add.tileirbc" > "$SCRATCH/va.json"
	tile-read "$CORPUS/13.4/vector_add.tileirbc" | tile-lower --gpu-name=sm_90 > "$SCRATCH/va2.json"
	npy "$SCRATCH/x.npy" '<f4' '(100,)' $(seq 100)
	npy "$SCRATCH/z.npy" '<f4' '(100,)' $(printf '0 %.0s' $(seq 100))
	run tile-run "$SCRATCH/va.json" --grid 1 "$SCRATCH/x.npy"
	assert_failure 2
	for j in va.json va2.json; do
		run tile-run "$SCRATCH/$j" --gpu-name sm_90 --entry vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128 \
			--grid 1 --out "$SCRATCH/out" "$SCRATCH/x.npy" 100 1 "$SCRATCH/x.npy" 100 1 "$SCRATCH/z.npy" 100 1
		assert_success
		run values "$SCRATCH/out/6.npy" f
		assert_line --index 99 "200.0"
	done
}

@test "tile-run: .func calls pass parameters and 16-byte results, callees have their own local memory" {
	npy "$SCRATCH/o.npy" '<u4' '(32,)' $(printf '0 %.0s' $(seq 32))
	run tile-run "$F/calls.ptx" --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/out/0.npy" I
	assert_line --index 0 "105"
	assert_line --index 31 "198"
}

@test "tile-run refuses NVIDIA's hidden tensor-map parameters with a clear error" {
	sed -e 's/^\t.param .u32 n$/\t.param .u32 n,\n\t.hidden .param .align 64 .b8 tmap[128]/' "$F/add1.ptx" > "$SCRATCH/tma.ptx"
	grep -q hidden "$SCRATCH/tma.ptx"
	run --separate-stderr tile-run "$SCRATCH/tma.ptx" --grid 1 a.npy b.npy 8 0
	assert_failure 1
	[[ $stderr == *"hidden parameter 3 (a 128-byte TMA tensor map"* ]]
}

@test "tile-run: instruction results the PTX ISA pins down (prmt bfe bfind shf cvt f16/bf16/tf32/e4m3/e2m1 rounding, carries, lop3 ...)" {
	npy "$SCRATCH/o.npy" '<u4' '(32,)' $(printf '0 %.0s' $(seq 32))
	run tile-run "$F/semantics.ptx" --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/out/0.npy" I
	# one line per store of semantics.ptx, in order
	local want=(
		0x55441100 0xfffffff8 16 15 0 2 4 0xfffffffd   # prmt, bfe.s32, bfind, .shiftamt, shf.r.wrap, cvt.rni 2.5/3.5, cvt.rmi -2.7
		0x7c00 0x7bff 0x7e38 0xffffffff                 # f16 of 65520 (rn: inf, rz: max), e4m3x2 satfinite, mul.hi.s64
		0x7fffffff 0x3f800000 0x7fffffff 0x7fffffff 0  # min.NaN, min, add.sat.s32, cvt.rzi.s32 inf, cvt.rzi.u32 -1
		0x3f800000 0x3f800001 0x3c00c000 0x3f80         # add.rz / add.rp, cvt f16x2, bf16 tie to even
		0x3f802000 0xfffffff8 1 0x96969696 32 16         # tf32 .rna tie, mad.wide.s32, addc carry, lop3, popc.b64, clz
		0x80000000 0xfffffffd 0xffffffff 0xffffffff 0x42 # brev, div.s32, rem.s32, shr.s32 by 40, e2m1x2 ties
	)
	local k=0 w
	for w in "${want[@]}"; do
		[ "${lines[$k]}" -eq "$((w))" ] || fail "store $k: got ${lines[$k]}, want $((w))"
		k=$((k + 1))
	done
	[ "$k" -eq 32 ]
}

@test "tile-run: cp.async copies (with zero fill) are complete after wait_group" {
	npy "$SCRATCH/s.npy" '<u4' '(128,)' $(seq 1000 1127)
	npy "$SCRATCH/o.npy" '<u4' '(32,)' $(printf '9 %.0s' $(seq 32))
	run tile-run "$F/cpasync.ptx" --check racecheck --grid 1 --out "$SCRATCH/out" "$SCRATCH/s.npy" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/out/1.npy" I
	assert_line --index 0 "1003"
	assert_line --index 30 "1123"
	assert_line --index 31 "0"
	# the source is bounds-checked up to the bytes it copies: 4 elements short is a fault
	npy "$SCRATCH/s2.npy" '<u4' '(124,)' $(seq 1000 1123)
	run --separate-stderr tile-run "$F/cpasync.ptx" --grid 1 "$SCRATCH/s2.npy" "$SCRATCH/o.npy"
	assert_failure 3
	[[ $stderr == *"out-of-bounds global read"*"past the end of argument 0"* ]]
}

@test "tile-run: mma.sync m16n8k16 f16 -> f32 follows the PTX ISA fragment layout" {
	npy "$SCRATCH/o.npy" '<f4' '(384,)' $(printf '0 %.0s' $(seq 384))
	run tile-run "$F/mma.ptx" --grid 1 --out "$SCRATCH/out" "$SCRATCH/o.npy"
	assert_success
	run values "$SCRATCH/out/0.npy" f
	local l g q i
	for l in $(seq 0 31); do
		g=$((l / 4)) q=$((l % 4))
		local want=("$((16 * g)).5" "$((16 * g)).5" "$((16 * (g + 8))).5" "$((16 * (g + 8))).5"
			"$((32 * q)).0" "$((32 * q + 16)).0" "$((32 * q)).0" "$((32 * q + 16)).0"
			1240.0 1240.0 1240.0 1240.0)
		for i in $(seq 0 11); do
			[ "${lines[$((l * 12 + i))]}" = "${want[$i]}" ] ||
				fail "lane $l value $i: got ${lines[$((l * 12 + i))]}, want ${want[$i]}"
		done
	done
}
