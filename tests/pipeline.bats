#!/usr/bin/env bats
# The lower half of the compiler: tile-lower | tile-sched | tile-ptx on real
# cuTile kernels, down to PTX that ptxas assembles, with NVIDIA's kernel ABI
# (docs/abi.md). The stages are called directly (not through the driver).
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

PCORPUS="$BATS_TEST_DIRNAME/pipeline/corpus"

# assemble BYTECODE [allow-local]: for every target, PTX that ptxas accepts,
# with no local memory (unless libdevice's trig reduction needs it) and no
# spills.
assemble() {
	require_ptxas
	local bc=$1 sm
	for sm in ${ASM_TARGETS:-$TARGETS}; do
		pipe "$bc" "$sm" >"$SCRATCH/k.$sm.ptx" || fail "pipeline failed for $sm"
		grep -q "^\.target $sm\$" "$SCRATCH/k.$sm.ptx" || fail "no .target $sm"
		if [ -z "${2:-}" ] && grep -q '\.local' "$SCRATCH/k.$sm.ptx"; then fail "local memory in the PTX for $sm"; fi
		ptxas -v -arch="$sm" "$SCRATCH/k.$sm.ptx" -o "$SCRATCH/k.$sm.cubin" 2>"$SCRATCH/ptxas.$sm" ||
			fail "ptxas rejected the PTX for $sm: $(head -5 "$SCRATCH/ptxas.$sm")"
		if grep 'spill' "$SCRATCH/ptxas.$sm" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then
			fail "spills for $sm: $(grep spill "$SCRATCH/ptxas.$sm")"
		fi
	done
}

# The .param lines of a PTX file, parameter names dropped.
params() {
	grep -E '^[[:space:]]*\.param' "$1" | sed -E 's/^[[:space:]]+//; s/ [A-Za-z0-9_]+(\[2\])?,?$/\1/'
}

@test "layout algebra unit tests" {
	# tests/pipeline/layout_test.c, built by make
	run "$BIN/../tests/unit-layout"
	assert_success
	assert_output "all checks passed"
}

@test "vector_add: every version of the bytecode to PTX that ptxas accepts" {
	for v in 13.1 13.2 13.3 13.4; do
		assemble "$CORPUS/$v/vector_add.tileirbc"
	done
}

@test "saxpy (i32 and i64 index) assembles for sm_80 sm_90 sm_100 sm_120" {
	assemble "$CORPUS/13.2/saxpy.tileirbc"
}

@test "elementwise_float (libdevice math, compares, select) assembles" {
	assemble "$CORPUS/13.2/elementwise_float.tileirbc"
}

@test "elementwise_int (shifts, floor division, remainders, min/max) assembles" {
	assemble "$CORPUS/13.2/elementwise_int.tileirbc"
}

@test "casts f16, bf16, int assemble" {
	for k in cast_f16 cast_bf16 cast_int; do
		assemble "$CORPUS/13.2/$k.tileirbc"
	done
}

@test "scalar_params (i8, f16, bf16, f64, i64 scalars) assembles" {
	assemble "$CORPUS/13.2/scalar_params.tileirbc"
}

@test "masked pointer loads and stores (gather_scatter, indirect_gather) assemble" {
	assemble "$CORPUS/13.2/gather_scatter.tileirbc"
	assemble "$CORPUS/13.2/indirect_gather.tileirbc"
	grep -q 'ld.global' "$SCRATCH/k.sm_90.ptx"
}

@test "a for loop carrying a 16x32 tile (loop_accum) assembles" {
	assemble "$CORPUS/13.2/loop_accum.tileirbc"
}

@test "float math: trig, hyperbolic, exp2/log2, pow, atan2, floor/ceil, rsqrt, remf (f32, f16, f64)" {
	# libdevice's sin/cos argument reduction keeps a small array in local
	# memory, as NVIDIA's output does for the same kernel
	assemble "$PCORPUS/fmath.tileirbc" allow-local
	if grep -q '\.extern' "$SCRATCH/k.sm_90.ptx"; then fail "unresolved library functions"; fi
}

@test "integer ops: signed and unsigned, i8 i16 i32 i64" {
	assemble "$PCORPUS/imath.tileirbc"
	assemble "$PCORPUS/umath.tileirbc"
}

@test "conversions: exti, trunci, itof, ftoi, ftof (f16, bf16, f64), bitcast" {
	assemble "$PCORPUS/convert.tileirbc"
}

@test "8-bit float conversions on sm_89 and newer, a user error before" {
	ASM_TARGETS="sm_89 sm_90 sm_100 sm_120" assemble "$PCORPUS/convert_f8.tileirbc"
	grep -q 'cvt.rn.satfinite.e4m3x2.f32' "$SCRATCH/k.sm_90.ptx"
	grep -q 'cvt.rn.satfinite.e5m2x2.f32' "$SCRATCH/k.sm_90.ptx"
	tile-read "$PCORPUS/convert_f8.tileirbc" >"$SCRATCH/f8.json"
	run tile-lower --gpu-name=sm_80 "$SCRATCH/f8.json"
	assert_failure 1
	assert_output --partial "loc(\"tests/pipeline/kernels/ops.py\":"
	assert_output --partial "8-bit floats are not supported on sm_80"
}

@test "if/else yielding tiles, get_num_tile_blocks" {
	assemble "$PCORPUS/branches.tileirbc"
	grep -q '%nctaid.x' "$SCRATCH/k.sm_90.ptx"
}

@test "a broadcast whose operand's layout does not fit goes through convert_layout (in warps: shuffles)" {
	# by default the loaded row takes the layout its broadcast implies: no conversion
	tile-read "$PCORPUS/bias2d.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched | tile-ir --emit=text >"$SCRATCH/t0"
	if grep -q 'nv_tileas.convert_layout' "$SCRATCH/t0"; then fail "a conversion for the broadcast row"; fi
	# laid out for its load alone, it needs one
	export TILE_SCHED_PLAIN_LAYOUTS=1
	assemble "$PCORPUS/bias2d.tileirbc"
	tile-read "$PCORPUS/bias2d.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched | tile-ir --emit=text >"$SCRATCH/t"
	grep -q 'nv_tileas.convert_layout' "$SCRATCH/t"
	# the column's elements are all in the warp that needs them: one
	# shfl.sync.idx per register of the new layout, no shared memory
	[ "$(grep -c 'shfl.sync.idx' "$SCRATCH/k.sm_90.ptx")" -eq 8 ]
	if grep -q 'st.shared\|bar.sync' "$SCRATCH/k.sm_90.ptx"; then fail "shared memory"; fi
}

