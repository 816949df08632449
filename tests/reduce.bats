#!/usr/bin/env bats
# Reductions, scans and shape ops end to end (docs/lowering.md §8):
# tile-read | tile-lower --gpu-name=sm_80 | tile-sched | tile-ptx on the corpus kernels that
# use them and on tests/reduce/corpus (tests/reduce/kernels/redshape.py),
# for sm_80, sm_90, sm_100 and sm_120; the PTX is checked for the shape
# of the code (warp shuffles, shared-memory rounds, barriers, no local
# memory), ptxas for spills, and a host SIMT emulator for the values.
load helpers

setup() { setup_scratch; }
teardown() { teardown_scratch; }

RCORPUS="$BATS_TEST_DIRNAME/reduce/corpus"
KERNELS="reduce_sum reduce_max softmax layer_norm prefix_sum transpose permute3d"

# count PATTERN FILE
count() { grep -c -- "$1" "$2" || true; }

@test "layout maps, slices, scan shapes, pack/unpack layouts, bank swizzles (unit)" {
	# tests/reduce/layout_map_test.c, built by make
	run "$BIN/../tests/unit-layout-map"
	assert_success
	assert_output "all checks passed"
}

@test "corpus reductions, scans and permutes assemble for sm_80 sm_90 sm_100 sm_120, no local memory, no spills" {
	for k in $KERNELS; do
		for v in 13.1 13.4; do
			assemble_named "$CORPUS/$v/$k.tileirbc" "$k"
		done
	done
}

@test "warp reductions are shfl.sync.bfly; a reduction across warps is one shared-memory round" {
	assemble_named "$CORPUS/13.3/reduce_sum.tileirbc" rs
	f=$SCRATCH/rs.sm_90.ptx
	grep -q 'shfl.sync.bfly.b32' "$f"
	# 32x64 along the rows: a reduced tile keeps 16 elements of a row in a
	# thread (NVIDIA's layout too), 4 lanes a row: 2 shuffles, no barrier
	[ "$(count 'shfl.sync.bfly' "$f")" -eq 4 ] || fail "$(count 'shfl.sync.bfly' "$f") shuffles"
	[ "$(count 'bar.sync' "$f")" -eq 0 ] || fail "$(count 'bar.sync' "$f") barriers"
	# rows spread over lanes and warps (the layout the load alone would take):
	# 16 rows a thread, reduce-scattered over 5 lane bits (8+4+2+1+1 shuffles),
	# then one round for the warp bit: one bar.sync per kernel
	TILE_SCHED_PLAIN_LAYOUTS=1 assemble_named "$CORPUS/13.3/reduce_sum.tileirbc" rsp
	f=$SCRATCH/rsp.sm_90.ptx
	[ "$(count 'shfl.sync.bfly' "$f")" -eq 32 ] || fail "$(count 'shfl.sync.bfly' "$f") shuffles"
	[ "$(count 'bar.sync' "$f")" -eq 2 ] || fail "$(count 'bar.sync' "$f") barriers"
	# a row longer than a warp holds (2x1024, 16 a thread) crosses two warps:
	# 5 shuffles and one round per reduction
	assemble_named "$RCORPUS/softmax_c.tileirbc" sc
	[ "$(count 'bar.sync' "$SCRATCH/sc.sm_90.ptx")" -eq 2 ] || fail "softmax_c: $(count 'bar.sync' "$SCRATCH/sc.sm_90.ptx") barriers"
	# reduce_max along dim 0: registers and warps only, no shuffles
	assemble_named "$CORPUS/13.3/reduce_max.tileirbc" rm
	[ "$(count 'shfl.sync' "$SCRATCH/rm.sm_90.ptx")" -eq 0 ]
	[ "$(count 'bar.sync' "$SCRATCH/rm.sm_90.ptx")" -eq 1 ]
}

