#!/usr/bin/env bats
# libtileiras, the in-process C API (docs/libtileiras.md), from a C program
# ($BIN/../tests/api-test, tests/lib/api_test.c) and through tileiras-inproc:
# every error code and the seed's validation order; the cubin and PTX equal
# byte for byte to the CLI's (scripts/tileiras, the stage executables) for
# every corpus kernel on sm_80 and sm_90, a kernel the CLI rejects rejected
# with the same code; the intermediate forms equal the stages' JSON; threads
# compiling different kernels at once get the serial results. scripts/tileiras's
# fast path (one tileiras-inproc process) against its five stages.
load helpers

# "the CLI" below is the five stage executables; the fast path has tests of its own
export TILEIRAS_NO_INPROC=1

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
	assert_line "tests/pipeline/kernels/ops.py:62:36: error: 'cuda_tile.ftof' op: 8-bit floats are not supported on sm_80"
	refute_output --partial "tile-lower"
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

# ptxas_spy: $SCRATCH/ptxas, a ptxas that logs to $SCRATCH/ptxas.log how its
# PTX input was when it started (fifo: started before the PTX existed, file,
# none) and then runs the ptxas tile-pack picks; it fails instead (exit 1, one
# message) while $SCRATCH/fail-next exists (removed by the first failure) or
# $SCRATCH/fail-always does. TILEIRAS_PTXAS names it after.
ptxas_spy() {
	local real
	real=$(tile-pack -v --gpu-name=sm_90 --emit=cubin -o /dev/null "$SCRATCH/spy.ptx" 2>&1 |
		sed -n 's/^tile-pack: ptxas \(.*\) (release .*/\1/p' | head -1)
	[ -n "$real" ] || fail "no ptxas picked"
	{
		echo '#!/bin/sh'
		echo 'ptx= prev='
		echo 'for a in "$@"; do [ "$a" = -o ] && ptx=$prev; prev=$a; done'
		echo 'if [ -n "$ptx" ]; then'
		echo "	if [ -p \"\$ptx\" ]; then echo fifo; elif [ -e \"\$ptx\" ]; then echo file; else echo none; fi >>'$SCRATCH/ptxas.log'"
		echo "	if [ -e '$SCRATCH/fail-next' ] || [ -e '$SCRATCH/fail-always' ]; then"
		echo "		rm -f '$SCRATCH/fail-next'"
		echo '		echo "ptxas fatal   : injected failure" >&2'
		echo '		exit 1'
		echo '	fi'
		echo 'fi'
		echo "exec '$real' \"\$@\""
	} >"$SCRATCH/ptxas"
	chmod +x "$SCRATCH/ptxas"
	export TILEIRAS_PTXAS="$SCRATCH/ptxas"
}

