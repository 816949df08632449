#!/usr/bin/env bats
# scripts/fuzz-run (docs/robustness.md "tile-run"): mutants of tile-run's PTX,
# .npy inputs and command line, every outcome classified. A fake tile-run shows
# that each kind of defect is caught and kept with a reproducer; a short run of
# the ASan/UBSan tile-run (when built) must find none; and the reproducers of
# the defects fuzz-run found, fixed since.
load helpers
bats_require_minimum_version 1.5.0

setup() {
	setup_scratch
	[ -x "$PY" ] || skip "no $PY"
	export PYTHONDONTWRITEBYTECODE=1
}
teardown() { teardown_scratch; }

FUZZ="$ROOT/scripts/fuzz-run"

# fake MODE: $SCRATCH/fake/tile-run behaves as MODE says, then fuzz-run runs it
fake() {
	mkdir -p "$SCRATCH/fake"
	cat >"$SCRATCH/fake/tile-run" <<-EOF
		#!/bin/sh
		case $1 in
		clean) echo "tile-run: error: kernel.ptx:3: bad input" >&2; exit 1 ;;
		usage) echo "tile-run: error: bad --grid 'x' (want X[,Y[,Z]])" >&2; echo "(run 'tile-run --help' for usage)" >&2; exit 2 ;;
		fault) echo "k.py:42: k: block: [0,0,0], thread: [5,0,0] Assertion \\\`x > 0\\\` failed." >&2
		       echo "tile-run: error: device-side assertion failed, thread (5,0,0) of block (0,0,0)" >&2; exit 3 ;;
		valid) exit 0 ;;
		segv) kill -SEGV \$\$ ;;
		asan) echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55" >&2
		      echo "    #0 0x55 in parse_entry $ROOT/tools/tile-run/parse.c:12" >&2; kill -ABRT \$\$ ;;
		ubsan) echo "$ROOT/tools/tile-run/exec_mem.c:262:34: runtime error: shift exponent 64 is too large" >&2; exit 1 ;;
		leak) echo "==1==ERROR: LeakSanitizer: detected memory leaks" >&2
		      echo "    #1 0x55 in npy_read $ROOT/tools/tile-run/npy.c:40" >&2; exit 1 ;;
		dump) printf 'tile-run: error: kernel.ptx:3: unexpected {\n.reg .b32\n' >&2; exit 1 ;;
		twice) printf 'tile-run: error: a\ntile-run: error: b\n' >&2; exit 1 ;;
		silent) exit 3 ;;
		exit5) echo "tile-run: error: x" >&2; exit 5 ;;
		hang) sleep 20 ;;
		esac
	EOF
	chmod +x "$SCRATCH/fake/tile-run"
	run "$FUZZ" 1 --bin "$SCRATCH/fake" --seeds hand --out "$SCRATCH/o" --timeout 1 --random-seed 1
}

@test "fuzz-run: clean rejections, usage errors, faults and valid runs are no defect (exit 0)" {
	fake clean
	assert_success
	assert_line --regexp '^\| all \| ([0-9]+) \| \1 \| 0 \| 0 \| 0 \| 0 \|$'
	fake usage
	assert_success
	assert_line --regexp '^\| all \| ([0-9]+) \| 0 \| \1 \| 0 \| 0 \| 0 \|$'
	fake fault
	assert_success
	assert_line --regexp '^\| all \| ([0-9]+) \| 0 \| 0 \| \1 \| 0 \| 0 \|$'
	fake valid
	assert_success
	assert_line --regexp '^\| all \| ([0-9]+) \| 0 \| 0 \| 0 \| \1 \| 0 \|$'
}

@test "fuzz-run: a signal, a sanitizer report, a leak, a dump, a hang, another exit status are defects with reproducers" {
	fake segv
	assert_failure 1
	assert_line --regexp '^\| all \| [0-9]+ \| 0 \| 0 \| 0 \| 0 \| \*\*[0-9]+\*\*: signal [0-9]+ \(1 distinct\) \|$'
	assert_line --partial "- signal: SIGSEGV"
	cmd=$(ls "$SCRATCH"/o/defects/signal-*-0/cmd)
	d=$(dirname "$cmd")
	grep -q "^cd $d && $SCRATCH/fake/tile-run .*kernel.ptx" "$cmd"
	[ -s "$d/kernel.ptx" ] && [ -s "$d/err" ]
	# the command reproduces it
	run sh "$cmd"
	[ "$status" -ne 0 ]
	fake asan
	assert_failure 1
	assert_line "- asan: heap-buffer-overflow in parse_entry tools/tile-run/parse.c:12"
	fake ubsan
	assert_failure 1
	assert_line "- ubsan: tools/tile-run/exec_mem.c:262:34: shift exponent 64 is too large"
	fake leak
	assert_failure 1
	assert_line "- leak: leak from npy_read tools/tile-run/npy.c:40"
	fake dump
	assert_failure 1
	assert_line "- dump: exit 1, 2 lines, first not an error line: .reg .b32"
	fake twice
	assert_failure 1
	assert_line "- dump: exit 1, 2 lines, more than one error line: tile-run: error: b"
	fake silent
	assert_failure 1
	assert_line --partial "- dump: exit 3, 0 lines"
	fake exit5
	assert_failure 1
	assert_line "- exit: exit 5; last line: tile-run: error: x"
	fake hang
	assert_failure 1
	assert_line "- hang: no exit within the timeout"
}

