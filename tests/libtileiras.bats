#!/usr/bin/env bats
# libtileiras, the in-process C API (docs/libtileiras.md), from a C program
# ($BIN/../tests/api-test, tests/lib/api_test.c) and through tileiras-inproc:
# every error code and the seed's validation order; the cubin and PTX equal
# byte for byte to the CLI's (scripts/tileiras, the stage executables) for
# every corpus kernel on sm_80 and sm_90, a kernel the CLI rejects rejected
# with the same code; the intermediate forms equal the stages' JSON; threads
# compiling different kernels at once get the serial results.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

API="$BIN/../tests/api-test"
CORPUS="$BATS_TEST_DIRNAME/corpus/13.4"

@test "libtileiras: every error code, the seed's validation order and messages" {
	require_ptxas
	run "$API" errors "$CORPUS/vector_add.tileirbc"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line "0 failed"
	# each code appears (1 allocation, 2 config, 3 input, 4 handle; 5 below)
	for c in 1 2 3 4; do assert_line --partial "(want $c)"; done
	refute_line --partial FAIL
}

@test "libtileiras.so: the same checks from a program linked with the shared library" {
	require_ptxas
	run "$BIN/../tests/api-test-so" errors "$CORPUS/vector_add.tileirbc"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line "0 failed"
	refute_line --partial FAIL
	run ldd "$BIN/../tests/api-test-so"
	assert_line --regexp "libtileiras\.so => .*/lib/libtileiras\.so "
	"$BIN/../tests/api-test-so" compile "$CORPUS/softmax.tileirbc" sm_90 3 "$SCRATCH/so.cubin" "$SCRATCH/so.ptx"
	tileiras "$CORPUS/softmax.tileirbc" --gpu-name sm_90 -o "$SCRATCH/cli.cubin"
	cmp "$SCRATCH/so.cubin" "$SCRATCH/cli.cubin"
}

@test "libtileiras: the library exports only the tileiras calls" {
	run nm -D --defined-only "$BIN/../lib/libtileiras.so"
	[ "$status" -eq 0 ]
	assert_line --partial " T tileirasProgramCreate"
	assert_line --partial " T tileirasProgramCompile"
	assert_line --partial " T tileirasProgramGetOutput"
	assert_line --partial " T tileirasProgramRelease"
	refute_line --partial " T tile_read_bytecode"
	refute_line --partial " T sb_printf"
	refute_line --partial " T tileiras_compile"
}

