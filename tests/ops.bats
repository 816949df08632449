#!/usr/bin/env bats
# The rest of the non-MMA op roster (docs/lowering.md §9): atomics, globals,
# alloca, strided / gather-scatter / atomic-reduction views, loop / break,
# math with rounding modes, print / assert, 13.4 gdc and fence ops,
# --lineinfo and -g. Corpus kernels (histogram, debug_print, gather_scatter,
# indirect_gather, loop_accum), cuTile kernels (tests/pipeline/kernels/roster.py)
# and hand-written bytecode (tests/ops/gen-ops), for sm_80, sm_90, sm_100 and
# sm_120, through ptxas; check-lines on the PTX.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

PCORPUS="$BATS_TEST_DIRNAME/pipeline/corpus"
OPS="$BATS_TEST_DIRNAME/ops"

# assemble BYTECODE: PTX for every target in $SCRATCH/k.SM.ptx, ptxas accepts it, no spills.
assemble() {
	require_ptxas
	local bc=$1 sm
	for sm in ${ASM_TARGETS:-$TARGETS}; do
		pipe "$bc" "$sm" >"$SCRATCH/k.$sm.ptx" || fail "pipeline failed for $(basename "$bc") $sm"
		ptxas -v -arch="$sm" "$SCRATCH/k.$sm.ptx" -o "$SCRATCH/k.$sm.cubin" 2>"$SCRATCH/ptxas.$sm" ||
			fail "ptxas rejected $(basename "$bc") for $sm: $(head -5 "$SCRATCH/ptxas.$sm")"
		if grep 'spill' "$SCRATCH/ptxas.$sm" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then
			fail "spills for $sm: $(grep spill "$SCRATCH/ptxas.$sm")"
		fi
	done
}

# has FILE PATTERN...: every (fixed-string) pattern occurs in FILE
has() {
	local f=$1 p
	shift
	for p in "$@"; do
		grep -qF -- "$p" "$f" || fail "no '$p' in $(basename "$f")"
	done
}

# lacks FILE PATTERN...
lacks() {
	local f=$1 p
	shift
	for p in "$@"; do
		if grep -qF -- "$p" "$f"; then fail "unexpected '$p' in $(basename "$f")"; fi
	done
}

# The format strings (printfFormat*) of a PTX file, one per line, decoded.
formats() {
	python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
for m in re.finditer(r'\.global .*?\.b8 (printfFormat\S*)\[\d+\] = \{([^}]*)\}', s):
    b = bytes(int(x) for x in m.group(2).split(','))
    print(b.decode().replace('\n', '\\n'))
PY
}

@test "corpus kernels with atomics, print/assert, gathers and loops: every version to a cubin for four targets (--lineinfo -O3)" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do [ -x "$BIN/$s" ] || skip "$s not built"; done
	require_ptxas
	cd "$SCRATCH"
	for v in 13.1 13.2 13.3 13.4; do
		for k in histogram debug_print gather_scatter indirect_gather loop_accum; do
			for sm in $TARGETS; do
				run tileiras "$CORPUS/$v/$k.tileirbc" -o k.cubin --gpu-name $sm -O3 --lineinfo
				assert_success
				[ -s k.cubin ]
			done
		done
	done
}

@test "histogram: acq_rel device atomic add per element, after a barrier, masked by the bounds check" {
	assemble "$CORPUS/13.4/histogram.tileirbc"
	for sm in $TARGETS; do
		has "$SCRATCH/k.$sm.ptx" 'atom.acq_rel.gpu.global.add.u32' 'bar.sync'
	done
	# 256 bins over 128 threads: two atomics per thread, each under its mask
	[ "$(grep -c 'atom.acq_rel.gpu.global.add.u32' "$SCRATCH/k.sm_90.ptx")" = 2 ]
	lacks "$SCRATCH/k.sm_90.ptx" 'red.'
}