@test "tileiras-inproc: ptxas starts before the PTX exists (a FIFO), the same cubin; an early run that fails is run again" {
	require_ptxas
	f="$CORPUS/softmax.tileirbc"
	tileiras "$f" --gpu-name sm_90 --emit=ptx -o "$SCRATCH/spy.ptx"
	ptxas_spy
	tileiras "$f" --gpu-name sm_90 --lineinfo -o "$SCRATCH/cli.cubin"
	: >"$SCRATCH/ptxas.log"
	run tileiras-inproc "$f" --gpu-name=sm_90 --lineinfo -o "$SCRATCH/in.cubin"
	[ "$status" -eq 0 ]
	cmp "$SCRATCH/cli.cubin" "$SCRATCH/in.cubin"
	run cat "$SCRATCH/ptxas.log"
	assert_line --index 0 fifo
	# TILE_PACK_NO_EARLY=1: ptxas after the PTX is written, the same bytes
	: >"$SCRATCH/ptxas.log"
	TILE_PACK_NO_EARLY=1 tileiras-inproc "$f" --gpu-name=sm_90 --lineinfo -o "$SCRATCH/late.cubin"
	cmp "$SCRATCH/cli.cubin" "$SCRATCH/late.cubin"
	run cat "$SCRATCH/ptxas.log"
	assert_line --index 0 file
	# the early run fails (as when it looked too early): run again once the
	# PTX is in place; its messages dropped, the cubin the same
	: >"$SCRATCH/ptxas.log"
	touch "$SCRATCH/fail-next"
	run tileiras-inproc "$f" --gpu-name=sm_90 --lineinfo -o "$SCRATCH/again.cubin"
	[ "$status" -eq 0 ]
	refute_output --partial "injected failure"
	cmp "$SCRATCH/cli.cubin" "$SCRATCH/again.cubin"
	run cat "$SCRATCH/ptxas.log"
	assert_line --index 0 fifo
	assert_line --index 1 file
	# a ptxas that always fails: its message once (the second run's), code 5
	: >"$SCRATCH/ptxas.log"
	touch "$SCRATCH/fail-always"
	run tileiras-inproc "$f" --gpu-name=sm_90 -o "$SCRATCH/x.cubin"
	[ "$status" -eq 5 ]
	[ ! -e "$SCRATCH/x.cubin" ]
	[ "$(grep -c "injected failure" <<<"$output")" -eq 1 ]
	[ "$(wc -l <"$SCRATCH/ptxas.log")" -eq 2 ]
	# PTX whose target is the family variant (sm_100f: e2m1 conversions): the
	# ptxas started for sm_100a is cancelled, its FIFO removed, ptxas run anew
	rm -f "$SCRATCH/fail-always"
	f="$ROOT/tests/ops/convert_narrow.tileirbc"
	tileiras "$f" --gpu-name sm_100 -o "$SCRATCH/fam-cli.cubin"
	: >"$SCRATCH/ptxas.log"
	tileiras-inproc "$f" --gpu-name=sm_100 -o "$SCRATCH/fam.cubin"
	cmp "$SCRATCH/fam-cli.cubin" "$SCRATCH/fam.cubin"
	# (the cancelled one may be killed before the spy logs its start)
	[ "$(tail -n 1 "$SCRATCH/ptxas.log")" = file ]
	[ "$(wc -l <"$SCRATCH/ptxas.log")" -le 2 ]
}

@test "tileiras-inproc: a compile killed while ptxas waits for its PTX leaves no ptxas behind" {
	require_ptxas
	command -v pgrep >/dev/null || skip "no pgrep"
	# matmul: LLVM takes ~90 ms, ptxas (started first) waits on its FIFO
	export TMPDIR="$SCRATCH/tmp"
	mkdir -p "$TMPDIR"
	tileiras-inproc "$CORPUS/matmul.tileirbc" --gpu-name=sm_90 -o "$SCRATCH/k.cubin" &
	local pid=$! n=0
	until pgrep -f "$TMPDIR/tileiras-[0-9]*/tile-pack\..*/in\.ptx" >/dev/null; do
		n=$((n + 1))
		[ $n -lt 400 ] || { wait $pid; skip "the compile ended before ptxas was seen"; }
		sleep 0.005
	done
	kill -9 $pid
	wait $pid 2>/dev/null || true
	n=0
	while pgrep -f "$TMPDIR/tileiras-[0-9]*/tile-pack\..*/in\.ptx" >/dev/null; do
		n=$((n + 1))
		# (killed here, or bats would wait on the descriptors it holds)
		[ $n -lt 100 ] || { pkill -9 -f "$TMPDIR/tileiras-[0-9]*/tile-pack\..*/in\.ptx"; fail "ptxas outlived the killed compile"; }
		sleep 0.01
	done
}

@test "tile-pack: ptxas starts while the .nv.host object is built; an early run that fails is run again" {
	require_ptxas
	f="$CORPUS/softmax.tileirbc"
	tileiras "$f" --gpu-name sm_90 --emit=ptx -o "$SCRATCH/spy.ptx"
	ptxas_spy
	[ "$(tile-pack --query-tensor-maps)" = yes ] || skip "ptxas older than 13.2: no TILEIR module, no .nv.host object"
	TILE_PACK_NO_EARLY=1 tile-pack --gpu-name=sm_90 "$SCRATCH/spy.ptx" -o "$SCRATCH/late.cubin"
	tile-pack --gpu-name=sm_90 "$SCRATCH/spy.ptx" -o "$SCRATCH/early.cubin"
	cmp "$SCRATCH/late.cubin" "$SCRATCH/early.cubin"
	: >"$SCRATCH/ptxas.log"
	touch "$SCRATCH/fail-next"
	run tile-pack --gpu-name=sm_90 "$SCRATCH/spy.ptx" -o "$SCRATCH/again.cubin"
	[ "$status" -eq 0 ]
	refute_output --partial "injected failure"
	cmp "$SCRATCH/late.cubin" "$SCRATCH/again.cubin"
	[ "$(wc -l <"$SCRATCH/ptxas.log")" -eq 2 ]
}