@test "softmax and layer_norm: the reduced rows broadcast back without a conversion" {
	for k in softmax layer_norm; do
		tile-read "$CORPUS/13.3/$k.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --emit=text >"$SCRATCH/$k.txt"
		if grep -q 'convert_layout' "$SCRATCH/$k.txt"; then fail "$k: a convert_layout"; fi
		grep -q 'cuda_tile.reduce' "$SCRATCH/$k.txt"
		assemble_named "$CORPUS/13.3/$k.tileirbc" "$k"
		grep -q 'shfl.sync.bfly' "$SCRATCH/$k.sm_90.ptx"
	done
	# softmax 4x256: 8 elements of a row a thread, a row a warp, the lanes
	# interleaved (NVIDIA's layout: each of a warp's eight 4-byte accesses
	# covers 128 contiguous bytes; on an H200 0.30 -> 0.07 ms); each row
	# result in every thread of the row's warp; two reductions of 5 shuffles
	grep -q 'layout(%[0-9]* = "(8,32,4):(32,1,256)")' "$SCRATCH/softmax.txt"
	tile-read "$CORPUS/13.3/softmax.tileirbc" | tile-lower --gpu-name=sm_80 | TILE_SCHED_CONTIGUOUS_ROWS=1 tile-sched --emit=text >"$SCRATCH/smc.txt"
	grep -q 'layout(%[0-9]* = "(8,32,4):(1,8,256)")' "$SCRATCH/smc.txt"
	grep -q 'layout(%[0-9]* = "(1,32,4):(0,0,1)")' "$SCRATCH/softmax.txt"
	[ "$(count 'bar.sync' "$SCRATCH/softmax.sm_90.ptx")" -eq 0 ]
	[ "$(count 'shfl.sync.bfly' "$SCRATCH/softmax.sm_90.ptx")" -eq 10 ]
	# with rows over warps: two reductions, one barrier each; the second needs
	# none before it (it writes the other half of the buffer)
	TILE_SCHED_PLAIN_LAYOUTS=1 assemble_named "$CORPUS/13.3/softmax.tileirbc" smp
	[ "$(count 'bar.sync' "$SCRATCH/smp.sm_90.ptx")" -eq 2 ]
	[ "$(count 'shfl.sync.bfly' "$SCRATCH/smp.sm_90.ptx")" -eq 12 ]
}

@test "prefix_sum: shfl.sync.up within warps, one round for the warp totals" {
	assemble_named "$CORPUS/13.3/prefix_sum.tileirbc" ps
	f=$SCRATCH/ps.sm_90.ptx
	grep -q 'shfl.sync.up.b32' "$f"
	if grep -q 'shfl.sync.bfly' "$f"; then fail "butterflies in a scan"; fi
	[ "$(count 'bar.sync' "$f")" -eq 2 ]
}

@test "transpose and permute3d: one padded shared-memory conversion, no shuffles" {
	for k in transpose permute3d; do
		tile-read "$CORPUS/13.3/$k.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --emit=text >"$SCRATCH/$k.txt"
		[ "$(count 'nv_tileas.convert_layout' "$SCRATCH/$k.txt")" -eq 1 ] || fail "$k: not one conversion"
		assemble_named "$CORPUS/13.3/$k.tileirbc" "$k"
		f=$SCRATCH/$k.sm_90.ptx
		[ "$(count 'bar.sync' "$f")" -eq 1 ] || fail "$k: barriers"
		if grep -q 'shfl' "$f"; then fail "$k: shuffles"; fi
	done
	# the transpose reads columns: one element of padding every 64 (32x64 f32:
	# 8192 + 128 bytes), register offsets as immediates, no XOR swizzle needed
	grep -q '\.shared .align 16 .b8 __tile_xchg_transpose_[A-Za-z0-9_]*\[8720\]' "$SCRATCH/transpose.sm_90.ptx"
	grep -q 'st.shared.b32 	\[%r[0-9]*+[0-9]*\]' "$SCRATCH/transpose.sm_90.ptx"
	if grep -q 'xor.b32' "$SCRATCH/transpose.sm_90.ptx"; then fail "XORs in the transpose"; fi
}