@test "every integer atomic mode, ordering and scope: atom when the old value is used, red when it is not" {
	assemble "$PCORPUS/atomic_int.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	for w in 32 64; do
		has "$p" "atom.relaxed.gpu.global.add.u$w" "atom.acquire.cta.global.max.s$w" \
			"atom.release.sys.global.min.s$w" "atom.acq_rel.gpu.global.and.b$w" \
			"atom.acq_rel.gpu.global.or.b$w" "atom.relaxed.cta.global.xor.b$w" \
			"atom.relaxed.gpu.global.exch.b$w" \
			"red.relaxed.gpu.global.add.u$w" "red.release.cta.global.max.s$w" \
			"red.relaxed.sys.global.min.s$w" "red.relaxed.gpu.global.and.b$w" \
			"red.release.gpu.global.or.b$w" "red.relaxed.gpu.global.xor.b$w" \
			"atom.acquire.gpu.global.add.u$w"
		# unsigned arrays: umax / umin
		has "$p" "atom.acquire.cta.global.max.u$w" "atom.release.sys.global.min.u$w" \
			"red.release.cta.global.max.u$w" "red.relaxed.sys.global.min.u$w"
	done
	# red cannot acquire: an unused acquire add stays an atom
	lacks "$p" 'red.acquire' 'red.acq_rel' 'red.relaxed.gpu.global.exch'
}

@test "float atomics: add .f32 .f64 .noftz.f16 .noftz.bf16, bf16 through a 16-bit cas loop below sm_90" {
	assemble "$PCORPUS/atomic_float.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" 'atom.relaxed.gpu.global.add.f32' 'atom.acq_rel.sys.global.add.f64' \
		'atom.relaxed.gpu.global.add.noftz.f16' 'atom.acq_rel.sys.global.add.noftz.bf16' \
		'red.relaxed.cta.global.add.f32' 'red.relaxed.cta.global.add.f64' \
		'red.relaxed.cta.global.add.noftz.f16' 'red.relaxed.cta.global.add.noftz.bf16'
	has "$SCRATCH/k.sm_80.ptx" 'atom.relaxed.gpu.global.cas.b16' 'atom.acq_rel.sys.global.cas.b16' \
		'atom.relaxed.gpu.global.add.noftz.f16'
	lacks "$SCRATCH/k.sm_80.ptx" 'add.noftz.bf16'
}

@test "compare-and-swap and exchange of ints and floats (32 and 64 bits)" {
	assemble "$PCORPUS/atomic_cas.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" 'atom.acq_rel.gpu.global.cas.b32' 'atom.acq_rel.gpu.global.cas.b64' \
		'atom.release.sys.global.exch.b32' 'atom.release.sys.global.exch.b64'
}

@test "a scalar atomic runs once per tile block and its old value reaches every thread" {
	assemble "$PCORPUS/atomic_counter.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	[ "$(grep -c 'atom.acq_rel.gpu.global.add.u32' "$p")" = 1 ]
	has "$p" 'st.shared' 'ld.shared' 'bar.sync'
}

@test "atomic_red_view_tko (partition and strided views): red.relaxed.gpu per element" {
	assemble "$PCORPUS/atomic_red_view.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" 'red.relaxed.gpu.global.add.f32' 'red.relaxed.gpu.global.add.u32'
	lacks "$SCRATCH/k.sm_90.ptx" 'atom.'
}