# compare_corpus GPU: for every corpus kernel, api-test's cubin and PTX equal
# the CLI's; where the CLI fails, the API fails with the same code
compare_corpus() {
	local g=$1 n=0 failed=0
	for f in "$CORPUS"/*.tileirbc; do
		local b
		b=$(basename "$f" .tileirbc)
		local rc1=0 rc2=0
		tileiras "$f" --gpu-name "$g" -o "$SCRATCH/$b.cli.cubin" 2>"$SCRATCH/$b.cli.err" || rc1=$?
		"$API" compile "$f" "$g" 3 "$SCRATCH/$b.lib.cubin" "$SCRATCH/$b.lib.ptx" 2>"$SCRATCH/$b.lib.err" || rc2=$?
		[ "$rc1" -eq "$rc2" ] || fail "$b $g: CLI exit $rc1, API code $rc2: $(cat "$SCRATCH/$b.lib.err")"
		if [ "$rc1" -ne 0 ]; then
			failed=$((failed + 1))
			# the same first diagnostic (api-test names the input as the CLI does)
			local l1 l2
			l1=$(head -1 "$SCRATCH/$b.cli.err")
			l2=$(head -1 "$SCRATCH/$b.lib.err")
			[ "$l1" = "$l2" ] || fail "$b $g: CLI says '$l1', API says '$l2'"
			grep -qx "error: failed to compile Tile IR program" "$SCRATCH/$b.lib.err" ||
				fail "$b $g: no driver error line in the API's log"
			continue
		fi
		tileiras "$f" --gpu-name "$g" --emit=ptx -o "$SCRATCH/$b.cli.ptx"
		cmp "$SCRATCH/$b.cli.cubin" "$SCRATCH/$b.lib.cubin" || fail "$b $g: cubins differ"
		cmp "$SCRATCH/$b.cli.ptx" "$SCRATCH/$b.lib.ptx" || fail "$b $g: PTX differs"
		n=$((n + 1))
	done
	echo "$g: $n equal, $failed rejected both ways"
	[ "$n" -ge 20 ]
}

@test "libtileiras: every corpus kernel's cubin and PTX equal the CLI's (sm_80)" {
	require_ptxas
	compare_corpus sm_80
}

@test "libtileiras: every corpus kernel's cubin and PTX equal the CLI's (sm_90)" {
	require_ptxas
	compare_corpus sm_90
}

@test "libtileiras: a rejected kernel is code 5 with the stage's message in the log" {
	require_ptxas
	# 8-bit floats on sm_80: tile-lower rejects them (a user error at the kernel's line)
	F8="$ROOT/tests/pipeline/corpus/convert_f8.tileirbc"
	run "$API" compile "$F8" sm_80 3 "$SCRATCH/m.cubin" "$SCRATCH/m.ptx"
	[ "$status" -eq 5 ]
	assert_line --partial "tile-lower: $F8: loc(\"tests/pipeline/kernels/ops.py\":62:36): error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	assert_line "error: failed to compile Tile IR program"
	[ ! -e "$SCRATCH/m.cubin" ]
}

@test "libtileiras: the intermediate forms equal the stages' JSON and PTX" {
	require_ptxas
	for k in softmax layer_norm vector_add; do
		f="$CORPUS/$k.tileirbc"
		mkdir -p "$SCRATCH/$k"
		"$API" forms "$f" sm_90 "$SCRATCH/$k"
		tileiras "$f" --gpu-name sm_90 --emit=json --stop-after=tile-read -o "$SCRATCH/$k/cli.read.json"
		tileiras "$f" --gpu-name sm_90 --emit=json --stop-after=tile-lower -o "$SCRATCH/$k/cli.lower.json"
		tileiras "$f" --gpu-name sm_90 --emit=json --stop-after=tile-sched -o "$SCRATCH/$k/cli.sched.json"
		tileiras "$f" --gpu-name sm_90 --emit=ptx -o "$SCRATCH/$k/cli.ptx"
		for s in read.json lower.json sched.json ptx; do
			cmp "$SCRATCH/$k/$s" "$SCRATCH/$k/cli.$s" || fail "$k: $s differs"
		done
	done
}

@test "libtileiras: 4 threads compiling different kernels at once agree with serial compiles" {
	require_ptxas
	files=()
	for k in vector_add softmax layer_norm reduce_sum transpose fft matmul; do
		[ -f "$CORPUS/$k.tileirbc" ] && files+=("$CORPUS/$k.tileirbc")
	done
	run "$API" threads 4 sm_90 "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_line --partial "0 differ"
}

@test "tileiras-inproc: one process, the CLI's cubin; NVIDIA's exit codes" {
	require_ptxas
	f="$CORPUS/softmax.tileirbc"
	tileiras "$f" --gpu-name sm_90 -o "$SCRATCH/cli.cubin"
	run tileiras-inproc "$f" --gpu-name=sm_90 -o "$SCRATCH/in.cubin"
	[ "$status" -eq 0 ]
	cmp "$SCRATCH/cli.cubin" "$SCRATCH/in.cubin"
	# --time: the library's own per-stage wall times, LLVM and ptxas nonzero
	run tileiras-inproc "$f" --gpu-name=sm_90 --time -o "$SCRATCH/in2.cubin"
	[ "$status" -eq 0 ]
	assert_output --regexp "^time read=[0-9.]+ lower=[0-9.]+ sched=[0-9.]+ ptx=[0-9.]*[1-9][0-9.]* pack=[0-9.]*[1-9][0-9.]*$"
	run tileiras-inproc "$f" --gpu-name=sm_90 --emit=ptx -o -
	[ "$status" -eq 0 ]
	assert_line --partial ".target sm_90"
	printf 'not bytecode' >"$SCRATCH/bad"
	run tileiras-inproc "$SCRATCH/bad" --gpu-name=sm_90 -o "$SCRATCH/x"
	[ "$status" -eq 3 ]
	assert_output "error: input does not correspond to Tile IR bytecode"
	run tileiras-inproc "$f" --gpu-name=sm_60 -o "$SCRATCH/x"
	[ "$status" -eq 2 ]
	assert_output "error: unsupported GPU target"
	run tileiras-inproc "$ROOT/tests/pipeline/corpus/convert_f8.tileirbc" --gpu-name=sm_80 -o "$SCRATCH/x"
	[ "$status" -eq 5 ]
	[ ! -e "$SCRATCH/x" ]
}

@test "tileiras-inproc: -O0, --lineinfo, --device-debug give the CLI's PTX and cubin" {
	require_ptxas
	f="$CORPUS/layer_norm.tileirbc"
	for opts in "-O0" "--lineinfo" "-O0 --device-debug" "-O1 --lineinfo"; do
		# shellcheck disable=SC2086
		tileiras "$f" --gpu-name sm_80 $opts -o "$SCRATCH/cli.cubin"
		# shellcheck disable=SC2086
		tileiras "$f" --gpu-name sm_80 $opts --emit=ptx -o "$SCRATCH/cli.ptx"
		# shellcheck disable=SC2086
		tileiras-inproc "$f" --gpu-name=sm_80 $opts -o "$SCRATCH/in.cubin"
		# shellcheck disable=SC2086
		tileiras-inproc "$f" --gpu-name=sm_80 $opts --emit=ptx -o "$SCRATCH/in.ptx"
		cmp "$SCRATCH/cli.cubin" "$SCRATCH/in.cubin" || fail "$opts: cubins differ"
		cmp "$SCRATCH/cli.ptx" "$SCRATCH/in.ptx" || fail "$opts: PTX differs"
	done
	# the CLI rejects -O3 --device-debug; so does the API (code 2, NVIDIA's exit code)
	run tileiras-inproc "$f" --gpu-name=sm_80 --device-debug -o "$SCRATCH/x"
	[ "$status" -eq 2 ]
	assert_output "error: optimized debugging is currently not supported, change the optimization level to 0 or disable full debug info"
}