@test "memory ops ordered by tokens: a barrier only where other threads' elements are involved" {
	assemble "$PCORPUS/roundtrip.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	# load x; store x (same elements, same threads); load x again: no barrier yet
	awk '/bar.sync/ { exit 1 } /st.global/ { exit 0 }' "$p" || fail "barrier before the first store"
	# the half-tile load reads other threads' writes, and out may alias x
	[ "$(grep -c 'bar.sync' "$p")" = 3 ] || fail "expected 3 barriers: $(grep -c bar.sync "$p")"
	awk '/st.global/ { st = 1 } st && /bar.sync/ { bar = 1 } bar && /ld.global/ { ok = 1 } END { exit !ok }' "$p"
}

@test "hand-made kernel: pointer casts, non-splat constant, rounding modes and flags, if inside a token-carrying loop" {
	require_ptxas
	for sm in $TARGETS; do
		tile-lower --gpu-name=$sm "$BATS_TEST_DIRNAME/pipeline/ir/misc.cuda_tile.json" | tile-sched |
			tile-ptx >"$SCRATCH/m.$sm.ptx"
		ptxas -arch=$sm "$SCRATCH/m.$sm.ptx" -o "$SCRATCH/m.cubin" || fail "ptxas rejected $sm"
	done
	for i in add.rz.f32 mul.rn.ftz.f32 div.approx.f32 div.full.ftz.f32 max.NaN.f32 fma.rp.f32 \
		 sqrt.approx.f32 mul.hi.u32 abs.s32 ld.const %nctaid.x; do
		grep -q "$i" "$SCRATCH/m.sm_90.ptx" || fail "no $i"
	done
}

@test "hand-made kernel: a transposing dim_map view, static and dynamic sizes, neg_inf padding, shape queries" {
	require_ptxas
	f=$BATS_TEST_DIRNAME/pipeline/ir/views.cuda_tile.json
	tile-lower --gpu-name=sm_80 --stop-at=nv_tileaa "$f" | tile-ir --emit=text >"$SCRATCH/aa"
	grep -q 'dim_map = \[1, 0\], in_bounds = \[1, 0\]' "$SCRATCH/aa"
	grep -q 'padding = "neg_inf"' "$SCRATCH/aa"
	for sm in $TARGETS; do
		tile-lower --gpu-name=$sm "$f" | tile-sched | tile-ptx >"$SCRATCH/v.ptx"
		ptxas -arch=$sm "$SCRATCH/v.ptx" -o "$SCRATCH/v.cubin" || fail "ptxas rejected $sm"
	done
	# -inf padding (an f32 immediate, or its bits where a predicated ld's
	# register takes it: util_access.c)
	grep -qE '0fFF800000|-8388608' "$SCRATCH/v.ptx"
}

@test "the verifier's valid kernels (minus unsupported ops): control flow, shapes, ordered pointer memory" {
	require_ptxas
	for f in "$BATS_TEST_DIRNAME"/pipeline/ir/verify_*.cuda_tile.json; do
		for sm in $TARGETS; do
			tile-lower --gpu-name=$sm "$f" | tile-sched | tile-ptx >"$SCRATCH/v.ptx" || fail "$f $sm"
			ptxas -arch=$sm "$SCRATCH/v.ptx" -o "$SCRATCH/v.cubin" || fail "ptxas: $f $sm"
		done
	done
	tile-lower --gpu-name=sm_80 "$BATS_TEST_DIRNAME/pipeline/ir/verify_memory_ptr.cuda_tile.json" | tile-sched | tile-ptx >"$SCRATCH/m.ptx"
	grep -q 'ld.acquire.gpu.global' "$SCRATCH/m.ptx"
	grep -q 'st.release.sys.global' "$SCRATCH/m.ptx"
}

@test "the other targets: every GPU in the target table" {
	require_ptxas
	for sm in sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121; do
		pipe "$CORPUS/13.2/elementwise_float.tileirbc" $sm >"$SCRATCH/k.ptx"
		ptxas -arch=$sm "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" || fail "ptxas rejected $sm"
	done
}

@test "aligned kernels use 16-byte loads and stores (ld.global.v4 / st.global.v4)" {
	require_ptxas
	for k in vadd_v4 saxpy_v4 add2d_v4 loop_accum_v4; do
		pipe "$PCORPUS/$k.tileirbc" sm_90 >"$SCRATCH/$k.ptx"
		grep -q 'ld\.global\.v4\.b32' "$SCRATCH/$k.ptx" || fail "$k: no ld.global.v4"
		[ $k = loop_accum_v4 ] || grep -q 'st\.global\.v4\.b32' "$SCRATCH/$k.ptx" || fail "$k: no st.global.v4"
		if grep -q 'ld\.global\.b32\|st\.global\.b32' "$SCRATCH/$k.ptx"; then fail "$k: scalar access left"; fi
		ptxas -arch=sm_90 "$SCRATCH/$k.ptx" -o "$SCRATCH/$k.cubin"
	done
	# f32 -> f16: 16-byte loads, 8-byte stores of four halves
	pipe "$PCORPUS/cast_v4.tileirbc" sm_90 >"$SCRATCH/cast.ptx"
	grep -q 'ld\.global\.v4\.b32' "$SCRATCH/cast.ptx"
	grep -q 'st\.global\.v2\.b32\|st\.global\.v4\.b16' "$SCRATCH/cast.ptx"
}