@test "strided views become tiled accesses stepping by the traversal strides; gather/scatter views masked pointer accesses" {
	assemble "$PCORPUS/strided_gather.tileirbc"
	tile-read "$PCORPUS/strided_gather.tileirbc" | tile-lower --gpu-name=sm_80 >"$SCRATCH/as.json"
	run tile-ir --emit=text "$SCRATCH/as.json"
	assert_output --partial 'nv_tileas.load'
	assert_output --partial 'nv_tileas.store'
	assert_output --regexp 'nv_tileas.tiled_load .*step = \[8, 16\]'
	refute_output --partial 'make_strided_view'
	refute_output --partial 'make_gather_scatter_view'
	has "$SCRATCH/k.sm_90.ptx" 'ld.global' 'st.global'
	grep -qE 'setp\.(lt|ge)\.u(32|64)' "$SCRATCH/k.sm_90.ptx"     # the gather's unsigned bounds check
	# aligned rows with a unit stride: the overlapping windows load 16 bytes at a time
	assemble "$PCORPUS/strided_v4.tileirbc"
	for sm in $TARGETS; do      # 16 bytes: v4.b32, or v2.b64 as LLVM spells it for sm_100+
		grep -qE 'ld\.global\.(v4\.b32|v2\.b64)' "$SCRATCH/k.$sm.ptx" || fail "no 16-byte load for $sm"
		grep -qE 'st\.global\.(v4\.b32|v2\.b64)' "$SCRATCH/k.$sm.ptx" || fail "no 16-byte store for $sm"
	done
	tile-read "$PCORPUS/strided_v4.tileirbc" | tile-lower --gpu-name=sm_80 | tile-ir --emit=text >"$SCRATCH/v4.txt"
	grep -q 'nv_tileas.tiled_load .*step = \[4, 64\].*vector_bytes = 16' "$SCRATCH/v4.txt" ||
		grep -q 'nv_tileas.tiled_load .*vector_bytes = 16.*step = \[4, 64\]' "$SCRATCH/v4.txt" ||
		fail "the 2-D window load is not a 16-byte tiled load: $(grep tiled_load "$SCRATCH/v4.txt")"
}

@test "loop / break / continue: nested loops carrying tiles and scalars, exits from inside ifs" {
	assemble "$PCORPUS/loops.tileirbc"
	tile-read "$PCORPUS/loops.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched >"$SCRATCH/sc.json"
	run tile-ir --emit=text "$SCRATCH/sc.json"
	assert_output --partial 'cuda_tile.loop'
	assert_output --partial 'cuda_tile.break'
	tile-ptx --emit=llvm "$SCRATCH/sc.json" >"$SCRATCH/k.ll"
	has "$SCRATCH/k.ll" 'loop.head' 'loop.exit'
}

@test "math: rounding modes and ftz as NVIDIA's tileiras emits them (f32)" {
	assemble "$PCORPUS/fround.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" add.rz.f32 sub.rm.ftz.f32 mul.rp.f32 div.rn.ftz.f32 div.approx.f32 \
		div.full.f32 sqrt.rz.f32 sqrt.approx.f32 ex2.approx.f32 ex2.approx.ftz.f32 \
		rsqrt.approx.ftz.f32 tanh.approx.f32 max.ftz.f32 min.NaN.f32
}

@test "math: f64 rounding modes; f16/bf16 directed rounding computed in f32 and converted in the same direction" {
	assemble "$PCORPUS/fround64.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" add.rz.f64 mul.rp.f64 div.rz.f64 sqrt.rp.f64
	assemble "$PCORPUS/fround16.tileirbc"
	for sm in $TARGETS; do
		has "$SCRATCH/k.$sm.ptx" add.rz.f32 cvt.rz.f16.f32 cvt.rz.bf16.f32 mul.rm.f32 cvt.rm.f16.f32 \
			cvt.rm.bf16.f32
	done
}

@test "math: integer division and remainder signedness, ceiling division, unsigned shifts" {
	assemble "$PCORPUS/imath2.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" div.s32 div.s64
	assemble "$PCORPUS/umath2.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" div.u32 shr.u32 div.u64
	lacks "$SCRATCH/k.sm_90.ptx" div.s32 div.s64
}

@test "debug_print: vprintf once per tile block, tiles as [a, b, ...], assert with file, line and position" {
	assemble "$CORPUS/13.4/debug_print.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	has "$p" '.extern .func  (.param .b32 func_retval0) vprintf' '.extern .func __assertfail' \
		'call.uni (retval0), vprintf' 'call.uni __assertfail' '%globaltimer'
	formats "$p" >"$SCRATCH/f"
	has "$SCRATCH/f" 'block %d sum %f\n' 'tile=[%f, %f, %f, %f, %f, %f, %f, %f]\n' \
		'tests/kernels/debug_print.py:13: tile block: [%d, %d, %d], position: [%d]: negative input\n'
	# 13.1: cuTile's own print mutex (a global, a loop around atomic_cas, an exchange)
	assemble "$CORPUS/13.1/debug_print.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	has "$p" '.visible .global .align 4 .b8 print_mutex[4] = {1}' 'atom.acq_rel.gpu.global.cas.b32' \
		'atom.acq_rel.gpu.global.exch.b32' 'vprintf'
}