@test "fuzz-run: usage and setup errors are exit 2" {
	run "$FUZZ"
	assert_failure 2
	run "$FUZZ" 1 --seeds nope --bin "$BIN"
	assert_failure 2
	assert_output --partial "unknown seed kind 'nope'"
	run "$FUZZ" 1 --bin "$SCRATCH/none"
	assert_failure 2
	assert_output --partial "is not built"
}

@test "fuzz-run: 30 s of mutants into the ASan/UBSan tile-run: no defect" {
	A="$ROOT/build-asan/bin"
	[ -x "$A/tile-run" ] || skip "no ASan tile-run (make BUILD=build-asan ... build-asan/bin/tile-run: docs/robustness.md)"
	run "$FUZZ" 30 --bin "$A" --seed-bin "$BIN" --out "$SCRATCH/o" --random-seed 1
	echo "$output"
	assert_success
	assert_line --regexp '^\| all \| [1-9][0-9]* \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| 0 \|$'
}

# the defects scripts/fuzz-run found (docs/robustness.md "tile-run"), each a
# minimal kernel: one error line, or a fault, never a sanitizer report

# kptx BODY: a one-thread (.reqntid 1) sm_90 kernel without parameters, BODY its body
kptx() {
	printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n.reqntid 1\n{\n\t.reg .pred %%p<2>;\n\t.reg .b32 %%r<4>;\n\t.shared .align 8 .b64 bars[2];\n%s\n}\n' "$1" >"$SCRATCH/k.ptx"
}

@test "fuzz-run found: bra with two operands is one error line, not two" {
	kptx $'L1:\n\tbra L1, L1;\n\tret;'
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	[ "$stderr" = "tile-run: error: $SCRATCH/k.ptx:11: wrong number of operands for 'bra'" ] || fail "$stderr"
}

@test "fuzz-run found: a parse error quotes the token, not the source lines after it" {
	printf '.version 8.0\n.target sm_90\n.address_size 64\nmov.u32 %%r1, 1;\n.visible .entry k()\n{\n\tret;\n}\n' >"$SCRATCH/k.ptx"
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	[ "$stderr" = "tile-run: error: $SCRATCH/k.ptx:4: unexpected 'mov.u32' at module level" ] || fail "$stderr"
	# the file ends inside an instruction: 'end', not the stack's bytes
	printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %%r<2>;\n\tadd.u32 %%' >"$SCRATCH/k.ptx"
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: $SCRATCH/k.ptx:7: expected ';', found 'end'"
	printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.maxnreg 32\n\tret;\n}\n' >"$SCRATCH/k.ptx"
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	[ "$(echo "$stderr" | wc -l)" -eq 1 ] || fail "$stderr"
}

@test "fuzz-run found: a misaligned mbarrier faults under --check none too (it was a misaligned host store)" {
	kptx $'\tmov.u32 %r1, 1;\n\tmbarrier.init.shared::cta.b64 [bars+1], %r1;\n\tret;'
	for chk in memcheck none; do
		run --separate-stderr "$BIN/tile-run" --grid 1 --check $chk "$SCRATCH/k.ptx"
		assert_failure 3
		[ "$(echo "$stderr" | wc -l)" -eq 1 ] || fail "$stderr"
	done
	assert_equal "$stderr" "tile-run: error: mbarrier at 0x1 is not 8-byte aligned, thread (0,0,0) of block (0,0,0) (PTX line 11)"
}

