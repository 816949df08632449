#!/usr/bin/env bats
# libtilerun, tile-run as a library (issue 40; docs/tile-run.md "The
# library"), from a C program linked with libtilerun.so
# ($BIN/../tests/tilerun-test, tests/lib/tilerun_test.c): a PTX vector add
# checked; an out-of-bounds write a fault with its kind, address, buffer,
# thread, block and .loc place, the caller's buffers byte-identical; racecheck;
# device printf into a stream; a failed assert, a trap, a deadlock; bad PTX and
# NULL arguments as errors with messages; bytecode compiled in process; threads
# launching one module at once. Nothing the library says reaches stderr.
bats_require_minimum_version 1.5.0
load helpers

T="$BIN/../tests/tilerun-test"
F="$BATS_TEST_DIRNAME/run-cli"
VADD_BC="$BATS_TEST_DIRNAME/corpus/13.4/vector_add.tileirbc"

setup_file() {
	# our compiler's PTX of vector_add, with .loc lines (tests/kernels/vector_add.py)
	"$BIN/tileiras" "$VADD_BC" --gpu-name=sm_80 --emit=ptx --lineinfo -o "$BATS_FILE_TMPDIR/vadd.ptx"
}

# tcase MODE ARG...: the test program's case, its stderr empty
tcase() {
	run --separate-stderr "$T" "$@"
	echo "$output"
	echo "stderr: $stderr"
	assert_success
	assert_line "ok $1"
	[ -z "$stderr" ]
}

@test "libtilerun: the library exports only the tilerun* calls and links libtileiras.so" {
	run nm -D --defined-only "$BIN/../lib/libtilerun.so"
	assert_success
	refute_line --regexp ' T [^t]'
	refute_line --regexp ' T tilerun_'
	assert_line --regexp ' T tilerunLaunch$'
	run ldd "$T"
	assert_line --regexp "libtilerun\.so => .*/lib/libtilerun\.so "
	assert_line --regexp "libtileiras\.so => .*/lib/libtileiras\.so "
}

@test "libtilerun: a PTX vector add computes z = x + y" {
	tcase vadd "$BATS_FILE_TMPDIR/vadd.ptx"
}

@test "libtilerun: an out-of-bounds write is an OUT_OF_BOUNDS fault at its .loc place; the buffers are untouched" {
	tcase oob "$BATS_FILE_TMPDIR/vadd.ptx"
	assert_line --regexp "^message: out-of-bounds global write of 4 bytes at 0x[0-9a-f]+: 0 bytes past the end of z .*thread \(88,0,0\) of block \(4,0,0\) \(PTX line [0-9]+, tests/kernels/vector_add.py:11:4\)$"
}

@test "libtilerun: racecheck finds a shared-memory race (RACE) that memcheck lets through" {
	tcase race "$F/race.ptx"
}

@test "libtilerun: device printf goes to the launch's stream" {
	tcase printf "$F/warp.ptx"
}

@test "libtilerun: a failed device assert is ASSERT (its line on the launch's stream), trap TRAP, deadlock DEADLOCK" {
	tcase assert "$F/faults.ptx"
}

@test "libtilerun: bad PTX is ERROR_INPUT with tile-run's message, nothing on stderr" {
	tcase badptx
	assert_line "message: nul.ptx: not PTX text (NUL bytes)"
}

@test "libtilerun: NULL and contradictory arguments are ERROR_USAGE with a message, no crash" {
	tcase nulls "$BATS_FILE_TMPDIR/vadd.ptx"
}

@test "libtilerun: bytecode compiled in process (libtileiras) runs; a truncated file is ERROR_INPUT" {
	tcase bytecode "$VADD_BC"
	assert_line --partial "truncated: error: "
}

@test "libtilerun: eight threads launch one module at once, each with its own buffers, results right" {
	tcase threads "$BATS_FILE_TMPDIR/vadd.ptx" 8
}

@test "tile-run has no mutable global: no variable in .data or .bss of its objects or libtilerun's" {
	# (const tables of pointers are in .data.rel.ro: read-only after relocation)
	# (the objects of today's sources only: a build directory may keep objects of moved files)
	for c in "$ROOT"/tools/tile-run/*.c "$ROOT"/libtilerun/*.c; do
		o=$BIN/../obj/${c#"$ROOT"/}
		o=${o%.c}.o
		[ -e "$o" ] || fail "$o not built"
		objdump -t "$o" | grep -E '[[:space:]]\.(data|bss|tdata|tbss)(\.rel|\.rel\.local)?[[:space:]]' |
			awk -v o="${o##*/}" '$NF !~ /^\./ { print o ": " $NF }'
	done >"$BATS_TEST_TMPDIR/vars"
	cat "$BATS_TEST_TMPDIR/vars"
	[ ! -s "$BATS_TEST_TMPDIR/vars" ]
	# the check sees one
	printf 'static int x; int f(void) { return x++; }\n' >"$BATS_TEST_TMPDIR/g.c"
	gcc -c "$BATS_TEST_TMPDIR/g.c" -o "$BATS_TEST_TMPDIR/g.o"
	objdump -t "$BATS_TEST_TMPDIR/g.o" | grep -qE '[[:space:]]\.bss[[:space:]].* x$'
}