@test "print: every integer width and float type, 2-D tiles, long tiles in 32-argument calls under a lock" {
	assemble "$PCORPUS/prints.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	formats "$p" >"$SCRATCH/f"
	has "$SCRATCH/f" 'pid %d i64 %lld u32 %u i8 %d f16 %f\n' \
		'tile [%5.2f, %5.2f, %5.2f, %5.2f, %5.2f, %5.2f, %5.2f, %5.2f] ints [%x, %x, %x, %x, %x, %x, %x, %x]\n' \
		'2d=[[%f, %f, %f, %f], [%f, %f, %f, %f]] half=[%f, %f, %f, %f, %f, %f, %f, %f]\n' \
		'long [[%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld], [' \
		'position: [%d, %d]: \n'
	# 64 elements: two vprintf calls, serialised across tile blocks
	has "$p" 'atom.acquire.gpu.global.cas.b32' 'atom.release.gpu.global.exch.b32' '__tile_print_mutex'
	# the vprintf buffer: i32 at 0, i64 at 8, u32 at 16, i8 promoted at 20, f16 as double at 24
	has "$p" 'st.local.b64' 'cvt.f64.f16'
}

@test "print_tko and assert under -g -O0 and --lineinfo: .loc lines name the kernel's source" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do [ -x "$BIN/$s" ] || skip "$s not built"; done
	require_ptxas
	cd "$SCRATCH"
	tileiras "$CORPUS/13.4/debug_print.tileirbc" --gpu-name sm_90 --lineinfo --emit=ptx -o li.ptx
	grep -q '^[[:space:]]*\.file[[:space:]]*1 "tests/kernels/debug_print.py"' li.ptx
	grep -q '^[[:space:]]*\.loc[[:space:]]*1 11 ' li.ptx    # the printf line
	run grep -c '^\.target .*, debug' li.ptx
	assert_output 0
	tileiras "$CORPUS/13.4/histogram.tileirbc" --gpu-name sm_100 -O3 --lineinfo --emit=ptx -o h.ptx
	grep -q '\.file[[:space:]]*1 "tests/kernels/histogram.py"' h.ptx
	grep -q '\.loc[[:space:]]*1 11 ' h.ptx                   # the atomic_add line
	for k in debug_print histogram loop_accum; do
		run tileiras "$CORPUS/13.4/$k.tileirbc" --gpu-name sm_90 -g -O0 -o g.cubin
		assert_success
	done
	tileiras "$PCORPUS/loops.tileirbc" --gpu-name sm_120 -g -O0 --emit=ptx -o g.ptx
	grep -q '^\.target sm_120, debug' g.ptx
}

@test "-g -O0: every roster and hand-made kernel assembles for four targets (PTX 7.5 on sm_80 for DWARF)" {
	for s in tile-read tile-lower tile-sched tile-ptx tile-pack; do [ -x "$BIN/$s" ] || skip "$s not built"; done
	require_ptxas
	cd "$SCRATCH"
	for k in atomic_int atomic_float atomic_cas atomic_counter atomic_red_view strided_gather loops fround \
		 fround64 fround16 imath2 umath2 prints gdc; do
		for sm in $TARGETS; do
			run tileiras "$PCORPUS/$k.tileirbc" --gpu-name $sm -g -O0 -o k.cubin
			assert_success
		done
	done
	for sm in $TARGETS; do
		run tileiras "$OPS/globals_alloca.tileirbc" --gpu-name $sm -g -O0 -o k.cubin
		assert_success
	done
	tileiras "$PCORPUS/atomic_float.tileirbc" --gpu-name sm_80 -g -O0 --emit=ptx -o af.ptx
	grep -q '^\.version 7\.5$' af.ptx
	grep -q '^\.target sm_80, debug$' af.ptx
}