@test "tile-run --max-insns N: a kernel that never ends is a fault after N thread-instructions; a bad N is a usage error" {
	kptx $'L1:\n\tadd.u32 %r1, %r1, 1;\n\tbra L1;'
	run --separate-stderr timeout 60 "$BIN/tile-run" --grid 1 --max-insns 1000000 "$SCRATCH/k.ptx"
	assert_failure 3
	[[ "$stderr" == "tile-run: error: the kernel ran "*" thread-instructions without finishing (--max-insns), thread ("*") of block (0,0,0) (PTX line "*")" ]] || fail "$stderr"
	# with barriers in the loop (no thread ever yields on its own)
	kptx $'L1:\n\tbar.sync 0;\n\tbra L1;'
	run --separate-stderr timeout 60 "$BIN/tile-run" --grid 1 --max-insns 100000 "$SCRATCH/k.ptx"
	assert_failure 3
	assert_equal "$(echo "$stderr" | wc -l)" 1
	# a kernel that ends within the limit is untouched
	kptx $'\tret;'
	run "$BIN/tile-run" --grid 1 --max-insns 1000 "$SCRATCH/k.ptx"
	assert_success
	for bad in 0 -1 x 18446744073709551616; do
		run "$BIN/tile-run" --grid 1 --max-insns "$bad" "$SCRATCH/k.ptx"
		assert_failure 2
		assert_output --partial "bad --max-insns '$bad'"
	done
}

@test "fuzz-run found: shape times stride past 2^63 in a cuTile argument is refused, not a signed overflow" {
	pipe "$CORPUS/13.4/saxpy.tileirbc" sm_90 >"$SCRATCH/sx.ptx" || skip "the stages are not built"
	"$PY" -c "import numpy as np; np.save('$SCRATCH/x.npy', np.zeros(100, np.float32))" || skip "no numpy"
	run --separate-stderr "$BIN/tile-run" "$SCRATCH/sx.ptx" --entry saxpy_Kt1_Sf32_A1f32_1l0_w_A1f32_1l0_w_A1f32_1l0_w_I256 --grid 1 \
		2 "$SCRATCH/x.npy" 1000 4636737291354636287 "$SCRATCH/x.npy" 100 1 "$SCRATCH/x.npy" 100 1
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: argument 1 ($SCRATCH/x.npy): 400 bytes, but shape [1000] with strides [4636737291354636287] reaches 18446744073709551615 bytes"
}

@test "fuzz-run found: a .npy whose shape is larger than its file is refused before the array is allocated" {
	"$PY" -c "
import numpy as np
np.save('$SCRATCH/a.npy', np.zeros(40, np.float32))
h = \"{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }\"
h += ' ' * (63 - (10 + len(h)) % 64) + '\\n'
open('$SCRATCH/big.npy', 'wb').write(b'\\x93NUMPY\\x01\\x00' + len(h).to_bytes(2, 'little') + h.encode() + bytes(160))" || skip "no numpy"
	run --separate-stderr timeout 10 "$BIN/tile-run" "$ROOT/tests/run-cli/add1.ptx" --grid 1 "$SCRATCH/big.npy" "$SCRATCH/a.npy" 8
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: $SCRATCH/big.npy: not a usable .npy file: data shorter than the shape says"
}

@test "fuzz-run found: more shared or local memory than any GPU has is refused before the CTA is allocated (racecheck took minutes)" {
	kptx $'\tret;'
	sed -i 's/bars\[2\]/bars[134217728]/' "$SCRATCH/k.ptx"
	run --separate-stderr timeout 20 "$BIN/tile-run" --grid 1 --check racecheck "$SCRATCH/k.ptx"
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: the kernel declares 1073741824 bytes of shared memory; a CTA has at most 232448 (227 KiB)"
	# sizes that wrapped 32 bits
	sed -i 's/bars\[134217728\]/bars[65536][65536]/' "$SCRATCH/k.ptx"
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: $SCRATCH/k.ptx:9: array too large"
	kptx $'\t.local .align 16 .b8 buf[1048576];\n\tret;'
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx"
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: the kernel declares 1048576 bytes of local memory a thread; a thread has at most 524288 (512 KiB)"
}

@test "fuzz-run found: a number for a parameter of no bytes is an error (was a shift by -1)" {
	printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .b8 p[0])\n.reqntid 1\n{\n\tret;\n}\n' >"$SCRATCH/k.ptx"
	run --separate-stderr "$BIN/tile-run" --grid 1 "$SCRATCH/k.ptx" 7
	assert_failure 1
	assert_equal "$stderr" "tile-run: error: argument 0: parameter 0 has no bytes"
}

@test "tile-run: a command-line word with a control byte is a usage error (its quote would span lines)" {
	for w in "--grid=1"$'\n'"2" "$ROOT/tests/run-cli/add1.ptx"; do
		run --separate-stderr "$BIN/tile-run" --grid 1 "$w" a.npy $'4\t' 8
		assert_failure 2
		[ "${#stderr_lines[@]}" -eq 2 ] || fail "$stderr"
	done
	assert_equal "${stderr_lines[0]}" "tile-run: error: command-line word 5 holds control byte 0x09"
}