@test "sizes divisible by the tile need no bounds checks" {
	pipe "$PCORPUS/vadd_v4.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	# the second entry (sizes divisible by 1024) is straight-line code
	sed -n '/^.visible .entry vadd_Kt1_A1f32_1i1024/,/^}/p' "$SCRATCH/v.ptx" >"$SCRATCH/e.ptx"
	grep -q 'ld.global.v4' "$SCRATCH/e.ptx"
	if grep -q 'setp\|bra' "$SCRATCH/e.ptx"; then fail "bounds checks left"; fi
}

@test "the corpus kernels without alignment facts keep 4-byte accesses" {
	pipe "$CORPUS/13.2/vector_add.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	if grep -q 'v4' "$SCRATCH/v.ptx"; then fail "vectorized without proof of alignment"; fi
	grep -q 'ld.global.b32' "$SCRATCH/v.ptx"
}

@test "parameters follow NVIDIA's ABI (docs/abi.md §4.2)" {
	pipe "$CORPUS/13.2/vector_add.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	P='.param .u64 .ptr .global .align 1'
	params "$SCRATCH/v.ptx" | head -9 >"$SCRATCH/got"
	printf '%s\n' "$P" .param\ .u32 .param\ .u32 "$P" .param\ .u32 .param\ .u32 "$P" .param\ .u32 .param\ .u32 >"$SCRATCH/want"
	diff "$SCRATCH/want" "$SCRATCH/got"
	grep -q '^\.reqntid 128$' "$SCRATCH/v.ptx"
	grep -q '^\.minnctapersm 1$' "$SCRATCH/v.ptx"
	if grep -q 'maxntid' "$SCRATCH/v.ptx"; then fail ".maxntid"; fi

	pipe "$CORPUS/13.2/saxpy.tileirbc" sm_90 >"$SCRATCH/s.ptx"
	params "$SCRATCH/s.ptx" >"$SCRATCH/got"
	{
		for w in u32 u64; do
			echo .param\ .f32
			for i in 1 2 3; do echo "$P"; echo .param\ .$w; echo .param\ .$w; done
		done
	} >"$SCRATCH/want"
	diff "$SCRATCH/want" "$SCRATCH/got"

	pipe "$CORPUS/13.2/scalar_params.tileirbc" sm_90 >"$SCRATCH/p.ptx"
	params "$SCRATCH/p.ptx" >"$SCRATCH/got"
	printf '%s\n' "$P" .param\ .u32 .param\ .u32 .param\ .u32 .param\ .u64 '.param .align 2 .b8[2]' \
		.param\ .f64 .param\ .u8 '.param .align 2 .b8[2]' >"$SCRATCH/want"
	diff "$SCRATCH/want" "$SCRATCH/got"
}

@test "entry symbols are the bytecode's function names" {
	pipe "$CORPUS/13.2/vector_add.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	grep -q '^\.visible \.entry vector_add_Kt1_A1f32_1l0_A1f32_1l0_A1f32_1l0_I128($' "$SCRATCH/v.ptx"
	grep -q '^\.visible \.entry vector_add_Kt1_A1f32_1t1_A1f32_1t1_A1f32_1t1_I1024($' "$SCRATCH/v.ptx"
}