@test "globals and get_global; alloca from the device heap, freed at return" {
	assemble "$OPS/globals_alloca.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	has "$p" '.visible .global .align 16 .b8 counters[16]' '.global .align 4 .b8 table[32] = {0, 0, 0, 0, 0, 0, 0, 63,' \
		'call.uni (retval0), __cuda_syscall_aligned_malloc' 'call.uni free' 'trap'
	# the counter: one atomic per tile block, its old value broadcast
	[ "$(grep -c 'atom.acq_rel.gpu.global.add.u32' "$p")" = 1 ]
	# a private constant table is read through the non-coherent path
	has "$p" 'ld.global.nc'
}

@test "get_index_space_shape of gather/scatter views is the tensor shape; a dense index is an element offset" {
	assemble "$OPS/view_shape.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	# NVIDIA's tileiras stores the two dynamic sizes as they are, for either sparse dim
	[ "$(grep -c 'st.global.b32' "$p")" = 5 ]
	lacks "$p" 'div.' 'rem.'
	# the dense column index 3 is an element offset (+12 bytes), not a tile
	# index (+192): in the load's address, or added to the pointer a
	# predicated ld reads (util_access.c: inline PTX takes a register)
	grep -qE 'ld.global.b32\s+%r[0-9]+, \[%rd[0-9]+\+12\]|add\.s64\s+%rd[0-9]+, %rd[0-9]+, 12;' "$p"
	lacks "$p" ', 192;' '+192]'
}

@test "13.4 sync ops: griddepcontrol on sm_90+, fence.proxy.alias (PTX 7.5 on sm_80), an acquire spin loop, early return" {
	assemble "$OPS/sync_ops.tileirbc"
	for sm in sm_90 sm_100 sm_120; do
		has "$SCRATCH/k.$sm.ptx" griddepcontrol.wait griddepcontrol.launch_dependents fence.proxy.alias
	done
	lacks "$SCRATCH/k.sm_80.ptx" griddepcontrol
	has "$SCRATCH/k.sm_80.ptx" '.version 7.5' fence.proxy.alias
	p=$SCRATCH/k.sm_90.ptx
	# the flag is read by one thread and broadcast, so every thread leaves the loop together
	[ "$(grep -c 'ld.acquire.gpu.global.b32' "$p")" = 1 ]
	has "$p" 'red.relaxed.cta.global.max.u32' 'st.release.sys.global.b32' 'mul.hi.u32'
	assemble "$PCORPUS/gdc.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" griddepcontrol.wait griddepcontrol.launch_dependents
	lacks "$SCRATCH/k.sm_80.ptx" griddepcontrol
}

