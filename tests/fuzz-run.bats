#!/usr/bin/env bats
# scripts/fuzz-run (docs/robustness.md "tile-run"): mutants of tile-run's PTX,
# .npy inputs and command line, every outcome classified. A fake tile-run shows
# that each kind of defect is caught and kept with a reproducer; a short run of
# the ASan/UBSan tile-run (when built) must find none; and the reproducers of
# the defects fuzz-run found, fixed since.
load helpers

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
