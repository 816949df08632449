#!/usr/bin/env bats
# scripts/fuzz-stages (docs/robustness.md): seeds from the stages, mutants of
# every stage's input, every outcome classified. A fake stage shows that each
# kind of defect is caught and kept with a reproducer; a short real run shows
# the table.
load helpers

setup() {
	setup_scratch
	command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
	export PYTHONDONTWRITEBYTECODE=1
}
teardown() { teardown_scratch; }

FUZZ="$ROOT/scripts/fuzz-stages"

# fake MODE: $SCRATCH/fake holds a tile-sched that behaves as MODE says, and
# the real tile-ptx (the stage after it)
fake() {
	mkdir -p "$SCRATCH/fake"
	ln -sf "$BIN/tile-ptx" "$SCRATCH/fake/tile-ptx"
	cat >"$SCRATCH/fake/tile-sched" <<-EOF
		#!/bin/sh
		case $1 in
		clean) echo "tile-sched: in.json: at /module: error: bad input" >&2; exit 1 ;;
		valid) exit 0 ;;
		abort) echo "tile-sched: internal error: no layout for %7" >&2; kill -ABRT \$\$ ;;
		segv) kill -SEGV \$\$ ;;
		asan) echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55" >&2
		      echo "    #0 0x55 in layout_of $ROOT/tools/tile-sched/shape.c:12" >&2; kill -ABRT \$\$ ;;
		ubsan) echo "$ROOT/tools/tile-sched/sched.c:262:34: runtime error: member access within null pointer" >&2; exit 1 ;;
		dump) printf 'tile-sched: error: bad\n  %%1 = add i32 %%0, %%0\n' >&2; exit 1 ;;
		hang) sleep 20 ;;
		esac
	EOF
	chmod +x "$SCRATCH/fake/tile-sched"
	run "$FUZZ" 1 --bin "$SCRATCH/fake" --seed-bin "$BIN" --stages tile-sched --cascade 0 \
		--modules 'examples/*' --out "$SCRATCH/o" --timeout 1 --random-seed 1
}

@test "fuzz-stages: clean rejections and valid compiles are no defect (exit 0)" {
	fake clean
	assert_success
	assert_line --regexp '^\| tile-sched \| ([0-9]+) \| \1 \| 0 \| 0 \|$'
	fake valid
	assert_success
	assert_line --regexp '^\| tile-sched \| ([0-9]+) \| 0 \| \1 \| 0 \|$'
}

@test "fuzz-stages: an internal error, a signal, a sanitizer report, a dump, a hang are defects with reproducers" {
	fake abort
	assert_failure 1
	assert_line --regexp '^\| tile-sched \| [0-9]+ \| 0 \| 0 \| \*\*[0-9]+\*\*: abort [0-9]+ \(1 distinct\) \|$'
	assert_line "- tile-sched abort: tile-sched: internal error: no layout for %7"
	cmd=$(ls "$SCRATCH"/o/defects/tile-sched/abort-*-0.cmd)
	grep -q "tile-sched --num-warps=[0-9] $SCRATCH/o/defects/tile-sched/abort-[0-9a-f]*-0.json -o /dev/null" "$cmd"
	[ -s "${cmd%.cmd}.json" ] && [ -s "${cmd%.cmd}.err" ]
	fake segv
	assert_failure 1
	assert_line --partial "- tile-sched signal: SIGSEGV"
	fake asan
	assert_failure 1
	assert_line "- tile-sched asan: heap-buffer-overflow in layout_of tools/tile-sched/shape.c:12"
	fake ubsan
	assert_failure 1
	assert_line "- tile-sched ubsan: tools/tile-sched/sched.c:262:34: member access within null pointer"
	fake dump
	assert_failure 1
	assert_line "- tile-sched dump: 2 lines, first not a diagnostic:   %1 = add i32 %0, %0"
	fake hang
	assert_failure 1
	assert_line "- tile-sched hang: no exit within the timeout"
}

@test "fuzz-stages: a short run over the real stages prints the table" {
	run "$FUZZ" 4 --bin "$BIN" --modules 'examples/*' --out "$SCRATCH/o"
	[ "$status" -le 1 ] || fail "status $status: $output"
	for s in tile-lower tile-sched tile-ptx; do
		assert_line --regexp "^\| $s \| [1-9][0-9]* \| [0-9]+ \| [0-9]+ \| "
	done
	assert_file_exists "$SCRATCH/o/summary.md"
	assert_file_exists "$SCRATCH/o/seeds/examples_vector_add.sm_80.sched.json"
}

@test "fuzz-stages: usage and setup errors are exit 2" {
	run "$FUZZ"
	assert_failure 2
	run "$FUZZ" 1 --stages tile-nope
	assert_failure 2
	assert_output --partial "unknown stage 'tile-nope'"
	run "$FUZZ" 1 --bin "$SCRATCH/none"
	assert_failure 2
	assert_output --partial "is not built"
}