@test "parameter layout and block size equal NVIDIA's cubins (when NVIDIA's tileiras is installed)" {
	require_nvidia
	require_ptxas
	for k in $CORPUS/13.4/{vector_add,saxpy,scalar_params,elementwise_float,elementwise_int,cast_f16,cast_bf16,cast_int,gather_scatter,indirect_gather,loop_accum}.tileirbc \
		 $PCORPUS/*.tileirbc; do
		env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name=sm_90 "$k" -o "$SCRATCH/nv.cubin"
		pipe "$k" sm_90 >"$SCRATCH/ours.ptx"
		ptxas -arch=sm_90 "$SCRATCH/ours.ptx" -o "$SCRATCH/ours.cubin"
		same_abi "$k"
	done
}

@test "the same input twice gives the same bytes at every stage" {
	bc="$CORPUS/13.2/elementwise_float.tileirbc"
	for n in 1 2; do
		tile-read "$bc" >"$SCRATCH/r$n"
		tile-lower --gpu-name=sm_90 "$SCRATCH/r$n" >"$SCRATCH/l$n"
		tile-sched "$SCRATCH/l$n" >"$SCRATCH/s$n"
		tile-ptx "$SCRATCH/s$n" >"$SCRATCH/p$n"
	done
	cmp "$SCRATCH/l1" "$SCRATCH/l2"
	cmp "$SCRATCH/s1" "$SCRATCH/s2"
	cmp "$SCRATCH/p1" "$SCRATCH/p2"
	pipe "$PCORPUS/loop_accum_v4.tileirbc" sm_100 >"$SCRATCH/a"
	pipe "$PCORPUS/loop_accum_v4.tileirbc" sm_100 >"$SCRATCH/b"
	cmp "$SCRATCH/a" "$SCRATCH/b"
}

@test "every level is valid JSON IR at its stage and prints as text" {
	tile-read "$CORPUS/13.2/loop_accum.tileirbc" >"$SCRATCH/ct.json"
	tile-lower --gpu-name=sm_90 --stop-at=nv_tileaa "$SCRATCH/ct.json" >"$SCRATCH/aa.json"
	tile-lower --gpu-name=sm_90 "$SCRATCH/aa.json" >"$SCRATCH/as.json"
	tile-sched "$SCRATCH/as.json" >"$SCRATCH/sc.json"
	for s in aa:nv_tileaa as:nv_tileas sc:scheduled; do
		f=$SCRATCH/${s%%:*}.json
		grep -q "\"stage\": \"${s#*:}\"" "$f"
		tile-ir "$f" -o "$SCRATCH/canon.json"
		cmp "$f" "$SCRATCH/canon.json"
		tile-ir --emit=text "$f" >/dev/null
	done
	run tile-ir --emit=text "$SCRATCH/aa.json"
	assert_output --partial 'nv_tileaa.make_memref'
	assert_output --partial 'nv_tileaa.tiled_load'
	assert_output --partial 'padding = "zero"'
	assert_output --partial 'loc("tests/kernels/loop_accum.py":11:20)'
	run tile-ir --emit=text "$SCRATCH/as.json"
	assert_output --partial 'copy = "vec_ldst"'
	run tile-ir --emit=text "$SCRATCH/sc.json"
	assert_output --partial 'num_warps = 4'
	assert_output --partial 'layout(%'
	# the tile-lower text form matches tile-ir's
	tile-lower --gpu-name=sm_80 --emit=text "$SCRATCH/ct.json" >"$SCRATCH/t1"
	tile-ir --emit=text "$SCRATCH/as.json" | sed 's/target = "sm_90"/target = "sm_80"/' >"$SCRATCH/t2"
	diff "$SCRATCH/t1" "$SCRATCH/t2"
}

@test "every tile value has a layout after tile-sched, covering its tile" {
	tile-read "$CORPUS/13.2/elementwise_float.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched >"$SCRATCH/sc.json"
	python3 - "$SCRATCH/sc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
def walk(ops):
    global n
    for op in ops:
        for r in op.get("results", []):
            if r["type"].startswith("tile<"):
                assert "layout" in r, (op["op"], r)
                n += 1
        for reg in op.get("regions", []):
            for b in reg:
                for a in b.get("args", []):
                    if a["type"].startswith("tile<"):
                        assert "layout" in a, a
                walk(b["ops"])
walk(d["module"]["ops"])
assert n > 20, n
PY
}

@test "an op the target cannot run is a user error naming it (mmaf_scaled's scales below sm_100)" {
	# every cuda_tile op lowers now (mmaf_scaled since 2026-11-24: tests/mma.bats);
	# its f8E8M0FNU scales do not exist on sm_80
	run tile-lower --gpu-name=sm_80 "$BATS_TEST_DIRNAME/verify/valid/mma.json"
	assert_failure 1
	assert_output --partial "error: 'cuda_tile.ftof' op: f8E8M0FNU is not supported on sm_80"
	refute_output --partial "'cuda_tile.mmai' op"
	refute_output --partial 'internal error'
	run tile-lower --gpu-name=sm_100 "$BATS_TEST_DIRNAME/verify/valid/mma.json"
	assert_success
	# permute was the hand-made example; it is carried now (tests/reduce.bats)
	run tile-lower --gpu-name=sm_80 "$BATS_TEST_DIRNAME/pipeline/ir/unsupported.cuda_tile.json"
	assert_success
}

@test "each stage verifies its input" {
	tile-read "$CORPUS/13.2/vector_add.tileirbc" | tile-lower --gpu-name=sm_80 >"$SCRATCH/as.json"
	tile-sched "$SCRATCH/as.json" >"$SCRATCH/sc.json"
	run tile-ptx "$SCRATCH/as.json"
	assert_failure 1
	assert_output --partial "takes IR at stage 'scheduled'"
	run tile-sched "$SCRATCH/sc.json"
	assert_failure 1
	# a tile value without its layout
	python3 - "$SCRATCH/sc.json" >"$SCRATCH/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for op in d["module"]["ops"][0]["regions"][0][0]["ops"]:
    if op["op"] == "cuda_tile.addf":
        del op["results"][0]["layout"]
print(json.dumps(d))
PY
	run tile-ptx "$SCRATCH/bad.json"
	assert_failure 1
	assert_output --partial 'has no layout'
	# a tiled_load that lost its tile shape
	python3 - "$SCRATCH/as.json" >"$SCRATCH/bad2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for op in d["module"]["ops"][0]["regions"][0][0]["ops"]:
    if op["op"] == "nv_tileas.tiled_load":
        del op["attrs"]["tile"]
print(json.dumps(d))
PY
	run tile-sched "$SCRATCH/bad2.json"
	assert_failure 1
	assert_output --partial "'nv_tileas.tiled_load' op needs attribute 'tile'"
	# a layout that does not cover its tile
	sed 's/"layout": "(1,32,4):(0,1,32)"/"layout": "(1,32,4):(0,1,16)"/' "$SCRATCH/sc.json" >"$SCRATCH/bad3.json"
	run tile-ptx "$SCRATCH/bad3.json"
	assert_failure 1
	assert_output --partial 'bad layout'
}

@test "--num-warps sets the block size, and layouts follow" {
	require_ptxas
	pipe "$CORPUS/13.2/saxpy.tileirbc" sm_90 --num-warps=8 >"$SCRATCH/s.ptx"
	grep -q '^\.reqntid 256$' "$SCRATCH/s.ptx"
	ptxas -arch=sm_90 "$SCRATCH/s.ptx" -o "$SCRATCH/s.cubin"
	pipe "$PCORPUS/add2d_v4.tileirbc" sm_80 --num-warps=1 >"$SCRATCH/a.ptx"
	grep -q '^\.reqntid 32$' "$SCRATCH/a.ptx"
	ptxas -arch=sm_80 "$SCRATCH/a.ptx" -o "$SCRATCH/a.cubin"
	run tile-sched --num-warps=3 /dev/null
	assert_failure 2
}

@test "tile-ptx: --emit=llvm, -O0, --lineinfo" {
	require_ptxas
	tile-read "$CORPUS/13.2/elementwise_float.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched >"$SCRATCH/sc.json"
	run tile-ptx --emit=llvm "$SCRATCH/sc.json"
	assert_success
	assert_output --partial 'define ptx_kernel void @elementwise_float_'
	assert_output --partial '"nvvm.reqntid"="128"'
	tile-ptx -O0 --gpu-name=sm_90 "$SCRATCH/sc.json" >"$SCRATCH/o0.ptx"
	ptxas -arch=sm_90 "$SCRATCH/o0.ptx" -o "$SCRATCH/o0.cubin"
	tile-ptx --lineinfo --gpu-name=sm_90 "$SCRATCH/sc.json" >"$SCRATCH/li.ptx"
	grep -q '^[[:space:]]*\.file[[:space:]].*elementwise.py' "$SCRATCH/li.ptx"
	grep -q '^[[:space:]]*\.loc[[:space:]]' "$SCRATCH/li.ptx"
	ptxas -arch=sm_90 "$SCRATCH/li.ptx" -o "$SCRATCH/li.cubin"
}

@test "libdevice is linked only when math needs it" {
	tile-read "$CORPUS/13.2/vector_add.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched | tile-ptx --emit=llvm >"$SCRATCH/v.ll"
	if grep -q '__nv_' "$SCRATCH/v.ll"; then fail "libdevice in vector_add"; fi
	tile-read "$CORPUS/13.2/elementwise_float.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched | tile-ptx >"$SCRATCH/e.ptx"
	if grep -q '\.extern\|call' "$SCRATCH/e.ptx"; then fail "unresolved or uninlined library calls"; fi
	tile-read "$CORPUS/13.2/elementwise_float.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched >"$SCRATCH/sc.json"
	CUDA_ROOT=/nonexistent run tile-ptx "$SCRATCH/sc.json"
	assert_failure 1
	assert_output --partial 'libdevice'
	tile-read "$CORPUS/13.2/vector_add.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched >"$SCRATCH/va.json"
	CUDA_ROOT=/nonexistent run tile-ptx "$SCRATCH/va.json"
	assert_success
}

@test "the driver composes the stages into a cubin" {
	[ -x "$BIN/tileiras" ] && [ -x "$BIN/tile-pack" ] || skip "driver or tile-pack not built"
	require_ptxas
	run tileiras --gpu-name=sm_90 "$CORPUS/13.4/saxpy.tileirbc" -o "$SCRATCH/s.cubin"
	assert_success
	[ -s "$SCRATCH/s.cubin" ]
}

@test "a row's element addresses: one base per thread plus constants times the stride (issue 17)" {
	# relu_squared_fwd (tests/tilegym): 32 bf16 elements per thread, dynamic
	# strides. Each element's address was its own 64-bit multiply (66 in the
	# first entry) with every index live until the stores; now the thread's
	# base is multiplied once and each element adds a constant times the stride
	pipe "$ROOT/tests/tilegym/relu_squared_fwd.tileirbc" sm_90 >"$SCRATCH/r.ptx"
	n=$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r.ptx" | grep -c 'mul.lo.s64')
	[ "$n" -le 8 ] || fail "$n 64-bit multiplies in the first entry"
	# one load and one store per element; the row's column predicate is one
	# remaining-extent value per thread compared with an immediate per element
	# (op_memory.c), not each element's own coordinate
	[ "$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r.ptx" | grep -c 'ld.global.b16')" = 32 ]
	[ "$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r.ptx" | grep -c 'st.global.b16')" = 32 ]
	n=$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r.ptx" | grep -cE 'setp\.[a-z]+\.s64[[:space:]]+%p[0-9]+, %rd[0-9]+, -?[0-9]+;')
	[ "$n" -ge 32 ] || fail "$n element predicates against an immediate"
	# opt-in versioning (TILE_PTX_VERSIONING=1): every access twice, a copy
	# without per-element predicates for a tile inside the tensor and the
	# masked one (LLVM may merge an access both copies share)
	TILE_PTX_VERSIONING=1 pipe "$ROOT/tests/tilegym/relu_squared_fwd.tileirbc" sm_90 >"$SCRATCH/r1.ptx"
	[ "$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r1.ptx" | grep -c 'ld.global.b16')" -ge 48 ]
	[ "$(awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r1.ptx" | grep -c 'st.global.b16')" -ge 48 ]
}

@test "i32 sizes and strides widen by zero extension, as NVIDIA's (issue 17)" {
	# vector_add's sizes and strides are assume bounded<0, ?>: no sign
	# extension anywhere (NVIDIA's PTX: cvt.u64.u32, setp.ge.u64; 9 of them
	# before), and offsets past 2^31 stay exact in the 64-bit products. The
	# tile index is zero-extended always: tests/run.bats runs
	# tests/pipeline/corpus/shifted_tile, whose index -1 reads padding
	pipe "$CORPUS/13.4/vector_add.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	n=$(grep -cE 'ld\.param\.s32|cvt\.s64\.s32|mul\.wide\.s32' "$SCRATCH/v.ptx" || true)
	[ "$n" = 0 ] || fail "$n sign extensions in vector_add"
	grep -q 'setp\.ge\.u64' "$SCRATCH/v.ptx" || fail "no unsigned 64-bit bound in vector_add"
}

@test "a guarded weak load is one predicated ld with its address computed ahead, not a branch (issue 17)" {
	require_ptxas
	# vector_add's first entry (128-element tiles of dynamic size and
	# stride): both operand loads are `@p ld.global.b32` (util_access.c), no
	# branch around either; the store keeps its branch
	pipe "$CORPUS/13.4/vector_add.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	awk '/\.entry/ { n++ } n == 1' "$SCRATCH/v.ptx" >"$SCRATCH/e.ptx"
	[ "$(grep -c '@p ld.global.b32' "$SCRATCH/e.ptx")" = 2 ] || fail "not two predicated loads"
	[ "$(grep -c 'bra' "$SCRATCH/e.ptx")" = 1 ] || fail "branches other than the store's"
	# registers: 18 behind branches (MachineSink moved each address into its
	# guard, ptxas if-converted them from predicated constant loads), 13 now;
	# NVIDIA's 11
	ptxas -arch=sm_90 -v "$SCRATCH/v.ptx" -o "$SCRATCH/v.cubin" 2>"$SCRATCH/l"
	u=$(grep -o 'Used [0-9]*' "$SCRATCH/l" | tail -1 | grep -o '[0-9]*')
	[ "$u" -le 13 ] || fail "vector_add: $u registers"
	# a chunk of four: one predicated ld.global.v4 (vadd_v4: 16-byte aligned
	# bases, a ragged size)
	pipe "$PCORPUS/vadd_v4.tileirbc" sm_90 >"$SCRATCH/s.ptx"
	grep -qE '@p ld\.global\.v4\.b32 \{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+\}' "$SCRATCH/s.ptx" ||
		fail "no predicated 16-byte load"
	# TILE_PTX_BRANCHED_LOADS=1: every load behind its branch again
	TILE_PTX_BRANCHED_LOADS=1 pipe "$CORPUS/13.4/vector_add.tileirbc" sm_90 >"$SCRATCH/b.ptx"
	if grep -q '@p ld' "$SCRATCH/b.ptx"; then fail "predicated loads with TILE_PTX_BRANCHED_LOADS=1"; fi
	# values (out-of-bounds elements read padding, never memory): tests/run.bats
	# runs every corpus kernel on ragged sizes under memcheck
}

@test "threads that hold only copies of the stored tiles return first (issue 17)" {
	require_ptxas
	# indirect_gather: a 64-element tile over 128 threads; threads 64-127
	# only hold copies, and the body is thread-local loads, math and a
	# store, so they return before any load (util_copies.c); the owners'
	# element index is the thread index itself (tid & 63 folded)
	pipe "$CORPUS/13.4/indirect_gather.tileirbc" sm_90 >"$SCRATCH/g.ptx"
	awk '/^\{/ { b = 1 } b' "$SCRATCH/g.ptx" | grep -vE '^\s*(\.reg|\{|$)' | head -4 >"$SCRATCH/head"
	grep -q '%tid.x' "$SCRATCH/head" || fail "no thread test first: $(cat "$SCRATCH/head")"
	grep -qE 'setp\.[a-z]+\.u32[[:space:]]+%p[0-9]+, %r[0-9]+, (64|63);' "$SCRATCH/head" || fail "no owner test first"
	if grep -q 'and.b32.*63;' "$SCRATCH/g.ptx"; then fail "the copies' lane still computed"; fi
	ptxas -arch=sm_90 -v "$SCRATCH/g.ptx" -o "$SCRATCH/g.cubin" 2>"$SCRATCH/l"
	u=$(grep -o 'Used [0-9]*' "$SCRATCH/l" | grep -o '[0-9]*')
	[ "$u" -le 12 ] || fail "indirect_gather: $u registers (14 with the copies, NVIDIA's 10)"
	# TILE_PTX_KEEP_COPIES=1: every thread loads, the owner mask on the store
	TILE_PTX_KEEP_COPIES=1 pipe "$CORPUS/13.4/indirect_gather.tileirbc" sm_90 >"$SCRATCH/k.ptx"
	grep -q 'and.b32.*63;' "$SCRATCH/k.ptx" || fail "no lane of the copies with TILE_PTX_KEEP_COPIES=1"
	# not where the body does more than thread-local work: vector_add (no
	# copies) and the TileGym row kernels (reductions) are unchanged
	for f in "$CORPUS/13.4/vector_add.tileirbc" "$ROOT/tests/tilegym/softmax_fwd.tileirbc"; do
		pipe "$f" sm_90 >"$SCRATCH/a.ptx"
		TILE_PTX_KEEP_COPIES=1 pipe "$f" sm_90 >"$SCRATCH/b.ptx"
		cmp -s "$SCRATCH/a.ptx" "$SCRATCH/b.ptx" || fail "$(basename "$f") changed"
	done
	# values, with 1, 4 and 8 warps (copies in other warps): tests/run.bats
	# runs indirect_gather against numpy
}

@test "masked accesses of two chunks a thread sit behind a uniform tile guard: saxpy on sm_100 (issue 17)" {
	require_ptxas
	# saxpy (tiles of 256 over 128 threads: two elements a thread, dynamic
	# size and stride): each access is behind one test of its tile's origin
	# against the size (op_memory.c), so ptxas computes each one's address
	# and predicates in its own block; inside, each element compares the
	# thread's coordinate with the tile's uniform remaining extent
	pipe "$CORPUS/13.4/saxpy.tileirbc" sm_100 >"$SCRATCH/g.ptx"
	awk '/\.entry/ { n++ } n == 1' "$SCRATCH/g.ptx" >"$SCRATCH/e.ptx"
	# the tile origin (ctaid * 256) compared with a size: once an access
	o=$(grep -E 'mul\.wide\.u32[[:space:]]+%rd[0-9]+, %r[0-9]+, 256;' "$SCRATCH/e.ptx" | grep -oE '%rd[0-9]+' | head -1)
	[ -n "$o" ] || fail "no tile origin"
	[ "$(grep -cE "setp\.[a-z]+\.[su]64[[:space:]]+%p[0-9]+, ($o, %rd[0-9]+|%rd[0-9]+, $o);" "$SCRATCH/e.ptx")" = 3 ] ||
		fail "not three tile guards: $(grep setp "$SCRATCH/e.ptx")"
	ptxas -arch=sm_100 -v "$SCRATCH/g.ptx" -o "$SCRATCH/g.cubin" 2>"$SCRATCH/l"
	# registers of the two entries: 20 and 22 without the
	# guard, NVIDIA's 14 and 16
	grep -o 'Used [0-9]*' "$SCRATCH/l" | grep -o '[0-9]*' >"$SCRATCH/u"
	[ "$(wc -l <"$SCRATCH/u")" = 2 ] || fail "not two entries: $(cat "$SCRATCH/l")"
	while read -r u; do [ "$u" -le 18 ] || fail "saxpy: $u registers"; done <"$SCRATCH/u"
	[ "$(sort -n "$SCRATCH/u" | head -1)" -le 16 ] || fail "saxpy i32: $(cat "$SCRATCH/u") registers"
	# TILE_PTX_NO_TILE_GUARD=1: the previous form, more registers
	TILE_PTX_NO_TILE_GUARD=1 pipe "$CORPUS/13.4/saxpy.tileirbc" sm_100 >"$SCRATCH/n.ptx"
	ptxas -arch=sm_100 -v "$SCRATCH/n.ptx" -o "$SCRATCH/n.cubin" 2>"$SCRATCH/l"
	[ "$(grep -o 'Used [0-9]*' "$SCRATCH/l" | grep -o '[0-9]*' | sort -n | head -1)" -gt 16 ] ||
		fail "as few registers without the guard"
	# one chunk a thread keeps its form: vector_add unchanged
	pipe "$CORPUS/13.4/vector_add.tileirbc" sm_100 >"$SCRATCH/a.ptx"
	TILE_PTX_NO_TILE_GUARD=1 pipe "$CORPUS/13.4/vector_add.tileirbc" sm_100 >"$SCRATCH/b.ptx"
	cmp -s "$SCRATCH/a.ptx" "$SCRATCH/b.ptx" || fail "vector_add changed"
	# values (blocks past the end, the ragged block, nothing stored past
	# n): tests/run/extra.py saxpy_spare in tests/run.bats
}

@test "masked tiled accesses are not versioned by default: swiglu_fwd at most 80 registers on sm_90, fewer than versioned (issue 17)" {
	require_ptxas
	# a versioned store needs all 32 stored values computed before its branch;
	# the masked stores let each be computed just before it is stored
	# (swiglu_fwd: 80 registers, 128 versioned; NVIDIA's 72)
	pipe "$ROOT/tests/tilegym/swiglu_fwd.tileirbc" sm_90 >"$SCRATCH/n.ptx"
	TILE_PTX_VERSIONING=1 pipe "$ROOT/tests/tilegym/swiglu_fwd.tileirbc" sm_90 >"$SCRATCH/v.ptx"
	ptxas -arch=sm_90 -v "$SCRATCH/v.ptx" -o "$SCRATCH/v.cubin" 2>"$SCRATCH/vl"
	ptxas -arch=sm_90 -v "$SCRATCH/n.ptx" -o "$SCRATCH/n.cubin" 2>"$SCRATCH/nl"
	v=$(grep -o 'Used [0-9]*' "$SCRATCH/vl" | head -1 | grep -o '[0-9]*')
	n=$(grep -o 'Used [0-9]*' "$SCRATCH/nl" | head -1 | grep -o '[0-9]*')
	[ "$n" -le 80 ] || fail "swiglu_fwd: $n registers"
	[ "$n" -lt "$v" ] || fail "swiglu_fwd: $n registers, $v versioned"
	# values: tests/run.bats runs every kernel against numpy, and the versioned
	# copies too (tilegym with TILE_PTX_VERSIONING=1)
}

# sink_order JSON: the first entry's op names in order, one a line, each load
# as load:<memref operand>
sink_order() {
	python3 - "$1" <<'PY'
import json, sys
body = json.load(open(sys.argv[1]))["module"]["ops"][0]["regions"][0][0]["ops"]
for o in body:
    print("load:" + o["operands"][0] if o["op"].endswith("tiled_load") else o["op"])
PY
}

# sink_edit JSON OUT EDIT: the first entry with its w load (memref %25) made
# `acquire` (EDIT=acquire-w), its b load (%28) made `acquire` (acquire-b), or
# the store ordered after the w load's token (token-w)
sink_edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
body = j["module"]["ops"][0]["regions"][0][0]["ops"]
loads = {o["operands"][0]: o for o in body if o["op"].endswith("tiled_load")}
store = [o for o in body if o["op"].endswith("tiled_store")][0]
if sys.argv[3] == "acquire-w":
    loads["%25"]["attrs"]["memory_ordering_semantics"] = "acquire"
    loads["%25"]["attrs"]["memory_scope"] = "device"
elif sys.argv[3] == "acquire-b":
    loads["%28"]["attrs"]["memory_ordering_semantics"] = "acquire"
    loads["%28"]["attrs"]["memory_scope"] = "device"
else:
    store["operands"][-1] = loads["%25"]["results"][1]["id"]
json.dump(j, open(sys.argv[2], "w"))
PY
}

@test "tile-sched sinks an untokened weak load past reductions to its use, and no further than tokens and orderings allow (issue 17)" {
	# layernorm_fwd: x, w, b loaded at the top; w and b are used only by the
	# fma after both row reductions. Tile IR orders memory by tokens, so the
	# weights' loads (and their conversions) move down to the fma, as in
	# NVIDIA's PTX
	local ln="$ROOT/tests/tilegym/layernorm_fwd.tileirbc"
	tile-read "$ln" | tile-lower --gpu-name=sm_90 >"$SCRATCH/l.json"
	tile-sched <"$SCRATCH/l.json" >"$SCRATCH/s.json"
	sink_order "$SCRATCH/s.json" >"$SCRATCH/o"
	last_reduce=$(grep -n '^cuda_tile.reduce$' "$SCRATCH/o" | tail -1 | cut -d: -f1)
	w=$(grep -n '^load:%25$' "$SCRATCH/o" | cut -d: -f1)
	b=$(grep -n '^load:%28$' "$SCRATCH/o" | cut -d: -f1)
	fma=$(grep -n '^cuda_tile.fma$' "$SCRATCH/o" | cut -d: -f1)
	[ "$w" -gt "$last_reduce" ] && [ "$b" -gt "$last_reduce" ] || fail "w at $w, b at $b, last reduce at $last_reduce"
	[ "$w" -lt "$fma" ] && [ "$b" -lt "$fma" ]
	# x stays first: its first use is the first reduction
	x=$(grep -n '^load:%22$' "$SCRATCH/o" | cut -d: -f1)
	[ "$x" -lt "$(grep -n '^cuda_tile.reduce$' "$SCRATCH/o" | head -1 | cut -d: -f1)" ]
	# off: program order
	TILE_SCHED_NO_SINK=1 tile-sched <"$SCRATCH/l.json" >"$SCRATCH/s0.json"
	sink_order "$SCRATCH/s0.json" >"$SCRATCH/o0"
	[ "$(grep -n '^load:%25$' "$SCRATCH/o0" | cut -d: -f1)" -lt "$(grep -n '^cuda_tile.reduce$' "$SCRATCH/o0" | head -1 | cut -d: -f1)" ]
	# a load that is not weak stays; so does a weak load that would pass one;
	# so does a load whose token orders a later access
	for edit in acquire-w acquire-b token-w; do
		sink_edit "$SCRATCH/l.json" "$SCRATCH/e.json" $edit
		tile-sched <"$SCRATCH/e.json" >"$SCRATCH/se.json" || fail "$edit: tile-sched"
		sink_order "$SCRATCH/se.json" >"$SCRATCH/oe"
		w=$(grep -n '^load:%25$' "$SCRATCH/oe" | cut -d: -f1)
		first_reduce=$(grep -n '^cuda_tile.reduce$' "$SCRATCH/oe" | head -1 | cut -d: -f1)
		[ "$w" -lt "$first_reduce" ] || fail "$edit: w moved to $w (first reduce at $first_reduce)"
		tile-ptx --gpu-name=sm_90 <"$SCRATCH/se.json" >/dev/null || fail "$edit: tile-ptx"
	done
	# and the b load, weak and untokened, still moves when w is acquire
	sink_edit "$SCRATCH/l.json" "$SCRATCH/e.json" acquire-w
	tile-sched <"$SCRATCH/e.json" | tee "$SCRATCH/se.json" >/dev/null
	sink_order "$SCRATCH/se.json" >"$SCRATCH/oe"
	[ "$(grep -n '^load:%28$' "$SCRATCH/oe" | cut -d: -f1)" -gt "$(grep -n '^cuda_tile.reduce$' "$SCRATCH/oe" | tail -1 | cut -d: -f1)" ]
	# values: tests/run.bats runs the TileGym kernels against numpy
}

@test "16-bit row loads go in pairs, two elements a 32-bit register (issue 17)" {
	require_ptxas
	# relu_squared_fwd: 32 bf16 elements a thread. Each pair's guarded loads
	# merge into one b32 (ld.global.b16 into a 32-bit register, the second
	# shifted into the high half), as NVIDIA's PTX does
	pipe "$ROOT/tests/tilegym/relu_squared_fwd.tileirbc" sm_90 >"$SCRATCH/r.ptx"
	awk '/\.entry/ { n++ } n == 1' "$SCRATCH/r.ptx" >"$SCRATCH/e.ptx"
	n=$(grep -cE 'ld\.global\.b16[[:space:]]+%r[0-9]+,' "$SCRATCH/e.ptx" || true)
	[ "$n" = 32 ] || fail "$n of 32 loads into 32-bit registers"
	n=$(grep -cE 'shl\.b32[[:space:]]+%r[0-9]+, %r[0-9]+, 16;' "$SCRATCH/e.ptx" || true)
	[ "$n" -ge 16 ] || fail "$n halves shifted high"
	# registers (sm_90; before the pairs 48 / 80 / 125, NVIDIA's 36 / 72 / 78)
	for k in relu_squared_fwd:40 swiglu_fwd:64 layernorm_fwd:96; do
		pipe "$ROOT/tests/tilegym/${k%%:*}.tileirbc" sm_90 >"$SCRATCH/k.ptx"
		ptxas -arch=sm_90 -v "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" 2>"$SCRATCH/kl"
		for u in $(grep -o 'Used [0-9]*' "$SCRATCH/kl" | grep -o '[0-9]*'); do
			[ "$u" -le "${k##*:}" ] || fail "${k%%:*}: $u registers (at most ${k##*:})"
		done
	done
	# values: tests/run.bats (the TileGym f16 entries and cross_entropy's
	# ragged -inf padding against numpy)
}

@test "libdevice's inline rcp.approx becomes the intrinsic: gelu_fwd's elements do not all wait on their reciprocals (issue 17)" {
	require_ptxas
	# tanhf's reciprocal was inline PTX, which NVPTX keeps in order: all 32
	# elements' chains up to it came first, 84 registers on sm_90
	pipe "$ROOT/tests/tilegym/gelu_fwd.tileirbc" sm_90 >"$SCRATCH/g.ptx"
	grep -q 'rcp.approx.ftz.f32' "$SCRATCH/g.ptx"
	if grep -q 'begin inline asm' "$SCRATCH/g.ptx"; then fail "inline PTX left"; fi
	ptxas -arch=sm_90 -v "$SCRATCH/g.ptx" -o "$SCRATCH/g.cubin" 2>"$SCRATCH/l"
	for u in $(grep -o 'Used [0-9]*' "$SCRATCH/l" | grep -o '[0-9]*'); do
		[ "$u" -le 52 ] || fail "gelu_fwd: $u registers"
	done
	# values: tests/run.bats (tilegym/gelu against numpy)
}

@test "a row's tail is emitted two registers at a time: loads, math and stores interleaved, as NVIDIA's (issue 17)" {
	require_ptxas
	# layernorm_fwd: w and b are loaded after the reductions (sink.c); each
	# pair of elements is then loaded, combined and stored before the next
	# pair's loads (util_fuse.c), so the weights are not all live at once
	pipe "$ROOT/tests/tilegym/layernorm_fwd.tileirbc" sm_90 >"$SCRATCH/l.ptx"
	awk '/\.entry/ { n++ } n == 1' "$SCRATCH/l.ptx" >"$SCRATCH/e.ptx"
	first_st=$(grep -n 'st.global' "$SCRATCH/e.ptx" | head -1 | cut -d: -f1)
	last_ld=$(grep -n 'ld.global' "$SCRATCH/e.ptx" | tail -1 | cut -d: -f1)
	[ "$first_st" -lt "$last_ld" ] || fail "every load before the first store"
	ptxas -arch=sm_90 -v "$SCRATCH/l.ptx" -o "$SCRATCH/l.cubin" 2>"$SCRATCH/log"
	for u in $(grep -o 'Used [0-9]*' "$SCRATCH/log" | grep -o '[0-9]*'); do
		[ "$u" -le 70 ] || fail "layernorm_fwd: $u registers (89 whole-tile)"
	done
	# TILE_PTX_NO_FUSE=1: whole tiles, every load before the first store
	TILE_PTX_NO_FUSE=1 pipe "$ROOT/tests/tilegym/layernorm_fwd.tileirbc" sm_90 >"$SCRATCH/n.ptx"
	awk '/\.entry/ { n++ } n == 1' "$SCRATCH/n.ptx" >"$SCRATCH/e.ptx"
	first_st=$(grep -n 'st.global' "$SCRATCH/e.ptx" | head -1 | cut -d: -f1)
	last_ld=$(grep -n 'ld.global' "$SCRATCH/e.ptx" | tail -1 | cut -d: -f1)
	[ "$first_st" -gt "$last_ld" ]
	# values: tests/run.bats runs every TileGym and corpus kernel against numpy
}