@test "the roster kernels keep NVIDIA's parameter ABI (when NVIDIA's tileiras is installed)" {
	require_nvidia
	require_ptxas
	for k in "$OPS"/*.tileirbc "$CORPUS/13.4/histogram.tileirbc" "$CORPUS/13.4/debug_print.tileirbc"; do
		sm=sm_90
		case $(basename "$k") in
		print_narrow.* | f8_const_e8m0.* | convert_narrow.* | f4_*) sm=sm_100 ;;   # f8E8M0FNU, f4E2M1FN
		e5m3_*) continue ;;                                                           # sm_107 only
		esac
		env -u CUDA_HOME "$NVBIN/tileiras" --gpu-name=$sm "$k" -o "$SCRATCH/nv.cubin"
		run tileiras --gpu-name=$sm "$k" -o "$SCRATCH/ours.cubin"
		assert_success
		same_abi "$k"
	done
}

@test "nearest_away conversions (13.4): round toward zero, then away when |x| reaches the midpoint" {
	require_ptxas
	python3 - "$SCRATCH/ra.json" <<'PY'
import json, sys
loc = {"file": "handmade.py", "line": 3, "col": 1, "func": "ra"}
def kernel(name, src, dst, print_f8=False):
    T, D = "tile<128x%s>" % src, "tile<128x%s>" % dst
    ops = [
      {"op": "cuda_tile.reshape", "results": [{"id": "%1", "type": "tile<1xptr<%s>>" % src}], "operands": ["%0"], "loc": loc},
      {"op": "cuda_tile.broadcast", "results": [{"id": "%2", "type": "tile<128xptr<%s>>" % src}], "operands": ["%1"], "loc": loc},
      {"op": "cuda_tile.iota", "results": [{"id": "%3", "type": "tile<128xi32>"}], "loc": loc},
      {"op": "cuda_tile.offset", "results": [{"id": "%4", "type": "tile<128xptr<%s>>" % src}], "operands": ["%2", "%3"], "loc": loc},
      {"op": "cuda_tile.load_ptr_tko", "results": [{"id": "%5", "type": T}, {"id": "%6", "type": "token"}],
       "operands": ["%4"], "attrs": {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 0, 0, 0]}, "loc": loc},
      {"op": "cuda_tile.ftof", "results": [{"id": "%7", "type": D}], "operands": ["%5"],
       "attrs": {"rounding_mode": "nearest_away"}, "loc": loc}]
    if print_f8:
        ops.append({"op": "cuda_tile.print_tko", "results": [{"id": "%8", "type": "token"}], "operands": ["%7"],
                    "attrs": {"str": "%f\n", "operand_segment_sizes": [1, 0]}, "loc": loc})
    else:
        ops += [
          {"op": "cuda_tile.reshape", "results": [{"id": "%10", "type": "tile<1xptr<%s>>" % dst}], "operands": ["%9"], "loc": loc},
          {"op": "cuda_tile.broadcast", "results": [{"id": "%11", "type": "tile<128xptr<%s>>" % dst}], "operands": ["%10"], "loc": loc},
          {"op": "cuda_tile.offset", "results": [{"id": "%12", "type": "tile<128xptr<%s>>" % dst}], "operands": ["%11", "%3"], "loc": loc},
          {"op": "cuda_tile.store_ptr_tko", "results": [{"id": "%13", "type": "token"}], "operands": ["%12", "%7"],
           "attrs": {"memory_ordering_semantics": "weak", "operand_segment_sizes": [1, 1, 0, 0]}, "loc": loc}]
    ops.append({"op": "cuda_tile.return", "loc": loc})
    return {"op": "cuda_tile.entry",
            "attrs": {"sym_name": name, "function_type": {"type": "(tile<ptr<%s>>, tile<ptr<%s>>) -> ()" % (src, dst)}},
            "regions": [[{"args": [{"id": "%0", "type": "tile<ptr<%s>>" % src}, {"id": "%9", "type": "tile<ptr<%s>>" % dst}],
                          "ops": ops}]], "loc": loc}
doc = {"format": "tile-ir", "version": 1, "stage": "cuda_tile",
       "module": {"name": "kernels", "attrs": {"bytecode_version": "13.4"},
                  "ops": [kernel("ra16", "f32", "f16"), kernel("rabf", "f32", "bf16"), kernel("ra32", "f64", "f32"),
                          kernel("ra64h", "f64", "f16")]}}
json.dump(doc, open(sys.argv[1], "w"))
doc["module"]["ops"] = [kernel("f8", "f32", "f8E4M3FN", True)]
doc["module"]["ops"][0]["regions"][0][0]["ops"][5]["attrs"]["rounding_mode"] = "nearest_even"
json.dump(doc, open(sys.argv[1] + ".f8", "w"))
PY
	for sm in $TARGETS; do
		tile-lower --gpu-name=$sm "$SCRATCH/ra.json" | tile-sched | tile-ptx --gpu-name=$sm >"$SCRATCH/ra.ptx"
		ptxas -arch=$sm "$SCRATCH/ra.ptx" -o "$SCRATCH/ra.cubin"
		has "$SCRATCH/ra.ptx" cvt.rz.f16.f32 cvt.rz.bf16.f32 cvt.rz.f32.f64 cvt.rz.f16.f64 setp.ge
	done
	# printing 8-bit floats: each element decoded to double
	tile-lower --gpu-name=sm_90 "$SCRATCH/ra.json.f8" | tile-sched | tile-ptx --gpu-name=sm_90 >"$SCRATCH/f8.ptx"
	ptxas -arch=sm_90 "$SCRATCH/f8.ptx" -o "$SCRATCH/f8.cubin"
}

@test "alloca in a for body (malloc and free per iteration) and in if branches (freed at yield and before return)" {
	assemble "$OPS/alloca_scoped.tileirbc"
	for sm in $TARGETS; do
		p=$SCRATCH/k.$sm.ptx
		# three allocas, each freed once on its region's way out (NVIDIA's tileiras frees the same three)
		[ "$(grep -c 'call.uni (retval0), __cuda_syscall_aligned_malloc' "$p")" = 3 ]
		[ "$(grep -c 'call.uni free' "$p")" = 3 ]
	done
	# the loop's free comes before the branch back to the loop head: no allocation outlives its iteration
	python3 - "$SCRATCH/k.sm_90.ptx" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
body = s[s.index("__cuda_syscall_aligned_malloc, (param0"):]
first_free = body.index("call.uni free")
second_malloc = body.index("__cuda_syscall_aligned_malloc, (param0", 1)
assert first_free < second_malloc, "loop body allocation not freed before the next one"
PY
}

@test "constants of f8E4M3FN / f8E5M2 (sm_90+) and f8E8M0FNU (sm_100+) tiles converted to f32 and stored" {
	ASM_TARGETS="sm_90 sm_100 sm_120" assemble "$OPS/f8_const.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	# the dense tiles are .const byte arrays in the storage format, the splats immediates
	has "$p" '{0, 1, 56, 64, 126, 127, 128, 129, 184, 192, 254, 255, 124, 60, 16, 8}' \
		cvt.rn.f16x2.e4m3x2 cvt.rn.f16x2.e5m2x2
	ASM_TARGETS="sm_100 sm_120" assemble "$OPS/f8_const_e8m0.tileirbc"
	p=$SCRATCH/k.sm_100.ptx
	# E8M0 is an f32 exponent field: 0x38 << 23 (folded), 0 -> 2^-127 (0x00400000), 0xff -> NaN
	has "$p" 469762048 4194304 2147483647
	run pipe "$OPS/f8_const_e8m0.tileirbc" sm_90
	[ "$status" -ne 0 ]
	[[ "$output" == *"f8E8M0FNU is not supported on sm_90"* ]]
}

@test "print_tko of f8E4M3FN, f8E5M2 and f8E8M0FNU tiles: each element decoded to double for vprintf" {
	ASM_TARGETS="sm_100 sm_120" assemble "$OPS/print_narrow.tileirbc"
	p=$SCRATCH/k.sm_100.ptx
	[ "$(grep -c 'call.uni.*vprintf\|vprintf,' "$p")" -ge 3 ]
	# NaN (all three formats) and infinity (E5M2) are decoded, not passed through
	has "$p" 0d7FF8000000000000 0d7FF0000000000000
}

@test "f4E2M1FN through partition views: whole bytes per thread (element 2i in the low nibble), sm_100f / sm_120f cvt" {
	ASM_TARGETS="sm_100 sm_120" assemble "$OPS/f4_views.tileirbc"
	for sm in sm_100 sm_120; do
		p=$SCRATCH/k.$sm.ptx
		has "$p" ".target ${sm}f" '.version 8.8' 'cvt.rn.satfinite.e2m1x2.f32'
		# the f4 tile moves as bytes: 4x64 f4 = 128 bytes, one byte (two elements) per thread
		[ "$(grep -c 'st.global.b8' "$p")" -eq 1 ] || fail "expected one byte store per thread in $sm"
		[ "$(grep -c 'ld.global.b8' "$p")" -eq 1 ] || fail "expected one byte load per thread in $sm"
		lacks "$p" ld.local st.local
	done
	for sm in sm_80 sm_90; do
		run pipe "$OPS/f4_views.tileirbc" $sm
		[ "$status" -eq 1 ]
		[[ "$output" == *"f4E2M1FN is not supported on $sm"* ]]
	done
	# f4 has no per-element address: tiles of f4 pointers are rejected when read, as NVIDIA's reader does
	run tile-read "$OPS/invalid/f4_ptr_tile.tileirbc"
	[ "$status" -eq 1 ]
	[[ "$output" == *"offset 0x"*"tiles of ptr<f4E2M1FN> must have rank 0; use an f4 tile view"* ]]
}

@test "f4E2M1FN constants: one byte per element in the bytecode, decoded by integer ops (folded for a splat); print of f4" {
	ASM_TARGETS="sm_100 sm_120" assemble "$OPS/f4_const.tileirbc"
	p=$SCRATCH/k.sm_100.ptx
	has "$p" 1069547520 'cvt.rn.satfinite.e2m1x2.f32'      # the splat 1.5 as f32 bits
	[ "$(formats "$p")" = 'f4: [%f, %f, %f, %f, %f, %f, %f, %f]\n' ]
	# each printed element is decoded to a double by integer ops and passed to vprintf
	has "$p" vprintf
	run pipe "$OPS/f4_const.tileirbc" sm_90
	[ "$status" -eq 1 ]
	[[ "$output" == *"f4E2M1FN is not supported on sm_90"* ]]
}

@test "conversions to f4E2M1FN, f8E8M0FNU (zero, positive_inf) and tf32 (nearest_even, zero, nearest_away)" {
	ASM_TARGETS="sm_100 sm_120" assemble "$OPS/convert_narrow.tileirbc"
	has "$SCRATCH/k.sm_100.ptx" '.target sm_100f' cvt.rn.satfinite.e2m1x2.f32 cvt.rz.satfinite.ue8m0x2.f32 \
		cvt.rp.satfinite.ue8m0x2.f32 cvt.rn.tf32.f32 cvt.rna.tf32.f32
	# tf32 alone needs no family-specific target; below sm_90 nearest_even is done on the bits
	assemble "$OPS/convert_tf32.tileirbc"
	has "$SCRATCH/k.sm_90.ptx" '.target sm_90' cvt.rn.tf32.f32 cvt.rna.tf32.f32
	lacks "$SCRATCH/k.sm_90.ptx" '.target sm_90f' '.target sm_90a'
	has "$SCRATCH/k.sm_80.ptx" cvt.rna.tf32.f32 'and.b32' '-8192'
	lacks "$SCRATCH/k.sm_80.ptx" cvt.rn.tf32.f32
	# two registers per packed cvt: 512 f32 -> e4m3 -> f32 over 128 threads is 4 registers each
	ASM_TARGETS="sm_90 sm_100" assemble "$OPS/f8_roundtrip.tileirbc"
	[ "$(grep -c 'cvt.rn.satfinite.e4m3x2.f32' "$SCRATCH/k.sm_90.ptx")" -eq 2 ]
	[ "$(grep -c 'cvt.rn.f16x2.e4m3x2' "$SCRATCH/k.sm_90.ptx")" -eq 2 ]
	# tf32 is an sm_80 type
	run pipe "$OPS/convert_tf32.tileirbc" sm_75
	[ "$status" -eq 1 ]
	[[ "$output" == *"tf32 is not supported on sm_75"* ]]
}

@test "40 allocas live at once; a kernel of single-element tiles gets one warp, as NVIDIA's does" {
	assemble "$OPS/alloca_many.tileirbc"
	p=$SCRATCH/k.sm_90.ptx
	[ "$(grep -c 'call.uni (retval0), __cuda_syscall_aligned_malloc\|__cuda_syscall_aligned_malloc,$' "$p")" -ge 1 ]
	[ "$(grep -A2 'call.uni' "$p" | grep -c '__cuda_syscall_aligned_malloc')" -eq 40 ]
	[ "$(grep -A2 'call.uni' "$p" | grep -c 'free')" -eq 40 ]
	has "$p" '.reqntid 32'
	# with --num-warps the user's choice stands
	tile-read "$OPS/alloca_many.tileirbc" | tile-lower --gpu-name=sm_90 | tile-sched --num-warps=4 |
		tile-ptx --gpu-name=sm_90 >"$SCRATCH/w4.ptx"
	has "$SCRATCH/w4.ptx" '.reqntid 128'
}