@test "tileiras-inproc: only this machine's host backend; the other --host-arch is code 5, and tileiras makes it with the stages" {
	require_ptxas
	local other=aarch64
	case $(uname -m) in aarch64 | arm64) other=x86_64 ;; esac
	f="$CORPUS/vector_add.tileirbc"
	# a host object goes into TILEIR cubins only (ptxas 13.2+: the .nv.host callbacks)
	local v
	v=$(tile-pack --which-ptxas | sed -n 's/.*(release \([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
	run tileiras-inproc "$f" --gpu-name=sm_90 --host-arch=$other -o "$SCRATCH/in.cubin"
	if [ "${v% *}" -gt 13 ] || { [ "${v% *}" -eq 13 ] && [ "${v#* }" -ge 2 ]; }; then
		[ "$status" -eq 5 ]
		assert_output --partial "LLVM has no target for $other-"
		[ ! -e "$SCRATCH/in.cubin" ]
	else
		assert_success     # a plain-PTX cubin: no host object in it
	fi
	# the driver's fast path falls back to the stages: the same cubin as theirs
	tileiras "$f" --gpu-name sm_90 --host-arch=$other -o "$SCRATCH/fast.cubin"
	TILEIRAS_NO_INPROC=1 tileiras "$f" --gpu-name sm_90 --host-arch=$other -o "$SCRATCH/stages.cubin"
	cmp "$SCRATCH/fast.cubin" "$SCRATCH/stages.cubin"
	# tile-pack has both
	run tile-pack --emit=obj --host-arch=$other "$ROOT/tests/pack/sm80_vecadd.ptx" -o "$SCRATCH/o.o"
	assert_success
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

# --- scripts/tileiras's fast path: tileiras-inproc for bytecode -> cubin ------

# fast_vs_stages NAME FILE GPU OPTS...: the script with its fast path and with
# the five stages give the same exit status, stderr, stdout, cubin and remarks;
# each difference is a line in $SCRATCH/mismatch (check_no_mismatch), the
# status is the compile's
mismatch() { echo "$*" >>"$SCRATCH/mismatch"; }
check_no_mismatch() {
	[ ! -s "$SCRATCH/mismatch" ] || fail "$(cat "$SCRATCH/mismatch")"
}
fast_vs_stages() {
	local n=$1 f=$2 g=$3 rc1=0 rc2=0
	shift 3
	(cd "$SCRATCH" && env -u TILEIRAS_NO_INPROC tileiras "$f" --gpu-name "$g" -o "$n.fast.cubin" \
		--remarks-output-file="$n.fast.yaml" "$@" >"$n.fast.out" 2>"$n.fast.err") || rc1=$?
	(cd "$SCRATCH" && tileiras "$f" --gpu-name "$g" -o "$n.slow.cubin" \
		--remarks-output-file="$n.slow.yaml" "$@" >"$n.slow.out" 2>"$n.slow.err") || rc2=$?
	[ "$rc1" -eq "$rc2" ] || mismatch "$n: fast path exit $rc1, stages $rc2: $(cat "$SCRATCH/$n.fast.err")"
	sed "s/$n\.fast\./$n.X./g" "$SCRATCH/$n.fast.err" >"$SCRATCH/a"
	sed "s/$n\.slow\./$n.X./g" "$SCRATCH/$n.slow.err" >"$SCRATCH/b"
	cmp "$SCRATCH/a" "$SCRATCH/b" || mismatch "$n: stderr differs: $(diff "$SCRATCH/a" "$SCRATCH/b")"
	cmp "$SCRATCH/$n.fast.out" "$SCRATCH/$n.slow.out" || mismatch "$n: stdout differs"
	local x
	for x in cubin yaml; do
		local e1=0 e2=0
		[ -e "$SCRATCH/$n.fast.$x" ] && e1=1
		[ -e "$SCRATCH/$n.slow.$x" ] && e2=1
		[ $e1 = $e2 ] || mismatch "$n: $x written by one way only (fast $e1, stages $e2)"
		if [ -e "$SCRATCH/$n.fast.$x" ] || [ -e "$SCRATCH/$n.slow.$x" ]; then
			cmp "$SCRATCH/$n.fast.$x" "$SCRATCH/$n.slow.$x" || mismatch "$n: $x differs"
		fi
	done
	return "$rc1"
}

@test "fast path: every corpus kernel as cuTile compiles it (-O3 --lineinfo, YAML remarks) = the five stages (sm_90)" {
	require_ptxas
	local n=0 r=0
	for f in "$CORPUS"/*.tileirbc "$ROOT"/tests/workers/*.tileirbc; do
		b=$(basename "$f" .tileirbc)
		if fast_vs_stages "$b" "$f" sm_90 -O3 --lineinfo --remark-format=yaml --remarks=all; then
			n=$((n + 1))
			# (a module without kernels has none, unless the cubin's language is remarked on)
			[ -s "$SCRATCH/$b.fast.yaml" ] || [ "$b" = empty ] || fail "$b: no remarks"
		else
			r=$((r + 1))
		fi
	done
	echo "$n equal, $r rejected both ways"
	check_no_mismatch
	[ "$n" -ge 25 ]
}

@test "fast path: command-line remarks, memory-only remarks, -O0, memcheck, sm_80 = the five stages" {
	require_ptxas
	f="$CORPUS/layer_norm.tileirbc"
	fast_vs_stages a "$f" sm_80 --remarks=all
	grep -q "remark" "$SCRATCH/a.fast.out"
	fast_vs_stages b "$f" sm_90 --remark-format=yaml --remarks-missed=memory
	fast_vs_stages c "$f" sm_90 --remark-format=yaml --remarks-analysis=all
	fast_vs_stages d "$f" sm_80 -O0
	fast_vs_stages e "$f" sm_90 --sanitize=memcheck
	fast_vs_stages g "$CORPUS/softmax.tileirbc" sm_100 -O2
	check_no_mismatch
}

@test "fast path: what it cannot compile, the stages do again: same messages and exit status" {
	require_ptxas
	run fast_vs_stages f8 "$ROOT/tests/pipeline/corpus/convert_f8.tileirbc" sm_80
	[ "$status" -eq 5 ]
	grep -q "ops.py:62:36: error: 'cuda_tile.ftof' op: 8-bit floats" "$SCRATCH/f8.fast.err"
	printf 'not bytecode' >"$SCRATCH/bad.tileirbc"
	run fast_vs_stages bad "$SCRATCH/bad.tileirbc" sm_90
	[ "$status" -eq 3 ]
	# a bad hint: a warning and the default CTA, both ways (tests/workers.bats)
	/usr/bin/python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[29] = 3
open(sys.argv[2], "wb").write(d)' "$ROOT/tests/workers/vadd2_sm90.tileirbc" "$SCRATCH/hint3.tileirbc"
	fast_vs_stages hint "$SCRATCH/hint3.tileirbc" sm_90
	grep -q "warning: num_worker_warps_per_cta 3 is not a power of two" "$SCRATCH/hint.fast.err"
	# outputs the fast path writes itself: a missing directory, standard output, a link
	f="$CORPUS/softmax.tileirbc"
	for o in "$SCRATCH/nodir/k.cubin" - /dev/stdout; do
		run env -u TILEIRAS_NO_INPROC tileiras "$f" --gpu-name sm_90 -o "$o"
		local s1=$status o1=$output
		run tileiras "$f" --gpu-name sm_90 -o "$o"
		[ "$s1" = "$status" ] && [ "$o1" = "$output" ] || mismatch "-o $o: fast $s1, stages $status"
	done
	check_no_mismatch
}

@test "fast path: one process does the compile; without tileiras-inproc, or when it fails, the stages do" {
	require_ptxas
	f="$CORPUS/softmax.tileirbc"
	mkdir "$SCRATCH/bin"
	cp "$BIN"/* "$SCRATCH/bin/"
	tileiras "$f" --gpu-name sm_90 -o "$SCRATCH/want.cubin"
	# stages that would fail: the fast path never runs them
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do
		printf '#!/bin/sh\necho "%s ran" >&2\nexit 1\n' "$s" >"$SCRATCH/bin/$s"
	done
	run env -u TILEIRAS_NO_INPROC "$SCRATCH/bin/tileiras" "$f" --gpu-name sm_90 -o "$SCRATCH/fast.cubin"
	assert_success
	refute_output --partial " ran"
	cmp "$SCRATCH/want.cubin" "$SCRATCH/fast.cubin"
	# -v, --save-temps, a replaced stage, --emit other than cubin: the stages
	run env -u TILEIRAS_NO_INPROC "$SCRATCH/bin/tileiras" "$f" --gpu-name sm_90 -o "$SCRATCH/x" --emit=ptx
	assert_failure 3
	assert_output --partial "tile-read ran"
	# cuTile's own command line (the script's first lines take it): the same
	run env -u TILEIRAS_NO_INPROC "$SCRATCH/bin/tileiras" "$f" -o "$SCRATCH/cutile.cubin" --gpu-name sm_90 -O3 \
		--lineinfo --remark-format=yaml --remarks=all --remarks-output-file="$SCRATCH/cutile.yaml"
	assert_success
	refute_output --partial " ran"
	tileiras "$f" -o "$SCRATCH/want-li.cubin" --gpu-name sm_90 -O3 --lineinfo --remark-format=yaml --remarks=all \
		--remarks-output-file="$SCRATCH/want.yaml"
	cmp "$SCRATCH/want-li.cubin" "$SCRATCH/cutile.cubin"
	cmp "$SCRATCH/want.yaml" "$SCRATCH/cutile.yaml"
	# real stages, a tileiras-inproc that fails as the real one does (its
	# messages held; --then-exec PROGRAM...: that, with TILEIRAS_NO_INPROC=1):
	# tried once, then the stages, for the fast path and cuTile's line alike
	cp "$BIN"/tile-* "$SCRATCH/bin/"
	{
		echo '#!/bin/sh'
		echo "echo \"inproc ran\" >>'$SCRATCH/inproc.log'"
		echo 'while [ $# -gt 0 ]; do [ "$1" = --then-exec ] && { shift; TILEIRAS_NO_INPROC=1 exec "$@"; }; shift; done'
		echo 'exit 5'
	} >"$SCRATCH/bin/tileiras-inproc"
	for line in "--gpu-name sm_90" "-O3 --gpu-name sm_90 --lineinfo"; do
		rm -f "$SCRATCH/inproc.log" "$SCRATCH/slow.cubin"
		# shellcheck disable=SC2086
		run env -u TILEIRAS_NO_INPROC "$SCRATCH/bin/tileiras" "$f" $line -o "$SCRATCH/slow.cubin"
		assert_success
		[ "$(cat "$SCRATCH/inproc.log")" = "inproc ran" ]
		tileiras "$f" $line -o "$SCRATCH/want2.cubin"
		cmp "$SCRATCH/want2.cubin" "$SCRATCH/slow.cubin"
	done
}

@test "tileirasGetVersion: the build and the ptxas, as the end of tileiras --version" {
	run "$API" version
	assert_success
	assert_output "$(tileiras --version | tail -n 2)"
	# the sources' hash (the -g<commit> after it is for people)
	[[ ${lines[0]} == "version 0.1.0, build $("$ROOT/scripts/build-id" | cut -c1-12)"* ]]
	run "$BIN/../tests/api-test-so" version
	assert_success
	assert_output "$(tileiras --version | tail -n 2)"
	run tileiras-inproc --version
	assert_success
	assert_output "$(printf 'tileiras-inproc (open tileiras)\n%s' "$(tileiras --version | tail -n 2)")"
	# no ptxas anywhere: said so, nothing printed as an error
	run env -u VIRTUAL_ENV CUDA_ROOT=/nonexistent PATH=/nonexistent HOME="$SCRATCH" "$API" version
	assert_success
	assert_line --index 1 "ptxas: none found"
	[ "${#lines[@]}" -eq 2 ]
}

# the tileiras command (libtileiras/launch_main.c) with stand-ins that log
# how they were run: cuTile's exact line goes to tileiras-inproc, the rest
# to tileiras-stages, with the user's arguments unchanged
@test "tileiras: cuTile's exact compile line to tileiras-inproc, every other to tileiras-stages" {
	local b="$SCRATCH/bin"
	mkdir -p "$b" "$SCRATCH/outdir"
	cp "$BIN/tileiras" "$b/"
	for p in tileiras-inproc tileiras-stages; do
		printf '#!/bin/bash\nprintf "%%s\\n" "%s" "$@" >"%s"\necho "GLIBC_TUNABLES=$GLIBC_TUNABLES" >>"%s"\n' \
			"$p" "$SCRATCH/ran" "$SCRATCH/ran" >"$b/$p"
		chmod +x "$b/$p"
	done
	local f="$CORPUS/vector_add.tileirbc" o="$SCRATCH/k.cubin" y="$SCRATCH/r.yaml"
	unset TILEIRAS_NO_INPROC GLIBC_TUNABLES
	# ran_by PROGRAM ARGS...: the launcher ran PROGRAM, which got exactly what
	# scripts/tileiras's fast path gave tileiras-inproc, or the user's ARGS
	ran() { rm -f "$SCRATCH/ran"; "$b/tileiras" "$@"; }
	# the host object is for this machine (the script's default, $HOSTTYPE)
	local ha=x86_64
	case $(uname -m) in aarch64 | arm64) ha=aarch64 ;; esac
	ran "$f" -o "$o" --gpu-name sm_90 -O3 --lineinfo
	assert_equal "$(cat "$SCRATCH/ran")" "$(printf '%s\n' tileiras-inproc --gpu-name=sm_90 --opt-level=3 --host-arch=$ha \
		--host-os=linux "--input-name=$f" -o "$o" --lineinfo "$f" --then-exec "$b/tileiras-stages" \
		"$f" -o "$o" --gpu-name sm_90 -O3 --lineinfo GLIBC_TUNABLES=glibc.malloc.hugetlb=1)"
	GLIBC_TUNABLES=glibc.x=1 ran --remarks=all -O0 --gpu-name sm_120 --remarks-output-file="$y" -o "$o" --remark-format=yaml "$f"
	assert_equal "$(cat "$SCRATCH/ran")" "$(printf '%s\n' tileiras-inproc --gpu-name=sm_120 --opt-level=0 --host-arch=$ha \
		--host-os=linux "--input-name=$f" -o "$o" --remark-format=yaml "--remarks-output-file=$y" \
		--remark-kinds=passed,missed,failed,analysis --resource-remarks "$f" --then-exec "$b/tileiras-stages" \
		--remarks=all -O0 --gpu-name sm_120 "--remarks-output-file=$y" -o "$o" --remark-format=yaml "$f" \
		GLIBC_TUNABLES=glibc.x=1:glibc.malloc.hugetlb=1)"
	# through a symlink (on PATH, say): the programs beside the real file
	ln -s "$b/tileiras" "$SCRATCH/link"
	rm -f "$SCRATCH/ran"
	"$SCRATCH/link" "$f" -o "$o" --gpu-name sm_90
	[ "$(head -1 "$SCRATCH/ran")" = tileiras-inproc ]
	# no /proc (some containers): found through argv[0], a path or on PATH
	if unshare -m true 2>/dev/null; then
		rm -f "$SCRATCH/ran"
		unshare -m sh -c "mount -t tmpfs none /proc && PATH='$SCRATCH:/usr/bin:/bin' link '$f' -o '$o' --gpu-name sm_90"
		[ "$(head -1 "$SCRATCH/ran")" = tileiras-inproc ]
		rm -f "$SCRATCH/ran"
		unshare -m sh -c "mount -t tmpfs none /proc && '$b/tileiras' --help"
		[ "$(head -1 "$SCRATCH/ran")" = tileiras-stages ]
	fi
	# anything else: tileiras-stages, the arguments as given
	ln -s "$o" "$SCRATCH/olink"
	local lines=(
		"$f -o $o --gpu-name sm_90 -O3 -O3"
		"$f -o $o --gpu-name sm_90 --lineinfo --lineinfo"
		"$f -o - --gpu-name sm_90"
		"$f -o $SCRATCH/outdir --gpu-name sm_90"
		"$f -o $SCRATCH/olink --gpu-name sm_90"
		"$f -o $o --gpu-name sm_99"
		"$f -o $o --gpu-name=sm_90"
		"$f -o $o"
		"$f --gpu-name sm_90"
		"$SCRATCH/missing.tileirbc -o $o --gpu-name sm_90"
		"$SCRATCH/outdir -o $o --gpu-name sm_90"
		"/dev/stdin -o $o --gpu-name sm_90"
		"$f -o /dev/null --gpu-name sm_90"
		"$f -o $o --gpu-name sm_90 --remarks=all --remark-format=yaml"
		"$f -o $o --gpu-name sm_90 --remarks-output-file=$y"
		"$f -o $o --gpu-name sm_90 --emit=ptx"
		"$f $f -o $o --gpu-name sm_90"
		"$f -o $o --gpu-name sm_90 -O4"
		"--version"
		""
	)
	local l
	for l in "${lines[@]}"; do
		# shellcheck disable=SC2086
		ran $l
		assert_equal "$(cat "$SCRATCH/ran")" "$(printf '%s\n' tileiras-stages $l GLIBC_TUNABLES=)"
	done
	# a substituted stage, TILEIRAS_NO_INPROC, no tileiras-inproc: the stages
	for e in TILEIRAS_TILE_READ=cat TILEIRAS_TILE_PACK=cat TILEIRAS_NO_INPROC=1; do
		env "$e" "$b/tileiras" "$f" -o "$o" --gpu-name sm_90
		[ "$(head -1 "$SCRATCH/ran")" = tileiras-stages ]
	done
	chmod -x "$b/tileiras-inproc"
	ran "$f" -o "$o" --gpu-name sm_90
	[ "$(head -1 "$SCRATCH/ran")" = tileiras-stages ]
	# no tileiras-stages beside it: exit 5, said
	rm "$b/tileiras-stages"
	run "$b/tileiras" --help
	[ "$status" -eq 5 ]
	assert_output "tileiras: error: cannot run $b/tileiras-stages: No such file or directory"
}

@test "tileiras-inproc --quiet-on-failure, --then-exec: its messages only when it succeeds, else the program named" {
	require_ptxas
	run tileiras-inproc --quiet-on-failure "$ROOT/tests/pipeline/corpus/convert_f8.tileirbc" --gpu-name=sm_80 -o "$SCRATCH/x"
	[ "$status" -eq 5 ]
	[ -z "$output" ]
	run tileiras-inproc "$ROOT/tests/pipeline/corpus/convert_f8.tileirbc" --gpu-name=sm_80 -o "$SCRATCH/x"
	[ "$status" -eq 5 ]
	[ -n "$output" ]
	printf 'not bytecode' >"$SCRATCH/bad"
	run tileiras-inproc --quiet-on-failure "$SCRATCH/bad" --gpu-name=sm_90 -o "$SCRATCH/x"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	# --then-exec PROGRAM ARGS: run instead when the compile fails, with
	# TILEIRAS_NO_INPROC=1; nothing of its own said
	run tileiras-inproc "$SCRATCH/bad" --gpu-name=sm_90 -o "$SCRATCH/x" --then-exec /bin/sh -c 'echo "then $0 $TILEIRAS_NO_INPROC"; exit 7' arg0
	[ "$status" -eq 7 ]
	assert_output "then arg0 1"
	run tileiras-inproc "$CORPUS/softmax.tileirbc" --gpu-name=sm_90 -o "$SCRATCH/y.cubin" --then-exec /bin/false
	[ "$status" -eq 0 ]
	[ -s "$SCRATCH/y.cubin" ]
	# a success says what it would without the option, byte for byte: a bad
	# worker hint's warning on stderr (tests/workers.bats), remarks on stdout
	/usr/bin/python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[29] = 3
open(sys.argv[2], "wb").write(d)' "$ROOT/tests/workers/vadd2_sm90.tileirbc" "$SCRATCH/hint3.tileirbc"
	f="$SCRATCH/hint3.tileirbc"
	tileiras-inproc "$f" --gpu-name=sm_90 --remark-kinds=missed -o "$SCRATCH/a.cubin" >"$SCRATCH/a.out" 2>"$SCRATCH/a.err"
	tileiras-inproc --quiet-on-failure "$f" --gpu-name=sm_90 --remark-kinds=missed -o "$SCRATCH/b.cubin" \
		>"$SCRATCH/b.out" 2>"$SCRATCH/b.err"
	grep -q "warning: num_worker_warps_per_cta 3 is not a power of two" "$SCRATCH/b.err"
	cmp "$SCRATCH/a.cubin" "$SCRATCH/b.cubin"
	cmp "$SCRATCH/a.out" "$SCRATCH/b.out"
	cmp "$SCRATCH/a.err" "$SCRATCH/b.err"
}

@test "libtileiras: remarks through the API equal the CLI's remark file" {
	require_ptxas
	f="$CORPUS/layer_norm.tileirbc"
	tileiras "$f" --gpu-name sm_90 -o "$SCRATCH/c.cubin" --remark-format=yaml --remarks=all --remarks-output-file="$SCRATCH/cli.yaml"
	tileiras-inproc "$f" --gpu-name=sm_90 -o "$SCRATCH/i.cubin" --remark-format=yaml --remark-kinds=passed,missed,failed,analysis --resource-remarks --remarks-output-file="$SCRATCH/in.yaml"
	cmp "$SCRATCH/cli.yaml" "$SCRATCH/in.yaml"
	grep -q -- "--- !Analysis" "$SCRATCH/in.yaml"
	run tileiras-inproc "$f" --gpu-name=sm_90 -o "$SCRATCH/i.cubin" --remark-kinds=bogus
	assert_failure 2
}

@test "in-process PTX compiler (pip's nvidia-nvptxcompiler, when linked into libtileiras.so): the ptxas cubin for every corpus kernel, TILEIR with .nv.host" {
	grep -q 'libnvptxcompiler_static.a' "$BIN/../lib/libtileiras.so" ||
		skip "built without NVIDIA's PTX compiler library (make venv installs nvidia-nvptxcompiler)"
	require_nvidia
	local venv="$ROOT/.venv" n=0 cuobjdump="$NVBIN/cuobjdump" so="$BIN/../tests/api-test-so"
	for f in "$CORPUS"/*.tileirbc; do
		m=$(basename "$f" .tileirbc)
		# the same ptxas release both ways: pip's (VIRTUAL_ENV makes tile-pack see it)
		VIRTUAL_ENV="$venv" TILEIRAS_NO_INPROC_PTXAS=0 "$so" compile "$f" sm_90 3 "$SCRATCH/lib.cubin" "$SCRATCH/a.ptx" 2>"$SCRATCH/e1" ||
			{ grep -q "is not supported" "$SCRATCH/e1" && continue; fail "$m: in process: $(cat "$SCRATCH/e1")"; }
		VIRTUAL_ENV="$venv" TILEIRAS_NO_INPROC_PTXAS=1 "$so" compile "$f" sm_90 3 "$SCRATCH/px.cubin" "$SCRATCH/b.ptx" ||
			fail "$m: ptxas"
		# the library's cubin names no tool branch; everything else is the same
		grep -q 'TOOLS_VERSION_EXTENDED' "$SCRATCH/lib.cubin" || fail "$m: not the library's cubin"
		"$cuobjdump" -sass "$SCRATCH/lib.cubin" >"$SCRATCH/a" && "$cuobjdump" -sass "$SCRATCH/px.cubin" >"$SCRATCH/b"
		cmp -s "$SCRATCH/a" "$SCRATCH/b" || fail "$m: SASS differs"
		"$cuobjdump" -elf "$SCRATCH/lib.cubin" | grep -E 'EIATTR|\.nv\.host|\.text\.' | awk '{print $NF, $(NF-4), $(NF-5)}' | sort >"$SCRATCH/a"
		"$cuobjdump" -elf "$SCRATCH/px.cubin" | grep -E 'EIATTR|\.nv\.host|\.text\.' | awk '{print $NF, $(NF-4), $(NF-5)}' | sort >"$SCRATCH/b"
		cmp -s "$SCRATCH/a" "$SCRATCH/b" || fail "$m: attributes differ: $(diff "$SCRATCH/a" "$SCRATCH/b" | head -5)"
		grep -q '\.nv\.host' "$SCRATCH/a" || fail "$m: no .nv.host"
		n=$((n + 1))
	done
	[ "$n" -ge 20 ]
	# four threads at once agree with serial compiles
	local files=()
	for k in vector_add softmax layer_norm reduce_sum transpose fft loop_break topk; do files+=("$CORPUS/$k.tileirbc"); done
	VIRTUAL_ENV="$venv" TILEIRAS_NO_INPROC_PTXAS=0 run "$so" threads 4 sm_90 "${files[@]}"
	[ "$status" -eq 0 ] || fail "$output"
	assert_line --partial "0 differ"
}