@test "more reductions, scans and shape ops (tests/reduce/corpus) assemble for every target" {
	for f in "$RCORPUS"/*.tileirbc; do
		assemble_named "$f" "$(basename "$f" .tileirbc)"
	done
	# argmax: two operands through the same shuffles; cat/extract/reshape/pack: register moves only
	grep -q 'shfl.sync.bfly' "$SCRATCH/argmax_rows.sm_90.ptx"
	for k in cat_extract reshape_mix pack_unpack; do
		if grep -q 'bar.sync\|shfl' "$SCRATCH/$k.sm_90.ptx"; then fail "$k: data moved between threads"; fi
	done
	# two reductions in a loop body: in warps, no barrier; with rows over
	# warps the buffer halves alternate across iterations too, so one barrier
	# each and none before the first
	[ "$(count 'bar.sync' "$SCRATCH/rowsum_loop.sm_90.ptx")" -eq 0 ]
	TILE_SCHED_PLAIN_LAYOUTS=1 assemble_named "$RCORPUS/rowsum_loop.tileirbc" rlp
	[ "$(count 'bar.sync' "$SCRATCH/rlp.sm_90.ptx")" -eq 2 ]
	# a scan whose layout (from a transpose and a reshape) is not registers-
	# lanes-warps along the dim runs in a blocked layout between two conversions
	tile-read "$RCORPUS/scan_permuted.tileirbc" | tile-lower --gpu-name=sm_80 | tile-sched --emit=text >"$SCRATCH/sp.txt"
	[ "$(count 'nv_tileas.convert_layout' "$SCRATCH/sp.txt")" -eq 2 ]
	# a reverse scan shuffles down
	grep -q 'shfl.sync.down' "$SCRATCH/cumsum_rows_rev.sm_90.ptx"
	# f64 / i64 reductions shuffle both halves
	grep -q 'shfl.sync.bfly' "$SCRATCH/reduce_types.sm_90.ptx"
}

@test "the verifier's valid kernels with reduce, scan, permute, cat, extract, insert (other unsupported ops stripped)" {
	require_ptxas
	for f in control shape; do
		python3 - "$ROOT/tests/verify/valid/$f.json" >"$SCRATCH/$f.json" <<'PY'
import json, sys
KEEP_OUT = {"loop", "break", "atomic_cas_tko", "atomic_rmw_tko", "alloca", "print_tko", "mmaf", "mmai",
            "mmaf_scaled", "get_global", "assert", "atomic_red_view_tko", "make_strided_view",
            "make_gather_scatter_view"}
d = json.load(open(sys.argv[1]))
def strip(ops, dead):
    out = []
    for op in ops:
        name = op["op"].split(".", 1)[1]
        if name in KEEP_OUT or set(op.get("operands", [])) & dead:
            if name in ("continue", "yield", "return", "break"):
                raise ValueError(name)
            dead.update(r["id"] for r in op.get("results", []))
            continue
        for reg in op.get("regions", []):
            for b in reg:
                b["ops"] = strip(b["ops"], dead)
        out.append(op)
    return out
ents = []
for e in d["module"]["ops"]:
    try:
        e["regions"][0][0]["ops"] = strip(e["regions"][0][0]["ops"], set())
        ents.append(e)
    except ValueError:
        pass
d["module"]["ops"] = ents
print(json.dumps(d))
PY
		for sm in $TARGETS; do
			tile-lower --gpu-name=$sm "$SCRATCH/$f.json" | tile-sched | tile-ptx --gpu-name=$sm >"$SCRATCH/$f.ptx" ||
				fail "$f $sm"
			ptxas -arch=$sm "$SCRATCH/$f.ptx" -o "$SCRATCH/$f.cubin" || fail "ptxas: $f $sm"
		done
	done
	grep -q '"cuda_tile.reduce"' "$SCRATCH/control.json"
	grep -q '"cuda_tile.scan"' "$SCRATCH/control.json"
	for op in permute cat extract insert; do grep -q "\"cuda_tile.$op\"" "$SCRATCH/shape.json" || fail "no $op"; done
}

@test "other block sizes: 1, 2 and 8 warps" {
	require_ptxas
	for w in 1 2 8; do
		for k in reduce_sum softmax layer_norm prefix_sum transpose; do
			pipe "$CORPUS/13.3/$k.tileirbc" sm_90 --num-warps=$w >"$SCRATCH/k.ptx" || fail "$k $w warps"
			ptxas -arch=sm_90 "$SCRATCH/k.ptx" -o "$SCRATCH/k.cubin" || fail "ptxas: $k $w warps"
		done
	done
}

@test "the values: every kernel on tile-run against numpy (1, 4 and 8 warps)" {
	[ -x "$BIN/tile-run" ] || skip "tile-run not built"
	/usr/bin/python3 -c 'import numpy' 2>/dev/null || skip "no numpy for /usr/bin/python3"
	local rc="/usr/bin/python3 $BATS_TEST_DIRNAME/run/run-corpus --bin $BIN --versions 13.3 --targets sm_90"
	run $rc --warps 4 reduce reduce_sum reduce_max softmax layer_norm prefix_sum transpose permute3d
	echo "$output" | grep -v '^ok' || true
	assert_success
	# the XOR swizzle where the padding would do
	TILE_PTX_FORCE_SWIZZLE=1 run $rc --warps 4,8 transpose permute3d transpose_c bcast_rows_cols
	echo "$output" | grep -v '^ok' || true
	assert_success
	# the layouts loads alone would give: rows over warps, cross-warp rounds
	TILE_SCHED_PLAIN_LAYOUTS=1 run $rc --warps 1,4,8 reduce_sum/f32 softmax layer_norm/f32 rowsum_loop bias2d \
		topk/f32 rms_norm/f32
	echo "$output" | grep -v '^ok' || true
	assert_success
	TILE_PTX_FORCE_SWIZZLE=1 pipe "$CORPUS/13.3/transpose.tileirbc" sm_90 >"$SCRATCH/t.ptx"
	grep -q 'xor.b32' "$SCRATCH/t.ptx"
	run $rc --warps 1,8 reduce_sum/f32 reduce_max softmax layer_norm/f32 prefix_sum/i32 transpose argmax_rows \
		cumsum_rows_rev scan_pair cat_extract sum_all
	echo "$output" | grep -v '^ok' || true
	assert_success
}

@test "the driver: corpus reductions to cubins" {
	[ -x "$BIN/tileiras" ] && [ -x "$BIN/tile-pack" ] || skip "driver or tile-pack not built"
	require_ptxas
	for k in $KERNELS; do
		run tileiras --gpu-name=sm_90 "$CORPUS/13.4/$k.tileirbc" -o "$SCRATCH/$k.cubin"
		assert_success
		[ -s "$SCRATCH/$k.cubin" ]
	done
}
